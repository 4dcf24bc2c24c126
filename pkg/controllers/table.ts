// The controllers `kite controller-manager` knows, by upstream's names (--controllers), and whether each
// runs when --controllers is `*`. A controller is one file exporting its ControllerInit.
import type { ControllerInit } from "./framework.ts";
import { initJobController } from "./job.ts";

export interface ControllerEntry { init: ControllerInit; enabledByDefault: boolean }

export const CONTROLLERS: Record<string, ControllerEntry> = {
  job: { init: initJobController, enabledByDefault: true },
};
