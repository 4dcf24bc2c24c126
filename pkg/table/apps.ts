// Printers for the apps and batch groups, after upstream's pkg/printers/internalversion (v1.21).
import type { Obj } from "../registry/types.ts";
import {
  ageColumn, bool, boolPtr, containerCells, formatLabelSelector, formatLabels, int, nameColumn, selectorString, str, wide,
  type Column, type Printers,
} from "./columns.ts";
import { humanDuration, parseTime, since } from "./duration.ts";

const podSpec = (o: Obj) => o.spec?.template?.spec;

/** The wide CONTAINERS, IMAGES (and SELECTOR) columns of the workload kinds. */
function templateColumns(spec: (o: Obj) => Obj | undefined, selector?: (o: Obj) => string): Column[] {
  const cols = [
    wide(str("Containers", "Names of the containers in the template.", (o) => containerCells(spec(o)).names)),
    wide(str("Images", "Images of the containers in the template.", (o) => containerCells(spec(o)).images)),
  ];
  if (selector) cols.push(wide(str("Selector", "Label selector of the pods.", selector)));
  return cols;
}
const labelSelector = (o: Obj) => formatLabelSelector(o.spec?.selector);

function jobCompletions(job: Obj): string {
  const succeeded = job.status?.succeeded ?? 0;
  if (job.spec?.completions !== undefined && job.spec?.completions !== null) return `${succeeded}/${job.spec.completions}`;
  const parallelism = job.spec?.parallelism ?? 0;
  return parallelism > 1 ? `${succeeded}/1 of ${parallelism}` : `${succeeded}/1`;
}

function jobDuration(job: Obj, now: number): string {
  const start = parseTime(job.status?.startTime);
  if (start === undefined) return "";
  const end = parseTime(job.status?.completionTime);
  return humanDuration((end ?? now) - start);
}

/** `statefulset.apps/web` for the controlling owner, `<none>` without one. */
function controllerOf(o: Obj): string {
  const ref = (o.metadata?.ownerReferences ?? []).find((r: Obj) => r.controller === true);
  if (!ref) return "<none>";
  const apiVersion = String(ref.apiVersion ?? "");
  const group = apiVersion.includes("/") ? apiVersion.slice(0, apiVersion.indexOf("/")) : "";
  const kind = String(ref.kind ?? "");
  if (!kind && !group) return ref.name ?? "";
  return `${(group ? `${kind}.${group}` : kind).toLowerCase()}/${ref.name ?? ""}`;
}

export const APPS: Printers = {
  "Deployment.apps": {
    columns: [
      nameColumn,
      str("Ready", "Ready pods out of desired pods.", (o) => `${o.status?.readyReplicas ?? 0}/${o.spec?.replicas ?? 1}`),
      int("Up-to-date", "Pods updated to the latest template.", (o) => o.status?.updatedReplicas ?? 0),
      int("Available", "Pods available to serve.", (o) => o.status?.availableReplicas ?? 0),
      ageColumn,
      ...templateColumns(podSpec, (o) => selectorString(o.spec?.selector) ?? "<invalid>"),
    ],
  },
  "ReplicaSet.apps": {
    columns: [
      nameColumn,
      int("Desired", "Desired number of replicas.", (o) => o.spec?.replicas ?? 1),
      int("Current", "Most recently observed number of replicas.", (o) => o.status?.replicas ?? 0),
      int("Ready", "Number of ready replicas.", (o) => o.status?.readyReplicas ?? 0),
      ageColumn,
      ...templateColumns(podSpec, labelSelector),
    ],
  },
  "StatefulSet.apps": {
    columns: [
      nameColumn,
      str("Ready", "Ready pods out of desired pods.", (o) => `${o.status?.readyReplicas ?? 0}/${o.spec?.replicas ?? 1}`),
      ageColumn,
      ...templateColumns(podSpec),
    ],
  },
  "DaemonSet.apps": {
    columns: [
      nameColumn,
      int("Desired", "Nodes that should run the daemon pod.", (o) => o.status?.desiredNumberScheduled ?? 0),
      int("Current", "Nodes running at least one daemon pod.", (o) => o.status?.currentNumberScheduled ?? 0),
      int("Ready", "Nodes with a ready daemon pod.", (o) => o.status?.numberReady ?? 0),
      int("Up-to-date", "Nodes running the updated daemon pod.", (o) => o.status?.updatedNumberScheduled ?? 0),
      int("Available", "Nodes with an available daemon pod.", (o) => o.status?.numberAvailable ?? 0),
      str("Node Selector", "Node selector of the pod template.", (o) => formatLabels(podSpec(o)?.nodeSelector)),
      ageColumn,
      ...templateColumns(podSpec, labelSelector),
    ],
  },
  "ControllerRevision.apps": {
    columns: [
      nameColumn,
      str("Controller", "The controller owning the revision.", controllerOf),
      str("Revision", "The revision number.", (o) => o.revision ?? 0),
      ageColumn,
    ],
  },
};

export const BATCH: Printers = {
  "Job.batch": {
    columns: [
      nameColumn,
      str("Completions", "Succeeded pods out of required completions.", jobCompletions),
      str("Duration", "Time the job took, or has run so far.", (o, c) => jobDuration(o, c.now)),
      ageColumn,
      ...templateColumns(podSpec, labelSelector),
    ],
  },
  "CronJob.batch": {
    columns: [
      nameColumn,
      str("Schedule", "The cron schedule.", (o) => o.spec?.schedule ?? ""),
      bool("Suspend", "Whether new runs are suspended.", (o) => boolPtr(o.spec?.suspend)),
      int("Active", "Number of running jobs.", (o) => (o.status?.active ?? []).length),
      str("Last Schedule", "Time since the job was last scheduled.", (o, c) => (o.status?.lastScheduleTime ? since(o.status.lastScheduleTime, c.now) : "<none>")),
      ageColumn,
      ...templateColumns((o) => o.spec?.jobTemplate?.spec?.template?.spec, (o) => formatLabelSelector(o.spec?.jobTemplate?.spec?.selector)),
    ],
  },
};
