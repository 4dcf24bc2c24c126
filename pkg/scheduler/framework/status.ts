// The outcome of a plugin call, as upstream's framework.Status. `null` stands for Success so the
// filter loop over thousands of nodes allocates nothing for a node that fits.

export enum Code {
  Success = 0,
  /** An internal error: the pod is retried with backoff. */
  Error = 1,
  /** The pod does not fit; preemption may help. */
  Unschedulable = 2,
  /** The pod does not fit and preempting pods on this node cannot change that. */
  UnschedulableAndUnresolvable = 3,
  /** A permit plugin asks the binding to wait. */
  Wait = 4,
  /** The plugin does not apply to this pod (a bind plugin passing the pod on). */
  Skip = 5,
}

export class Status {
  /** The plugin that returned this status; the framework sets it. */
  failedPlugin = "";
  readonly reasons: string[];
  constructor(readonly code: Code, ...reasons: string[]) {
    this.reasons = reasons;
  }

  /** The reasons joined as upstream's Status.Message(). */
  message(): string {
    return this.reasons.join(", ");
  }

  isUnschedulable(): boolean {
    return this.code === Code.Unschedulable || this.code === Code.UnschedulableAndUnresolvable;
  }

  withFailedPlugin(name: string): Status {
    this.failedPlugin = name;
    return this;
  }
}

/** A plugin's answer: null is Success. */
export type Result = Status | null;

export const isSuccess = (s: Result): s is null => s === null || s.code === Code.Success;

export const unschedulable = (...reasons: string[]) => new Status(Code.Unschedulable, ...reasons);
export const unresolvable = (...reasons: string[]) => new Status(Code.UnschedulableAndUnresolvable, ...reasons);
export const errorStatus = (err: unknown) => new Status(Code.Error, err instanceof Error ? err.message : String(err));
