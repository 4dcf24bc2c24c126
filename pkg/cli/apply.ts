// `kite apply -f`: server-side apply (field manager `kite`) by default; client-side apply with the
// last-applied annotation when asked (--server-side=false) or when the server cannot do server-side apply.
// Namespaces (and CRDs) go first; objects go in parallel but print in order; bad documents and failed
// objects are reported (with their source) without stopping the others, and make the exit code 1.
import { ApiError, Client, isConflict, isNotFound, type Obj } from "../client/client.ts";
import { kindName, type ApiResource } from "../client/discovery.ts";
import { CliError, ConnectionError, formatError, withSource } from "../client/errors.ts";
import type { KubeconfigFlags } from "../client/kubeconfig.ts";
import { UsageError } from "./args.ts";
import { readManifests, where, type Manifest } from "./manifests.ts";
import { errLine, flush, inOrder, out, printWarning } from "./output.ts";
import { isStrategic, lastApplied, threeWayPatch, withLastApplied } from "./threeway.ts";

export interface ApplyOptions {
  filenames: string[];
  recursive: boolean;
  serverSide: boolean;
  fieldManager: string;
  forceConflicts: boolean;
  dryRun: "none" | "client" | "server";
  output: "" | "name";
  /** How many objects are applied at once. */
  parallel?: number;
}

type Outcome = { line?: string; error?: string };

/** An object's error as kubectl prints it; an unreachable server aborts the whole command instead. */
function failure(e: unknown, verb?: string, source?: string): string {
  if (e instanceof ConnectionError) throw e;
  return formatError(verb && source ? withSource(e, verb, source) : e);
}

const CONFLICT_RETRIES = 5;

/** kubectl's advice after a server-side apply conflict. */
const CONFLICT_HELP = `Please review the fields above--they currently have other managers. Here
are the ways you can resolve this warning:
* If you intend to manage all of these fields, please re-run the apply
  command with the \`--force-conflicts\` flag.
* If you do not intend to manage all of the fields, please edit your
  manifest to remove references to the fields that should keep their
  current managers.
* You may co-own fields by updating your manifest to match the existing
  value; in this case, you'll become the manager if the value is
  changed in the future.
See https://kubernetes.io/docs/reference/using-api/server-side-apply/#conflicts`;

export async function runApply(o: ApplyOptions, flags: KubeconfigFlags): Promise<number> {
  if (o.filenames.length === 0) throw new CliError("must specify -f (a file, directory, URL or - for stdin)\nSee 'kite apply --help' for usage.");
  if (o.serverSide && o.dryRun === "client") throw new UsageError("--dry-run=client doesn't work with --server-side (did you mean --dry-run=server instead?)");
  if (!o.serverSide && o.forceConflicts) throw new UsageError("--force-conflicts only works with --server-side");
  const manifests = await readManifests(o.filenames, o.recursive);
  if (manifests.length === 0) throw new CliError("no objects passed to apply");
  const client = await Client.load(flags, printWarning);
  const applier = new Applier(client, o);

  // Namespaces first, then CRDs, then everything else, each in manifest order.
  const rank = (m: Manifest) => (m.obj?.kind === "Namespace" ? 0 : m.obj?.kind === "CustomResourceDefinition" ? 1 : 2);
  const ordered = manifests.map((m, i) => ({ m, i })).sort((a, b) => rank(a.m) - rank(b.m) || a.i - b.i).map((x) => x.m);

  let failed = 0;
  const report = async (r: Outcome) => {
    if (r.line) out(`${r.line}\n`);
    if (r.error) { failed++; await errLine(r.error); }
  };
  // Phases run one after the other; inside one, objects go in parallel and print in order.
  for (const phase of [0, 1, 2]) {
    const batch = ordered.filter((m) => rank(m) === phase);
    await inOrder(batch.map((m) => () => applier.one(m)), o.parallel ?? 16, report);
    await flush();
  }
  return failed ? 1 : 0;
}

class Applier {
  /** undefined until the server tells (415 means it has no server-side apply). */
  private ssa: boolean | undefined;
  private warnedFallback = false;
  /** Objects with the same identity are applied one after the other. */
  private chains = new Map<string, Promise<unknown>>();

  constructor(private client: Client, private o: ApplyOptions) {}

  private get suffix() {
    return this.o.dryRun === "client" ? " (dry run)" : this.o.dryRun === "server" ? " (server dry run)" : "";
  }

