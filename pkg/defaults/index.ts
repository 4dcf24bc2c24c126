// Each built-in kind's defaults, as upstream's v1.21 defaulters set them on every decoded object.
// The generic registry applies them to every write (create, update, each patch and apply) before
// strategy hooks and validation.
import type { Obj } from "../registry/types.ts";
import { defaultDaemonSet, defaultDeployment, defaultReplicaSet, defaultStatefulSet } from "./apps.ts";
import { defaultCRD } from "./apiextensions.ts";
import { defaultHorizontalPodAutoscaler } from "./autoscaling.ts";
import { defaultCronJob, defaultJob } from "./batch.ts";
import {
  defaultEndpoints, defaultLimitRange, defaultNamespace, defaultNode, defaultPersistentVolume, defaultPersistentVolumeClaim,
  defaultPodTemplateObject, defaultReplicationController,
} from "./core.ts";
import { child, fill, fillZero, items, sub } from "./fill.ts";
import { defaultFlowSchema, defaultPriorityLevel } from "./flowcontrol.ts";
import { defaultEndpointSlice, defaultNetworkPolicy } from "./networking.ts";
import { defaultPod } from "./pod.ts";
import { defaultBinding } from "./rbac.ts";
import { defaultSecret } from "./secret.ts";
import { defaultService } from "./service.ts";
import { defaultCSIDriver, defaultStorageClass, defaultVolumeAttachment } from "./storage.ts";
import { defaultMutatingWebhooks, defaultValidatingWebhooks } from "./webhooks.ts";

type Defaulter = (obj: Obj) => void;

/** Keyed `Kind` for the core group, `Kind.group` for the others, as the validators are. */
const BY_KIND: Record<string, Defaulter> = {
  Namespace: defaultNamespace,
  Pod: defaultPod,
  Service: defaultService,
  Secret: defaultSecret,
  Endpoints: defaultEndpoints,
  Node: defaultNode,
  PersistentVolume: defaultPersistentVolume,
  PersistentVolumeClaim: defaultPersistentVolumeClaim,
  LimitRange: defaultLimitRange,
  ReplicationController: defaultReplicationController,
  PodTemplate: defaultPodTemplateObject,
  "Deployment.apps": defaultDeployment,
  "ReplicaSet.apps": defaultReplicaSet,
  "StatefulSet.apps": defaultStatefulSet,
  "DaemonSet.apps": defaultDaemonSet,
  "Job.batch": defaultJob,
  "CronJob.batch": defaultCronJob,
  "HorizontalPodAutoscaler.autoscaling": defaultHorizontalPodAutoscaler,
  "NetworkPolicy.networking.k8s.io": defaultNetworkPolicy,
  "EndpointSlice.discovery.k8s.io": defaultEndpointSlice,
  "RoleBinding.rbac.authorization.k8s.io": defaultBinding,
  "ClusterRoleBinding.rbac.authorization.k8s.io": defaultBinding,
  "StorageClass.storage.k8s.io": defaultStorageClass,
  "CSIDriver.storage.k8s.io": defaultCSIDriver,
  "VolumeAttachment.storage.k8s.io": defaultVolumeAttachment,
  // policies written before allowPrivilegeEscalation existed stay as permissive as they were
  "PodSecurityPolicy.policy": (psp) => fill(child(psp, "spec"), { allowPrivilegeEscalation: true }),
  "PriorityClass.scheduling.k8s.io": (pc) => fill(pc, { preemptionPolicy: "PreemptLowerPriority" }),
  "MutatingWebhookConfiguration.admissionregistration.k8s.io": defaultMutatingWebhooks,
  "ValidatingWebhookConfiguration.admissionregistration.k8s.io": defaultValidatingWebhooks,
  "CustomResourceDefinition.apiextensions.k8s.io": defaultCRD,
  "FlowSchema.flowcontrol.apiserver.k8s.io": defaultFlowSchema,
  "PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io": defaultPriorityLevel,
  // an APIService's service is reached on 443 unless it says otherwise
  "APIService.apiregistration.k8s.io": (svc) => { const ref = sub(sub(svc, "spec"), "service"); if (ref) fill(ref, { port: 443 }); },
  // a condition (an approval, a denial) holds unless it says otherwise
  "CertificateSigningRequest.certificates.k8s.io": (csr) => items(sub(csr, "status"), "conditions").forEach((c) => fillZero(c, { status: "True" })),
};

/**
 * Kinds whose defaulter takes the object at any served version (it reads the apiVersion), as upstream
 * defaults each version: the registry applies it to the object as written, so no round trip through the
 * hub loses what validation must see (an HPA's v2 metrics that autoscaling/v1 cannot carry).
 */
const AT_EVERY_VERSION = new Set(["HorizontalPodAutoscaler.autoscaling"]);

export const defaultsAtAnyVersion = (group: string, kind: string) => AT_EVERY_VERSION.has(group ? `${kind}.${group}` : kind);

/** Fills in obj's defaults in place; kinds without any are left alone. */
export function applyDefaults(group: string, kind: string, obj: Obj): void {
  BY_KIND[group ? `${kind}.${group}` : kind]?.(obj);
}
