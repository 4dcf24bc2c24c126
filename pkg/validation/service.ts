// Services and Endpoints, as upstream's ValidateService(Update) and ValidateEndpoints check them.
import type { Obj } from "../registry/types.ts";
import { goStrings, Printed, type Errs } from "./field.ts";
import { empty, has, isMap, list, oneOf, run } from "./rules.ts";
import { dns1123Label, dns1123Subdomain, qualifiedName } from "./names.ts";
import { labels } from "./labels.ts";
import { PROTOCOLS, portNum, portNumOrName } from "./ports.ts";
import { ipErrors, nonSpecialIP } from "./network.ts";

const TYPES = ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"];
const KUBELET_PORT = 10250;

/** %#v of the (protocol, port) pair upstream uses to find a repeated port. */
const portKey = (p: Obj) =>
  `core.ServicePort{Name:"", Protocol:${JSON.stringify(p.protocol ?? "")}, AppProtocol:(*string)(nil), Port:${p.port ?? 0}, TargetPort:intstr.IntOrString{Type:0, IntVal:0, StrVal:""}, NodePort:0}`;

function servicePort(e: Errs, p: Obj, path: string, needName: boolean, names: Set<string>) {
  if (needName && empty(p.name)) e.required(`${path}.name`);
  else if (!empty(p.name)) {
    e.invalidEach(`${path}.name`, p.name, dns1123Label(String(p.name)));
    if (names.has(p.name)) e.duplicate(`${path}.name`, p.name);
    names.add(p.name);
  }
  e.invalidEach(`${path}.port`, p.port ?? 0, portNum(p.port));
  oneOf(e, `${path}.protocol`, p.protocol, PROTOCOLS, { required: true, defaulted: true });
  if (has(p.targetPort)) portNumOrName(e, `${path}.targetPort`, p.targetPort);
  if (typeof p.appProtocol === "string") e.invalidEach(`${path}.appProtocol`, p.appProtocol, qualifiedName(p.appProtocol));
}

function clusterIPs(e: Errs, sp: Obj) {
  const ip = sp.clusterIP ?? "", ips = list(sp.clusterIPs);
  if (ip) {
    if (!ips.length) e.required("spec.clusterIPs");
    else if (ips[0] !== ip) e.invalid("spec.clusterIPs", new Printed(goStrings(ips)), "element [0] must match clusterIP");
  } else if (ips.length) e.invalid("spec.clusterIPs", new Printed(goStrings(ips)), "must be empty when clusterIP is empty");
  const seen = new Set<string>();
  e.each<string>("spec.ipFamilies", sp.ipFamilies, (f, p) => {
    if (!["IPv4", "IPv6"].includes(f)) e.notSupported(p, f, ["IPv4", "IPv6"]);
    if (seen.has(f)) e.duplicate(p, f);
    seen.add(f);
  });
  oneOf(e, "spec.ipFamilyPolicy", sp.ipFamilyPolicy, ["PreferDualStack", "RequireDualStack", "SingleStack"]);
  ips.forEach((a: string, i: number) => {
    if (i === 0 && a === "None") {
      if (ips.length > 1) e.invalid("spec.clusterIPs", new Printed(goStrings(ips)), "'None' must be the first and only value");
      return;
    }
    e.invalidEach(`spec.clusterIPs[${i}]`, a, ipErrors(String(a)));
  });
  if (ips.length > 2) e.invalid("spec.clusterIPs", new Printed(goStrings(ips)), "may only hold up to 2 values");
}

