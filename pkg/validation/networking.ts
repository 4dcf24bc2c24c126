// networking.k8s.io (Ingress, IngressClass, NetworkPolicy) and discovery.k8s.io EndpointSlices.
import type { Obj } from "../registry/types.ts";
import { goStrings, Printed, type Errs } from "./field.ts";
import { empty, has, immutable, isMap, list, oneOf, run } from "./rules.ts";
import { dns1035Label, dns1123Label, dns1123Subdomain, domainPrefixedPath, qualifiedName, wildcardDNS1123Subdomain } from "./names.ts";
import { labelSelector, labels } from "./labels.ts";
import { PROTOCOLS, portName, portNum } from "./ports.ts";
import { isCIDR, isIP, isIPv4, isIPv6, nonSpecialIP } from "./network.ts";

const PATH_TYPES = ["Exact", "ImplementationSpecific", "Prefix"];

/** A rule or TLS host: a DNS name (`*.` allowed in front), never an IP. */
function host(e: Errs, field: string, h: string) {
  if (isIP(h)) e.invalid(field, h, "must be a DNS name, not an IP address");
  e.invalidEach(field, h, h.includes("*") ? wildcardDNS1123Subdomain(h) : dns1123Subdomain(h));
}

function backend(e: Errs, b: Obj, field: string) {
  const svc = b?.service, res = b?.resource;
  if (has(svc) && has(res)) return e.invalid(field, "", "cannot set both resource and service backends");
  if (has(res)) {
    if (empty(res.kind)) e.required(`${field}.resource.kind`);
    if (empty(res.name)) e.required(`${field}.resource.name`);
    return;
  }
  if (!has(svc)) return e.invalid(field, "", "resource or service backend is required");
  if (empty(svc.name)) e.required(`${field}.service.name`);
  else e.invalidEach(`${field}.service.name`, svc.name, dns1035Label(String(svc.name)));
  const name = svc.port?.name, num = svc.port?.number;
  if (!empty(name) && !empty(num)) e.invalid(field, "", "cannot set both port name & port number");
  else if (!empty(name)) e.invalidEach(`${field}.service.port.name`, name, portName(String(name)));
  else if (!empty(num)) e.invalidEach(`${field}.service.port.number`, num, portNum(num));
  else e.required(field, "port name or number is required");
}

function httpPath(e: Errs, p: Obj, field: string) {
  if (!has(p?.pathType)) return e.required(`${field}.pathType`, "pathType must be specified");
  const path = String(p.path ?? "");
  if (p.pathType === "Exact" || p.pathType === "Prefix") {
    if (!path.startsWith("/")) e.invalid(`${field}.path`, path, "must be an absolute path");
    for (const seq of ["//", "/./", "/../", "%2f", "%2F"]) if (path.includes(seq)) e.invalid(`${field}.path`, path, `must not contain '${seq}'`);
    for (const suf of ["/..", "/."]) if (path.endsWith(suf)) e.invalid(`${field}.path`, path, `cannot end with '${suf}'`);
  } else if (p.pathType === "ImplementationSpecific") {
    if (path && !path.startsWith("/")) e.invalid(`${field}.path`, path, "must be an absolute path");
  } else e.notSupported(`${field}.pathType`, p.pathType, PATH_TYPES);
  backend(e, p.backend, `${field}.backend`);
}

export const ingress = (o: Obj) => run((e) => {
  const sp: Obj = isMap(o.spec) ? o.spec : {};
  if (empty(sp.rules) && !has(sp.defaultBackend)) {
    e.invalid("spec", new Printed("[]networking.IngressRule(nil)"), "either `defaultBackend` or `rules` must be specified");
  }
  if (has(sp.defaultBackend)) backend(e, sp.defaultBackend, "spec.defaultBackend");
  e.each<Obj>("spec.rules", sp.rules, (r, path) => {
    if (!empty(r?.host)) host(e, `${path}.host`, String(r.host));
    if (!has(r?.http)) return;
    if (empty(r.http.paths)) e.required(`${path}.http.paths`);
    e.each<Obj>(`${path}.http.paths`, r.http.paths, (p, pp) => httpPath(e, p, pp));
  });
  e.each<Obj>("spec.tls", sp.tls, (t, path) => {
    e.each<string>(`${path}.hosts`, t?.hosts, (h, hp) => host(e, hp, String(h)));
  });
  if (typeof sp.ingressClassName === "string") e.invalidEach("spec.ingressClassName", sp.ingressClassName, dns1123Subdomain(sp.ingressClassName));
});

export const ingressClass = (o: Obj, old?: Obj) => run((e) => {
  const c = o.spec?.controller;
  if (typeof c === "string" && c.length > 250) e.tooLong("spec.controller", 250);
  domainPrefixedPath(e, "spec.controller", c);
  const params = o.spec?.parameters;
  if (isMap(params)) {
    if (empty(params.kind)) e.required("spec.parameters.kind");
    if (empty(params.name)) e.required("spec.parameters.name");
    oneOf(e, "spec.parameters.scope", params.scope, ["Cluster", "Namespace"]);
    if (params.scope === "Namespace" && empty(params.namespace)) e.required("spec.parameters.namespace", "`parameters.scope` is set to 'Namespace'");
  }
  if (old) immutable(e, "spec.controller", c, old.spec?.controller);
});

function policyPort(e: Errs, p: Obj, path: string) {
  oneOf(e, `${path}.protocol`, p?.protocol, ["TCP", "UDP", "SCTP"]);
  const port = p?.port, end = p?.endPort;
  if (typeof port === "number") {
    e.invalidEach(`${path}.port`, port, portNum(port));
    if (has(end)) {
      if (end < port) e.invalid(`${path}.endPort`, end, "must be greater than or equal to `port`");
      e.invalidEach(`${path}.endPort`, end, portNum(end));
    }
  } else if (typeof port === "string") {
    if (has(end)) e.invalid(`${path}.endPort`, end, "may not be specified when `port` is non-numeric");
    e.invalidEach(`${path}.port`, port, portName(port));
  } else if (has(end)) e.invalid(`${path}.endPort`, end, "may not be specified when `port` is not specified");
}

