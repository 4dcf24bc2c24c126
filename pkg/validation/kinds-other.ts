// Validation of the built-in kinds other than Pods and workloads (filled in by issue 13's work).
import type { KindValidator } from "./index.ts";

export const OTHER_KINDS: Record<string, KindValidator> = {};
