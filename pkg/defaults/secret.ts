// A Secret's stringData is write-only: upstream's conversion merges it into data (base64, its keys
// winning over data's) and the field is never stored nor returned.
import type { Obj } from "../registry/types.ts";
import { fillZero } from "./fill.ts";
import { isMap } from "../util/ismap.ts";

export function defaultSecret(s: Obj): void {
  fillZero(s, { type: "Opaque" });
  if (isMap(s.stringData)) {
    const data: Obj = isMap(s.data) ? s.data : {};
    for (const [k, v] of Object.entries(s.stringData)) data[k] = Buffer.from(String(v), "utf8").toString("base64");
    if (Object.keys(data).length) s.data = data;
  }
  delete s.stringData;
}
