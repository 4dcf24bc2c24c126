// The controllers `kite controller-manager` knows, by upstream's names (--controllers), and whether each
// runs when --controllers is `*`. A controller is one file exporting its ControllerInit.
import { deploymentController } from "./deployment.ts";
import { startEndpointController } from "./endpoints.ts";
import { startEndpointSliceController } from "./endpointslice.ts";
import type { ControllerInit } from "./framework.ts";
import { replicaSetController, replicationControllerController } from "./replicaset.ts";
import { startServiceAccountController } from "./serviceaccount.ts";
import { startServiceAccountTokenController } from "./serviceaccounttoken.ts";

export interface ControllerEntry { init: ControllerInit; enabledByDefault: boolean }

export const CONTROLLERS: Record<string, ControllerEntry> = {
  deployment: { init: deploymentController, enabledByDefault: true },
  endpoint: { init: startEndpointController, enabledByDefault: true },
  endpointslice: { init: startEndpointSliceController, enabledByDefault: true },
  replicaset: { init: replicaSetController, enabledByDefault: true },
  replicationcontroller: { init: replicationControllerController, enabledByDefault: true },
  serviceaccount: { init: startServiceAccountController, enabledByDefault: true },
  "serviceaccount-token": { init: startServiceAccountTokenController, enabledByDefault: true },
};
