// core/v1 kinds other than Pod.
import { ATOMIC, MAP_ATOMIC, arr, bool, condition, conditions, enm, free, i64, int, kind, listMap, map, mergeSet, obj, pkg, quantities, ref, specStatus, str, strMap, strs, time, type Table } from "./dsl.ts";

const accessModes = strs("How the volume can be mounted: ReadWriteOnce, ReadOnlyMany, ReadWriteMany, ReadWriteOncePod.", ATOMIC);
const secretRef = (d: string) => ref("core.SecretReference", d);

const core: Table = {
  ObjectReference: obj("Points to any object.", {
    kind: str("Kind of the referent."),
    namespace: str("Namespace of the referent."),
    name: str("Name of the referent."),
    uid: str("UID of the referent."),
    apiVersion: str("API version of the referent."),
    resourceVersion: str("Version of the referent this reference was made from."),
    fieldPath: str("A part of the referent, e.g. spec.containers{name}."),
  }, undefined, MAP_ATOMIC),
  TypedLocalObjectReference: obj("Names an object of a given kind in the same namespace.", {
    apiGroup: str("Group of the kind; empty for the core group."),
    kind: str("Kind of the referent."),
    name: str("Name of the referent."),
  }, ["kind", "name"], MAP_ATOMIC),
  Binding: kind("Ties one object to another; for example, a pod is bound to a node by a scheduler.", {
    target: ref("core.ObjectReference", "The object to bind to (a Node)."),
  }, ["target"]),
  SecretReference: obj("Names a Secret in any namespace.", { name: str("Secret name."), namespace: str("Secret namespace.") }, undefined, MAP_ATOMIC),

  Service: specStatus("A stable virtual address and DNS name for a set of pods.", "core.ServiceSpec", "core.ServiceStatus"),
  ServiceSpec: obj("Desired state of a service.", {
    ports: arr("core.ServicePort", "Ports the service exposes.", listMap(["port", "protocol"])),
    selector: strMap("Labels of the pods that receive traffic; no Endpoints are managed when empty.", MAP_ATOMIC),
    clusterIP: str("Virtual IP; allocated when empty, `None` for a headless service."),
    clusterIPs: strs("Virtual IPs, one per IP family.", ATOMIC),
    type: enm("How the service is exposed; default ClusterIP.", ["ClusterIP", "ExternalName", "LoadBalancer", "NodePort"]),
    externalIPs: strs("Extra IPs on which nodes accept traffic for the service.", ATOMIC),
    sessionAffinity: enm("Sticky sessions by client IP, or None (default).", ["ClientIP", "None"]),
    loadBalancerIP: str("Requested load balancer IP (deprecated)."),
    loadBalancerSourceRanges: strs("Client CIDRs allowed through the load balancer.", ATOMIC),
    externalName: str("DNS name returned as a CNAME, for type ExternalName."),
    externalTrafficPolicy: enm("Whether external traffic goes to node-local endpoints only.", ["Cluster", "Local"]),
    healthCheckNodePort: int("Node port for load balancer health checks."),
    publishNotReadyAddresses: bool("Publish endpoints of pods that are not ready."),
    sessionAffinityConfig: obj("Session affinity settings.", {
      clientIP: obj("Client IP affinity.", { timeoutSeconds: int("Seconds a session sticks; default 10800.") }),
    }),
    ipFamilies: strs("IPv4 and/or IPv6, in order.", ATOMIC),
    ipFamilyPolicy: enm("Single- or dual-stack.", ["PreferDualStack", "RequireDualStack", "SingleStack"]),
    allocateLoadBalancerNodePorts: bool("Allocate node ports for LoadBalancer services; default true."),
    loadBalancerClass: str("Load balancer implementation to use."),
    internalTrafficPolicy: enm("Whether in-cluster traffic goes to node-local endpoints only.", ["Cluster", "Local"]),
  }),
  ServicePort: obj("A port of a service.", {
    name: str("Port name; required when there are several ports."),
    protocol: enm("Protocol; default TCP.", ["SCTP", "TCP", "UDP"]),
    appProtocol: str("Application protocol, e.g. http."),
    port: int("Port the service listens on."),
    targetPort: ref("intstr.IntOrString", "Pod port number or name; default the same as port."),
    nodePort: int("Port on every node, for NodePort and LoadBalancer."),
  }, ["port"]),
  ServiceStatus: obj("Observed state of a service.", {
    loadBalancer: ref("core.LoadBalancerStatus", "The load balancer, if any."),
    conditions: conditions("meta.Condition"),
  }),
  LoadBalancerStatus: obj("A load balancer.", { ingress: arr("core.LoadBalancerIngress", "Its entry points.", ATOMIC) }),
  LoadBalancerIngress: obj("A load balancer entry point.", {
    ip: str("IP address."),
    hostname: str("DNS name."),
    ipMode: str("VIP or Proxy."),
    ports: arr("core.PortStatus", "Port states.", ATOMIC),
  }),
  PortStatus: obj("State of a port.", { port: int("Port."), protocol: str("Protocol."), error: str("Problem, if any.") }, ["port", "protocol"]),

  ComponentStatus: kind("Deprecated: the health of a component of the control plane.", {
    conditions: arr("core.ComponentCondition", "Conditions of the component.", { "x-kubernetes-patch-merge-key": "type", "x-kubernetes-patch-strategy": "merge" }),
  }),
  ComponentCondition: obj("One condition of a component.", {
    type: str("Type of condition: Healthy."),
    status: str("True, False or Unknown."),
    message: str("What the component answered."),
    error: str("The error reaching the component, if any."),
  }, ["type", "status"]),
  ConfigMap: kind("Non-secret configuration data as key/value pairs.", {
    data: strMap("UTF-8 values by key."),
    binaryData: map({ type: "string", format: "byte" }, "Binary values by key, base64 in JSON."),
    immutable: bool("When true, data cannot change."),
  }),
  Secret: kind("Sensitive data as key/value pairs.", {
    data: map({ type: "string", format: "byte" }, "Values by key, base64 in JSON."),
    stringData: strMap("Write-only plain-text values, merged into data."),
    type: str("Type used for validation, e.g. Opaque or kubernetes.io/tls."),
    immutable: bool("When true, data cannot change."),
  }),
  ServiceAccount: kind("An identity for processes in pods.", {
    secrets: arr("core.ObjectReference", "Secrets pods of this account may use.", { "x-kubernetes-patch-merge-key": "name", "x-kubernetes-patch-strategy": "merge" }),
    imagePullSecrets: arr("core.LocalObjectReference", "Image pull secrets added to its pods.", ATOMIC),
    automountServiceAccountToken: bool("Whether pods mount an API token by default."),
  }),

  Namespace: specStatus("A scope for names; deleting it deletes its content.", "core.NamespaceSpec", "core.NamespaceStatus"),
  NamespaceSpec: obj("Desired state of a namespace.", { finalizers: strs("Hooks that must finish before the namespace is removed.", ATOMIC) }),
  NamespaceStatus: obj("Observed state of a namespace.", {
    phase: enm("Active or Terminating.", ["Active", "Terminating"]),
    conditions: conditions("core.NamespaceCondition"),
  }),
  NamespaceCondition: condition("A condition of a namespace."),

  Node: specStatus("A worker machine.", "core.NodeSpec", "core.NodeStatus"),
  NodeSpec: obj("Desired state of a node.", {
    podCIDR: str("Pod IP range assigned to the node."),
    podCIDRs: strs("Pod IP ranges, one per IP family.", mergeSet),
    providerID: str("Cloud provider's ID of the node."),
    unschedulable: bool("When true, new pods are not scheduled here (cordoned)."),
    taints: arr("core.Taint", "Taints repelling pods that do not tolerate them.", ATOMIC),
    configSource: free("Deprecated dynamic kubelet config."),
    externalID: str("Deprecated."),
  }),
  Taint: obj("Repels pods without a matching toleration.", {
    key: str("Taint key."),
    value: str("Taint value."),
    effect: enm("What happens to non-tolerating pods.", ["NoExecute", "NoSchedule", "PreferNoSchedule"]),
    timeAdded: time("When a NoExecute taint was added."),
  }, ["key", "effect"]),
  NodeStatus: obj("Observed state of a node.", {
    capacity: quantities("Total resources of the node."),
    allocatable: quantities("Resources available to pods."),
    phase: str("Deprecated."),
    conditions: conditions("core.NodeCondition"),
    addresses: arr("core.NodeAddress", "Addresses of the node.", listMap(["type"])),
    daemonEndpoints: obj("Endpoints of daemons on the node.", {
      kubeletEndpoint: obj("The kubelet's endpoint.", { Port: int("Port number.") }, ["Port"]),
    }),
    nodeInfo: ref("core.NodeSystemInfo", "Versions and IDs of the node."),
    images: arr(obj("An image on the node.", { names: strs("Names and digests.", ATOMIC), sizeBytes: i64("Size.") }), "Images present on the node.", ATOMIC),
    volumesInUse: strs("Attached volumes in use.", ATOMIC),
    volumesAttached: arr(obj("An attached volume.", { name: str("Volume name."), devicePath: str("Device path.") }, ["name", "devicePath"]), "Volumes attached to the node.", ATOMIC),
    config: free("Dynamic kubelet config status."),
  }),
  NodeCondition: condition("A condition of a node, e.g. Ready.", ["lastHeartbeatTime"]),
  NodeAddress: obj("An address of a node.", { type: str("Hostname, InternalIP, ExternalIP, ..."), address: str("The address.") }, ["type", "address"]),
  NodeSystemInfo: obj("Versions and IDs of a node.", {
    machineID: str("Machine ID."),
    systemUUID: str("System UUID."),
    bootID: str("Boot ID."),
    kernelVersion: str("Kernel version."),
    osImage: str("OS image."),
    containerRuntimeVersion: str("Container runtime, <name>://<version>."),
    kubeletVersion: str("Node agent version."),
    kubeProxyVersion: str("Proxy version (deprecated)."),
    operatingSystem: str("linux or windows."),
    architecture: str("CPU architecture."),
  }, ["machineID", "systemUUID", "bootID", "kernelVersion", "osImage", "containerRuntimeVersion", "kubeletVersion", "kubeProxyVersion", "operatingSystem", "architecture"]),

  Endpoints: kind("The addresses that implement a service.", {
    subsets: arr("core.EndpointSubset", "Groups of addresses sharing the same ports.", ATOMIC),
  }),
  EndpointSubset: obj("Addresses with their common ports.", {
    addresses: arr("core.EndpointAddress", "Ready addresses.", ATOMIC),
    notReadyAddresses: arr("core.EndpointAddress", "Addresses not ready yet.", ATOMIC),
    ports: arr("core.EndpointPort", "Ports of these addresses.", ATOMIC),
  }),
  EndpointAddress: obj("One endpoint address.", {
    ip: str("IP address."),
    hostname: str("Hostname."),
    nodeName: str("Node hosting the endpoint."),
    targetRef: ref("core.ObjectReference", "Object (usually a pod) behind the address."),
  }, ["ip"], MAP_ATOMIC),
  EndpointPort: obj("A port of an endpoint.", {
    name: str("Matches the service port name."),
    port: int("Port number."),
    protocol: enm("Protocol; default TCP.", ["SCTP", "TCP", "UDP"]),
    appProtocol: str("Application protocol."),
  }, ["port"], MAP_ATOMIC),

  Event: kind("A report of something that happened in the cluster.", {
    involvedObject: ref("core.ObjectReference", "The object the event is about."),
    reason: str("Short CamelCase reason."),
    message: str("Human-readable description."),
    source: obj("Who reported the event.", { component: str("Component."), host: str("Node.") }),
    firstTimestamp: time("First time the event was seen."),
    lastTimestamp: time("Last time the event was seen."),
    count: int("How many times it occurred."),
    type: str("Normal or Warning."),
    eventTime: ref("meta.MicroTime", "When the event first happened."),
    series: obj("A series of repeated events.", { count: int("Occurrences so far."), lastObservedTime: ref("meta.MicroTime", "Last occurrence.") }),
    action: str("What was done, or failed."),
    related: ref("core.ObjectReference", "A second object involved."),
    reportingComponent: str("Controller that emitted the event."),
    reportingInstance: str("Instance of that controller."),
  }, ["metadata", "involvedObject"]),

  PersistentVolume: specStatus("A piece of storage provisioned in the cluster.", "core.PersistentVolumeSpec", "core.PersistentVolumeStatus"),
  PersistentVolumeSpec: obj("Desired state of a persistent volume.", {
    capacity: quantities("Size, e.g. storage: 10Gi."),
    accessModes,
    claimRef: ref("core.ObjectReference", "The claim bound to this volume."),
    persistentVolumeReclaimPolicy: enm("What happens when the claim is released.", ["Delete", "Recycle", "Retain"]),
    storageClassName: str("StorageClass this volume belongs to."),
    mountOptions: strs("Mount options.", ATOMIC),
    volumeMode: enm("Filesystem (default) or Block.", ["Block", "Filesystem"]),
    nodeAffinity: obj("Nodes the volume can be reached from.", { required: ref("core.NodeSelector", "Nodes that can reach the volume.") }),
    hostPath: ref("core.HostPathVolumeSource", "A directory on a node (testing only)."),
    local: obj("A local disk of one node.", { path: str("Path on the node."), fsType: str("Filesystem type.") }, ["path"]),
    nfs: ref("core.NFSVolumeSource", "An NFS export."),
    csi: obj("A volume managed by a CSI driver.", {
      driver: str("Driver name."),
      volumeHandle: str("Driver's ID of the volume."),
      readOnly: bool("Read-only."),
      fsType: str("Filesystem type."),
      volumeAttributes: strMap("Driver-specific attributes."),
      controllerPublishSecretRef: secretRef("Secret for ControllerPublish."),
      nodeStageSecretRef: secretRef("Secret for NodeStage."),
      nodePublishSecretRef: secretRef("Secret for NodePublish."),
      controllerExpandSecretRef: secretRef("Secret for ControllerExpand."),
      nodeExpandSecretRef: secretRef("Secret for NodeExpand."),
    }, ["driver", "volumeHandle"]),
    ...Object.fromEntries(["gcePersistentDisk", "awsElasticBlockStore", "iscsi", "glusterfs", "rbd", "flexVolume", "cinder", "cephfs", "flocker", "fc",
      "azureFile", "vsphereVolume", "quobyte", "azureDisk", "photonPersistentDisk", "portworxVolume", "scaleIO", "storageos"].map((k) => [k, free(`A ${k} volume (not described here).`)])),
  }),
  PersistentVolumeStatus: obj("Observed state of a persistent volume.", {
    phase: enm("Lifecycle phase.", ["Available", "Bound", "Failed", "Pending", "Released"]),
    message: str("Why the volume is in this state."),
    reason: str("Brief CamelCase reason."),
    lastPhaseTransitionTime: time("When the phase last changed."),
  }),
  PersistentVolumeClaim: specStatus("A request for storage by a user.", "core.PersistentVolumeClaimSpec", "core.PersistentVolumeClaimStatus"),
  PersistentVolumeClaimSpec: obj("Desired state of a claim.", {
    accessModes,
    selector: ref("meta.LabelSelector", "Volumes eligible for binding."),
    resources: ref("core.ResourceRequirements", "Requested size, e.g. requests.storage: 1Gi."),
    volumeName: str("Bind to this volume."),
    storageClassName: str("StorageClass to provision from."),
    volumeMode: enm("Filesystem (default) or Block.", ["Block", "Filesystem"]),
    dataSource: ref("core.TypedLocalObjectReference", "Populate from a snapshot or another claim."),
    dataSourceRef: obj("Populate from any populator object.", {
      apiGroup: str("Group of the kind."), kind: str("Kind."), name: str("Name."), namespace: str("Namespace."),
    }, ["kind", "name"]),
    volumeAttributesClassName: str("VolumeAttributesClass to use."),
  }),
  PersistentVolumeClaimStatus: obj("Observed state of a claim.", {
    phase: enm("Lifecycle phase.", ["Bound", "Lost", "Pending"]),
    accessModes,
    capacity: quantities("Actual size of the bound volume."),
    conditions: conditions("core.PersistentVolumeClaimCondition"),
  }),
  PersistentVolumeClaimCondition: condition("A condition of a claim.", ["lastProbeTime"]),

  LimitRange: specStatus("Default and bounding resource amounts per object in a namespace.", "core.LimitRangeSpec"),
  LimitRangeSpec: obj("The limits.", { limits: arr("core.LimitRangeItem", "One entry per object type.", ATOMIC) }, ["limits"]),
  LimitRangeItem: obj("Limits for one type of object.", {
    type: str("Pod, Container or PersistentVolumeClaim."),
    max: quantities("Maximum amounts."),
    min: quantities("Minimum amounts."),
    default: quantities("Default limits."),
    defaultRequest: quantities("Default requests."),
    maxLimitRequestRatio: quantities("Maximum limit/request ratio."),
  }, ["type"]),

  ResourceQuota: specStatus("Caps the total resource use of a namespace.", "core.ResourceQuotaSpec", "core.ResourceQuotaStatus"),
  ResourceQuotaSpec: obj("Desired quota.", {
    hard: quantities("Caps by resource name, e.g. pods: 10, requests.cpu: 4."),
    scopes: strs("Only count objects in these scopes.", ATOMIC),
    scopeSelector: obj("Only count objects matching these scope expressions.", {
      matchExpressions: arr(obj("A scope requirement.", {
        scopeName: str("Scope."), operator: str("In, NotIn, Exists or DoesNotExist."), values: strs("Values.", ATOMIC),
      }, ["scopeName", "operator"]), "Requirements.", ATOMIC),
    }, undefined, MAP_ATOMIC),
  }),
  ResourceQuotaStatus: obj("Observed quota use.", { hard: quantities("Enforced caps."), used: quantities("Current use.") }),

  ReplicationController: specStatus("Keeps a number of pod replicas running (legacy; prefer Deployment).", "core.ReplicationControllerSpec", "core.ReplicationControllerStatus"),
  ReplicationControllerSpec: obj("Desired state of a replication controller.", {
    replicas: int("Desired number of pods; default 1."),
    minReadySeconds: int("Seconds a pod must be ready to count as available."),
    selector: strMap("Labels of the pods it manages; default the template's labels.", MAP_ATOMIC),
    template: ref("core.PodTemplateSpec", "Pods created when there are too few."),
  }),
  ReplicationControllerStatus: obj("Observed state of a replication controller.", {
    replicas: int("Current number of pods."),
    fullyLabeledReplicas: int("Pods whose labels match the template's."),
    readyReplicas: int("Ready pods."),
    availableReplicas: int("Available pods."),
    observedGeneration: i64("Generation last acted on."),
    conditions: conditions("core.ReplicationControllerCondition"),
  }, ["replicas"]),
  ReplicationControllerCondition: condition("A condition of a replication controller."),

  PodTemplate: kind("A stored pod template.", { template: ref("core.PodTemplateSpec", "The template.") }),
  TopologySelectorTerm: obj("Topology requirements ANDed together.", {
    matchLabelExpressions: arr(obj("A topology label requirement.", { key: str("Label key."), values: strs("Allowed values.", ATOMIC) }, ["key", "values"]), "Requirements.", ATOMIC),
  }, undefined, MAP_ATOMIC),
};

export const CORE_SCHEMAS: Table = pkg("core", core);
