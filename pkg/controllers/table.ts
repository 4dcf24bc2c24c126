// The controllers `kite controller-manager` knows, by upstream's names (--controllers), and whether each
// runs when --controllers is `*`. A controller is one file exporting its ControllerInit.
import { startEndpointController } from "./endpoints.ts";
import { startEndpointSliceController } from "./endpointslice.ts";
import type { ControllerInit } from "./framework.ts";
import { startServiceAccountController } from "./serviceaccount.ts";
import { startServiceAccountTokenController } from "./serviceaccounttoken.ts";

export interface ControllerEntry { init: ControllerInit; enabledByDefault: boolean }

export const CONTROLLERS: Record<string, ControllerEntry> = {
  endpoint: { init: startEndpointController, enabledByDefault: true },
  endpointslice: { init: startEndpointSliceController, enabledByDefault: true },
  serviceaccount: { init: startServiceAccountController, enabledByDefault: true },
  "serviceaccount-token": { init: startServiceAccountTokenController, enabledByDefault: true },
};
