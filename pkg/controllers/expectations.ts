// Upstream's ControllerExpectations (with UID tracking of deletions): a controller that has just asked
// for N creations or deletions does not act again for that object until its informer has seen them
// (or 5 minutes pass), so it never creates twice while the cache catches up.

const TTL_MS = 5 * 60_000;

interface Expectation { add: number; del: number; at: number; deleting: Set<string> }

export class Expectations {
  private readonly items = new Map<string, Expectation>();

  /** True when the controller of `key` may act: nothing pending, expired, or never recorded. */
  satisfied(key: string): boolean {
    const e = this.items.get(key);
    if (!e) return true;
    return (e.add <= 0 && e.del <= 0) || Date.now() - e.at > TTL_MS;
  }

  /** Expects `creations` creations and the deletion of these pods (by `namespace/name`), each deletion counted once when observed. */
  expect(key: string, creations: number, podKeys: string[]): void {
    this.items.set(key, { add: creations, del: podKeys.length, at: Date.now(), deleting: new Set(podKeys) });
  }

  expectCreations(key: string, n: number): void { this.expect(key, n, []); }

  expectDeletions(key: string, podKeys: string[]): void { this.expect(key, 0, podKeys); }

  creationObserved(key: string): void {
    const e = this.items.get(key);
    if (e) e.add--;
  }

  deletionObserved(key: string, podKey: string): void {
    const e = this.items.get(key);
    if (e?.deleting.delete(podKey)) e.del--;
  }

  forget(key: string): void { this.items.delete(key); }
}
