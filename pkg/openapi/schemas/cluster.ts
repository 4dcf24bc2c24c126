// RBAC, networking, scheduling, storage, events, discovery, node, certificates,
// apiextensions and admissionregistration kinds.
import { ATOMIC, MAP_ATOMIC, SET, arr, bool, bytes, condition, conditions, enm, free, i64, int, kind, listMap, obj, pkg, quantities, ref, specStatus, str, strMap, strs, time, type Table } from "./dsl.ts";

const rules = arr("rbac.PolicyRule", "The permissions granted.", ATOMIC);
const binding = (d: string) => kind(d, {
  subjects: arr("rbac.Subject", "Who is granted the role.", ATOMIC),
  roleRef: ref("rbac.RoleRef", "The role granted; cannot change after creation."),
}, ["roleRef"]);

const rbac: Table = {
  Role: kind("A set of permissions within a namespace.", { rules }),
  ClusterRole: kind("A set of permissions across the cluster.", {
    rules,
    aggregationRule: obj("Builds the rules from other cluster roles.", {
      clusterRoleSelectors: arr("meta.LabelSelector", "Cluster roles whose rules are aggregated.", ATOMIC),
    }),
  }),
  RoleBinding: binding("Grants a Role or ClusterRole within a namespace."),
  ClusterRoleBinding: binding("Grants a ClusterRole across the cluster."),
  PolicyRule: obj("Verbs allowed on resources or non-resource URLs.", {
    verbs: strs("Verbs, e.g. get, list, watch, create; * for all.", ATOMIC),
    apiGroups: strs("API groups; \"\" is the core group, * all.", ATOMIC),
    resources: strs("Resources, e.g. pods or pods/log; * for all.", ATOMIC),
    resourceNames: strs("Object names allowed; all when empty.", ATOMIC),
    nonResourceURLs: strs("URL paths such as /healthz (cluster roles only).", ATOMIC),
  }, ["verbs"]),
  Subject: obj("A user, group or service account.", {
    kind: enm("Kind of subject.", ["Group", "ServiceAccount", "User"]),
    apiGroup: str("rbac.authorization.k8s.io for users and groups, \"\" for service accounts."),
    name: str("Name."),
    namespace: str("Namespace, for service accounts."),
  }, ["kind", "name"], MAP_ATOMIC),
  RoleRef: obj("The role a binding grants.", {
    apiGroup: str("Group of the role."), kind: str("Role or ClusterRole."), name: str("Name of the role."),
  }, ["apiGroup", "kind", "name"], MAP_ATOMIC),
};