function validateService(o: Obj, e: Errs) {
  const sp: Obj = isMap(o.spec) ? o.spec : {};
  const ports = list(sp.ports);
  const headless = list(sp.clusterIPs)[0] === "None" || sp.clusterIP === "None";
  if (!ports.length && !headless && sp.type !== "ExternalName") e.required("spec.ports");
  if (sp.type === "LoadBalancer") {
    ports.forEach((p, i) => { if (p?.port === KUBELET_PORT) e.invalid(`spec.ports[${i}]`, p.port, `may not expose port ${KUBELET_PORT} externally since it is used by kubelet`); });
  }
  if ((sp.type === "LoadBalancer" || sp.type === "NodePort") && headless) {
    e.invalid("spec.clusterIPs[0]", "None", `may not be set to 'None' for ${sp.type} services`);
  }
  if (sp.type === "ExternalName") {
    if (list(sp.clusterIPs).length || sp.clusterIP) e.forbidden("spec.clusterIPs", "may not be set for ExternalName services");
    if (list(sp.ipFamilies).length) e.forbidden("spec.ipFamilies", "may not be set for ExternalName services");
    if (has(sp.ipFamilyPolicy)) e.forbidden("spec.ipFamilyPolicy", "may not be set for ExternalName services");
    const cname = String(sp.externalName ?? "").replace(/\.$/, "");
    if (cname) e.invalidEach("spec.externalName", cname, dns1123Subdomain(cname));
    else e.required("spec.externalName");
  }
  const names = new Set<string>();
  ports.forEach((p, i) => servicePort(e, isMap(p) ? p : {}, `spec.ports[${i}]`, ports.length > 1, names));
  labels(e, "spec.selector", sp.selector);
  oneOf(e, "spec.sessionAffinity", sp.sessionAffinity, ["ClientIP", "None"], { required: true, defaulted: true });
  if (sp.sessionAffinity === "None" && has(sp.sessionAffinityConfig)) e.forbidden("spec.sessionAffinityConfig", "must not be set when session affinity is None");
  const timeout = sp.sessionAffinityConfig?.clientIP?.timeoutSeconds;
  if (sp.sessionAffinity === "ClientIP" && has(timeout) && !(timeout > 0 && timeout <= 86400)) {
    e.invalid("spec.sessionAffinityConfig.clientIP.timeoutSeconds", timeout, "must be greater than 0 and less than 86400");
  }
  if (sp.type !== "ExternalName") clusterIPs(e, sp);
  e.each<string>("spec.externalIPs", sp.externalIPs, (ip, p) => {
    const bad = ipErrors(String(ip));
    if (bad.length) e.invalidEach(p, ip, bad);
    else nonSpecialIP(e, p, ip);
  });
  oneOf(e, "spec.type", sp.type, TYPES, { required: true, defaulted: true });
  if (sp.type === "ClusterIP" || !has(sp.type)) {
    ports.forEach((p, i) => { if (!empty(p?.nodePort)) e.forbidden(`spec.ports[${i}].nodePort`, "may not be used when `type` is 'ClusterIP'"); });
  }
  const nodePorts = new Set<string>(), seen = new Set<string>();
  ports.forEach((p, i) => {
    if (!isMap(p)) return;
    if (!empty(p.nodePort)) {
      const k = `${p.protocol}/${p.nodePort}`;
      if (nodePorts.has(k)) e.duplicate(`spec.ports[${i}].nodePort`, p.nodePort);
      nodePorts.add(k);
    }
    const k = `${p.protocol}/${p.port}`;
    if (seen.has(k)) e.duplicate(`spec.ports[${i}]`, new Printed(portKey(p)));
    seen.add(k);
  });
  oneOf(e, "spec.externalTrafficPolicy", sp.externalTrafficPolicy, ["Cluster", "Local"]);
}

/** The primary cluster IP stays as allocated, unless the Service is or becomes an ExternalName one. */
function validateServiceUpdate(o: Obj, old: Obj, e: Errs) {
  if (o.spec?.type === "ExternalName" || old.spec?.type === "ExternalName") return;
  const now = list(o.spec?.clusterIPs), was = list(old.spec?.clusterIPs);
  if (was.some((ip, i) => i < now.length && ip !== now[i])) e.invalid("spec.clusterIPs[0]", new Printed(goStrings(now)), "may not change once set");
  if (now.length < was.length && o.spec?.ipFamilyPolicy !== "SingleStack") {
    e.invalid("spec.ipFamilyPolicy", o.spec?.ipFamilyPolicy ?? null, "must be set to 'SingleStack' when releasing the secondary clusterIP");
  }
}

export const service = (o: Obj, old?: Obj) => run((e) => {
  if (old) validateServiceUpdate(o, old, e);
  validateService(o, e);
});

function endpointAddress(e: Errs, a: Obj, path: string) {
  const ip = String(a?.ip ?? "");
  e.invalidEach(`${path}.ip`, ip, ipErrors(ip));
  if (!empty(a?.hostname)) e.invalidEach(`${path}.hostname`, a.hostname, dns1123Label(String(a.hostname)));
  if (typeof a?.nodeName === "string") e.invalidEach(`${path}.nodeName`, a.nodeName, dns1123Subdomain(a.nodeName));
  nonSpecialIP(e, `${path}.ip`, ip);
}

export const endpoints = (o: Obj) => run((e) => {
  e.each<Obj>("subsets", o.subsets, (ss, path) => {
    if (empty(ss?.addresses) && empty(ss?.notReadyAddresses)) e.required(path, "must specify `addresses` or `notReadyAddresses`");
    e.each<Obj>(`${path}.addresses`, ss?.addresses, (a, p) => endpointAddress(e, a, p));
    e.each<Obj>(`${path}.notReadyAddresses`, ss?.notReadyAddresses, (a, p) => endpointAddress(e, a, p));
    const ports = list(ss?.ports);
    e.each<Obj>(`${path}.ports`, ports, (p, pp) => {
      if (ports.length > 1 && empty(p?.name)) e.required(`${pp}.name`);
      else if (!empty(p?.name)) e.invalidEach(`${pp}.name`, p.name, dns1123Label(String(p.name)));
      e.invalidEach(`${pp}.port`, p?.port ?? 0, portNum(p?.port));
      oneOf(e, `${pp}.protocol`, p?.protocol, PROTOCOLS, { required: true, defaulted: true });
      if (typeof p?.appProtocol === "string") e.invalidEach(`${pp}.appProtocol`, p.appProtocol, qualifiedName(p.appProtocol));
    });
  });
});
