// The one generic REST client: any resource that discovery knows, every verb, with content negotiation
// (Table for people, plain JSON for programs). The CLI, and later the scheduler and node agent, share it.
import { DiscoveryClient } from "./discovery.ts";
import { ApiError, errorFromResponse } from "./errors.ts";
import { loadClientConfig, type ClientConfig, type KubeconfigFlags } from "./kubeconfig.ts";
import type { ResourceRef } from "./resources.ts";
import { Transport } from "./transport.ts";

export type Obj = Record<string, any>;

/** kubectl's Accept header for human-readable output: a server-side Table, else the plain object. */
export const BINARY_ACCEPT = "application/vnd.kubernetes.protobuf,application/json";
export const TABLE_ACCEPT = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json";
export const PATCH_TYPES = {
  json: "application/json-patch+json",
  merge: "application/merge-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
} as const;
export type PatchType = keyof typeof PATCH_TYPES;

export interface ListOptions {
  namespace?: string;
  labelSelector?: string;
  fieldSelector?: string;
  /** Page size (`limit`); 0 or undefined asks for everything at once. */
  limit?: number;
  continue?: string;
  resourceVersion?: string;
  accept?: string;
  /** For Table answers: None, Metadata (the server's default) or Object. */
  includeObject?: "None" | "Metadata" | "Object";
  signal?: AbortSignal;
}

export interface WatchOptions extends ListOptions {
  allowWatchBookmarks?: boolean;
  timeoutSeconds?: number;
}

export interface WriteOptions {
  namespace?: string;
  dryRun?: boolean;
  fieldManager?: string;
  signal?: AbortSignal;
}

export interface DeleteOptions {
  namespace?: string;
  gracePeriodSeconds?: number;
  propagationPolicy?: "Background" | "Foreground" | "Orphan";
  dryRun?: boolean;
  preconditions?: { uid?: string; resourceVersion?: string };
}

export interface WatchEvent { type: "ADDED" | "MODIFIED" | "DELETED" | "BOOKMARK" | "ERROR"; object: Obj }

export class Client {
  readonly discovery: DiscoveryClient;

  constructor(readonly transport: Transport) {
    this.discovery = new DiscoveryClient(transport, transport.config.cacheDir);
  }

  /** A client from kubeconfig flags; `onWarning` is told the server's warnings (the CLI prints them). */
  static async load(flags: KubeconfigFlags = {}, onWarning?: (text: string) => void): Promise<Client> {
    const t = new Transport(await loadClientConfig(flags));
    t.onWarning = onWarning;
    return new Client(t);
  }

  get config(): ClientConfig { return this.transport.config; }

  /** The URL path of a collection, or of one object when name is given. */
  path(r: ResourceRef, namespace?: string, name?: string, subresource?: string): string {
    let p = r.group ? `/apis/${r.group}/${r.version}` : `/api/${r.version}`;
    if (r.namespaced && namespace) p += `/namespaces/${encodeURIComponent(namespace)}`;
    p += `/${r.resource}`;
    if (name !== undefined) {
      if (!name) throw new Error(`resource name may not be empty`);
      p += `/${encodeURIComponent(name)}`;
    }
    if (subresource) p += `/${subresource}`;
    return p;
  }

  /** One page of a list (or a Table when accept asks for it). */
  async list(r: ResourceRef, o: ListOptions = {}): Promise<Obj> {
    return this.transport.json(this.path(r, o.namespace), {
      accept: o.accept, signal: o.signal,
      query: {
        labelSelector: o.labelSelector, fieldSelector: o.fieldSelector, limit: o.limit || undefined,
        continue: o.continue, resourceVersion: o.resourceVersion, includeObject: o.includeObject,
      },
    });
  }

  /** Every page of a list, following `continue` tokens. */
  async *listPages(r: ResourceRef, o: ListOptions = {}): AsyncGenerator<Obj> {
    let cont: string | undefined;
    do {
      const page = await this.list(r, { ...o, continue: cont });
      yield page;
      cont = page.metadata?.continue || undefined;
    } while (cont);
  }

  /** All items of a list, across pages. */
  async listAll(r: ResourceRef, o: ListOptions = {}): Promise<{ items: Obj[]; resourceVersion: string }> {
    const items: Obj[] = [];
    let rv = "";
    for await (const page of this.listPages(r, o)) {
      items.push(...(page.items ?? []));
      rv = page.metadata?.resourceVersion ?? rv;
    }
    return { items, resourceVersion: rv };
  }

  async get(r: ResourceRef, name: string, o: { namespace?: string; accept?: string; includeObject?: ListOptions["includeObject"]; signal?: AbortSignal } = {}): Promise<Obj> {
    return this.transport.json(this.path(r, o.namespace, name), { accept: o.accept, signal: o.signal, query: { includeObject: o.includeObject } });
  }

  /** A watch as a stream of events (one JSON object per line); ends when the server closes it. */
  async *watch(r: ResourceRef, o: WatchOptions = {}): AsyncGenerator<WatchEvent> {
    const res = await this.transport.request(this.path(r, o.namespace), {
      accept: o.accept, signal: o.signal,
      query: {
        watch: "true", labelSelector: o.labelSelector, fieldSelector: o.fieldSelector, resourceVersion: o.resourceVersion,
        allowWatchBookmarks: o.allowWatchBookmarks ? "true" : undefined, timeoutSeconds: o.timeoutSeconds, includeObject: o.includeObject,
      },
    });
    if (!res.body) return;
    yield* jsonLines<WatchEvent>(res.body, o.signal);
  }

