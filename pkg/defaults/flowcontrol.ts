// flowcontrol.apiserver.k8s.io v1beta1 defaults, as upstream's defaulters set them.
import type { Obj } from "../registry/types.ts";
import { child, fill, sub } from "./fill.ts";

export function defaultFlowSchema(fs: Obj): void {
  fill(child(fs, "spec"), { matchingPrecedence: 1000 });
}

export function defaultPriorityLevel(pl: Obj): void {
  const limited = sub(sub(pl, "spec"), "limited");
  if (!limited) return;
  fill(limited, { assuredConcurrencyShares: 30 });
  const queuing = sub(sub(limited, "limitResponse"), "queuing");
  if (queuing) fill(queuing, { queues: 64, handSize: 8, queueLengthLimit: 50 });
}
