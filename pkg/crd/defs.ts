// A CustomResourceDefinition as resource declarations: one ResourceDef per served version, with the hooks
// that make the generic registry treat its objects as upstream's custom resource handler does.
import type { WebhookClient } from "../admission/webhook/client.ts";
import { StatusError } from "../api/status.ts";
import type { Codec, Obj, ResourceDef, Strategy, Subresource } from "../registry/types.ts";
import { printerOf } from "./printer.ts";
import { applySchemaDefaults, prune } from "./structural.ts";
import { validateAgainstSchema } from "./validate.ts";
import { webhookCodec } from "./webhook.ts";

/** What the controller changes on a served definition without rebuilding its types. */
export interface ServedState { terminating: boolean }

const VERSION = /^v(\d+)(?:(alpha|beta)(\d+))?$/;
const STAGE: Record<string, number> = { "": 2, beta: 1, alpha: 0 };

/** Upstream's version priority: GA before beta before alpha, higher numbers first; other names after, in order. */
export function compareVersions(a: string, b: string): number {
  const ma = VERSION.exec(a), mb = VERSION.exec(b);
  if (!ma || !mb) return ma ? -1 : mb ? 1 : a < b ? -1 : a > b ? 1 : 0;
  const sa = STAGE[ma[2] ?? ""], sb = STAGE[mb[2] ?? ""];
  if (sa !== sb) return sb - sa;
  if (ma[1] !== mb[1]) return Number(mb[1]) - Number(ma[1]);
  return Number(mb[3] ?? 0) - Number(ma[3] ?? 0);
}

/** Conversion strategy None: the same object under another apiVersion. */
function apiVersionCodec(served: string, storage: string): Codec {
  return {
    toStorage: (o) => ({ ...o, apiVersion: storage }),
    fromStorage: (o) => ({ ...o, apiVersion: served }),
  };
}

function customStrategy(version: Obj, hasStatus: boolean, state: ServedState): Strategy {
  const schema: Obj | undefined = version.schema?.openAPIV3Schema;
  return {
    decode(obj) {
      applySchemaDefaults(obj, schema);
      return prune(obj, schema);
    },
    prepareForCreate(obj) {
      if (state.terminating) {
        throw new StatusError(405, "MethodNotAllowed", "create not allowed while custom resource definition is terminating", { group: obj.apiVersion?.split("/")[0], kind: obj.kind });
      }
      // with a status subresource, status is written only through it
      if (hasStatus) delete obj.status;
    },
    validate: (obj) => validateAgainstSchema(obj, schema),
  };
}

/**
 * How a version converts: None renames, Webhook asks the definition's webhook. The storage version too
 * converts what an earlier storage version left in the store (the definition's status.storedVersions).
 */
function conversionOf(crd: Obj, served: string, storage: string, webhooks: WebhookClient): Pick<ResourceDef, "codec" | "asyncCodec" | "relabelStored"> {
  if (crd.spec?.conversion?.strategy === "Webhook") return { asyncCodec: webhookCodec(crd, served, storage, webhooks) };
  return served === storage ? { relabelStored: true } : { codec: apiVersionCodec(served, storage) };
}

/** The served versions of a definition, by its accepted names, most preferred first. */
export function servedDefs(crd: Obj, state: ServedState, webhooks: WebhookClient): ResourceDef[] {
  const sp = crd.spec ?? {};
  const names = crd.status?.acceptedNames ?? {};
  if (!names.plural || !names.kind) return [];
  const versions: Obj[] = (sp.versions ?? []).filter((v: Obj) => v.served);
  const storage = (sp.versions ?? []).find((v: Obj) => v.storage)?.name;
  versions.sort((a, b) => compareVersions(a.name, b.name));
  return versions.map((v): ResourceDef => {
    const subs = v.subresources ?? {};
    const subresources: Subresource[] = [...(subs.status ? ["status" as const] : []), ...(subs.scale ? ["scale" as const] : [])];
    return {
      group: sp.group, version: v.name, kind: names.kind, plural: names.plural,
      singular: names.singular || String(names.kind).toLowerCase(),
      namespaced: sp.scope === "Namespaced",
      ...(names.shortNames?.length ? { shortNames: names.shortNames } : {}),
      ...(names.categories?.length ? { categories: names.categories } : {}),
      ...(subresources.length ? { subresources } : {}),
      generation: true,
      storageResource: `${sp.group}/${names.plural}`,
      strategy: customStrategy(v, !!subs.status, state),
      ...(storage ? conversionOf(crd, `${sp.group}/${v.name}`, `${sp.group}/${storage}`, webhooks) : {}),
      printer: printerOf(v.additionalPrinterColumns),
      custom: { crd: crd.metadata.name, listKind: names.listKind || `${names.kind}List`, schema: v.schema?.openAPIV3Schema, ...(subs.scale ? { scale: subs.scale } : {}) },
    };
  });
}
