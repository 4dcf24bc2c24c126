// apps/v1, batch/v1, autoscaling/v1, coordination.k8s.io/v1 and policy/v1 kinds.
import { ATOMIC, MAP_ATOMIC, arr, bool, condition, conditions, enm, free, i64, int, kind, obj, pkg, ref, specStatus, str, time, type Table } from "./dsl.ts";

const replicas = int("Desired number of pods; default 1.");
const selector = ref("meta.LabelSelector", "Pods this controller manages; must match the template's labels.");
const template = ref("core.PodTemplateSpec", "Pods created by this controller.");
const minReadySeconds = int("Seconds a new pod must be ready before it counts as available.");
const revisionHistoryLimit = int("Old revisions kept for rollback; default 10.");
const observedGeneration = i64("The generation of the spec last acted on.");
const collisionCount = int("Counter used to avoid name collisions of revisions.");
const intOrPercent = (d: string) => ref("intstr.IntOrString", `${d} A number or a percentage, e.g. 25%.`);
const count = int;

const apps: Table = {
  Deployment: specStatus("Declarative, rolling updates of a set of identical pods through ReplicaSets.", "apps.DeploymentSpec", "apps.DeploymentStatus"),
  DeploymentSpec: obj("Desired state of a deployment.", {
    replicas, selector, template,
    strategy: ref("apps.DeploymentStrategy", "How old pods are replaced by new ones.", { "x-kubernetes-patch-strategy": "retainKeys" }),
    minReadySeconds, revisionHistoryLimit,
    paused: bool("When true, template changes do not roll out."),
    progressDeadlineSeconds: int("Seconds without progress before the rollout is reported failed; default 600."),
  }, ["selector", "template"]),
  DeploymentStrategy: obj("How a deployment replaces pods.", {
    type: enm("Recreate or RollingUpdate (default).", ["Recreate", "RollingUpdate"]),
    rollingUpdate: obj("Rolling update limits.", {
      maxUnavailable: intOrPercent("Pods that may be unavailable during the update; default 25%."),
      maxSurge: intOrPercent("Pods that may be created above the desired count; default 25%."),
    }),
  }),
  DeploymentStatus: obj("Observed state of a deployment.", {
    observedGeneration,
    replicas: count("Pods targeted by the deployment."),
    updatedReplicas: count("Pods with the current template."),
    readyReplicas: count("Ready pods."),
    availableReplicas: count("Available pods."),
    unavailableReplicas: count("Pods still needed to reach the desired count."),
    conditions: conditions("apps.DeploymentCondition"),
    collisionCount,
  }),
  DeploymentCondition: condition("A condition of a deployment, e.g. Available or Progressing.", ["lastUpdateTime"]),

  ReplicaSet: specStatus("Keeps a number of identical pods running.", "apps.ReplicaSetSpec", "apps.ReplicaSetStatus"),
  ReplicaSetSpec: obj("Desired state of a replica set.", { replicas, minReadySeconds, selector, template }, ["selector"]),
  ReplicaSetStatus: obj("Observed state of a replica set.", {
    replicas: count("Current number of pods."),
    fullyLabeledReplicas: count("Pods whose labels match the template's."),
    readyReplicas: count("Ready pods."),
    availableReplicas: count("Available pods."),
    observedGeneration,
    conditions: conditions("apps.ReplicaSetCondition"),
  }, ["replicas"]),
  ReplicaSetCondition: condition("A condition of a replica set."),

  StatefulSet: specStatus("Pods with stable names and storage, created and updated in order.", "apps.StatefulSetSpec", "apps.StatefulSetStatus"),
  StatefulSetSpec: obj("Desired state of a stateful set.", {
    replicas, selector, template,
    volumeClaimTemplates: arr("core.PersistentVolumeClaim", "Claims created for each pod, named <claim>-<pod>.", ATOMIC),
    serviceName: str("Headless service giving the pods their DNS names."),
    podManagementPolicy: enm("OrderedReady (default) or Parallel pod creation.", ["OrderedReady", "Parallel"]),
    updateStrategy: obj("How pods are updated.", {
      type: enm("RollingUpdate (default) or OnDelete.", ["OnDelete", "RollingUpdate"]),
      rollingUpdate: obj("Rolling update settings.", {
        partition: int("Only pods with an ordinal at or above this are updated."),
        maxUnavailable: intOrPercent("Pods that may be unavailable during the update."),
      }),
    }),
    revisionHistoryLimit, minReadySeconds,
    persistentVolumeClaimRetentionPolicy: obj("What happens to claims when pods go away.", {
      whenDeleted: enm("On set deletion.", ["Delete", "Retain"]),
      whenScaled: enm("On scale down.", ["Delete", "Retain"]),
    }),
    ordinals: obj("Pod ordinal numbering.", { start: int("First ordinal; default 0.") }),
  }, ["selector", "template"]),
  StatefulSetStatus: obj("Observed state of a stateful set.", {
    observedGeneration,
    replicas: count("Pods created."),
    readyReplicas: count("Ready pods."),
    currentReplicas: count("Pods at currentRevision."),
    updatedReplicas: count("Pods at updateRevision."),
    availableReplicas: count("Available pods."),
    currentRevision: str("Revision of the older pods."),
    updateRevision: str("Revision being rolled out."),
    collisionCount,
    conditions: conditions("apps.StatefulSetCondition"),
  }, ["replicas"]),
  StatefulSetCondition: condition("A condition of a stateful set."),

  DaemonSet: specStatus("Runs one pod on each eligible node.", "apps.DaemonSetSpec", "apps.DaemonSetStatus"),
  DaemonSetSpec: obj("Desired state of a daemon set.", {
    selector, template,
    updateStrategy: obj("How pods are updated.", {
      type: enm("RollingUpdate (default) or OnDelete.", ["OnDelete", "RollingUpdate"]),
      rollingUpdate: obj("Rolling update limits.", {
        maxUnavailable: intOrPercent("Nodes whose pod may be unavailable during the update; default 1."),
        maxSurge: intOrPercent("Nodes that may run an extra pod during the update; default 0."),
      }),
    }),
    minReadySeconds, revisionHistoryLimit,
  }, ["selector", "template"]),
  DaemonSetStatus: obj("Observed state of a daemon set.", {
    currentNumberScheduled: count("Nodes running a pod that should."),
    numberMisscheduled: count("Nodes running a pod that should not."),
    desiredNumberScheduled: count("Nodes that should run a pod."),
    numberReady: count("Nodes whose pod is ready."),
    observedGeneration,
    updatedNumberScheduled: count("Nodes running the current template."),
    numberAvailable: count("Nodes whose pod is available."),
    numberUnavailable: count("Nodes whose pod is not available."),
    collisionCount,
    conditions: conditions("apps.DaemonSetCondition"),
  }, ["currentNumberScheduled", "numberMisscheduled", "desiredNumberScheduled", "numberReady"]),
  DaemonSetCondition: condition("A condition of a daemon set."),

  ControllerRevision: kind("An immutable snapshot of a controller's template, for rollbacks.", {
    data: ref("runtime.RawExtension", "The serialized state."),
    revision: i64("Revision number."),
  }, ["revision"]),
};

