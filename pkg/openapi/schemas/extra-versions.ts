// Schemas of kinds at versions whose fields differ from their hub's (autoscaling/v2beta2
// HorizontalPodAutoscaler), and of the aggregation layer's APIService.
import { arr, condition, conditions, i64, int, obj, ref, specStatus, str, time, bytes, bool, type Table } from "./dsl.ts";

const V2 = "io.k8s.api.autoscaling.v2beta2.";
const v2 = (name: string) => `${V2}${name}`;
const selector = ref("meta.LabelSelector", "Narrows the metric's series (passed to the metrics server).");

const hpaV2: Table = {
  HorizontalPodAutoscaler: specStatus("Scales a workload on any metrics.", v2("HorizontalPodAutoscalerSpec"), v2("HorizontalPodAutoscalerStatus")),
  HorizontalPodAutoscalerSpec: obj("Desired scaling.", {
    scaleTargetRef: ref(v2("CrossVersionObjectReference"), "The object to scale."),
    minReplicas: int("Lower bound; default 1."),
    maxReplicas: int("Upper bound."),
    metrics: arr(v2("MetricSpec"), "What to scale on; the replica count is the highest any metric asks for. Default: 80% CPU."),
    behavior: ref(v2("HorizontalPodAutoscalerBehavior"), "How fast to scale up and down."),
  }, ["scaleTargetRef", "maxReplicas"]),
  HorizontalPodAutoscalerBehavior: obj("Scaling rules per direction.", {
    scaleUp: ref(v2("HPAScalingRules"), "Rules for scaling up."),
    scaleDown: ref(v2("HPAScalingRules"), "Rules for scaling down."),
  }),
  HPAScalingRules: obj("How one direction scales.", {
    stabilizationWindowSeconds: int("Seconds of past recommendations considered."),
    selectPolicy: str("Max, Min or Disabled: which policy's change applies."),
    policies: arr(v2("HPAScalingPolicy"), "Allowed changes per period.", { "x-kubernetes-list-type": "atomic" }),
  }),
  HPAScalingPolicy: obj("One allowed change.", {
    type: str("Pods or Percent."), value: int("The amount of change."), periodSeconds: int("The window the amount holds for."),
  }, ["type", "value", "periodSeconds"]),
  CrossVersionObjectReference: obj("Names an object of any kind in the same namespace.", {
    kind: str("Kind."), name: str("Name."), apiVersion: str("API version."),
  }, ["kind", "name"]),
  MetricSpec: obj("One metric to scale on: `type` names the field that is set.", {
    type: str("Resource, ContainerResource, Pods, Object or External."),
    resource: ref(v2("ResourceMetricSource"), "A resource of the pods (cpu, memory)."),
    containerResource: ref(v2("ContainerResourceMetricSource"), "A resource of one container of the pods."),
    pods: ref(v2("PodsMetricSource"), "A metric of each pod."),
    object: ref(v2("ObjectMetricSource"), "A metric of another object."),
    external: ref(v2("ExternalMetricSource"), "A metric from outside the cluster."),
  }, ["type"]),
  MetricIdentifier: obj("A metric by name.", { name: str("The metric's name."), selector }, ["name"]),
  MetricTarget: obj("The value to hold a metric at.", {
    type: str("Utilization, Value or AverageValue."),
    value: ref("resource.Quantity", "Target value."),
    averageValue: ref("resource.Quantity", "Target average over the pods."),
    averageUtilization: int("Target average, as a percentage of the pods' requests."),
  }, ["type"]),
  MetricValueStatus: obj("A metric's current value.", {
    value: ref("resource.Quantity", "Current value."),
    averageValue: ref("resource.Quantity", "Current average over the pods."),
    averageUtilization: int("Current average, as a percentage of the pods' requests."),
  }),
  ResourceMetricSource: obj("A resource of the pods.", { name: str("The resource."), target: ref(v2("MetricTarget"), "The target.") }, ["name", "target"]),
  ContainerResourceMetricSource: obj("A resource of one container.", {
    name: str("The resource."), container: str("The container."), target: ref(v2("MetricTarget"), "The target."),
  }, ["name", "container", "target"]),
  PodsMetricSource: obj("A metric of each pod.", { metric: ref(v2("MetricIdentifier"), "The metric."), target: ref(v2("MetricTarget"), "The target.") }, ["metric", "target"]),
  ObjectMetricSource: obj("A metric of another object.", {
    describedObject: ref(v2("CrossVersionObjectReference"), "The object."), metric: ref(v2("MetricIdentifier"), "The metric."), target: ref(v2("MetricTarget"), "The target."),
  }, ["describedObject", "metric", "target"]),
  ExternalMetricSource: obj("A metric from outside the cluster.", { metric: ref(v2("MetricIdentifier"), "The metric."), target: ref(v2("MetricTarget"), "The target.") }, ["metric", "target"]),
  HorizontalPodAutoscalerStatus: obj("Observed scaling.", {
    observedGeneration: i64("The generation of the spec last acted on."),
    lastScaleTime: time("When it last scaled."),
    currentReplicas: int("Current replicas."),
    desiredReplicas: int("Desired replicas."),
    currentMetrics: arr(v2("MetricStatus"), "The metrics' last read values."),
    conditions: arr(v2("HorizontalPodAutoscalerCondition"), "Current observations of the autoscaler's state."),
  }, ["desiredReplicas"]),
  HorizontalPodAutoscalerCondition: condition("An observation of the autoscaler's state."),
  MetricStatus: obj("One metric's last read value: `type` names the field that is set.", {
    type: str("Resource, ContainerResource, Pods, Object or External."),
    resource: obj("A resource of the pods.", { name: str("The resource."), current: ref(v2("MetricValueStatus"), "Its value.") }, ["name", "current"]),
    containerResource: obj("A resource of one container.", { name: str("The resource."), container: str("The container."), current: ref(v2("MetricValueStatus"), "Its value.") }, ["name", "container", "current"]),
    pods: obj("A metric of each pod.", { metric: ref(v2("MetricIdentifier"), "The metric."), current: ref(v2("MetricValueStatus"), "Its value.") }, ["metric", "current"]),
    object: obj("A metric of another object.", {
      describedObject: ref(v2("CrossVersionObjectReference"), "The object."), metric: ref(v2("MetricIdentifier"), "The metric."), current: ref(v2("MetricValueStatus"), "Its value."),
    }, ["describedObject", "metric", "current"]),
    external: obj("A metric from outside the cluster.", { metric: ref(v2("MetricIdentifier"), "The metric."), current: ref(v2("MetricValueStatus"), "Its value.") }, ["metric", "current"]),
  }, ["type"]),
};

