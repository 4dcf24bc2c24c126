// What the scheduler reads and writes besides pods and nodes, through the API: the plugins' listers backed
// by shared informers, and their actions (bind, delete a victim, nominate, annotate a claim, record an
// event) as API calls.
import type { Client } from "../client/client.ts";
import type { EventRecorder } from "../client/events.ts";
import type { InformerFactory, SharedInformer } from "../client/informer.ts";
import { RESOURCES } from "../client/resources.ts";
import { NAMESPACE_INDEX, namespaceIndex } from "../client/store.ts";
import type { AnyObject, ClusterActions, LabelSelector, Listers, Pod } from "./framework/index.ts";
import { labelSelector, selectorFromSet, type Selector } from "./framework/selectors.ts";

/** The informers behind the listers; made before the factory starts so one list and watch serves each. */
export function clusterListers(factory: InformerFactory): { listers: Listers; informers: Record<string, SharedInformer> } {
  const informers = {
    pvcs: factory.informerFor(RESOURCES.persistentvolumeclaims),
    pvs: factory.informerFor(RESOURCES.persistentvolumes),
    storageClasses: factory.informerFor(RESOURCES.storageclasses),
    csiNodes: factory.informerFor(RESOURCES.csinodes),
    pdbs: factory.informerFor(RESOURCES.poddisruptionbudgets),
    namespaces: factory.informerFor(RESOURCES.namespaces),
    // the owners whose selectors PodTopologySpread's default constraints spread a pod by
    services: factory.informerFor(RESOURCES.services, { indexers: { [NAMESPACE_INDEX]: namespaceIndex } }),
    rcs: factory.informerFor(RESOURCES.replicationcontrollers, { indexers: { [NAMESPACE_INDEX]: namespaceIndex } }),
    rss: factory.informerFor(RESOURCES.replicasets, { indexers: { [NAMESPACE_INDEX]: namespaceIndex } }),
    stss: factory.informerFor(RESOURCES.statefulsets, { indexers: { [NAMESPACE_INDEX]: namespaceIndex } }),
  };
  const inNamespace = (i: SharedInformer, pod: Pod) => i.store.byIndex(NAMESPACE_INDEX, pod.metadata.namespace ?? "");
  const get = (i: SharedInformer, key: string) => i.store.get(key) as AnyObject | undefined;
  const listers: Listers = {
    persistentVolumeClaim: (ns, name) => get(informers.pvcs, `${ns}/${name}`),
    persistentVolume: (name) => get(informers.pvs, name),
    storageClass: (name) => get(informers.storageClasses, name),
    podDisruptionBudgets: () => informers.pdbs.store.list() as AnyObject[],
    namespaceLabels: (name) => {
      const n = informers.namespaces.store.get(name);
      return n ? n.metadata?.labels ?? {} : undefined;
    },
    csiNode: (name) => get(informers.csiNodes, name),
    selectorsForPod(pod) {
      const out: LabelSelector[] = [];
      // Services and ReplicationControllers select by a map, ReplicaSets and StatefulSets by a LabelSelector;
      // an empty one selects nothing here, as upstream's listers skip it
      const add = (sel: LabelSelector, matcher: Selector) => { if (!matcher.everything && matcher.matches(pod.metadata.labels)) out.push(sel); };
      for (const i of [informers.services, informers.rcs]) {
        for (const o of inNamespace(i, pod)) {
          const set = o.spec?.selector;
          if (set && Object.keys(set).length) add({ matchLabels: set }, selectorFromSet(set));
        }
      }
      for (const i of [informers.rss, informers.stss]) {
        for (const o of inNamespace(i, pod)) if (o.spec?.selector) add(o.spec.selector, labelSelector(o.spec.selector));
      }
      return out;
    },
  };
  return { listers, informers };
}

const ns = (pod: Pod) => pod.metadata.namespace ?? "default";

/** The plugins' writes; `recorder` names the profile the event is from. */
export function clusterActions(client: Client, recorder: (pod: Pod) => EventRecorder): ClusterActions {
  return {
    async bind(pod, nodeName) {
      const binding = { apiVersion: "v1", kind: "Binding", metadata: { name: pod.metadata.name, namespace: ns(pod), uid: pod.metadata.uid }, target: { kind: "Node", name: nodeName } };
      await client.create(RESOURCES.pods, binding, { namespace: ns(pod), subresource: "binding" });
    },
    async deletePod(pod) {
      await client.delete(RESOURCES.pods, pod.metadata.name!, { namespace: ns(pod) });
    },
    async setNominatedNodeName(pod, nodeName) {
      await client.patch(RESOURCES.pods, pod.metadata.name!, { status: { nominatedNodeName: nodeName || null } }, "merge", { namespace: ns(pod), subresource: "status" });
    },
    async annotateClaim(namespace, name, key, value) {
      await client.patch(RESOURCES.persistentvolumeclaims, name, { metadata: { annotations: { [key]: value } } }, "merge", { namespace });
    },
    event(pod, type, reason, message, related) {
      // upstream's only event from a plugin is the preemption's, whose action is "Preempting"
      recorder(pod).event(pod, related, type, reason, reason === "Preempted" ? "Preempting" : "Scheduling", message);
    },
  };
}
