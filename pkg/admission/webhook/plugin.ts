// MutatingAdmissionWebhook and ValidatingAdmissionWebhook: the configured webhooks a request matches are
// called with an AdmissionReview; mutating ones in order (their JSON patches applied, IfNeeded ones called
// again once when a later webhook changed the object), validating ones all at once.
import { StatusError, badRequest, internal } from "../../api/status.ts";
import { applyDefaults } from "../../defaults/index.ts";
import { jsonPatch } from "../../patch/jsonpatch.ts";
import type { WebhookType } from "../../metrics/admission.ts";
import type { Obj, ResourceDef } from "../../registry/types.ts";
import { cachedGet } from "../lookup.ts";
import type { Attributes, Plugin, PluginContext } from "../types.ts";
import { WebhookClient } from "./client.ts";
import { attributesAt, convertBetween } from "./equivalent.ts";
import { invocationDef, namespaceMatches, objectMatches } from "./match.ts";
import { REVIEW_VERSIONS, denied, readResponse, reviewRequest } from "./review.ts";
import { WebhookSource } from "./source.ts";

const CONFIG_GROUP = "admissionregistration.k8s.io";

/** A webhook to call, and the def (the request's, or an equivalent one) it is called for. */
interface Invocation { w: Obj; def: ResourceDef }

class Webhooks {
  private source: WebhookSource;
  private client: WebhookClient;

  constructor(private ctx: PluginContext, plural: string, private type: WebhookType) {
    this.source = new WebhookSource(ctx.registry.lookup(CONFIG_GROUP, "v1", plural)!);
    this.client = new WebhookClient(ctx.registry, ctx.options.proxyClient);
  }

  /** The webhooks this request goes to. Writes of webhook configurations themselves are never sent (no lock-out). */
  async matching(a: Attributes): Promise<Invocation[]> {
    if (a.def.group === CONFIG_GROUP) return [];
    const hooks = await this.source.current();
    if (!hooks.length) return [];
    const namespaces = this.ctx.registry.namespaces;
    const labels = async (ns: string) => (await cachedGet(namespaces, "", ns))?.metadata?.labels;
    const defs = () => this.ctx.registry.all.map((rs) => rs.def);
    const out: Invocation[] = [];
    for (const { webhook: w } of hooks) {
      const def = invocationDef(w, a, defs);
      if (!def) continue;
      if (!objectMatches(w, a) || !(await namespaceMatches(w, a, labels))) continue;
      if (a.dryRun && w.sideEffects !== "None" && w.sideEffects !== "NoneOnDryRun") throw badRequest(`admission webhook ${JSON.stringify(w.name)} does not support dry run`);
      out.push({ w, def });
    }
    return out;
  }

  /** Calls one webhook with the request at its def's version; undefined when it failed and its failure policy ignores that. */
  async call({ w, def }: Invocation, a: Attributes) {
    const t0 = performance.now();
    const observe = (rejected: boolean) => this.ctx.metrics?.observeWebhook(w.name, a.operation, this.type, rejected, (performance.now() - t0) / 1000);
    const version = ((w.admissionReviewVersions ?? []) as string[]).find((v) => REVIEW_VERSIONS.includes(v));
    let answer;
    try {
      if (!version) throw new Error(`webhook does not accept v1 or v1beta1 AdmissionReview`);
      const review = reviewRequest(await attributesAt(a, def), version, a.def);
      answer = readResponse(await this.client.call(w, review), review);
    } catch (e) {
      observe(true);
      if (w.failurePolicy === "Ignore") return undefined;
      this.ctx.metrics?.rejectedByWebhook(w.name, a.operation, this.type, "calling_webhook_error", 0);
      throw internal(`failed calling webhook ${JSON.stringify(w.name)}: ${(e as Error).message}`);
    }
    observe(!answer.allowed);
    a.warnings?.push(...answer.warnings);
    if (!answer.allowed) {
      const err = denied(w.name, answer.status);
      this.ctx.metrics?.rejectedByWebhook(w.name, a.operation, this.type, "no_error", err.code);
      throw err;
    }
    return answer;
  }
}

/** Replaces the object's content in place (the registry holds references to it). */
function replaceContent(target: Obj, next: Obj) {
  for (const k of Object.keys(target)) delete target[k];
  Object.assign(target, next);
}

export function mutatingWebhook(ctx: PluginContext): Plugin {
  const hooks = new Webhooks(ctx, "mutatingwebhookconfigurations", "admit");
  const callAndPatch = async (inv: Invocation, a: Attributes): Promise<boolean> => {
    const { w, def } = inv;
    const answer = await hooks.call(inv, a);
    if (!answer?.patch || !a.object) return false;
    let next: Obj;
    try {
      // the patch is made against the object at the webhook's version, and comes back to the request's
      next = jsonPatch(def === a.def ? a.object : await convertBetween(a.def, def, a.object), answer.patch) as Obj;
      if (def !== a.def) next = await convertBetween(def, a.def, next);
    } catch (e) {
      if (e instanceof StatusError) throw e;
      throw internal(`JSON patch of webhook ${JSON.stringify(w.name)} failed: ${(e as Error).message}`);
    }
    replaceContent(a.object, next);
    applyDefaults(a.def.group, a.def.kind, a.object);
    a.patched = true;
    return true;
  };
  return {
    handles: (a) => a.operation !== "CONNECT",
    async admit(a) {
      const matched = await hooks.matching(a);
      if (!matched.length) return;
      // For reinvocation: the object as each IfNeeded webhook left it.
      const seen = new Map<Invocation, string>();
      for (const inv of matched) {
        await callAndPatch(inv, a);
        if (inv.w.reinvocationPolicy === "IfNeeded") seen.set(inv, JSON.stringify(a.object));
      }
      const now = JSON.stringify(a.object);
      for (const [inv, after] of seen) if (after !== now) await callAndPatch(inv, a);
    },
  };
}

export function validatingWebhook(ctx: PluginContext): Plugin {
  const hooks = new Webhooks(ctx, "validatingwebhookconfigurations", "validating");
  return {
    handles: (a) => a.operation !== "CONNECT",
    async validate(a) {
      const matched = await hooks.matching(a);
      if (!matched.length) return;
      // all at once, as upstream; the first refusal (in configuration order) is the answer
      const results = await Promise.allSettled(matched.map((inv) => hooks.call(inv, a)));
      const failed = results.find((r) => r.status === "rejected");
      if (failed) throw (failed as PromiseRejectedResult).reason;
    },
  };
}
