// The representation a client asked for: the object itself, a Table, or PartialObjectMetadata(List).
import type { Printer } from "../../table/columns.ts";
import { partialObjectMetadata, partialObjectMetadataList, supportsTable, tableFor } from "../../table/index.ts";
import type { Obj } from "../../registry/types.ts";
import { badRequest, notAcceptable } from "../status.ts";
import type { HandlerContext } from "./context.ts";

const INCLUDE = ["None", "Metadata", "Object"];

/** Which `as=` forms a verb can answer; others fall through to the next entry of Accept. */
export function supportsAs(verb: string) {
  return (as: string, group: string, version: string) => {
    if (!supportsTable(group, version)) return false;
    if (as === "Table") return verb === "get" || verb === "list" || verb === "watch";
    if (as === "PartialObjectMetadata") return verb === "get" || verb === "watch";
    if (as === "PartialObjectMetadataList") return verb === "list";
    return false;
  };
}

function includeObject(ctx: HandlerContext): "None" | "Metadata" | "Object" | undefined {
  const v = ctx.url.searchParams.get("includeObject");
  if (!v) return undefined;
  if (!INCLUDE.includes(v)) throw badRequest(`includeObject: Unsupported value: "${v}": supported values: "Metadata", "None", "Object"`);
  return v as "None";
}

/** Turns a got object or a list into the negotiated representation; `kind` is what a subresource serves. */
export function represent(ctx: HandlerContext, out: Obj, kind: { group: string; kind: string; printer?: Printer } = ctx.rs.def): Obj {
  const rep = ctx.rep;
  if (!rep.as) return out;
  const isList = Array.isArray(out.items);
  if (rep.as === "Table") {
    // a version served through the conversion table prints as its hub does
    const c = kind === ctx.rs.def ? ctx.rs.def.conversion : undefined;
    return tableFor(c ? c.hub : kind, isList ? out.items : [out], {
      group: rep.group, version: rep.version, includeObject: includeObject(ctx), atHub: c?.toHub,
      listMeta: isList ? out.metadata : { resourceVersion: out.metadata?.resourceVersion },
    });
  }
  if (rep.as === "PartialObjectMetadataList" && isList) return partialObjectMetadataList(out as any, rep.group, rep.version);
  if (rep.as === "PartialObjectMetadata" && !isList) return partialObjectMetadata(out, rep.group, rep.version);
  throw notAcceptable(`${rep.as} is not available for this request`);
}

/** A key naming the representation, for remembering serialized watch events per representation. */
export function representationKey(ctx: HandlerContext): string {
  const r = ctx.rep;
  return r.as ? `${r.as};${r.group};${r.version};${ctx.url.searchParams.get("includeObject") ?? ""}` : "";
}