const jobSpec = obj("Desired state of a job.", {
  parallelism: int("Pods that may run at once; default 1."),
  completions: int("Successful pods needed; default 1."),
  activeDeadlineSeconds: i64("Seconds the job may run before it is failed."),
  backoffLimit: int("Retries before the job is failed; default 6."),
  selector: ref("meta.LabelSelector", "Pods of the job; generated unless manualSelector."),
  manualSelector: bool("Let the user set the selector."),
  template: ref("core.PodTemplateSpec", "Pods to run; restartPolicy must be Never or OnFailure."),
  ttlSecondsAfterFinished: int("Seconds after finishing before the job is deleted."),
  completionMode: enm("NonIndexed (default) or Indexed.", ["Indexed", "NonIndexed"]),
  suspend: bool("When true, no pods are created and running ones are stopped."),
  podFailurePolicy: free("Rules for handling pod failures."),
  backoffLimitPerIndex: int("Retries per index, for Indexed jobs."),
  maxFailedIndexes: int("Failed indexes before the job fails."),
  podReplacementPolicy: str("When replacement pods are created."),
}, ["template"]);

const batch: Table = {
  Job: specStatus("Runs pods until a number of them complete successfully.", "batch.JobSpec", "batch.JobStatus"),
  JobSpec: jobSpec,
  JobStatus: obj("Observed state of a job.", {
    conditions: arr("batch.JobCondition", "Conditions, e.g. Complete or Failed.", ATOMIC),
    startTime: time("When the job started."),
    completionTime: time("When the job completed."),
    active: count("Running pods."),
    succeeded: count("Pods that succeeded."),
    failed: count("Pods that failed."),
    terminating: count("Pods terminating."),
    ready: count("Ready pods."),
    completedIndexes: str("Completed indexes, e.g. 1,3-5."),
    failedIndexes: str("Failed indexes."),
    uncountedTerminatedPods: free("Finished pods not yet counted."),
  }),
  JobCondition: condition("A condition of a job.", ["lastProbeTime"]),
  CronJob: specStatus("Creates jobs on a schedule.", "batch.CronJobSpec", "batch.CronJobStatus"),
  CronJobSpec: obj("Desired state of a cron job.", {
    schedule: str("Cron schedule, e.g. */5 * * * *."),
    timeZone: str("Time zone of the schedule; the controller's by default."),
    startingDeadlineSeconds: i64("Seconds a missed run may still start late."),
    concurrencyPolicy: enm("What to do when the previous job is still running.", ["Allow", "Forbid", "Replace"]),
    suspend: bool("When true, no new jobs are created."),
    jobTemplate: ref("batch.JobTemplateSpec", "Jobs created."),
    successfulJobsHistoryLimit: int("Finished jobs kept; default 3."),
    failedJobsHistoryLimit: int("Failed jobs kept; default 1."),
  }, ["schedule", "jobTemplate"]),
  JobTemplateSpec: obj("The job a cron job creates.", {
    metadata: ref("meta.ObjectMeta", "Labels and annotations of created jobs."),
    spec: ref("batch.JobSpec", "Spec of created jobs."),
  }),
  CronJobStatus: obj("Observed state of a cron job.", {
    active: arr("core.ObjectReference", "Running jobs.", ATOMIC),
    lastScheduleTime: time("When a job was last scheduled."),
    lastSuccessfulTime: time("When a job last succeeded."),
  }),
};

