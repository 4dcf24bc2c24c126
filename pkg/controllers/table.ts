// The controllers `kite controller-manager` knows, by upstream's names (--controllers), and whether each
// runs when --controllers is `*`. A controller is one file exporting its ControllerInit.
import { initCronJobController } from "./cronjob.ts";
import { initCsrApprovingController } from "./csrapproving.ts";
import { initCsrSigningController } from "./csrsigning.ts";
import { initDaemonSetController } from "./daemonset.ts";
import { deploymentController } from "./deployment.ts";
import { initDisruptionController } from "./disruption.ts";
import { startEndpointController } from "./endpoints.ts";
import { startEndpointSliceController } from "./endpointslice.ts";
import type { ControllerInit } from "./framework.ts";
import { initGarbageCollector } from "./garbagecollector.ts";
import { initHorizontalPodAutoscalerController } from "./horizontalpodautoscaling.ts";
import { initJobController } from "./job.ts";
import { initNamespaceController } from "./namespace-deleter.ts";
import { initNodeLifecycleController } from "./nodelifecycle.ts";
import { initPodGCController } from "./podgc.ts";
import { initPvcProtectionController } from "./pvcprotection.ts";
import { initPvProtectionController } from "./pvprotection.ts";
import { replicaSetController, replicationControllerController } from "./replicaset.ts";
import { initResourceQuotaController } from "./resourcequota.ts";
import { initServiceController } from "./service.ts";
import { startServiceAccountController } from "./serviceaccount.ts";
import { startServiceAccountTokenController } from "./serviceaccounttoken.ts";
import { initStatefulSetController } from "./statefulset.ts";
import { initTTLAfterFinishedController } from "./ttlafterfinished.ts";

export interface ControllerEntry { init: ControllerInit; enabledByDefault: boolean }

export const CONTROLLERS: Record<string, ControllerEntry> = {
  // v1.21 runs the CronJob controller v2 (CronJobControllerV2, beta, on by default)
  cronjob: { init: initCronJobController, enabledByDefault: true },
  csrapproving: { init: initCsrApprovingController, enabledByDefault: true },
  csrsigning: { init: initCsrSigningController, enabledByDefault: true },
  daemonset: { init: initDaemonSetController, enabledByDefault: true },
  deployment: { init: deploymentController, enabledByDefault: true },
  disruption: { init: initDisruptionController, enabledByDefault: true },
  endpoint: { init: startEndpointController, enabledByDefault: true },
  endpointslice: { init: startEndpointSliceController, enabledByDefault: true },
  garbagecollector: { init: initGarbageCollector, enabledByDefault: true },
  horizontalpodautoscaling: { init: initHorizontalPodAutoscalerController, enabledByDefault: true },
  job: { init: initJobController, enabledByDefault: true },
  namespace: { init: initNamespaceController, enabledByDefault: true },
  nodelifecycle: { init: initNodeLifecycleController, enabledByDefault: true },
  podgc: { init: initPodGCController, enabledByDefault: true },
  "pv-protection": { init: initPvProtectionController, enabledByDefault: true },
  "pvc-protection": { init: initPvcProtectionController, enabledByDefault: true },
  replicaset: { init: replicaSetController, enabledByDefault: true },
  replicationcontroller: { init: replicationControllerController, enabledByDefault: true },
  resourcequota: { init: initResourceQuotaController, enabledByDefault: true },
  service: { init: initServiceController, enabledByDefault: true },
  serviceaccount: { init: startServiceAccountController, enabledByDefault: true },
  "serviceaccount-token": { init: startServiceAccountTokenController, enabledByDefault: true },
  statefulset: { init: initStatefulSetController, enabledByDefault: true },
  // TTLAfterFinished is beta (on by default) in v1.21
  "ttl-after-finished": { init: initTTLAfterFinishedController, enabledByDefault: true },
};
