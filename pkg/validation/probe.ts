// Probes and lifecycle hooks: exactly one handler, each handler's fields, non-negative timings.
import type { Obj } from "../registry/types.ts";
import type { Errs } from "./field.ts";
import { int, list, obj, str } from "./decode.ts";
import { nonNegative } from "./numbers.ts";
import { portNumOrName } from "./ports.ts";

const HANDLERS: [string, (errs: Errs, h: Obj, path: string) => void][] = [
  ["exec", (errs, h, path) => { if (list(h.command, `${path}.command`).length === 0) errs.required(`${path}.command`); }],
  ["httpGet", (errs, h, path) => {
    portNumOrName(errs, `${path}.port`, h.port);
    const scheme = str(h.scheme, `${path}.scheme`);
    if (scheme && scheme !== "HTTP" && scheme !== "HTTPS") errs.notSupported(`${path}.scheme`, scheme, ["HTTP", "HTTPS"]);
    for (const hd of list<Obj>(h.httpHeaders, `${path}.httpHeaders`)) {
      if (!/^[-A-Za-z0-9]+$/.test(String(hd?.name ?? ""))) errs.invalid(`${path}.httpHeaders`, hd?.name ?? "", "a valid HTTP header must consist of alphanumeric characters or '-' (e.g. 'X-Header-Name', regex used for validation is '[-A-Za-z0-9]+')");
    }
  }],
  ["tcpSocket", (errs, h, path) => portNumOrName(errs, `${path}.port`, h.port)],
];

/** A handler (probe or lifecycle hook) names exactly one action. */
export function validateHandler(errs: Errs, h: Obj, path: string) {
  let found = 0;
  for (const [name, check] of HANDLERS) {
    if (h[name] === undefined || h[name] === null) continue;
    if (found++) errs.forbidden(`${path}.${name}`, "may not specify more than 1 handler type");
    else check(errs, obj(h[name], `${path}.${name}`), `${path}.${name}`);
  }
  if (!found) errs.required(path, "must specify a handler type");
}

export function validateProbe(errs: Errs, probe: unknown, path: string) {
  if (probe === undefined || probe === null) return;
  const p = obj(probe, path);
  validateHandler(errs, p, path);
  for (const f of ["initialDelaySeconds", "timeoutSeconds", "periodSeconds", "successThreshold", "failureThreshold"]) nonNegative(errs, `${path}.${f}`, p[f]);
  const grace = int(p.terminationGracePeriodSeconds, `${path}.terminationGracePeriodSeconds`);
  if (grace !== undefined && grace <= 0) errs.invalid(`${path}.terminationGracePeriodSeconds`, grace, "must be greater than 0");
}

export function validateLifecycle(errs: Errs, lc: unknown, path: string) {
  const l = obj(lc, path);
  for (const hook of ["postStart", "preStop"]) {
    if (l[hook] !== undefined && l[hook] !== null) validateHandler(errs, obj(l[hook], `${path}.${hook}`), `${path}.${hook}`);
  }
}
