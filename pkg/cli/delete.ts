// `kite delete`: objects named by argument, selected by label/field selector or --all, or read from -f
// manifests. Each deletion prints `kind "name" deleted`; then (with --wait, the default) the command
// watches until every deleted object is really gone (finalizers, graceful pod deletion, namespaces).
import { ApiError, Client, isNotFound, type DeleteOptions as ApiDeleteOptions, type Obj } from "../client/client.ts";
import { kindName, qualifiedResource, type ApiResource } from "../client/discovery.ts";
import { CliError, ConnectionError, formatError } from "../client/errors.ts";
import type { KubeconfigFlags } from "../client/kubeconfig.ts";
import { UsageError } from "./args.ts";
import { readManifests, where } from "./manifests.ts";
import { errLine, flush, inOrder, out, printWarning } from "./output.ts";
import { planRequests } from "./resources.ts";
import { nameSelector } from "../util/fieldselector.ts";

export interface DeleteOptions {
  args: string[];
  filenames: string[];
  recursive: boolean;
  labelSelector?: string;
  fieldSelector?: string;
  all: boolean;
  allNamespaces: boolean;
  wait: boolean;
  /** 0 waits without limit. */
  timeoutMs: number;
  /** -1 leaves the type's default. */
  gracePeriod: number;
  now: boolean;
  force: boolean;
  cascade: "background" | "foreground" | "orphan";
  ignoreNotFound: boolean;
  dryRun: "none" | "server" | "client";
  output: "" | "name";
}

interface Target { res: ApiResource; name: string; namespace?: string }
interface Deleted extends Target { uid?: string; resourceVersion?: string }

const POLICY = { background: "Background", foreground: "Foreground", orphan: "Orphan" } as const;

