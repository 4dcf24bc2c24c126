// What an admission plugin sees of a request, and what a plugin is (upstream's admission.Attributes and
// admission.Interface): a write to one resource, before its strategy and storage.
import type { UserInfo } from "../auth/user.ts";
import type { AuthorizerChain } from "../auth/authorize.ts";
import type { Obj, ResourceDef } from "../registry/types.ts";
import type { Registry } from "../registry/registry.ts";
import type { AdmissionMetrics } from "../metrics/admission.ts";

export type Operation = "CREATE" | "UPDATE" | "DELETE" | "CONNECT";

export interface Attributes {
  operation: Operation;
  def: ResourceDef;
  /** "" for the main resource; "status", "approval", "finalize", "binding", ... */
  subresource: string;
  namespace: string;
  name: string;
  /** The new object (create, update); mutating plugins change it in place. Absent on delete. */
  object?: Obj;
  /** The stored object (update, delete). */
  oldObject?: Obj;
  dryRun: boolean;
  /** The caller; absent for the server's own writes. */
  user?: UserInfo;
  /** Warnings for the client's Warning header (webhooks add theirs). */
  warnings?: string[];
  /** Set when a webhook's patch replaced parts of the object: the registry checks its fields again. */
  patched?: boolean;
}

/** A plugin answers which operations it handles, and mutates and/or validates; refusals are thrown Statuses. */
export interface Plugin {
  /** Cheap check before the plugin runs (and before its duration is recorded). */
  handles(a: Attributes): boolean;
  admit?(a: Attributes): Promise<void> | void;
  validate?(a: Attributes): Promise<void> | void;
}

/** What plugin factories get: the server's parts they read, and their configuration. */
export interface PluginContext {
  registry: Registry;
  authz?: AuthorizerChain;
  /** The plugin's own configuration (from --admission-control-config-file), if any. */
  config?: Obj;
  options: AdmissionOptions;
  metrics?: AdmissionMetrics;
}

export interface AdmissionOptions {
  /** The plugins in force, in upstream's order. */
  plugins: string[];
  /** Per-plugin configuration objects, by plugin name. */
  configs: Record<string, Obj>;
  /** --default-not-ready-toleration-seconds, --default-unreachable-toleration-seconds. */
  notReadyTolerationSeconds: number;
  unreachableTolerationSeconds: number;
  /** --proxy-client-cert-file / --proxy-client-key-file: the identity shown to webhooks. */
  proxyClient?: { certFile: string; keyFile: string };
}

/** The resource as upstream's messages name it: `pods`, `ingresses.networking.k8s.io`. */
export const qualified = (a: Attributes) => ({ group: a.def.group, resource: a.def.plural });

/** `group/kind` test for plugins that handle one kind. */
export const isKind = (a: Attributes, group: string, kind: string) => a.def.group === group && a.def.kind === kind;
