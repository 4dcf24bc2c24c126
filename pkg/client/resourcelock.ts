// Where a leader election keeps its record (client-go tools/leaderelection/resourcelock): a Lease's spec,
// the `control-plane.alpha.kubernetes.io/leader` annotation (JSON) of an Endpoints or ConfigMap, or both
// an old and a new kind at once (`endpointsleases`, `configmapsleases`) while components migrate.
// Each lock remembers the object it read last, so an update is a compare-and-swap on its resourceVersion.
import { isAlreadyExists, isNotFound, type Client, type Obj } from "./client.ts";
import { RESOURCES, type ResourceRef } from "./resources.ts";
import { microTime, rfc3339 } from "./time.ts";

export interface LeaderElectionRecord {
  /** "" when nobody holds the lock (it was released). */
  holderIdentity: string;
  leaseDurationSeconds: number;
  acquireTime: Date;
  renewTime: Date;
  leaderTransitions: number;
}

export interface ResourceLock {
  readonly identity: string;
  /** `namespace/name`, for messages. */
  describe(): string;
  /** The record and its raw form (compared to notice a change); an ApiError 404 when there is no lock. */
  get(signal?: AbortSignal): Promise<{ record: LeaderElectionRecord; raw: string }>;
  create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
  update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void>;
}

export const LEADER_ANNOTATION = "control-plane.alpha.kubernetes.io/leader";
/** The holder a multi-lock reports when its two records disagree. */
export const UNKNOWN_LEADER = "leaderelection.k8s.io/unknown";
export const LOCK_TYPES = ["endpoints", "configmaps", "leases", "endpointsleases", "configmapsleases"] as const;
export type LockType = (typeof LOCK_TYPES)[number];

const emptyRecord = (): LeaderElectionRecord => ({ holderIdentity: "", leaseDurationSeconds: 0, acquireTime: new Date(0), renewTime: new Date(0), leaderTransitions: 0 });
const parseTime = (s: unknown) => (typeof s === "string" && s ? new Date(s) : new Date(0));

/** What the locks share: one object, read and written with the object last read. */
abstract class ObjectLock implements ResourceLock {
  protected obj?: Obj;

  constructor(
    protected readonly client: Client, protected readonly resource: ResourceRef, readonly namespace: string, readonly name: string,
    readonly identity: string, private readonly noun: string,
  ) {}

  describe(): string { return `${this.namespace}/${this.name}`; }

  protected abstract read(obj: Obj): { record: LeaderElectionRecord; raw: string };
  protected abstract write(obj: Obj, record: LeaderElectionRecord): void;

  async get(signal?: AbortSignal) {
    this.obj = await this.client.get(this.resource, this.name, { namespace: this.namespace, signal });
    return this.read(this.obj);
  }

  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    const obj: Obj = { apiVersion: this.resource.group ? `${this.resource.group}/${this.resource.version}` : this.resource.version, kind: this.resource.kind, metadata: { name: this.name, namespace: this.namespace } };
    this.write(obj, record);
    this.obj = await this.client.create(this.resource, obj, { namespace: this.namespace, signal });
  }

  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    if (!this.obj) throw new Error(`${this.noun} not initialized, call get or create first`);
    const obj = structuredClone(this.obj);
    this.write(obj, record);
    this.obj = await this.client.update(this.resource, obj, { namespace: this.namespace, signal });
  }
}

/** coordination.k8s.io/v1 Lease: the record is the spec (times as MicroTime). */
export class LeaseLock extends ObjectLock {
  constructor(client: Client, namespace: string, name: string, identity: string) {
    super(client, RESOURCES.leases, namespace, name, identity, "lease");
  }

  protected read(obj: Obj) {
    const s = obj.spec ?? {};
    const record: LeaderElectionRecord = {
      holderIdentity: s.holderIdentity ?? "", leaseDurationSeconds: s.leaseDurationSeconds ?? 0,
      acquireTime: parseTime(s.acquireTime), renewTime: parseTime(s.renewTime), leaderTransitions: s.leaseTransitions ?? 0,
    };
    return { record, raw: JSON.stringify([s.holderIdentity, s.leaseDurationSeconds, s.acquireTime, s.renewTime, s.leaseTransitions]) };
  }

  protected write(obj: Obj, r: LeaderElectionRecord): void {
    obj.spec = {
      holderIdentity: r.holderIdentity, leaseDurationSeconds: r.leaseDurationSeconds,
      acquireTime: microTime(r.acquireTime.getTime()), renewTime: microTime(r.renewTime.getTime()), leaseTransitions: r.leaderTransitions,
    };
  }
}

