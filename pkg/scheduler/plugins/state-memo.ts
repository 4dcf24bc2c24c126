// A plugin's cycle data, written to the CycleState and kept at hand: Filter and Score run once per
// node on the same CycleState, and a keyed read of it per node showed up as a tenth of a cycle.
// Reads of any other CycleState (preemption's and nominated pods' clones) go to the state itself.
import type { CycleState, StateData } from "../framework/index.ts";

export class StateMemo<T extends StateData> {
  private state: CycleState | null = null;
  private data: T | null = null;

  constructor(readonly key: string) {}

  write(state: CycleState, data: T): void {
    state.write(this.key, data);
    this.state = state;
    this.data = data;
  }

  /** The data written to this state; throws (an internal error) when there is none. */
  read(state: CycleState): T {
    if (state === this.state) return this.data!;
    const d = state.read<T>(this.key);
    if (!d) throw new Error(`error reading "${this.key}" from cycleState: not found`);
    return d;
  }
}