const port = (d: string) => ref("intstr.IntOrString", d);
const networking: Table = {
  Ingress: specStatus("HTTP routing from outside the cluster to services.", "networking.IngressSpec", "networking.IngressStatus"),
  IngressSpec: obj("Desired routing.", {
    ingressClassName: str("IngressClass of the controller to use."),
    defaultBackend: ref("networking.IngressBackend", "Backend for requests no rule matches."),
    tls: arr(obj("TLS for some hosts.", { hosts: strs("Hosts covered.", ATOMIC), secretName: str("Secret with the certificate and key.") }), "TLS settings.", ATOMIC),
    rules: arr("networking.IngressRule", "Host and path rules.", ATOMIC),
  }),
  IngressBackend: obj("Where matching requests go.", {
    service: obj("A service backend.", {
      name: str("Service name."),
      port: obj("Service port.", { name: str("Port name."), number: int("Port number.") }),
    }, ["name"]),
    resource: ref("core.TypedLocalObjectReference", "Another backend object."),
  }),
  IngressRule: obj("Routes for one host (or all hosts).", {
    host: str("Host name; wildcards like *.example.com allowed."),
    http: obj("HTTP routes.", { paths: arr("networking.HTTPIngressPath", "Path routes.", ATOMIC) }, ["paths"]),
  }),
  HTTPIngressPath: obj("A path route.", {
    path: str("Path to match."),
    pathType: enm("How path matches.", ["Exact", "ImplementationSpecific", "Prefix"]),
    backend: ref("networking.IngressBackend", "Where requests go."),
  }, ["pathType", "backend"]),
  IngressStatus: obj("Observed routing.", {
    loadBalancer: obj("Load balancer of the ingress.", {
      ingress: arr(obj("An entry point.", { ip: str("IP."), hostname: str("Hostname."), ports: arr("core.PortStatus", "Ports.", ATOMIC) }), "Entry points.", ATOMIC),
    }),
  }),
  IngressClass: specStatus("A kind of ingress controller.", "networking.IngressClassSpec"),
  IngressClassSpec: obj("The controller.", {
    controller: str("Name of the controller implementing the class."),
    parameters: obj("Controller configuration object.", {
      apiGroup: str("Group."), kind: str("Kind."), name: str("Name."), scope: str("Cluster or Namespace."), namespace: str("Namespace."),
    }, ["kind", "name"]),
  }),
  NetworkPolicy: specStatus("Which traffic may reach or leave a set of pods.", "networking.NetworkPolicySpec"),
  NetworkPolicySpec: obj("The policy.", {
    podSelector: ref("meta.LabelSelector", "Pods the policy applies to; all in the namespace when empty."),
    ingress: arr(obj("Allowed incoming traffic.", { ports: arr("networking.NetworkPolicyPort", "Ports.", ATOMIC), from: arr("networking.NetworkPolicyPeer", "Sources.", ATOMIC) }), "Ingress rules.", ATOMIC),
    egress: arr(obj("Allowed outgoing traffic.", { ports: arr("networking.NetworkPolicyPort", "Ports.", ATOMIC), to: arr("networking.NetworkPolicyPeer", "Destinations.", ATOMIC) }), "Egress rules.", ATOMIC),
    policyTypes: strs("Ingress and/or Egress.", ATOMIC),
  }, ["podSelector"]),
  NetworkPolicyPort: obj("A port or port range.", { protocol: str("Protocol; default TCP."), port: port("Port number or name."), endPort: int("End of a port range.") }),
  NetworkPolicyPeer: obj("A traffic peer.", {
    podSelector: ref("meta.LabelSelector", "Pods."),
    namespaceSelector: ref("meta.LabelSelector", "Namespaces."),
    ipBlock: obj("A CIDR.", { cidr: str("The block."), except: strs("Excluded sub-blocks.", ATOMIC) }, ["cidr"]),
  }),
};

const scheduling: Table = {
  PriorityClass: kind("Maps a class name to a pod priority.", {
    value: int("The priority; higher runs first."),
    globalDefault: bool("Use for pods without a class."),
    description: str("When to use this class."),
    preemptionPolicy: enm("Whether its pods preempt others.", ["Never", "PreemptLowerPriority"]),
  }, ["value"]),
};

