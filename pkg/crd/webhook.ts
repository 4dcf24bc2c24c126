// Conversion strategy Webhook: custom resources change version through a ConversionReview posted to the
// definition's webhook (v1 or v1beta1 review, the first of conversionReviewVersions Kite speaks), checked
// as upstream's apiextensions server checks the answer. Failures are 500s in upstream's words; metadata
// other than labels and annotations always comes from the original object.
import { randomUUID } from "node:crypto";
import { StatusError } from "../api/status.ts";
import { WebhookCallError, type WebhookClient } from "../admission/webhook/client.ts";
import type { AsyncCodec, Obj } from "../registry/types.ts";
import { Errs } from "../validation/field.ts";
import { annotationKeys, labels } from "../validation/labels.ts";

/** Upstream's conversion webhook client has no timeout field: its REST client waits 30 s. */
const TIMEOUT_SECONDS = 30;
const REVIEW_VERSIONS = ["v1", "v1beta1"];

/** Converts between one served version and the storage version through the definition's webhook. */
export function webhookCodec(crd: Obj, served: string, storage: string, client: WebhookClient): AsyncCodec {
  const webhook: Obj = crd.spec?.conversion?.webhook ?? {};
  const hook = { clientConfig: webhook.clientConfig ?? {}, timeoutSeconds: TIMEOUT_SECONDS };
  const versions: string[] = webhook.conversionReviewVersions ?? [];
  const convert = (objs: Obj[], desired: string) => convertObjects(objs, desired, versions, (review) => client.call(hook, review));
  return { toStorage: (objs) => convert(objs, storage), fromStorage: (objs) => convert(objs, served) };
}

/** "stable.example.com/v1, Kind=CronTab", as Go prints a GroupVersionKind. */
const gvkOf = (o: Obj) => `${o.apiVersion}, Kind=${o.kind}`;

const failure = (message: string) => new StatusError(500, "", message);

async function convertObjects(objs: Obj[], desired: string, versions: string[], post: (review: Obj) => Promise<unknown>): Promise<Obj[]> {
  const todo = objs.flatMap((o, i) => (o.apiVersion === desired ? [] : [i]));
  if (!todo.length) return objs;
  const version = versions.find((v) => REVIEW_VERSIONS.includes(v));
  if (!version) throw failure("no supported conversion review versions");
  const single = objs.length === 1;
  const gvk = gvkOf(objs[todo[0]!]!);
  const uid = randomUUID();
  const review = { apiVersion: `apiextensions.k8s.io/${version}`, kind: "ConversionReview", request: { uid, desiredAPIVersion: desired, objects: todo.map((i) => objs[i]) } };
  let answer: unknown;
  try { answer = await post(review); } catch (e) {
    if (e instanceof WebhookCallError) throw failure(`conversion webhook for ${gvk} failed: ${e.message}`);
    throw e;
  }
  let converted: unknown[];
  try { converted = convertedObjects(answer as Obj, version, uid); } catch (e) { throw failure(`conversion webhook for ${gvk} failed: ${(e as Error).message}`); }
  if (converted.length !== todo.length) throw failure(`conversion webhook for ${gvk} returned ${converted.length} objects, expected ${todo.length}`);
  const out = [...objs];
  todo.forEach((at, n) => {
    const original = objs[at]!, got = converted[n] as Obj;
    const where = single ? "returned invalid object at index 0" : `returned invalid converted object at index ${n}`;
    const bad = (why: string) => failure(`conversion webhook for ${gvk} ${where}: ${why}`);
    if (typeof got !== "object" || got === null || Array.isArray(got)) throw bad("invalid type, expected=Unstructured");
    if (got.apiVersion !== desired) throw bad(`invalid groupVersion (expected ${desired}, received ${got.apiVersion ?? ""})`);
    if (got.kind !== original.kind) throw bad(`invalid kind (expected ${original.kind}, received ${got.kind ?? ""})`);
    const mismatch = sameIdentity(original, got);
    if (mismatch) throw failure(`conversion webhook for ${gvk} ${single ? "returned invalid object" : `returned invalid converted object at index ${n}`}: ${mismatch}`);
    try { out[at] = { ...got, metadata: restoredMetadata(original, got) }; } catch (e) {
      throw failure(`conversion webhook for ${gvk} returned invalid metadata${single ? "" : ` in object at index ${n}`}: ${(e as Error).message}`);
    }
  });
  return out;
}