  async one(m: Manifest): Promise<Outcome> {
    if (m.error) return { error: `error: ${where(m)}: ${m.error}` };
    const key = `${m.obj!.apiVersion}/${m.obj!.kind}/${m.obj!.metadata?.namespace ?? ""}/${m.obj!.metadata?.name ?? ""}`;
    const prev = this.chains.get(key) ?? Promise.resolve();
    const run = prev.then(() => this.apply(m));
    this.chains.set(key, run.catch(() => {}));
    return run;
  }

  private async apply(m: Manifest): Promise<Outcome> {
    const cfg = this.client.config;
    const obj = structuredClone(m.obj!);
    let res: ApiResource;
    try {
      res = await this.client.discovery.forKind(obj.apiVersion, obj.kind);
    } catch (e) {
      if (!(e instanceof CliError)) return { error: failure(e) };
      return { error: `error: resource mapping not found for name: "${obj.metadata?.name ?? ""}" namespace: "${obj.metadata?.namespace ?? ""}" from ${where(m)}: ${e.message}\nensure CRDs are installed first` };
    }
    obj.metadata = { ...(obj.metadata ?? {}) };
    if (!obj.metadata.name) return { error: `error: ${where(m)}: resource name may not be empty` };
    if (res.namespaced) {
      if (obj.metadata.namespace && cfg.explicitNamespace && obj.metadata.namespace !== cfg.namespace) {
        return { error: `error: the namespace from the provided object "${obj.metadata.namespace}" does not match the namespace "${cfg.namespace}". You must pass '--namespace=${obj.metadata.namespace}' to perform this operation.` };
      }
      obj.metadata.namespace ||= cfg.namespace;
    } else delete obj.metadata.namespace;
    const id = `${kindName(res)}/${obj.metadata.name}`;
    const show = (verb: string) => (this.o.output === "name" ? id : `${id} ${verb}${this.suffix}`);

    if (this.o.serverSide && this.ssa !== false) {
      try {
        await this.client.apply(res, obj, { fieldManager: this.o.fieldManager, force: this.o.forceConflicts, dryRun: this.o.dryRun === "server" });
        this.ssa = true;
        return { line: show("serverside-applied") };
      } catch (e) {
        if (!(e instanceof ApiError && e.code === 415)) return { error: this.ssaError(e, m) };
        this.ssa = false;
        if (!this.warnedFallback) {
          this.warnedFallback = true;
          await errLine(`Warning: the server at ${cfg.server} does not support server-side apply; applying client-side (with the ${"kubectl.kubernetes.io/last-applied-configuration"} annotation) instead`);
        }
      }
    }
    return this.clientSide(res, obj, m, show);
  }

  private ssaError(e: unknown, m: Manifest): string {
    if (e instanceof ApiError && e.code === 409 && e.reason === "Conflict") return `error: ${e.message}\n${CONFLICT_HELP}`;
    return failure(e, "patching", m.source);
  }

  /** kubectl's client-side apply: create with the annotation, or patch computed from last-applied. */
  private async clientSide(res: ApiResource, obj: Obj, m: Manifest, show: (verb: string) => string): Promise<Outcome> {
    const ns = obj.metadata.namespace;
    const dryRun = this.o.dryRun === "server";
    for (let attempt = 0; ; attempt++) {
      let current: Obj | undefined;
      try {
        current = await this.client.get(res, obj.metadata.name, { namespace: ns });
      } catch (e) {
        if (!isNotFound(e)) return { error: failure(e, "retrieving current configuration of", m.source) };
      }
      try {
        if (!current) {
          if (this.o.dryRun !== "client") await this.client.create(res, withLastApplied(obj), { namespace: ns, dryRun, fieldManager: this.o.fieldManager });
          return { line: show("created") };
        }
        const patch = threeWayPatch(lastApplied(current), withLastApplied(obj), current, res.kind, isStrategic(res.group));
        if (Object.keys(patch).length === 0) return { line: show("unchanged") };
        if (this.o.dryRun !== "client") {
          await this.client.patch(res, obj.metadata.name, patch, isStrategic(res.group) ? "strategic" : "merge", { namespace: ns, dryRun, fieldManager: this.o.fieldManager });
        }
        return { line: show("configured") };
      } catch (e) {
        // Someone else created, changed or deleted it meanwhile: start over from a fresh read.
        const raced = current ? isConflict(e) || isNotFound(e) : e instanceof ApiError && e.code === 409 && e.reason === "AlreadyExists";
        if (raced && attempt < CONFLICT_RETRIES) continue;
        return { error: failure(e, current ? "patching" : "creating", m.source) };
      }
    }
  }
}