const storage: Table = {
  StorageClass: kind("A class of dynamically provisioned storage.", {
    provisioner: str("Volume plugin or CSI driver that provisions volumes."),
    parameters: strMap("Provisioner parameters."),
    reclaimPolicy: enm("Reclaim policy of created volumes; default Delete.", ["Delete", "Recycle", "Retain"]),
    mountOptions: strs("Mount options of created volumes.", ATOMIC),
    allowVolumeExpansion: bool("Whether claims may grow."),
    volumeBindingMode: enm("When volumes are bound.", ["Immediate", "WaitForFirstConsumer"]),
    allowedTopologies: arr("core.TopologySelectorTerm", "Where volumes may be provisioned.", ATOMIC),
  }, ["provisioner"]),
  CSIDriver: specStatus("Describes a CSI volume driver.", "storage.CSIDriverSpec", undefined, true),
  CSIDriverSpec: obj("The driver's capabilities.", {
    attachRequired: bool("Whether volumes need an attach step."),
    podInfoOnMount: bool("Pass pod information on mount."),
    volumeLifecycleModes: strs("Persistent and/or Ephemeral.", SET),
    storageCapacity: bool("Whether capacity is reported."),
    fsGroupPolicy: str("How fsGroup applies to volumes."),
    tokenRequests: arr(obj("A token for the driver.", { audience: str("Audience."), expirationSeconds: i64("Lifetime.") }, ["audience"]), "Tokens passed on mount.", ATOMIC),
    requiresRepublish: bool("Call NodePublishVolume periodically."),
    seLinuxMount: bool("Supports SELinux mount options."),
  }),
  CSINode: specStatus("The CSI drivers installed on a node.", "storage.CSINodeSpec", undefined, true),
  CSINodeSpec: obj("The drivers.", {
    drivers: arr(obj("A driver on the node.", {
      name: str("Driver name."),
      nodeID: str("The node's ID for the driver."),
      topologyKeys: strs("Topology labels the driver supports.", ATOMIC),
      allocatable: obj("Volume limits.", { count: int("Maximum volumes.") }),
    }, ["name", "nodeID"]), "Installed drivers.", listMap(["name"])),
  }, ["drivers"]),
  VolumeAttachment: specStatus("Asks to attach a volume to a node.", "storage.VolumeAttachmentSpec", "storage.VolumeAttachmentStatus", true),
  VolumeAttachmentSpec: obj("The attachment.", {
    attacher: str("Driver doing the attach."),
    source: obj("The volume.", { persistentVolumeName: str("A persistent volume."), inlineVolumeSpec: free("An inline volume spec.") }),
    nodeName: str("Node to attach to."),
  }, ["attacher", "source", "nodeName"]),
  VolumeAttachmentStatus: obj("Attach state.", {
    attached: bool("Whether it is attached."),
    attachmentMetadata: strMap("Data from the attach."),
    attachError: ref("storage.VolumeError", "Last attach error."),
    detachError: ref("storage.VolumeError", "Last detach error."),
  }, ["attached"]),
  VolumeError: obj("A volume operation error.", { time: time("When it happened."), message: str("What happened.") }),
};

const events: Table = {
  Event: kind("A report of something that happened in the cluster.", {
    eventTime: ref("meta.MicroTime", "When it first happened."),
    series: obj("A series of repeated events.", { count: int("Occurrences."), lastObservedTime: ref("meta.MicroTime", "Last occurrence.") }, ["count", "lastObservedTime"]),
    reportingController: str("Controller that emitted it."),
    reportingInstance: str("Instance of that controller."),
    action: str("What was done, or failed."),
    reason: str("Short CamelCase reason."),
    regarding: ref("core.ObjectReference", "The object it is about."),
    related: ref("core.ObjectReference", "A second object involved."),
    note: str("Human-readable description."),
    type: str("Normal or Warning."),
    deprecatedSource: obj("Legacy source.", { component: str("Component."), host: str("Node.") }),
    deprecatedFirstTimestamp: time("Legacy first time."),
    deprecatedLastTimestamp: time("Legacy last time."),
    deprecatedCount: int("Legacy count."),
  }, ["eventTime"]),
};

const discovery: Table = {
  EndpointSlice: kind("A subset of the endpoints of a service.", {
    addressType: enm("Type of the addresses.", ["FQDN", "IPv4", "IPv6"]),
    endpoints: arr("discovery.Endpoint", "The endpoints.", ATOMIC),
    ports: arr(obj("A port.", { name: str("Name."), protocol: str("Protocol."), port: int("Number."), appProtocol: str("Application protocol.") }, undefined, MAP_ATOMIC), "Ports of all endpoints.", ATOMIC),
  }, ["addressType", "endpoints"]),
  Endpoint: obj("One endpoint.", {
    addresses: strs("Addresses of the endpoint.", SET),
    conditions: obj("State of the endpoint.", { ready: bool("Ready for traffic."), serving: bool("Serving."), terminating: bool("Terminating.") }),
    hostname: str("Hostname."),
    targetRef: ref("core.ObjectReference", "Object behind the endpoint."),
    deprecatedTopology: strMap("Legacy topology labels."),
    nodeName: str("Node hosting it."),
    zone: str("Zone it is in."),
    hints: free("Topology-aware routing hints."),
  }, ["addresses"]),
};

