// Callers waiting for a revision to be reached (the watch cache, etcd's shared watch): each resolves
// true once `reached` passes its revision, or false after its timeout.
export class RevisionWaiters {
  private list: { rev: number; done: (ok: boolean) => void }[] = [];

  wait(rev: number, timeoutMs: number): Promise<boolean> {
    return new Promise((resolve) => {
      const w = { rev, done: (ok: boolean) => { clearTimeout(t); resolve(ok); } };
      const t = setTimeout(() => { this.list = this.list.filter((x) => x !== w); resolve(false); }, timeoutMs);
      this.list.push(w);
    });
  }

  /** Resolves every waiter at or below rev. */
  reached(rev: number) {
    if (!this.list.some((w) => w.rev <= rev)) return;
    const due = this.list.filter((w) => w.rev <= rev);
    this.list = this.list.filter((w) => w.rev > rev);
    due.forEach((w) => w.done(true));
  }

  /** Resolves every waiter (false): nothing will be reached any more. */
  cancel() {
    const all = this.list;
    this.list = [];
    all.forEach((w) => w.done(false));
  }
}
