// events.k8s.io/v1beta1 Event, to and from v1: the fields are the same (v1beta1 already called the legacy
// ones deprecatedSource, deprecatedFirstTimestamp, deprecatedLastTimestamp and deprecatedCount). What
// differs is what v1 accepts in a new event, which `kite convert` reports: a type other than Normal or
// Warning, no eventTime, and any deprecated field set.
import type { VersionRow } from "../table.ts";
import { type Convert, row } from "./util.ts";

const DEPRECATED = ["deprecatedSource", "deprecatedFirstTimestamp", "deprecatedLastTimestamp", "deprecatedCount"];
const unset = (v: unknown) => v === undefined || v === null || v === "" || v === 0 ||
  (typeof v === "object" && Object.values(v as object).every((x) => x === undefined || x === null || x === ""));

const toHub: Convert = (obj, notes) => {
  if (!notes.strict) return obj;
  if (obj.type !== "Normal" && obj.type !== "Warning") notes.error("type", `Invalid value: "": has invalid value: ${obj.type ?? ""}`);
  if (!obj.eventTime) notes.error("eventTime", "Required value");
  for (const f of DEPRECATED) if (!unset(obj[f])) notes.error(f, `Invalid value: "": needs to be unset`);
  return obj;
};

export const EVENTS_ROWS: VersionRow[] = [
  row({
    group: "events.k8s.io", version: "v1beta1", kind: "Event", hub: { group: "events.k8s.io", version: "v1" }, served: true,
    deprecated: { in: "1.19", removedIn: "1.25", replacement: "events.k8s.io/v1 Event" }, toHub,
  }),
];