/** The converted objects of a review answer, or an Error in upstream's words. */
function convertedObjects(answer: Obj, version: string, uid: string): unknown[] {
  if (version === "v1" && (answer?.apiVersion !== "apiextensions.k8s.io/v1" || answer?.kind !== "ConversionReview")) {
    throw new Error(`expected webhook response of apiextensions.k8s.io/v1, Kind=ConversionReview, got ${answer?.apiVersion ?? ""}, Kind=${answer?.kind ?? ""}`);
  }
  const response = answer?.response;
  if (!response || typeof response !== "object") throw new Error("no response provided");
  // v1beta1 answers were never checked for their uid
  if (version === "v1" && response.uid !== uid) throw new Error(`expected response.uid=${JSON.stringify(uid)}, got ${JSON.stringify(response.uid ?? "")}`);
  const result = response.result ?? {};
  if (result.status !== "Success") {
    throw new Error(result.message ? String(result.message) : `response.result.status was '${result.status ?? ""}', not 'Success'`);
  }
  return Array.isArray(response.convertedObjects) ? response.convertedObjects : [];
}

/** The webhook may change labels and annotations only: kind, name, namespace and uid must stay. */
function sameIdentity(a: Obj, b: Obj): string | undefined {
  const am = a.metadata ?? {}, bm = b.metadata ?? {};
  if (a.kind !== b.kind) return `must have the same kind: ${a.kind} != ${b.kind}`;
  for (const [f, label] of [["name", "name"], ["namespace", "namespace"], ["uid", "UID"]] as const) {
    if ((am[f] ?? "") !== (bm[f] ?? "")) return `must have the same ${label}: ${am[f] ?? ""} != ${bm[f] ?? ""}`;
  }
  return undefined;
}

/** The original's metadata with the converted object's labels and annotations (checked when they changed). */
function restoredMetadata(original: Obj, converted: Obj): Obj {
  const from = converted.metadata;
  if (from === undefined) throw new Error("missing metadata in converted object");
  if (typeof from !== "object" || from === null || Array.isArray(from)) throw new Error(`invalid metadata of type ${goType(from)} in converted object`);
  const meta: Obj = structuredClone(original.metadata ?? {});
  for (const f of ["labels", "annotations"] as const) {
    const v = from[f];
    if (v === undefined || v === null) { delete meta[f]; continue; }
    if (typeof v !== "object" || Array.isArray(v)) throw new Error(`invalid metadata.${f} of type ${goType(v)} in converted object`);
    for (const [k, x] of Object.entries(v)) {
      if (typeof x !== "string") throw new Error(`metadata.${f}[${k}] must be a string, but is ${goType(x)} in converted object`);
    }
    if (!Bun.deepEquals(v, meta[f] ?? {})) validateLabelsAndAnnotations(f, v as Record<string, string>);
    meta[f] = v;
  }
  return meta;
}

/** Upstream checks changed labels as labels, and changed annotations' keys (at its path "metadata.annotation"). */
function validateLabelsAndAnnotations(f: "labels" | "annotations", m: Record<string, string>) {
  const e = new Errs();
  if (f === "labels") labels(e, "metadata.labels", m);
  else annotationKeys(e, "metadata.annotation", m);
  const errs = e.causes.map((c) => `${c.field}: ${c.message}`);
  if (errs.length) throw new Error(errs.length === 1 ? errs[0] : `[${errs.join(", ")}]`);
}

/** The Go type encoding/json decodes a JSON value into, as upstream names it in messages. */
function goType(v: unknown): string {
  if (v === null) return "<nil>";
  if (Array.isArray(v)) return "[]interface {}";
  if (typeof v === "object") return "map[string]interface {}";
  return { string: "string", number: "int64", boolean: "bool" }[typeof v as string] ?? typeof v;
}
