// Data plugins share within one scheduling cycle of one pod (upstream's framework.CycleState).
// Preemption clones it to try a node with victims removed, so each entry knows how to copy itself.

export interface StateData {
  clone(): StateData;
}

export class CycleState {
  // A plain object rather than a Map: plugins write the same keys in the same order every cycle,
  // so reads in the per-node filters hit the engine's inline caches.
  private data: Record<string, StateData | undefined> = {};

  read<T extends StateData>(key: string): T | undefined {
    return this.data[key] as T | undefined;
  }

  write(key: string, value: StateData): void {
    this.data[key] = value;
  }

  delete(key: string): void {
    this.data[key] = undefined;
  }

  clone(): CycleState {
    const c = new CycleState();
    for (const k in this.data) {
      const v = this.data[k];
      if (v !== undefined) c.data[k] = v.clone();
    }
    return c;
  }
}