export async function runDelete(o: DeleteOptions, flags: KubeconfigFlags): Promise<number> {
  if (o.filenames.length && o.args.length) throw new CliError("when paths, URLs, or stdin is provided as input, you may not specify resource arguments as well");
  if (!o.filenames.length && !o.args.length) {
    throw new CliError("You must provide one or more resources by argument or filename.\nExample resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n   '<resource> <name>'\n   '<resource>'");
  }
  if (o.all && o.labelSelector) throw new CliError("setting 'all' parameter but found a non empty selector. ");
  if (o.now && o.gracePeriod >= 0) throw new UsageError("--now and --grace-period cannot be specified together");
  let grace = o.now ? 1 : o.gracePeriod;
  if (o.force && grace < 0) grace = 0;
  if (grace === 0 && !o.force) grace = 1; // as kubectl: an immediate delete needs --force
  if (o.force && grace === 0) await errLine("Warning: Immediate deletion does not wait for confirmation that the running resource has been terminated. The resource may continue to run on the cluster indefinitely.");

  const client = await Client.load(flags, printWarning);
  const ns = o.allNamespaces ? undefined : client.config.namespace;
  let failed = 0;
  const fail = async (e: unknown) => {
    if (e instanceof ConnectionError) throw e;
    failed++;
    await errLine(typeof e === "string" ? e : formatError(e));
  };

  // What to delete, in argument (or manifest) order.
  const targets: Target[] = [];
  let named = false;
  if (o.filenames.length) {
    for (const m of await readManifests(o.filenames, o.recursive)) {
      if (m.error) { await fail(`error: ${where(m)}: ${m.error}`); continue; }
      try {
        const res = await client.discovery.forKind(m.obj!.apiVersion, m.obj!.kind);
        const name = m.obj!.metadata?.name;
        if (!name) { await fail(`error: ${where(m)}: resource name may not be empty`); continue; }
        targets.push({ res, name, namespace: res.namespaced ? m.obj!.metadata?.namespace || client.config.namespace : undefined });
      } catch (e) {
        await fail(e instanceof CliError ? `error: resource mapping not found for name: "${m.obj!.metadata?.name ?? ""}" from ${where(m)}: ${e.message}` : e);
      }
    }
  } else {
    const plan = await planRequests(client.discovery, o.args);
    named = plan.named;
    const selecting = o.all || !!o.labelSelector || !!o.fieldSelector;
    if (plan.named && selecting) throw new CliError("name cannot be provided when a selector is specified");
    if (!plan.named && !selecting) throw new CliError("resource(s) were provided, but no name was specified");
    if (plan.named && o.allNamespaces) throw new CliError("a resource cannot be retrieved by name across all namespaces");
    for (const req of plan.requests) {
      if (req.name !== undefined) { targets.push({ res: req.res, name: req.name, namespace: req.res.namespaced ? ns : undefined }); continue; }
      try {
        const { items } = await client.listAll(req.res, { namespace: ns, labelSelector: o.labelSelector, fieldSelector: o.fieldSelector, limit: 500 });
        for (const it of items) targets.push({ res: req.res, name: it.metadata.name, namespace: req.res.namespaced ? it.metadata.namespace : undefined });
      } catch (e) {
        await fail(e);
      }
    }
  }
  // Nothing selected, or manifests holding no object: kubectl says so on stdout and succeeds.
  if (!named && targets.length === 0 && failed === 0) {
    out("No resources found\n");
    await flush();
    return 0;
  }

  const opts: ApiDeleteOptions = {
    gracePeriodSeconds: grace >= 0 ? grace : undefined,
    propagationPolicy: POLICY[o.cascade],
    dryRun: o.dryRun === "server",
  };
  const suffix = o.dryRun === "client" ? " (dry run)" : o.dryRun === "server" ? " (server dry run)" : "";
  const deleted: Deleted[] = [];
  await inOrder(targets.map((t) => async (): Promise<Deleted | { error: unknown }> => {
    if (o.dryRun === "client") return t;
    try {
      const r = await client.delete(t.res, t.name, { ...opts, namespace: t.namespace });
      // A terminating object comes back whole; a finished delete as a Status with the uid.
      return { ...t, uid: r.kind === "Status" ? r.details?.uid : r.metadata?.uid, resourceVersion: r.kind === "Status" ? undefined : r.metadata?.resourceVersion };
    } catch (e) {
      return { error: e };
    }
  }), 16, async (r) => {
    if ("error" in r) {
      if (o.ignoreNotFound && isNotFound(r.error)) return;
      await fail(r.error);
      return;
    }
    out(o.output === "name" ? `${kindName(r.res)}/${r.name}\n` : `${kindName(r.res)} "${r.name}" deleted${suffix}\n`);
    deleted.push(r);
  });
  await flush();

  if (o.wait && o.dryRun === "none" && deleted.length) {
    const deadline = o.timeoutMs > 0 ? Date.now() + o.timeoutMs : Infinity;
    const left = await Promise.all(deleted.map((d) => waitGone(client, d, deadline).catch(async (e) => { await fail(e); return true; })));
    for (const [i, d] of deleted.entries()) {
      if (left[i] === false) await fail(`error: timed out waiting for the condition on ${qualifiedResource(d.res)}/${d.name}`);
    }
  }
  return failed ? 1 : 0;
}

/** Resolves true once the object is gone (or replaced by a new one), false at the deadline. */
async function waitGone(client: Client, d: Deleted, deadline: number): Promise<boolean> {
  for (;;) {
    let cur: Obj;
    try {
      cur = await client.get(d.res, d.name, { namespace: d.namespace });
    } catch (e) {
      if (isNotFound(e)) return true;
      throw e;
    }
    if (d.uid && cur.metadata?.uid !== d.uid) return true;
    const remaining = deadline - Date.now();
    if (remaining <= 0) return false;
    const ac = new AbortController();
    const timer = setTimeout(() => ac.abort(), Math.min(remaining, 30_000));
    try {
      for await (const ev of client.watch(d.res, {
        namespace: d.namespace, fieldSelector: nameSelector(d.name), resourceVersion: cur.metadata?.resourceVersion,
        signal: ac.signal, timeoutSeconds: Math.max(1, Math.ceil(Math.min(remaining, 30_000) / 1000)),
      })) {
        if (ev.type === "DELETED" && (!d.uid || ev.object?.metadata?.uid === d.uid)) return true;
        if (ev.type === "ERROR") break; // e.g. a compacted revision: read again
      }
    } catch (e) {
      if (!(e instanceof ApiError) && (e as Error)?.name !== "AbortError") throw e;
    } finally {
      clearTimeout(timer);
    }
  }
}