/** The record as JSON in the leader annotation of an Endpoints or a ConfigMap. */
class AnnotationLock extends ObjectLock {
  protected read(obj: Obj) {
    const raw: string = obj.metadata?.annotations?.[LEADER_ANNOTATION] ?? "";
    if (!raw) return { record: emptyRecord(), raw };
    const j = JSON.parse(raw);
    const record: LeaderElectionRecord = {
      holderIdentity: j.holderIdentity ?? "", leaseDurationSeconds: j.leaseDurationSeconds ?? 0,
      acquireTime: parseTime(j.acquireTime), renewTime: parseTime(j.renewTime), leaderTransitions: j.leaderTransitions ?? 0,
    };
    return { record, raw };
  }

  protected write(obj: Obj, r: LeaderElectionRecord): void {
    obj.metadata.annotations = { ...obj.metadata.annotations, [LEADER_ANNOTATION]: recordJson(r) };
  }
}

/** The annotation's JSON, in upstream's field order and time format. */
const recordJson = (r: LeaderElectionRecord) => JSON.stringify({
  holderIdentity: r.holderIdentity, leaseDurationSeconds: r.leaseDurationSeconds,
  acquireTime: rfc3339(r.acquireTime), renewTime: rfc3339(r.renewTime), leaderTransitions: r.leaderTransitions,
});

export class EndpointsLock extends AnnotationLock {
  constructor(client: Client, namespace: string, name: string, identity: string) {
    super(client, RESOURCES.endpoints, namespace, name, identity, "endpoint");
  }
}

export class ConfigMapLock extends AnnotationLock {
  constructor(client: Client, namespace: string, name: string, identity: string) {
    super(client, RESOURCES.configmaps, namespace, name, identity, "configmap");
  }
}

/**
 * Two locks held together (MultiLock): the primary (the old kind) decides; the secondary (a Lease) is
 * created when missing and kept in step, and a disagreement between them reads as an unknown leader.
 */
export class MultiLock implements ResourceLock {
  constructor(readonly primary: ResourceLock, readonly secondary: ResourceLock) {}

  get identity(): string { return this.primary.identity; }
  describe(): string { return this.primary.describe(); }

  async get(signal?: AbortSignal) {
    const p = await this.primary.get(signal);
    let s: { record: LeaderElectionRecord; raw: string };
    try {
      s = await this.secondary.get(signal);
    } catch (e) {
      // Only the old kind exists: it is held by a candidate that knows no other.
      if (isNotFound(e) && p.record.holderIdentity !== this.identity) return p;
      throw e;
    }
    if (p.record.holderIdentity !== s.record.holderIdentity) {
      const record = { ...p.record, holderIdentity: UNKNOWN_LEADER };
      return { record, raw: `${recordJson(record)},${s.raw}` };
    }
    return { record: p.record, raw: `${p.raw},${s.raw}` };
  }

  async create(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    try {
      await this.primary.create(record, signal);
    } catch (e) {
      // The primary exists: go on to the secondary only if this candidate holds it (a lock being
      // migrated), not if a rival created it an instant ago (upstream would create the secondary anyway
      // and leave the two disagreeing until a lease duration passed).
      if (!isAlreadyExists(e) || (await this.primary.get(signal)).record.holderIdentity !== this.identity) throw e;
    }
    await this.secondary.create(record, signal);
  }

  async update(record: LeaderElectionRecord, signal?: AbortSignal): Promise<void> {
    await this.primary.update(record, signal);
    try {
      await this.secondary.get(signal);
    } catch (e) {
      if (isNotFound(e)) return this.secondary.create(record, signal);
      throw e;
    }
    await this.secondary.update(record, signal);
  }
}

/** resourcelock.New: the lock of a kind, named namespace/name, for a candidate's identity. */
export function newResourceLock(type: string, client: Client, namespace: string, name: string, identity: string): ResourceLock {
  switch (type) {
    case "leases": return new LeaseLock(client, namespace, name, identity);
    case "endpoints": return new EndpointsLock(client, namespace, name, identity);
    case "configmaps": return new ConfigMapLock(client, namespace, name, identity);
    case "endpointsleases": return new MultiLock(new EndpointsLock(client, namespace, name, identity), new LeaseLock(client, namespace, name, identity));
    case "configmapsleases": return new MultiLock(new ConfigMapLock(client, namespace, name, identity), new LeaseLock(client, namespace, name, identity));
    default: throw new Error(`Invalid lock-type ${type}`);
  }
}