const AR = "io.k8s.api.apiregistration.v1.";
const ar = (name: string) => `${AR}${name}`;
const apiRegistration: Table = {
  APIService: specStatus("A server for one group version, named version.group.", ar("APIServiceSpec"), ar("APIServiceStatus")),
  APIServiceSpec: obj("Where the group version is served.", {
    service: ref(ar("ServiceReference"), "The Service in front of the server; unset: served by this server."),
    group: str("The API group served."),
    version: str("The API version served."),
    insecureSkipTLSVerify: bool("Do not verify the server's certificate (discouraged: give caBundle)."),
    caBundle: bytes("PEM CA bundle that verifies the server's certificate.", { "x-kubernetes-list-type": "atomic" }),
    groupPriorityMinimum: int("The group's priority among groups (higher first)."),
    versionPriority: int("The version's priority within its group (higher first)."),
  }, ["groupPriorityMinimum", "versionPriority"]),
  ServiceReference: obj("A Service by namespace and name.", {
    namespace: str("Namespace."), name: str("Name."), port: int("Port (default 443)."),
  }),
  APIServiceStatus: obj("Observed state.", { conditions: conditions(ar("APIServiceCondition")) }),
  APIServiceCondition: condition("An observation of the APIService's state."),
};

const prefixed = (prefix: string, t: Table): Table => Object.fromEntries(Object.entries(t).map(([k, v]) => [`${prefix}${k}`, v]));

export const EXTRA_VERSION_SCHEMAS: Table = { ...prefixed(V2, hpaV2), ...prefixed(AR, apiRegistration) };
