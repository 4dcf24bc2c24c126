// A pod's volumes on this node, laid out as the kubelet lays them out:
// ROOT/pods/<uid>/volumes/kubernetes.io~<plugin>/<name>. setUp() prepares every volume (retried by the
// caller until it holds); sync() rewrites the files of configMap, secret, downwardAPI and projected
// volumes from the objects now (their contents follow the API within a sync period); tearDown() unmounts
// and removes them when the pod is gone.
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Obj } from "../node.ts";
import { writeAtomically, type Payload } from "./atomic.ts";
import { claimedVolume } from "./claims.ts";
import type { Allocatable } from "./downward.ts";
import { checkHostPath } from "./hostpath.ts";
import type { PodObjects } from "./objects.ts";
import { configMapPayload, downwardAPIPayload, projectedPayload, secretPayload, type PayloadContext } from "./payloads.ts";
import { setupDir, setupTmpfs, unmountUnder } from "./tmpfs.ts";

/** A volume ready for containers: where it is on the host and whether it is read-only whatever the mount says. */
export interface PreparedVolume { path: string; readOnly: boolean }

export interface VolumeContext {
  rootDir: string;
  objects: PodObjects;
  allocatable: () => Allocatable;
}

/** The volumes whose files are written from API objects: their plugin folder, payload and medium. */
const PROJECTIONS: Record<string, { plugin: string; payload: (v: Obj, c: PayloadContext) => Promise<Payload>; memory: boolean }> = {
  configMap: { plugin: "kubernetes.io~configmap", payload: configMapPayload, memory: false },
  secret: { plugin: "kubernetes.io~secret", payload: secretPayload, memory: true },
  downwardAPI: { plugin: "kubernetes.io~downward-api", payload: downwardAPIPayload, memory: false },
  projected: { plugin: "kubernetes.io~projected", payload: projectedPayload, memory: true },
};

const projectionOf = (v: Obj) => Object.keys(PROJECTIONS).find((k) => v[k]);

/** upstream's wording of a volume that failed to set up. */
const setUpFailed = (name: string, e: unknown) => new Error(`MountVolume.SetUp failed for volume "${name}" : ${(e as Error).message}`);

export function volumesDir(rootDir: string, podUid: string): string {
  return join(rootDir, "pods", podUid, "volumes");
}

export class PodVolumes {
  /** Volumes set up so far, by name. */
  readonly prepared = new Map<string, PreparedVolume>();
  private tornDown?: Promise<void>;

  constructor(private readonly pod: () => Obj, private readonly ctx: VolumeContext) {}

  private get dir(): string { return volumesDir(this.ctx.rootDir, this.pod().metadata.uid); }

  /** True when some volume's files follow API objects or the pod's metadata (sync() has work). */
  get syncs(): boolean { return (this.pod().spec.volumes ?? []).some((v: Obj) => projectionOf(v)); }

  /** Prepares every volume not prepared yet; throws the first failure in upstream's words. */
  async setUp(): Promise<void> {
    for (const v of this.pod().spec.volumes ?? []) {
      if (!this.prepared.has(v.name)) this.prepared.set(v.name, await this.setUpOne(v));
    }
  }

  /** Rewrites the projected volumes' files from the objects now (unchanged files are left alone). */
  async sync(): Promise<void> {
    for (const v of this.pod().spec.volumes ?? []) {
      const kind = projectionOf(v);
      if (kind && this.prepared.has(v.name)) await this.project(v, kind, false);
    }
  }

  private async project(v: Obj, kind: string, first: boolean): Promise<string> {
    const p = PROJECTIONS[kind], dir = join(this.dir, p.plugin, v.name);
    try {
      const payload = await p.payload(v[kind], { pod: this.pod(), objects: this.ctx.objects, allocatable: this.ctx.allocatable });
      if (first && p.memory) await setupTmpfs(dir);
      else if (first) await setupDir(dir);
      writeAtomically(dir, payload);
    } catch (e) {
      throw setUpFailed(v.name, e);
    }
    return dir;
  }

  private async setUpOne(v: Obj): Promise<PreparedVolume> {
    const kind = projectionOf(v);
    if (kind) return { path: await this.project(v, kind, true), readOnly: true };
    if (v.emptyDir) {
      const dir = join(this.dir, "kubernetes.io~empty-dir", v.name);
      try {
        if (v.emptyDir.medium === "Memory") await setupTmpfs(dir, v.emptyDir.sizeLimit);
        else await setupDir(dir);
      } catch (e) { throw setUpFailed(v.name, e); }
      return { path: dir, readOnly: false };
    }
    if (v.hostPath) {
      try { checkHostPath(v.hostPath.path, v.hostPath.type); } catch (e) { throw setUpFailed(v.name, e); }
      return { path: v.hostPath.path, readOnly: false };
    }
    if (v.persistentVolumeClaim) {
      const c = await claimedVolume(this.pod().metadata.namespace, v.persistentVolumeClaim, this.ctx.objects);
      try {
        if (c.hostPathType !== undefined) checkHostPath(c.path, c.hostPathType);
        else if (!existsSync(c.path)) throw new Error(`mount failed: stat ${c.path}: no such file or directory`);
      } catch (e) { throw setUpFailed(c.pvName, e); }
      return { path: c.path, readOnly: c.readOnly };
    }
    const kinds = Object.keys(v).filter((k) => k !== "name").join(", ");
    throw new Error(`failed to get Plugin from volumeSpec for volume "${v.name}" err=no volume plugin matched: this node sets up emptyDir, hostPath, configMap, secret, downwardAPI, projected and persistentVolumeClaim volumes, not ${kinds}`);
  }

  /** Unmounts and removes the pod's volume folders (a hostPath's or a PV's own folder is never touched). */
  tearDown(): Promise<void> {
    // one teardown however many stops ask for it (a deletion and a stopping agent may both)
    this.tornDown ??= (async () => {
      this.ctx.objects.forget(this.pod().metadata.uid);
      await unmountUnder(this.dir);
      rmSync(this.dir, { recursive: true, force: true });
      this.prepared.clear();
    })();
    return this.tornDown;
  }
}
