// The flags of `kite controller-manager` that single controllers read (upstream's per-controller
// configuration), with upstream's defaults.
import type { SigningKey } from "../auth/serviceaccount-keys.ts";
import type { SignerSource } from "../pki/csr-signer.ts";
import type { HpaOptions } from "./horizontalpodautoscaling.ts";

export interface ControllerOptions {
  /** --max-endpoints-per-slice: the endpointslice controller's most endpoints in one slice. */
  maxEndpointsPerSlice: number;
  /** The key of --service-account-private-key-file, which signs legacy tokens; without it the token controller does not run. */
  serviceAccountKey?: SigningKey;
  /** The CA (PEM) put in token Secrets as ca.crt: --root-ca-file's, else the kubeconfig's. */
  rootCA?: string;
  /** --terminated-pod-gc-threshold: finished pods kept before podgc deletes the oldest (≤ 0: none deleted). */
  terminatedPodGCThreshold: number;
  /** --node-monitor-period: how often the node lifecycle controller looks at every node's health. */
  nodeMonitorPeriodMs: number;
  /** --node-monitor-grace-period: how long a node may be silent before it is Unknown. */
  nodeMonitorGracePeriodMs: number;
  /** The cluster CA that signs approved CSRs (the API server's --cluster-signing-* files); without it csrsigning does not run. */
  signer?: SignerSource;
  /** --node-startup-grace-period: how long a new node may take to post its first Ready condition. */
  nodeStartupGracePeriodMs: number;
  /** The --horizontal-pod-autoscaler-* timings and tolerance. */
  hpa: HpaOptions;
}

/** upstream's defaults: sync every 15 s, scale down to the highest recommendation of 5 minutes, tolerance 0.1. */
export const DEFAULT_HPA_OPTIONS: HpaOptions = {
  syncPeriodMs: 15_000, downscaleStabilizationMs: 5 * 60_000, tolerance: 0.1, cpuInitializationPeriodMs: 5 * 60_000, initialReadinessDelayMs: 30_000,
};

export const DEFAULT_CONTROLLER_OPTIONS: ControllerOptions = {
  maxEndpointsPerSlice: 100, terminatedPodGCThreshold: 12500, nodeMonitorPeriodMs: 5_000, nodeMonitorGracePeriodMs: 40_000, nodeStartupGracePeriodMs: 60_000,
  hpa: DEFAULT_HPA_OPTIONS,
};
