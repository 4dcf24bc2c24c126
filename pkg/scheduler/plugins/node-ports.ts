// NodePorts: a pod's host ports must be free on the node (same IP or 0.0.0.0, same protocol).
import {
  unschedulable, type ContainerPort, type CycleState, type FilterPlugin, type Plugin, type Pod, type PreFilterPlugin, type StateData,
} from "../framework/index.ts";
import { NodePorts } from "./names.ts";

export const ERR_REASON_PORTS = "node(s) didn't have free ports for the requested pod ports";
const STATE_KEY = "PreFilter" + NodePorts;

class WantPorts implements StateData {
  constructor(readonly ports: ContainerPort[]) {}
  clone() { return this; }
}

/** The container ports that ask for a host port. */
export function hostPortsOf(pod: Pod): ContainerPort[] {
  const out: ContainerPort[] = [];
  for (const c of pod.spec.containers ?? []) for (const p of c.ports ?? []) if (p.hostPort && p.hostPort > 0) out.push(p);
  return out;
}

export function newNodePorts(): Plugin {
  const plugin: PreFilterPlugin & FilterPlugin = {
    name: NodePorts,
    preFilter(state, pod) {
      state.write(STATE_KEY, new WantPorts(hostPortsOf(pod)));
      return null;
    },
    preFilterExtensions: () => null,
    filterSkips: (pod) => hostPortsOf(pod).length === 0,
    filter(state: CycleState, _pod, nodeInfo) {
      const want = state.read<WantPorts>(STATE_KEY);
      if (!want) throw new Error(`error reading "${STATE_KEY}" from cycleState`);
      for (const p of want.ports) {
        if (nodeInfo.usedPorts.conflicts(p.hostIP, p.protocol, p.hostPort!)) return unschedulable(ERR_REASON_PORTS);
      }
      return null;
    },
  };
  return plugin;
}
