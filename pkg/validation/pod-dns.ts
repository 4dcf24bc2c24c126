// A pod's dnsPolicy and dnsConfig, within the limits of libc's resolver as upstream v1.21 sets them.
import type { Obj } from "../registry/types.ts";
import { type Errs, goStrings, Printed } from "./field.ts";
import { list, obj, str } from "./decode.ts";
import { dns1123Subdomain } from "./names.ts";
import { isIP } from "./network.ts";

const DNS_POLICIES = ["ClusterFirstWithHostNet", "ClusterFirst", "Default", "None"];
const MAX_NAMESERVERS = 3;
const MAX_SEARCHES = 6;
const MAX_SEARCH_CHARS = 256;

export function validatePodDNS(errs: Errs, spec: Obj, path: string) {
  const policy = str(spec.dnsPolicy, `${path}.dnsPolicy`);
  if (policy && !DNS_POLICIES.includes(policy)) errs.notSupported(`${path}.dnsPolicy`, policy, DNS_POLICIES);
  const p = `${path}.dnsConfig`;
  const given = spec.dnsConfig !== undefined && spec.dnsConfig !== null;
  const config = obj(spec.dnsConfig, p);
  const nameservers = list<string>(config.nameservers, `${p}.nameservers`);
  if (policy === "None") {
    if (!given) return errs.required(p, "must provide `dnsConfig` when `dnsPolicy` is None");
    if (!nameservers.length) return errs.required(`${p}.nameservers`, "must provide at least one DNS nameserver when `dnsPolicy` is None");
  }
  if (nameservers.length > MAX_NAMESERVERS) errs.invalid(`${p}.nameservers`, new Printed(goStrings(nameservers)), `must not have more than ${MAX_NAMESERVERS} nameservers`);
  nameservers.forEach((ns, i) => { if (!isIP(String(ns))) errs.invalid(`${p}.nameservers[${i}]`, ns, "must be valid IP address"); });
  const searches = list<string>(config.searches, `${p}.searches`);
  if (searches.length > MAX_SEARCHES) errs.invalid(`${p}.searches`, new Printed(goStrings(searches)), `must not have more than ${MAX_SEARCHES} search paths`);
  if (searches.join(" ").length > MAX_SEARCH_CHARS) errs.invalid(`${p}.searches`, new Printed(goStrings(searches)), `must not have more than ${MAX_SEARCH_CHARS} characters (including spaces) in the search list`);
  searches.forEach((s, i) => {
    // a trailing dot (a fully qualified name) is allowed
    const name = String(s).replace(/\.$/, "");
    errs.invalidEach(`${p}.searches[${i}]`, name, dns1123Subdomain(name));
  });
  errs.each<Obj>(`${p}.options`, list(config.options, `${p}.options`), (o, op) => {
    if (!str(o?.name, `${op}.name`)) errs.required(op, "Option.Name must not be empty");
  });
}