  /** POSTs obj to the collection, or with `subresource` to that subresource of the object `name` (pods/binding). */
  async create(r: ResourceRef, obj: Obj, o: WriteOptions & { name?: string; subresource?: string } = {}): Promise<Obj> {
    const path = o.subresource ? this.path(r, o.namespace ?? obj.metadata?.namespace, o.name ?? obj.metadata?.name, o.subresource) : this.path(r, o.namespace ?? obj.metadata?.namespace);
    return this.transport.json(path, {
      signal: o.signal, method: "POST", body: JSON.stringify(obj), contentType: "application/json",
      query: { dryRun: o.dryRun ? "All" : undefined, fieldManager: o.fieldManager },
    });
  }

  async update(r: ResourceRef, obj: Obj, o: WriteOptions & { subresource?: string } = {}): Promise<Obj> {
    return this.transport.json(this.path(r, o.namespace ?? obj.metadata?.namespace, obj.metadata?.name, o.subresource), {
      signal: o.signal, method: "PUT", body: JSON.stringify(obj), contentType: "application/json",
      query: { dryRun: o.dryRun ? "All" : undefined, fieldManager: o.fieldManager },
    });
  }

  async patch(r: ResourceRef, name: string, patch: unknown, type: PatchType, o: WriteOptions & { force?: boolean; subresource?: string } = {}): Promise<Obj> {
    return this.transport.json(this.path(r, o.namespace, name, o.subresource), {
      signal: o.signal, method: "PATCH", body: typeof patch === "string" ? patch : JSON.stringify(patch), contentType: PATCH_TYPES[type],
      query: { dryRun: o.dryRun ? "All" : undefined, fieldManager: o.fieldManager, force: o.force ? "true" : undefined },
    });
  }

  /** Server-side apply of a whole object (fieldManager is required by the server). */
  async apply(r: ResourceRef, obj: Obj, o: WriteOptions & { force?: boolean; fieldManager: string }): Promise<Obj> {
    return this.patch(r, obj.metadata.name, obj, "apply", { ...o, namespace: o.namespace ?? obj.metadata?.namespace });
  }

  /** Deletes one object; returns the object (still terminating) or the server's Status. */
  async delete(r: ResourceRef, name: string, o: DeleteOptions = {}): Promise<Obj> {
    const body: Obj = { kind: "DeleteOptions", apiVersion: "v1" };
    if (o.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = o.gracePeriodSeconds;
    if (o.propagationPolicy) body.propagationPolicy = o.propagationPolicy;
    if (o.dryRun) body.dryRun = ["All"];
    if (o.preconditions) body.preconditions = o.preconditions;
    return this.transport.json(this.path(r, o.namespace, name), { method: "DELETE", body: JSON.stringify(body), contentType: "application/json" });
  }

  async deleteCollection(r: ResourceRef, o: DeleteOptions & ListOptions = {}): Promise<Obj> {
    const body: Obj = { kind: "DeleteOptions", apiVersion: "v1" };
    if (o.gracePeriodSeconds !== undefined) body.gracePeriodSeconds = o.gracePeriodSeconds;
    if (o.propagationPolicy) body.propagationPolicy = o.propagationPolicy;
    if (o.dryRun) body.dryRun = ["All"];
    return this.transport.json(this.path(r, o.namespace), {
      method: "DELETE", body: JSON.stringify(body), contentType: "application/json",
      query: { labelSelector: o.labelSelector, fieldSelector: o.fieldSelector },
    });
  }
}

/**
 * The JSON objects of a stream, one per line. Lines are cut from the decoded text without copying the
 * rest of the buffer per line, so a burst of many small events costs one pass over its bytes.
 */
async function* jsonLines<T>(body: ReadableStream<Uint8Array>, signal?: AbortSignal): AsyncGenerator<T> {
  const decoder = new TextDecoder();
  let rest = "";
  try {
    for await (const chunk of body as unknown as AsyncIterable<Uint8Array>) {
      const text = rest + decoder.decode(chunk, { stream: true });
      let start = 0;
      for (let nl = text.indexOf("\n"); nl >= 0; nl = text.indexOf("\n", start)) {
        if (nl > start) yield JSON.parse(text.slice(start, nl)) as T;
        start = nl + 1;
      }
      rest = start ? text.slice(start) : text;
    }
  } catch (e) {
    if ((e as Error)?.name === "AbortError" || signal?.aborted) return;
    throw e;
  }
  if (rest.trim()) yield JSON.parse(rest) as T;
}

/** True for a 404 answer (the object, or the type, does not exist). */
export const isNotFound = (e: unknown) => e instanceof ApiError && e.code === 404;
export const isAlreadyExists = (e: unknown) => e instanceof ApiError && e.code === 409 && e.reason === "AlreadyExists";
export const isConflict = (e: unknown) => e instanceof ApiError && e.code === 409 && e.reason === "Conflict";
export { ApiError, errorFromResponse };
