// Validation of Pods, pod templates and the workloads that carry them (filled in by issue 13's work).
import type { KindValidator } from "./index.ts";

export const WORKLOAD_KINDS: Record<string, KindValidator> = {};
