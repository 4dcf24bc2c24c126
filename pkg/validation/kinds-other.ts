// Validation of the built-in kinds other than Pods and workloads: each kind's rules live in the file of its area.
import type { KindValidator } from "./index.ts";
import * as cfg from "./configdata.ts";
import * as ev from "./events.ts";
import * as ext from "./extensions.ts";
import * as fc from "./flowcontrol.ts";
import { apiService } from "./apiservice.ts";
import * as net from "./networking.ts";
import * as nn from "./namespace-node.ts";
import * as pol from "./cluster-policy.ts";
import { podSecurityPolicy } from "./pod-security-policy.ts";
import * as q from "./quota.ts";
import * as rbac from "./rbac.ts";
import * as svc from "./service.ts";
import * as st from "./storage.ts";
import * as vol from "./persistent-volumes.ts";

const RBAC = "rbac.authorization.k8s.io";

export const OTHER_KINDS: Record<string, KindValidator> = {
  Service: svc.service,
  Endpoints: svc.endpoints,
  Secret: cfg.secret,
  ConfigMap: cfg.configMap,
  Namespace: nn.namespace,
  Node: nn.node,
  PersistentVolume: vol.persistentVolume,
  PersistentVolumeClaim: vol.persistentVolumeClaim,
  ResourceQuota: q.resourceQuota,
  LimitRange: q.limitRange,
  Event: ev.coreEvent,
  "Event.events.k8s.io": ev.eventsV1Event,
  "EndpointSlice.discovery.k8s.io": net.endpointSlice,
  "Ingress.networking.k8s.io": net.ingress,
  "IngressClass.networking.k8s.io": net.ingressClass,
  "NetworkPolicy.networking.k8s.io": net.networkPolicy,
  [`Role.${RBAC}`]: rbac.role,
  [`ClusterRole.${RBAC}`]: rbac.clusterRole,
  [`RoleBinding.${RBAC}`]: rbac.roleBinding,
  [`ClusterRoleBinding.${RBAC}`]: rbac.clusterRoleBinding,
  "StorageClass.storage.k8s.io": st.storageClass,
  "FlowSchema.flowcontrol.apiserver.k8s.io": fc.flowSchema,
  "PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io": fc.priorityLevelConfiguration,
  "CSIDriver.storage.k8s.io": st.csiDriver,
  "CSINode.storage.k8s.io": st.csiNode,
  "VolumeAttachment.storage.k8s.io": st.volumeAttachment,
  "PodDisruptionBudget.policy": pol.podDisruptionBudget,
  "PodSecurityPolicy.policy": podSecurityPolicy,
  "PriorityClass.scheduling.k8s.io": pol.priorityClass,
  "RuntimeClass.node.k8s.io": pol.runtimeClass,
  "Lease.coordination.k8s.io": pol.lease,
  "HorizontalPodAutoscaler.autoscaling": pol.horizontalPodAutoscaler,
  "CertificateSigningRequest.certificates.k8s.io": ext.certificateSigningRequest,
  "MutatingWebhookConfiguration.admissionregistration.k8s.io": ext.mutatingWebhookConfiguration,
  "ValidatingWebhookConfiguration.admissionregistration.k8s.io": ext.validatingWebhookConfiguration,
  "CustomResourceDefinition.apiextensions.k8s.io": ext.customResourceDefinition,
  "APIService.apiregistration.k8s.io": apiService,
};
