// When a node last showed it is alive, and what its conditions become when it has stopped (upstream v1.21's
// tryUpdateNodeHealth): a node is heard from when its Ready condition's heartbeat or its Lease's renewTime
// moves; silent for longer than the grace period (the startup grace period before it ever posted a Ready
// condition), its Ready, MemoryPressure, DiskPressure and PIDPressure conditions become Unknown.
import type { Obj } from "../client/client.ts";
import { rfc3339 } from "../client/time.ts";

/** The conditions the node controller turns Unknown, as upstream's. */
const WATCHED = ["Ready", "MemoryPressure", "DiskPressure", "PIDPressure"];

export const conditionOf = (node: Obj, type: string): Obj | undefined => (node.status?.conditions ?? []).find((c: Obj) => c.type === type);

interface Heard {
  /** When (local clock, ms) the node was last heard from. */
  probe: number;
  heartbeat?: string;
  renewTime?: number;
}

export interface Grace { monitorMs: number; startupMs: number }

/** What the controller remembers of each node between passes. */
export class NodeHealth {
  private readonly heard = new Map<string, Heard>();

  constructor(private readonly grace: Grace, private readonly now: () => number = Date.now) {}

  forget(name: string): void { this.heard.delete(name); }

  /** Notes what the node and its Lease (if any) say; true when it has been silent beyond its grace period. */
  silent(node: Obj, lease: Obj | undefined): boolean {
    const now = this.now();
    const ready = conditionOf(node, "Ready");
    const name = node.metadata.name;
    let h = this.heard.get(name);
    if (!h) {
      // a node that never posted Ready is timed from its creation
      h = { probe: ready ? now : Date.parse(node.metadata.creationTimestamp) || now, heartbeat: ready?.lastHeartbeatTime };
      this.heard.set(name, h);
    }
    if (ready?.lastHeartbeatTime !== h.heartbeat) { h.heartbeat = ready?.lastHeartbeatTime; h.probe = now; }
    const renewed = Date.parse(lease?.spec?.renewTime ?? "");
    if (!Number.isNaN(renewed) && (h.renewTime === undefined || renewed > h.renewTime)) { h.renewTime = renewed; h.probe = now; }
    return now > h.probe + (ready ? this.grace.monitorMs : this.grace.startupMs);
  }
}

/** The node's conditions once it is known silent: the watched ones Unknown, or undefined if they are already. */
export function unknownConditions(node: Obj): Obj[] | undefined {
  const now = rfc3339(new Date());
  const conditions: Obj[] = [...(node.status?.conditions ?? [])];
  let changed = false;
  for (const type of WATCHED) {
    const i = conditions.findIndex((c) => c.type === type);
    if (i < 0) {
      conditions.push({ type, status: "Unknown", reason: "NodeStatusNeverUpdated", message: "Kubelet never posted node status.", lastHeartbeatTime: node.metadata.creationTimestamp, lastTransitionTime: now });
      changed = true;
    } else if (conditions[i].status !== "Unknown") {
      conditions[i] = { ...conditions[i], status: "Unknown", reason: "NodeStatusUnknown", message: "Kubelet stopped posting node status.", lastTransitionTime: now };
      changed = true;
    }
  }
  return changed ? conditions : undefined;
}