const node: Table = {
  RuntimeClass: kind("A container runtime configuration pods can select.", {
    handler: str("Runtime handler name the node agent uses."),
    overhead: obj("Resources a pod uses on top of its containers.", { podFixed: quantities("Fixed overhead.") }),
    scheduling: obj("Nodes supporting the class.", {
      nodeSelector: strMap("Labels such nodes carry.", MAP_ATOMIC),
      tolerations: arr("core.Toleration", "Tolerations added to its pods.", ATOMIC),
    }),
  }, ["handler"]),
};

const certificates: Table = {
  CertificateSigningRequest: specStatus("A request for a signed certificate.", "certificates.CertificateSigningRequestSpec", "certificates.CertificateSigningRequestStatus", true),
  CertificateSigningRequestSpec: obj("The request.", {
    request: bytes("PEM-encoded PKCS#10 request.", { "x-kubernetes-list-type": "atomic" }),
    signerName: str("Signer asked to sign, e.g. kubernetes.io/kube-apiserver-client."),
    expirationSeconds: int("Requested validity."),
    usages: strs("Key usages, e.g. client auth.", ATOMIC),
    username: str("Requesting user; set by the server."),
    uid: str("Requesting user's UID."),
    groups: strs("Requesting user's groups.", ATOMIC),
    extra: { description: "Requesting user's extra attributes.", type: "object", additionalProperties: { type: "array", items: { type: "string", default: "" } } },
  }, ["request", "signerName"]),
  CertificateSigningRequestStatus: obj("State of the request.", {
    conditions: conditions("certificates.CertificateSigningRequestCondition", null),
    certificate: bytes("PEM-encoded issued certificate.", { "x-kubernetes-list-type": "atomic" }),
  }),
  CertificateSigningRequestCondition: condition("Approved, Denied or Failed.", ["lastUpdateTime"]),
};

const apiext: Table = {
  CustomResourceDefinition: specStatus("Adds a resource type to the API.", "apiext.CustomResourceDefinitionSpec", "apiext.CustomResourceDefinitionStatus", true),
  CustomResourceDefinitionSpec: obj("The new type.", {
    group: str("API group of the type."),
    names: ref("apiext.CustomResourceDefinitionNames", "Names of the type."),
    scope: enm("Cluster or Namespaced.", ["Cluster", "Namespaced"]),
    versions: arr("apiext.CustomResourceDefinitionVersion", "Served versions.", ATOMIC),
    conversion: free("How objects convert between versions."),
    preserveUnknownFields: bool("Deprecated: keep fields not in the schema."),
  }, ["group", "names", "scope", "versions"]),
  CustomResourceDefinitionNames: obj("Names of a custom type.", {
    plural: str("Plural, used in URLs."),
    singular: str("Singular."),
    shortNames: strs("Short aliases.", ATOMIC),
    kind: str("Kind."),
    listKind: str("Kind of lists; default <kind>List."),
    categories: strs("Categories, e.g. all.", ATOMIC),
  }, ["plural", "kind"]),
  CustomResourceDefinitionVersion: obj("A version of a custom type.", {
    name: str("Version name, e.g. v1."),
    served: bool("Served over the API."),
    storage: bool("The one version objects are stored in."),
    deprecated: bool("Deprecated."),
    deprecationWarning: str("Warning returned to clients."),
    schema: obj("Validation schema.", { openAPIV3Schema: free("OpenAPI v3 schema of the objects.") }),
    subresources: free("status and scale subresources."),
    additionalPrinterColumns: arr(obj("A table column.", {
      name: str("Header."), type: str("Type."), format: str("Format."), description: str("Description."), priority: int("Priority."), jsonPath: str("Value path."),
    }, ["name", "type", "jsonPath"]), "Extra columns for kubectl get.", ATOMIC),
    selectableFields: free("Fields usable in field selectors."),
  }, ["name", "served", "storage"]),
  CustomResourceDefinitionStatus: obj("State of the type.", {
    conditions: conditions("apiext.CustomResourceDefinitionCondition", null),
    acceptedNames: ref("apiext.CustomResourceDefinitionNames", "Names in use."),
    storedVersions: strs("Versions objects have been stored in.", ATOMIC),
  }),
  CustomResourceDefinitionCondition: condition("A condition, e.g. Established."),
};

