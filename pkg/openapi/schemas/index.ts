// Every hand-written schema, by upstream's full name, and how a kind maps to its schema name.
import { AUTHENTICATION_SCHEMAS } from "./authentication.ts";
import { ACCESS_SCHEMAS } from "./access.ts";
import { CLUSTER_SCHEMAS } from "./cluster.ts";
import { CORE_SCHEMAS } from "./core.ts";
import { EXTRA_VERSION_SCHEMAS } from "./extra-versions.ts";
import type { Table } from "./dsl.ts";
import { META_SCHEMAS } from "./meta.ts";
import { POD_SCHEMAS } from "./pod.ts";
import { TOKEN_REQUEST_SCHEMAS } from "./tokenrequest.ts";
import { WORKLOAD_SCHEMAS } from "./workloads.ts";

export type { Schema, Table } from "./dsl.ts";
export { REF_PREFIX, full } from "./dsl.ts";

export const SCHEMAS: Table = { ...META_SCHEMAS, ...POD_SCHEMAS, ...CORE_SCHEMAS, ...WORKLOAD_SCHEMAS, ...CLUSTER_SCHEMAS, ...TOKEN_REQUEST_SCHEMAS, ...ACCESS_SCHEMAS, ...AUTHENTICATION_SCHEMAS, ...EXTRA_VERSION_SCHEMAS };

/** Upstream's schema name of a kind: io.k8s.api.<group>.<version>.<Kind>, CRD-style for other groups. */
export function schemaName(group: string, version: string, kind: string): string {
  if (group === "apiextensions.k8s.io") return `io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.${version}.${kind}`;
  if (!group) return `io.k8s.api.core.${version}.${kind}`;
  if (group.endsWith(".k8s.io") || !group.includes(".")) return `io.k8s.api.${group.split(".")[0]}.${version}.${kind}`;
  return `${group.split(".").reverse().join(".")}.${version}.${kind}`;
}