const autoscaling: Table = {
  HorizontalPodAutoscaler: specStatus("Scales a workload by its CPU use.", "autoscaling.HorizontalPodAutoscalerSpec", "autoscaling.HorizontalPodAutoscalerStatus"),
  HorizontalPodAutoscalerSpec: obj("Desired scaling.", {
    scaleTargetRef: ref("autoscaling.CrossVersionObjectReference", "The object to scale."),
    minReplicas: int("Lower bound; default 1."),
    maxReplicas: int("Upper bound."),
    targetCPUUtilizationPercentage: int("Target average CPU use, as a percentage of requests."),
  }, ["scaleTargetRef", "maxReplicas"]),
  HorizontalPodAutoscalerStatus: obj("Observed scaling.", {
    observedGeneration,
    lastScaleTime: time("When it last scaled."),
    currentReplicas: count("Current replicas."),
    desiredReplicas: count("Desired replicas."),
    currentCPUUtilizationPercentage: int("Current average CPU use, as a percentage of requests."),
  }, ["currentReplicas", "desiredReplicas"]),
  Scale: specStatus("The scale subresource of a workload: its replicas and selector.", "autoscaling.ScaleSpec", "autoscaling.ScaleStatus"),
  ScaleSpec: obj("Desired scale.", { replicas: int("Desired number of instances of the scaled object.") }),
  ScaleStatus: obj("Observed scale.", {
    replicas: count("Actual number of observed instances of the scaled object."),
    selector: str("The label selector of the pods the scaled object counts, as a selector string."),
  }, ["replicas"]),
  CrossVersionObjectReference: obj("Names an object of any kind in the same namespace.", {
    kind: str("Kind."), name: str("Name."), apiVersion: str("API version."),
  }, ["kind", "name"], MAP_ATOMIC),
};

const coordination: Table = {
  Lease: specStatus("A lease, used for leader election and node heartbeats.", "coordination.LeaseSpec"),
  LeaseSpec: obj("The lease.", {
    holderIdentity: str("Current holder."),
    leaseDurationSeconds: int("Seconds the holder keeps the lease without renewing."),
    acquireTime: ref("meta.MicroTime", "When the lease was acquired."),
    renewTime: ref("meta.MicroTime", "When the holder last renewed."),
    leaseTransitions: int("Number of holder changes."),
    strategy: str("Leader election strategy."),
    preferredHolder: str("Holder that should take over."),
  }),
};

const policy: Table = {
  PodDisruptionBudget: specStatus("Limits voluntary disruption of a set of pods.", "policy.PodDisruptionBudgetSpec", "policy.PodDisruptionBudgetStatus"),
  PodDisruptionBudgetSpec: obj("Desired budget.", {
    minAvailable: intOrPercent("Pods that must stay available."),
    maxUnavailable: intOrPercent("Pods that may be unavailable."),
    selector: ref("meta.LabelSelector", "Pods covered.", { "x-kubernetes-patch-strategy": "replace" }),
    unhealthyPodEvictionPolicy: str("IfHealthyBudget or AlwaysAllow."),
  }),
  PodDisruptionBudgetStatus: obj("Observed budget.", {
    observedGeneration,
    disruptedPods: { description: "Pods being evicted, with the eviction time.", type: "object", additionalProperties: ref("meta.Time") },
    disruptionsAllowed: count("Disruptions allowed now."),
    currentHealthy: count("Healthy pods."),
    desiredHealthy: count("Healthy pods needed."),
    expectedPods: count("Pods counted."),
    conditions: conditions("meta.Condition"),
  }, ["disruptionsAllowed", "currentHealthy", "desiredHealthy", "expectedPods"]),
};

export const WORKLOAD_SCHEMAS: Table = {
  ...pkg("apps", apps), ...pkg("batch", batch), ...pkg("autoscaling", autoscaling), ...pkg("coordination", coordination), ...pkg("policy", policy),
};
