// extensions/v1beta1 NetworkPolicy and PodSecurityPolicy, removed in 1.16: the same fields as their
// successors (networking.k8s.io/v1, policy/v1beta1), only the apiVersion changes.
import type { VersionRow } from "../table.ts";
import { row } from "./util.ts";

export const EXTENSIONS_ROWS: VersionRow[] = [
  row({ group: "extensions", version: "v1beta1", kind: "NetworkPolicy", hub: { group: "networking.k8s.io", version: "v1" }, served: false }),
  row({ group: "extensions", version: "v1beta1", kind: "PodSecurityPolicy", hub: { group: "policy", version: "v1beta1" }, served: false }),
];
