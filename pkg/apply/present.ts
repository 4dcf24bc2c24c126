// Fields a built-in Go type always serializes even when unset: non-pointer struct fields
// (as `{}`) and slices without omitempty (as `null`). Upstream compares typed Go objects, so
// such a field is never "added" and gets no `.` entry of its own in an Update's FieldsV1
// (e.g. `f:spec`, `f:template`, `f:containers`), while pointer structs such as
// `rollingUpdate` or new maps such as `labels` do. Only types whose FieldsV1 this changes
// in practice are listed; each kind's own metadata/spec/status is added in schema.ts.
const TABLE: Record<string, Record<string, "map" | "list">> = {
  "io.k8s.api.core.v1.PodTemplateSpec": { metadata: "map", spec: "map" },
  "io.k8s.api.core.v1.PodSpec": { containers: "list" },
  "io.k8s.api.core.v1.Container": { resources: "map" },
  "io.k8s.api.core.v1.EphemeralContainer": { resources: "map" },
  "io.k8s.api.core.v1.PodTemplate": { template: "map" },
  "io.k8s.api.core.v1.ServiceStatus": { loadBalancer: "map" },
  "io.k8s.api.core.v1.PersistentVolumeClaimSpec": { resources: "map" },
  "io.k8s.api.core.v1.NodeStatus": { daemonEndpoints: "map", nodeInfo: "map" },
  "io.k8s.api.apps.v1.DeploymentSpec": { template: "map", strategy: "map" },
  "io.k8s.api.apps.v1.StatefulSetSpec": { template: "map", updateStrategy: "map" },
  "io.k8s.api.apps.v1.DaemonSetSpec": { template: "map", updateStrategy: "map" },
  "io.k8s.api.apps.v1.ReplicaSetSpec": { template: "map" },
  "io.k8s.api.batch.v1.JobSpec": { template: "map" },
  "io.k8s.api.batch.v1.CronJobSpec": { jobTemplate: "map" },
  "io.k8s.api.batch.v1.JobTemplateSpec": { metadata: "map", spec: "map" },
  "io.k8s.api.autoscaling.v1.HorizontalPodAutoscalerSpec": { scaleTargetRef: "map" },
};

export function presentFields(schemaName: string): Record<string, "map" | "list"> | undefined {
  return TABLE[schemaName];
}
