// The controllers `kite controller-manager` knows, by upstream's names (--controllers), and whether each
// runs when --controllers is `*`. A controller is one file exporting its ControllerInit.
import type { ControllerInit } from "./framework.ts";
import { initCronJobController } from "./cronjob.ts";
import { initJobController } from "./job.ts";
import { initPodGCController } from "./podgc.ts";
import { initTTLAfterFinishedController } from "./ttlafterfinished.ts";

export interface ControllerEntry { init: ControllerInit; enabledByDefault: boolean }

export const CONTROLLERS: Record<string, ControllerEntry> = {
  job: { init: initJobController, enabledByDefault: true },
  // v1.21 runs the CronJob controller v2 (CronJobControllerV2, beta, on by default)
  cronjob: { init: initCronJobController, enabledByDefault: true },
  // TTLAfterFinished is beta (on by default) in v1.21
  "ttl-after-finished": { init: initTTLAfterFinishedController, enabledByDefault: true },
  podgc: { init: initPodGCController, enabledByDefault: true },
};
