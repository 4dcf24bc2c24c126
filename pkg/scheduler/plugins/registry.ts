// The plugins built into Kite's scheduler by name (upstream's NewInTreeRegistry).
import type { Features } from "../../features/featuregate.ts";
import type { PluginFactory, Registry } from "../framework/index.ts";
import { newNodeVolumeLimits } from "./csi-limits.ts";
import { newDefaultBinder } from "./default-binder.ts";
import { newDefaultPreemption } from "./defaultpreemption/plugin.ts";
import { newImageLocality } from "./image-locality.ts";
import { interPodAffinityFactory } from "./interpodaffinity/plugin.ts";
import * as names from "./names.ts";
import { newNodeAffinity } from "./node-affinity.ts";
import { newNodeName } from "./node-name.ts";
import { newNodePorts } from "./node-ports.ts";
import { newNodePreferAvoidPods } from "./node-prefer-avoid-pods.ts";
import { newNodeUnschedulable } from "./node-unschedulable.ts";
import { newFit } from "./noderesources/fit.ts";
import { newBalancedAllocation, newLeastAllocated, newMostAllocated, newRequestedToCapacityRatio } from "./noderesources/scores.ts";
import { newPodTopologySpread } from "./podtopologyspread/plugin.ts";
import { newPrioritySort } from "./priority-sort.ts";
import { newTaintToleration } from "./taint-toleration.ts";
import { newVolumeBinding } from "./volume-binding.ts";
import { newAzureDiskLimits, newEBSLimits, newGCEPDLimits } from "./volume-limits.ts";
import { newVolumeRestrictions } from "./volume-restrictions.ts";
import { newVolumeZone } from "./volume-zone.ts";

/** The plugins, with the feature gates they read (upstream passes the same gates to its plugins). */
export function inTreeRegistry(features: Partial<Features> = {}): Registry {
  return new Map<string, PluginFactory>([
    [names.PrioritySort, newPrioritySort],
    [names.NodeUnschedulable, newNodeUnschedulable],
    [names.NodeName, newNodeName],
    [names.TaintToleration, newTaintToleration],
    [names.NodeAffinity, newNodeAffinity],
    [names.NodePorts, newNodePorts],
    [names.NodeResourcesFit, newFit],
    [names.NodeResourcesLeastAllocated, newLeastAllocated],
    [names.NodeResourcesMostAllocated, newMostAllocated],
    [names.NodeResourcesBalancedAllocation, newBalancedAllocation],
    [names.RequestedToCapacityRatio, newRequestedToCapacityRatio],
    [names.ImageLocality, newImageLocality],
    [names.NodePreferAvoidPods, newNodePreferAvoidPods],
    [names.VolumeBinding, newVolumeBinding],
    [names.VolumeRestrictions, newVolumeRestrictions],
    [names.VolumeZone, newVolumeZone],
    [names.EBSLimits, newEBSLimits],
    [names.GCEPDLimits, newGCEPDLimits],
    [names.AzureDiskLimits, newAzureDiskLimits],
    [names.NodeVolumeLimits, newNodeVolumeLimits],
    [names.PodTopologySpread, newPodTopologySpread],
    [names.InterPodAffinity, interPodAffinityFactory({ podAffinityNamespaceSelector: features.PodAffinityNamespaceSelector ?? false })],
    [names.DefaultPreemption, (args, handle) => newDefaultPreemption(args, handle)],
    [names.DefaultBinder, newDefaultBinder],
  ]);
}
