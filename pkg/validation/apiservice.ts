// apiregistration.k8s.io APIService: its name is `version.group`, priorities in range, and a service
// reference (or, for a local APIService, no TLS settings), as upstream's aggregator validates it.
import type { Obj } from "../registry/types.ts";
import { Printed } from "./field.ts";
import { has, isMap, run } from "./rules.ts";
import { dns1035Label, dns1123Subdomain } from "./names.ts";
import { portNum } from "./ports.ts";

export const apiService = (o: Obj) => run((e) => {
  const sp: Obj = isMap(o.spec) ? o.spec : {};
  const group = String(sp.group ?? "");
  const version = String(sp.version ?? "");
  const required = `${version}.${group}`;
  if (o.metadata?.name && o.metadata.name !== required) e.invalid("metadata.name", o.metadata.name, `must be \`spec.version+"."+spec.group\`: ${JSON.stringify(required)}`);
  if (!group && version !== "v1") e.required("spec.group", "only v1 may have an empty group and it better be legacy kube");
  if (group) e.invalidEach("spec.group", group, dns1123Subdomain(group));
  e.invalidEach("spec.version", version, dns1035Label(version));
  const gpm = Number(sp.groupPriorityMinimum ?? 0);
  if (!(gpm > 0 && gpm <= 20000)) e.invalid("spec.groupPriorityMinimum", gpm, "must be positive and less than 20000");
  const vp = Number(sp.versionPriority ?? 0);
  if (!(vp > 0 && vp <= 1000)) e.invalid("spec.versionPriority", vp, "must be positive and less than 1000");
  const caBundle = String(sp.caBundle ?? "");
  if (!isMap(sp.service)) {
    if (caBundle) e.invalid("spec.caBundle", new Printed(`"${Buffer.from(caBundle, "base64").length} bytes"`), "local APIServices may not have a caBundle");
    if (sp.insecureSkipTLSVerify) e.invalid("spec.insecureSkipTLSVerify", true, "local APIServices may not have insecureSkipTLSVerify");
    return;
  }
  if (!sp.service.namespace) e.required("spec.service.namespace");
  if (!sp.service.name) e.required("spec.service.name");
  const port = has(sp.service.port) ? sp.service.port : 0;
  const bad = portNum(port);
  if (bad.length) e.invalid("spec.service.port", port, `port is not valid: ${bad.join(", ")}`);
  if (sp.insecureSkipTLSVerify && caBundle) e.invalid("spec.insecureSkipTLSVerify", true, "may not be true if caBundle is present");
});