function policyPeer(e: Errs, peer: Obj, path: string) {
  let n = 0;
  if (has(peer?.podSelector)) { n++; labelSelector(e, `${path}.podSelector`, peer.podSelector); }
  if (has(peer?.namespaceSelector)) { n++; labelSelector(e, `${path}.namespaceSelector`, peer.namespaceSelector); }
  if (has(peer?.ipBlock)) { n++; ipBlock(e, peer.ipBlock, `${path}.ipBlock`); }
  if (n === 0) e.required(path, "must specify a peer");
  else if (n > 1 && has(peer.ipBlock)) e.forbidden(path, "may not specify both ipBlock and another peer");
}

function ipBlock(e: Errs, b: Obj, path: string) {
  const cidr = String(b?.cidr ?? "");
  if (!cidr) return e.required(`${path}.cidr`);
  if (!isCIDR(cidr)) return e.invalid(`${path}.cidr`, cidr, "not a valid CIDR");
  const [net, bits] = cidr.split("/");
  for (const [i, x] of list(b.except).entries()) {
    const p = `${path}.except[${i}]`;
    if (!isCIDR(String(x))) return e.invalid(p, x, "not a valid CIDR");
    const [xnet, xbits] = String(x).split("/");
    if (!contains(net, Number(bits), xnet) || Number(bits) >= Number(xbits)) e.invalid(p, x, "must be a strict subset of `cidr`");
  }
}

/** Whether ip lies in net/bits (IPv4; IPv6 ranges are compared by family only). */
function contains(net: string, bits: number, ip: string): boolean {
  if (isIPv4(net) !== isIPv4(ip)) return false;
  if (!isIPv4(net)) return isIPv6(ip);
  const n = (a: string) => a.split(".").reduce((acc, b) => acc * 256 + Number(b), 0);
  const size = 2 ** (32 - bits);
  return Math.floor(n(net) / size) === Math.floor(n(ip) / size);
}

export const networkPolicy = (o: Obj) => run((e) => {
  const sp: Obj = isMap(o.spec) ? o.spec : {};
  labelSelector(e, "spec.podSelector", sp.podSelector);
  for (const [dir, peers] of [["ingress", "from"], ["egress", "to"]]) {
    e.each<Obj>(`spec.${dir}`, sp[dir], (r, path) => {
      e.each<Obj>(`${path}.ports`, r?.ports, (p, pp) => policyPort(e, p, pp));
      e.each<Obj>(`${path}.${peers}`, r?.[peers], (p, pp) => policyPeer(e, p, pp));
    });
  }
  const types = list(sp.policyTypes);
  if (types.length > 2) return e.invalid("spec.policyTypes", new Printed(goStrings(types, "networking.PolicyType")), "may not specify more than two policyTypes");
  types.forEach((t, i) => { if (t !== "Ingress" && t !== "Egress") e.notSupported(`spec.policyTypes[${i}]`, t, ["Ingress", "Egress"]); });
});

const ADDRESS_TYPES = ["FQDN", "IPv4", "IPv6"];

export const endpointSlice = (o: Obj, old?: Obj) => run((e) => {
  oneOf(e, "addressType", o.addressType, ADDRESS_TYPES, { required: true });
  const eps = list(o.endpoints);
  if (eps.length > 1000) e.tooMany("endpoints", eps.length, 1000);
  else e.each<Obj>("endpoints", eps, (ep, path) => {
    const addrs = list(ep?.addresses);
    if (!addrs.length) e.required(`${path}.addresses`, "must contain at least 1 address");
    else if (addrs.length > 100) e.tooMany(`${path}.addresses`, addrs.length, 100);
    addrs.forEach((a, i) => {
      const p = `${path}.addresses[${i}]`, s = String(a);
      if (o.addressType === "IPv4" && !isIPv4(s)) e.invalid(p, a, "must be a valid IPv4 address");
      if (o.addressType === "IPv6" && !isIPv6(s)) e.invalid(p, a, "must be a valid IPv6 address");
      if (o.addressType === "IPv4" || o.addressType === "IPv6") nonSpecialIP(e, p, s);
      if (o.addressType === "FQDN") e.invalidEach(p, a, dns1123Subdomain(s));
    });
    if (typeof ep?.nodeName === "string") e.invalidEach(`${path}.nodeName`, ep.nodeName, dns1123Subdomain(ep.nodeName));
    labels(e, `${path}.deprecatedTopology`, ep?.deprecatedTopology);
    if (typeof ep?.hostname === "string") e.invalidEach(`${path}.hostname`, ep.hostname, dns1123Label(ep.hostname));
  });
  const ports = list(o.ports);
  if (ports.length > 100) e.tooMany("ports", ports.length, 100);
  const names = new Set<string>();
  e.each<Obj>("ports", ports, (p, path) => {
    const name = String(p?.name ?? "");
    if (name) e.invalidEach(`${path}.name`, name, dns1123Label(name));
    if (names.has(name)) e.duplicate(`${path}.name`, name);
    names.add(name);
    oneOf(e, `${path}.protocol`, p?.protocol, PROTOCOLS, { required: true, defaulted: true });
    if (typeof p?.appProtocol === "string") e.invalidEach(`${path}.appProtocol`, p.appProtocol, qualifiedName(p.appProtocol));
  });
  if (old) immutable(e, "addressType", o.addressType, old.addressType);
});
