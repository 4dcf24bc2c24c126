// Schemas of flowcontrol.apiserver.k8s.io/v1beta1: FlowSchema and PriorityLevelConfiguration (API
// Priority and Fairness, pkg/flowcontrol).
import { ATOMIC, SET, arr, bool, conditions, condition, int, obj, ref, specStatus, str, strs, type Table } from "./dsl.ts";

const FC = "io.k8s.api.flowcontrol.v1beta1.";
const fc = (name: string) => `${FC}${name}`;

const schemas: Table = {
  FlowSchema: specStatus("Sorts requests into flows of a priority level.", fc("FlowSchemaSpec"), fc("FlowSchemaStatus")),
  FlowSchemaSpec: obj("Which requests the schema takes, and where they go.", {
    priorityLevelConfiguration: ref(fc("PriorityLevelConfigurationReference"), "The priority level its requests are served at."),
    matchingPrecedence: int("Order among schemas, lowest first (1 to 10000); default 1000."),
    distinguisherMethod: ref(fc("FlowDistinguisherMethod"), "How its requests are told apart into flows; unset: one flow."),
    rules: arr(fc("PolicyRulesWithSubjects"), "The schema matches a request when any rule does.", ATOMIC),
  }, ["priorityLevelConfiguration"]),
  FlowSchemaStatus: obj("The schema's observed state.", { conditions: conditions(fc("FlowSchemaCondition"), null) }),
  FlowSchemaCondition: condition("A condition of the schema (Dangling: its priority level does not exist)."),
  FlowDistinguisherMethod: obj("How flows are told apart.", { type: str("ByUser or ByNamespace.") }, ["type"]),
  PriorityLevelConfigurationReference: obj("Names a priority level.", { name: str("Its name.") }, ["name"]),
  PolicyRulesWithSubjects: obj("Who sends a request and what it asks for.", {
    subjects: arr(fc("Subject"), "Users, groups or service accounts; any may match.", ATOMIC),
    resourceRules: arr(fc("ResourcePolicyRule"), "Resource requests that match.", ATOMIC),
    nonResourceRules: arr(fc("NonResourcePolicyRule"), "Non-resource requests that match.", ATOMIC),
  }, ["subjects"]),
  Subject: obj("Who sent a request: `kind` names the field that is set.", {
    kind: str("User, Group or ServiceAccount."),
    user: ref(fc("UserSubject"), "A user name."),
    group: ref(fc("GroupSubject"), "A group name."),
    serviceAccount: ref(fc("ServiceAccountSubject"), "A service account."),
  }, ["kind"]),
  UserSubject: obj("A user.", { name: str("The user name, or * for every user.") }, ["name"]),
  GroupSubject: obj("A group.", { name: str("The group name, or * for every group.") }, ["name"]),
  ServiceAccountSubject: obj("A service account.", { namespace: str("Its namespace."), name: str("Its name, or * for all in the namespace.") }, ["namespace", "name"]),
  ResourcePolicyRule: obj("Resource requests by verb, group, resource and namespace.", {
    verbs: strs("Verbs, or *.", SET),
    apiGroups: strs("API groups, or *.", SET),
    resources: strs("Resources (with /subresource), or *.", SET),
    clusterScope: bool("Also match requests without a namespace."),
    namespaces: strs("Namespaces, or * for any namespace.", SET),
  }, ["verbs", "apiGroups", "resources"]),
  NonResourcePolicyRule: obj("Non-resource requests by verb and path.", {
    verbs: strs("Verbs, or *.", SET),
    nonResourceURLs: strs("Paths; a trailing /* matches below the path, * matches every path.", SET),
  }, ["verbs", "nonResourceURLs"]),
  PriorityLevelConfiguration: specStatus("A share of the server's concurrency, and what to do past it.", fc("PriorityLevelConfigurationSpec"), fc("PriorityLevelConfigurationStatus")),
  PriorityLevelConfigurationSpec: obj("Limited or Exempt.", {
    type: str("Exempt (never limited) or Limited."),
    limited: ref(fc("LimitedPriorityLevelConfiguration"), "The limits of a Limited level."),
    exempt: ref(fc("ExemptPriorityLevelConfiguration"), "Settings of an Exempt level."),
  }, ["type"]),
  LimitedPriorityLevelConfiguration: obj("A limited level's share and its answer past it.", {
    assuredConcurrencyShares: int("Its share of the server's concurrency, against the other limited levels' shares; default 30."),
    limitResponse: ref(fc("LimitResponse"), "What happens to requests past the limit."),
    lendablePercent: int("Percent of its seats other levels may borrow."),
    borrowingLimitPercent: int("Percent of its seats it may borrow from others."),
  }),
  ExemptPriorityLevelConfiguration: obj("Settings of an exempt level.", {
    nominalConcurrencyShares: int("Seats nominally reserved."),
    lendablePercent: int("Percent of them others may borrow."),
  }),
  LimitResponse: obj("Queue or Reject requests past the limit.", {
    type: str("Queue or Reject."),
    queuing: ref(fc("QueuingConfiguration"), "The queues, when Queue."),
  }, ["type"]),
  QueuingConfiguration: obj("The level's queues.", {
    queues: int("Number of queues; default 64."),
    handSize: int("Queues dealt to each flow (shuffle sharding); default 8."),
    queueLengthLimit: int("Requests one queue holds; default 50."),
  }),
  PriorityLevelConfigurationStatus: obj("The level's observed state.", { conditions: conditions(fc("PriorityLevelConfigurationCondition"), null) }),
  PriorityLevelConfigurationCondition: condition("A condition of the level."),
};

export const FLOWCONTROL_SCHEMAS: Table = Object.fromEntries(Object.entries(schemas).map(([k, v]) => [fc(k), v]));
