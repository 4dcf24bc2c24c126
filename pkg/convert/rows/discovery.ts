// discovery.k8s.io/v1beta1 EndpointSlice, to and from v1: an endpoint's `topology` map gave way to `zone`
// (from topology.kubernetes.io/zone) and `nodeName`; what is left of the map is kept, read-only, as
// `deprecatedTopology`. As upstream, the hostname key is dropped only when nodeName says the same, so that
// a v1beta1 slice comes back unchanged; `kite convert` also fills an unset nodeName from it.
import type { Obj } from "../../registry/types.ts";
import type { VersionRow } from "../table.ts";
import { type Convert, row } from "./util.ts";
import { isMap } from "../../util/ismap.ts";

const ZONE = "topology.kubernetes.io/zone";
const HOSTNAME = "kubernetes.io/hostname";

/** `nodeName` filled from the hostname key only for `kite convert` (strict): the server keeps v1beta1's topology as it was. */
function endpointToV1(e: Obj, strict: boolean): Obj {
  const { topology, ...rest } = e;
  if (!isMap(topology)) return e;
  const left: Obj = { ...topology };
  if (left[ZONE] !== undefined) { rest.zone = left[ZONE]; delete left[ZONE]; }
  if (strict && rest.nodeName === undefined && left[HOSTNAME] !== undefined) rest.nodeName = left[HOSTNAME];
  if (left[HOSTNAME] !== undefined && left[HOSTNAME] === rest.nodeName) delete left[HOSTNAME];
  if (Object.keys(left).length) rest.deprecatedTopology = left;
  return rest;
}

function endpointToV1beta1(e: Obj): Obj {
  const { deprecatedTopology, zone, ...rest } = e;
  if (deprecatedTopology === undefined && zone === undefined && rest.nodeName === undefined) return e;
  const topology: Obj = { ...(isMap(deprecatedTopology) ? deprecatedTopology : {}) };
  if (zone !== undefined) topology[ZONE] = zone;
  if (rest.nodeName !== undefined && !topology[HOSTNAME]) topology[HOSTNAME] = rest.nodeName;
  return { ...rest, topology };
}

const endpoints = (f: (e: Obj, strict: boolean) => Obj): Convert => (obj, notes) => {
  if (Array.isArray(obj.endpoints)) obj.endpoints = obj.endpoints.map((e: unknown) => isMap(e) ? f(e, !!notes.strict) : e);
  return obj;
};

export const DISCOVERY_ROWS: VersionRow[] = [
  row({
    group: "discovery.k8s.io", version: "v1beta1", kind: "EndpointSlice", hub: { group: "discovery.k8s.io", version: "v1" }, served: true,
    deprecated: { in: "1.21", removedIn: "1.25", replacement: "discovery.k8s.io/v1 EndpointSlice" },
    toHub: endpoints(endpointToV1), fromHub: endpoints(endpointToV1beta1),
  }),
];