const webhook = (d: string, mutating: boolean) => obj(d, {
  name: str("Fully qualified webhook name, e.g. check.example.com."),
  clientConfig: ref("admissionregistration.WebhookClientConfig", "How to reach the webhook."),
  rules: arr("admissionregistration.RuleWithOperations", "Operations and resources sent to the webhook.", ATOMIC),
  failurePolicy: enm("Ignore or Fail when the call fails.", ["Fail", "Ignore"]),
  matchPolicy: enm("Exact or Equivalent resource matching.", ["Equivalent", "Exact"]),
  namespaceSelector: ref("meta.LabelSelector", "Namespaces whose objects are sent."),
  objectSelector: ref("meta.LabelSelector", "Objects sent, by label."),
  sideEffects: str("None, NoneOnDryRun, Some or Unknown."),
  timeoutSeconds: int("Call timeout; default 10."),
  admissionReviewVersions: strs("AdmissionReview versions accepted.", ATOMIC),
  ...(mutating ? { reinvocationPolicy: enm("Never or IfNeeded.", ["IfNeeded", "Never"]) } : {}),
  matchConditions: arr(obj("A CEL condition.", { name: str("Name."), expression: str("CEL expression.") }, ["name", "expression"]), "CEL filters.", listMap(["name"])),
}, ["name", "clientConfig", "sideEffects", "admissionReviewVersions"]);

const admissionregistration: Table = {
  MutatingWebhookConfiguration: kind("Webhooks that may change objects on admission.", {
    webhooks: arr("admissionregistration.MutatingWebhook", "The webhooks.", listMap(["name"])),
  }),
  ValidatingWebhookConfiguration: kind("Webhooks that may reject objects on admission.", {
    webhooks: arr("admissionregistration.ValidatingWebhook", "The webhooks.", listMap(["name"])),
  }),
  MutatingWebhook: webhook("A mutating webhook.", true),
  ValidatingWebhook: webhook("A validating webhook.", false),
  WebhookClientConfig: obj("Where a webhook is.", {
    url: str("https URL; or use service."),
    service: obj("A service.", { namespace: str("Namespace."), name: str("Name."), path: str("URL path."), port: int("Port; default 443.") }, ["namespace", "name"]),
    caBundle: bytes("PEM CA bundle to verify the server."),
  }),
  RuleWithOperations: obj("Operations on resources.", {
    operations: strs("CREATE, UPDATE, DELETE, CONNECT or *.", ATOMIC),
    apiGroups: strs("Groups; * for all.", ATOMIC),
    apiVersions: strs("Versions; * for all.", ATOMIC),
    resources: strs("Resources; * for all, pods/* for subresources.", ATOMIC),
    scope: enm("Cluster, Namespaced or *.", ["*", "Cluster", "Namespaced"]),
  }),
};

export const CLUSTER_SCHEMAS: Table = {
  ...pkg("rbac", rbac), ...pkg("networking", networking), ...pkg("scheduling", scheduling), ...pkg("storage", storage),
  ...pkg("events", events), ...pkg("discovery", discovery), ...pkg("node", node), ...pkg("certificates", certificates),
  ...pkg("apiext", apiext), ...pkg("admissionregistration", admissionregistration),
};
