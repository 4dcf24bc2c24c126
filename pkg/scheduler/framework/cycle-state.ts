// Data plugins share within one scheduling cycle of one pod (upstream's framework.CycleState).
// Preemption clones it to try a node with victims removed, so each entry knows how to copy itself.

export interface StateData {
  clone(): StateData;
}

export class CycleState {
  private readonly data = new Map<string, StateData>();

  read<T extends StateData>(key: string): T | undefined {
    return this.data.get(key) as T | undefined;
  }

  write(key: string, value: StateData): void {
    this.data.set(key, value);
  }

  delete(key: string): void {
    this.data.delete(key);
  }

  clone(): CycleState {
    const c = new CycleState();
    for (const [k, v] of this.data) c.data.set(k, v.clone());
    return c;
  }
}
