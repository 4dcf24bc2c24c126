// A CustomResourceDefinition's spec.conversion, checked as upstream checks its internal form: the v1
// webhook's clientConfig and conversionReviewVersions are reported at v1beta1's places
// (spec.conversion.webhookClientConfig, spec.conversion.conversionReviewVersions), as upstream reports them.
import type { Obj } from "../registry/types.ts";
import type { Errs } from "./field.ts";
import { has, isMap, list, oneOf } from "./rules.ts";
import { REVIEW_VERSIONS, reviewVersions, webhookClientConfig } from "./webhook-client.ts";

const PATH = "spec.conversion";
const NOT_WEBHOOK = "should not be set when strategy is not set to Webhook";

/** The conversion's review versions and client config, wherever the hub (v1) form keeps them. */
const partsOf = (c: Obj) => {
  const webhook: Obj = isMap(c.webhook) ? c.webhook : {};
  return { clientConfig: webhook.clientConfig, versions: list(webhook.conversionReviewVersions) };
};

/**
 * `spec` is the hub form; `old` the stored definition on update. A definition whose stored review versions
 * were all unknown may keep them (upstream does not tighten validation of what it already stored).
 */
export function crdConversion(e: Errs, spec: Obj, old?: Obj) {
  const c = spec.conversion;
  if (!isMap(c)) return;
  if (c.strategy !== "None" && spec.preserveUnknownFields === true) {
    e.invalid(`${PATH}.strategy`, c.strategy ?? "", "must be None if spec.preserveUnknownFields is true");
  }
  oneOf(e, `${PATH}.strategy`, c.strategy, ["None", "Webhook"], { required: true });
  const { clientConfig, versions } = partsOf(c);
  if (c.strategy !== "Webhook") {
    if (has(clientConfig)) e.forbidden(`${PATH}.webhookClientConfig`, NOT_WEBHOOK);
    if (versions.length) e.forbidden(`${PATH}.conversionReviewVersions`, NOT_WEBHOOK);
    return;
  }
  if (!has(clientConfig)) e.required(`${PATH}.webhookClientConfig`, "required when strategy is set to Webhook");
  else webhookClientConfig(e, `${PATH}.webhookClientConfig`, clientConfig);
  const was = isMap(old?.spec?.conversion) ? partsOf(old.spec.conversion).versions : undefined;
  const requireKnown = !was || !was.length || was.some((v) => REVIEW_VERSIONS.includes(v));
  reviewVersions(e, `${PATH}.conversionReviewVersions`, versions, "", requireKnown);
}
