// Every version the server serves: the hub types (./builtin.ts) and, for each served row of the
// conversion table (pkg/convert), the same type at the row's version, stored at its hub. Nothing here
// knows a kind: a row is served as soon as it is in the table.
import { badRequest } from "../api/status.ts";
import { type Notes, type VersionRow, convert, parseApiVersion } from "../convert/index.ts";
import { ROWS } from "../convert/rows/index.ts";
import { type Codec, type Obj, type ResourceDef, type Strategy, apiVersionOf } from "./types.ts";

/**
 * The server's conversions never lose a field (served rows are lossless); a row that cannot carry a
 * client's object says why with a 400. Warnings are for `kite convert`'s readers.
 */
const SERVER_NOTES: Notes = {
  warn() {},
  error(field, message) { throw badRequest(`${field}: ${message}`); },
};

const sameGV = (o: Obj, gv: { group: string; version: string }) => String(o.apiVersion ?? "") === apiVersionOf(gv);

/**
 * The codec of a row's def: stored objects (at the hub, or at an older storage version) are read at
 * the row's version; written objects go to the hub, then through the hub's own codec when it has one
 * (events.k8s.io over core Events).
 */
function rowCodec(row: VersionRow, hub: ResourceDef): Codec {
  const atHub = (o: Obj) => (hub.codec ? hub.codec.fromStorage(o) : sameGV(o, hub) ? o : convert(o, hub, SERVER_NOTES));
  return {
    toStorage: (o) => { const h = row.toHub(o, SERVER_NOTES); return hub.codec ? hub.codec.toStorage(h) : h; },
    fromStorage: (o) => row.fromHub(atHub(o), SERVER_NOTES),
  };
}

/** Replaces obj's contents with `next`'s: hooks mutate the object their caller holds. */
export function replaceContents(obj: Obj, next: Obj) {
  for (const k of Object.keys(obj)) delete obj[k];
  Object.assign(obj, next);
}

/** The hub's strategy, run on the hub form of the row's objects (hooks that mutate, mutate the row's object). */
function strategyAtHub(st: Strategy, toHub: (o: Obj) => Obj, fromHub: (o: Obj) => Obj): Strategy {
  const inPlace = (obj: Obj, fn: (hub: Obj) => void) => {
    const hub = toHub(obj);
    fn(hub);
    replaceContents(obj, fromHub(hub));
  };
  const out: Strategy = {};
  if (st.prepareForCreate) out.prepareForCreate = (obj, user) => inPlace(obj, (h) => st.prepareForCreate!(h, user));
  if (st.prepareForUpdate) out.prepareForUpdate = (obj, old) => inPlace(obj, (h) => st.prepareForUpdate!(h, toHub(old)));
  if (st.prepareForSubresourceUpdate) out.prepareForSubresourceUpdate = (sub, obj, old) => inPlace(obj, (h) => st.prepareForSubresourceUpdate!(sub, h, toHub(old)));
  if (st.validate) out.validate = (obj, old, sub) => st.validate!(toHub(obj), old && toHub(old), sub);
  if (st.deleteImmediately) out.deleteImmediately = (obj) => st.deleteImmediately!(toHub(obj));
  if (st.pendingFinalizers) out.pendingFinalizers = (obj) => st.pendingFinalizers!(toHub(obj));
  if (st.validateDelete) out.validateDelete = (obj) => st.validateDelete!(toHub(obj));
  if (st.onDeleting) out.onDeleting = (obj) => inPlace(obj, (h) => st.onDeleting!(h));
  if (st.fieldLabels) out.fieldLabels = { ...st.fieldLabels, values: (obj) => st.fieldLabels!.values(toHub(obj)) };
  return out;
}

/** The def of a served row: its hub's declaration at the row's group, version and kind. */
export function rowDef(row: VersionRow, hub: ResourceDef): ResourceDef {
  const { deprecated: _d, ...base } = hub;
  const toHub = (o: Obj) => row.toHub(o, SERVER_NOTES);
  const fromHub = (o: Obj) => row.fromHub(o, SERVER_NOTES);
  return {
    ...base,
    group: row.group,
    version: row.version,
    kind: row.kind,
    singular: row.kind.toLowerCase(),
    // the hub's storage location, also for a kind served in another group (extensions Ingress)
    storageResource: hub.storageResource ?? hub.plural,
    ...(row.deprecated ? { deprecated: row.deprecated } : {}),
    codec: rowCodec(row, hub),
    ...(hub.strategy ? { strategy: strategyAtHub(hub.strategy, toHub, fromHub) } : {}),
    conversion: {
      hub: { group: hub.group, version: hub.version, kind: hub.kind },
      toHub,
      fromHub,
      ...(row.sameFields ? { sameFields: true } : {}),
    },
  };
}

/** The hub def of a row, or undefined when its hub is not a built-in type. */
const hubOf = (row: VersionRow, hubs: ResourceDef[]) =>
  hubs.find((d) => d.group === row.hub.group && d.version === row.hub.version && d.kind === (row.hub.kind ?? row.kind));

/** The defs of every served row of `rows` whose hub is in `hubs`. */
export function servedRowDefs(hubs: ResourceDef[], rows: VersionRow[] = ROWS): ResourceDef[] {
  return rows.filter((r) => r.served).flatMap((r) => {
    const hub = hubOf(r, hubs);
    return hub ? [rowDef(r, hub)] : [];
  });
}

/**
 * Stored objects of a hub type written at an older storage version (a row's version): read at the
 * hub. Most reads find the hub's own apiVersion and skip this.
 */
export function upgradeStored(def: ResourceDef, obj: Obj): Obj {
  if (def.conversion || sameGV(obj, def)) return obj;
  if (def.relabelStored) return { ...obj, apiVersion: def.group ? `${def.group}/${def.version}` : def.version };
  const { group, version } = parseApiVersion(String(obj.apiVersion ?? ""));
  if (!ROWS.some((r) => r.group === group && r.version === version && r.kind === obj.kind)) return obj;
  return convert(obj, def, SERVER_NOTES);
}
