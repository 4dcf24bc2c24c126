// The admission plugins Kite has, in upstream v1.21's fixed order (the order flags name them in does not
// count), and which are on by default (the spec's list, upstream's).
import type { Plugin, PluginContext } from "./types.ts";
import { alwaysPullImages } from "./plugins/always-pull-images.ts";
import { certificateApproval } from "./plugins/certificate-approval.ts";
import { certificateSigning } from "./plugins/certificate-signing.ts";
import { certificateSubjectRestriction } from "./plugins/certificate-subject-restriction.ts";
import { defaultIngressClass } from "./plugins/default-ingress-class.ts";
import { defaultStorageClass } from "./plugins/default-storage-class.ts";
import { defaultTolerationSeconds } from "./plugins/default-toleration-seconds.ts";
import { limitRanger } from "./plugins/limit-ranger.ts";
import { namespaceLifecycle } from "./plugins/namespace-lifecycle.ts";
import { nodeRestriction } from "./plugins/node-restriction.ts";
import { persistentVolumeClaimResize } from "./plugins/persistent-volume-claim-resize.ts";
import { podSecurityPolicy } from "./plugins/pod-security-policy.ts";
import { priority } from "./plugins/priority.ts";
import { resourceQuota } from "./plugins/resource-quota.ts";
import { runtimeClass } from "./plugins/runtime-class.ts";
import { serviceAccount } from "./plugins/service-account.ts";
import { storageObjectInUseProtection } from "./plugins/storage-object-in-use-protection.ts";
import { taintNodesByCondition } from "./plugins/taint-nodes-by-condition.ts";
import { mutatingWebhook, validatingWebhook } from "./webhook/plugin.ts";

export type PluginFactory = (ctx: PluginContext) => Plugin;

/** Every plugin, in the order upstream runs them. */
export const PLUGINS: [string, PluginFactory][] = [
  ["NamespaceLifecycle", namespaceLifecycle],
  ["LimitRanger", limitRanger],
  ["ServiceAccount", serviceAccount],
  ["NodeRestriction", nodeRestriction],
  ["TaintNodesByCondition", taintNodesByCondition],
  ["AlwaysPullImages", alwaysPullImages],
  ["PodSecurityPolicy", podSecurityPolicy],
  ["Priority", priority],
  ["DefaultTolerationSeconds", defaultTolerationSeconds],
  ["DefaultStorageClass", defaultStorageClass],
  ["StorageObjectInUseProtection", storageObjectInUseProtection],
  ["PersistentVolumeClaimResize", persistentVolumeClaimResize],
  ["RuntimeClass", runtimeClass],
  ["CertificateApproval", certificateApproval],
  ["CertificateSigning", certificateSigning],
  ["CertificateSubjectRestriction", certificateSubjectRestriction],
  ["DefaultIngressClass", defaultIngressClass],
  ["MutatingAdmissionWebhook", mutatingWebhook],
  ["ValidatingAdmissionWebhook", validatingWebhook],
  ["ResourceQuota", resourceQuota],
];

export const PLUGIN_NAMES = PLUGINS.map(([n]) => n);

export const DEFAULT_ON = [
  "NamespaceLifecycle", "LimitRanger", "ServiceAccount", "TaintNodesByCondition", "Priority", "DefaultTolerationSeconds",
  "DefaultStorageClass", "StorageObjectInUseProtection", "PersistentVolumeClaimResize", "RuntimeClass", "CertificateApproval",
  "CertificateSigning", "CertificateSubjectRestriction", "DefaultIngressClass", "MutatingAdmissionWebhook", "ValidatingAdmissionWebhook",
  "ResourceQuota",
];
