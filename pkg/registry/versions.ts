// Every version the server serves: the hub types (./builtin.ts) and, for each served row of the
// conversion table (pkg/convert), the same type at the row's version, stored at its hub. Nothing here
// knows a kind: a row is served as soon as it is in the table.
import { badRequest } from "../api/status.ts";
import { type Notes, type VersionRow, convert, parseApiVersion } from "../convert/index.ts";
import { ROWS } from "../convert/rows/index.ts";
import { type Codec, type Obj, type ResourceDef, apiVersionOf } from "./types.ts";

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

/** The def of a served row: its hub's declaration at the row's group, version and kind. */
export function rowDef(row: VersionRow, hub: ResourceDef): ResourceDef {
  const { deprecated: _d, ...base } = hub;
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
    conversion: {
      hub: { group: hub.group, version: hub.version, kind: hub.kind },
      toHub: (o) => row.toHub(o, SERVER_NOTES),
      fromHub: (o) => row.fromHub(o, SERVER_NOTES),
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
  const { group, version } = parseApiVersion(String(obj.apiVersion ?? ""));
  if (!ROWS.some((r) => r.group === group && r.version === version && r.kind === obj.kind)) return obj;
  return convert(obj, def, SERVER_NOTES);
}
