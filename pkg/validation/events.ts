// Events, core and events.k8s.io (one object seen two ways): the legacy rules for both, the strict ones for
// events.k8s.io writes. Causes name the core fields, as upstream validates its internal Event.
import { eventsV1Codec } from "../registry/strategies.ts";
import type { Obj } from "../registry/types.ts";
import type { Errs } from "./field.ts";
import { empty, has, immutable, run, same } from "./rules.ts";
import { dns1123Subdomain, qualifiedName } from "./names.ts";

const LIMITS: [string, number][] = [["reportingInstance", 128], ["action", 128], ["reason", 128], ["message", 1024]];

/** A field of the core form by the name causes give it: core's JSON calls reportingController reportingComponent. */
const field = (ev: Obj | undefined, f: string) => ev?.[f === "reportingController" ? "reportingComponent" : f];

function legacy(e: Errs, ev: Obj) {
  const ns = ev.metadata?.namespace ?? "", involved = ev.involvedObject?.namespace ?? "";
  const mismatch = () => e.invalid("involvedObject.namespace", involved, "does not match event.namespace");
  if (empty(ev.eventTime)) {
    if (!involved ? ns !== "" && ns !== "default" : ns !== involved) mismatch();
  } else {
    if (!involved && ns !== "default" && ns !== "kube-system") mismatch();
    for (const f of ["reportingController", "reportingInstance", "action", "reason"]) {
      if (empty(field(ev, f))) e.required(f);
      if (f === "reportingController") e.invalidEach(f, field(ev, f) ?? "", qualifiedName(String(field(ev, f) ?? "")));
    }
    for (const [f, max] of LIMITS) if (String(ev[f] ?? "").length > max) e.invalid(f, "", `can have at most ${max} characters`);
  }
  e.invalidEach("namespace", ns, dns1123Subdomain(ns));
}

function series(e: Errs, ev: Obj) {
  if (!has(ev.series)) return;
  if (!(ev.series.count >= 2)) e.invalid("series.count", "", "should be at least 2");
  if (empty(ev.series.lastObservedTime)) e.required("series.lastObservedTime");
}

/** What events.k8s.io/v1 adds on create: the event is new-style, so its legacy fields stay unset. */
function strict(e: Errs, ev: Obj) {
  e.invalidEach("metadata.name", ev.metadata?.name, dns1123Subdomain(String(ev.metadata?.name ?? "")));
  series(e, ev);
  if (empty(ev.eventTime)) e.required("eventTime");
  if (ev.type !== "Normal" && ev.type !== "Warning") e.invalid("type", "", `has invalid value: ${ev.type ?? ""}`);
  for (const f of ["firstTimestamp", "lastTimestamp", "count"]) if (!empty(ev[f])) e.invalid(f, "", "needs to be unset");
  if (!empty(ev.source?.component) || !empty(ev.source?.host)) e.invalid("source", "", "needs to be unset");
}

const FIXED = ["involvedObject", "reason", "message", "source", "firstTimestamp", "lastTimestamp", "count", "type", "eventTime", "action", "related", "reportingController", "reportingInstance"];

export const coreEvent = (o: Obj) => run((e) => legacy(e, o));

export const eventsV1Event = (o: Obj, old?: Obj) => run((e) => {
  const ev = eventsV1Codec.toStorage(o), was = old && eventsV1Codec.toStorage(old);
  legacy(e, ev);
  if (!was) return strict(e, ev);
  if (!same(ev.series, was.series)) series(e, ev);
  for (const f of FIXED) immutable(e, f, field(ev, f), field(was, f));
});
