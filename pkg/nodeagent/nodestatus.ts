// Registration and the node's status: create the Node (or adopt the one that exists), then every
// --node-status-update-frequency compute the status and PATCH it when it changed or when the last report
// is nodeStatusReportFrequency old (5 minutes unless --config says; with Leases, status is not the heartbeat).
import { consola } from "consola";
import { isAlreadyExists, isNotFound, type Client } from "../client/client.ts";
import { sleep } from "../client/ratelimit.ts";
import { RESOURCES } from "../client/resources.ts";
import { conditionEvents, type RecordEvent } from "./events.ts";
import { filesystemBytes, type HostInfo } from "./host.ts";
import { initialNode, nodeStatus, sameConditions, sameStatus, type NodeFacts, type Obj } from "./node.ts";
import type { NodeAgentOptions } from "./options.ts";

/** Upstream's wait between failed registration attempts grows from 100 ms to 7 s. */
const REGISTER_MAX_DELAY_MS = 7000;

export class NodeStatusReporter {
  /** The status last written, and when. */
  private reported?: Obj;
  private reportedAt = 0;
  /** The registered Node's uid, once known (the Lease's owner reference needs it). */
  uid?: string;
  /** Said in the Ready condition's message from the next report on. */
  readonly readyNotes: string[] = [];

  constructor(
    private readonly client: Client, private readonly o: NodeAgentOptions, private readonly host: HostInfo, private readonly nodeIP: string,
    private readonly kubeletPort: number, private readonly pressure: () => Set<string> = () => new Set(),
    private readonly record: RecordEvent = () => {},
  ) {}

  /** As upstream's condition setters: an event for each condition that is new or changed status. */
  private recordChanges(before: Obj[] | undefined, after: Obj[]): void {
    for (const reason of conditionEvents(before, after)) this.record("Normal", reason, `Node ${this.o.nodeName} status is now: ${reason}`);
  }

  facts(): NodeFacts {
    return { host: this.host, nodeIP: this.nodeIP, kubeletPort: this.kubeletPort, ephemeralStorageBytes: filesystemBytes(this.o.rootDir), pressure: this.pressure(), readyNotes: this.readyNotes };
  }

  /** Creates the Node, retrying until the API server takes it (or finds the one that exists). */
  async register(signal: AbortSignal): Promise<void> {
    let delay = 100;
    while (!signal.aborted) {
      try {
        const node = initialNode(this.o, this.facts(), new Date());
        try {
          const created = await this.client.create(RESOURCES.nodes, node, { signal });
          this.uid = created.metadata.uid;
          this.reported = node.status;
          this.reportedAt = Date.now();
          this.recordChanges(undefined, node.status.conditions);
          consola.info(`Successfully registered node ${this.o.nodeName}`);
        } catch (e) {
          if (!isAlreadyExists(e)) throw e;
          const existing = await this.client.get(RESOURCES.nodes, this.o.nodeName, { signal });
          this.uid = existing.metadata.uid;
          consola.info(`Node ${this.o.nodeName} was previously registered`);
          await this.update();
        }
        return;
      } catch (e) {
        if (signal.aborted) return;
        consola.warn(`Unable to register node "${this.o.nodeName}" with API server: ${(e as Error).message}`);
        await sleep(delay, signal).catch(() => {});
        delay = Math.min(delay * 2, REGISTER_MAX_DELAY_MS);
      }
    }
  }

  /** One status round: PATCHes status/ when it changed or the report is due. */
  async update(): Promise<void> {
    // as upstream's kubelet, against the Node as the server has it: another writer (the node lifecycle
    // controller marking it Unknown) is corrected at the next round, not at the next report
    const current = (await this.client.get(RESOURCES.nodes, this.o.nodeName)).status ?? {};
    const status = nodeStatus(this.o, this.facts(), current, new Date());
    const changed = !sameConditions(current.conditions, status.conditions) || !sameStatus(this.reported, status);
    if (!changed && Date.now() - this.reportedAt < this.o.nodeStatusReportFrequencyMs) return;
    const node = await this.client.patch(RESOURCES.nodes, this.o.nodeName, { status }, "merge", { subresource: "status" });
    this.recordChanges(current.conditions, status.conditions);
    this.uid = node.metadata.uid;
    this.reported = status;
    this.reportedAt = Date.now();
  }

  /** Status rounds until the signal aborts; failures are logged and retried on the next round. */
  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      try {
        await sleep(this.o.nodeStatusUpdateFrequencyMs, signal);
      } catch { return; }
      try {
        await this.update();
      } catch (e) {
        if (signal.aborted) return;
        consola.warn(`Error updating node status, will retry: ${isNotFound(e) ? `nodes "${this.o.nodeName}" not found` : (e as Error).message}`);
      }
    }
  }
}
