// Behind the TLS front: one HTTP listener on a Unix socket per distinct peer (client address and
// certificate). The listener a request arrives on names its peer, so nothing is looked up per request
// (a loopback port → peer map cost a getpeername system call a request), and a Unix socket costs less
// than loopback TCP. A listener lives while connections use it; a few idle ones stay for the next.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Peer } from "./tlsfront.ts";

/** What the front needs of the listeners behind it. */
export interface Upstreams {
  /** The socket path for a connection of this peer; released once when that connection closes. */
  acquire(peer: Peer): string;
  release(path: string): void;
}

/** Idle listeners kept for clients that reconnect; beyond this many the oldest idle one is stopped. */
const IDLE_KEPT = 32;

interface Entry { key: string; path: string; uses: number; server: { stop(closeActive?: boolean): Promise<void> } }

export class PeerListeners implements Upstreams {
  /** A private directory (mode 0700): only this user can connect, as only the front should. */
  private readonly dir = mkdtempSync(join(tmpdir(), "kite-front-"));
  private readonly byKey = new Map<string, Entry>();
  private readonly byPath = new Map<string, Entry>();
  /** Listeners no connection uses, oldest first. */
  private readonly idle = new Set<Entry>();
  private made = 0;

  /** `open` serves every request arriving on the socket at `unix` as the given peer's. */
  constructor(private readonly open: (unix: string, peer: Peer) => Entry["server"]) {}

  acquire(peer: Peer): string {
    const key = `${peer.address ?? ""} ${peer.certificates?.[0]?.raw.toString("base64") ?? ""}`;
    let e = this.byKey.get(key);
    if (!e) {
      const path = join(this.dir, String(this.made++));
      e = { key, path, uses: 0, server: this.open(path, peer) };
      this.byKey.set(key, e);
      this.byPath.set(path, e);
    }
    this.idle.delete(e);
    e.uses++;
    return e.path;
  }

  release(path: string) {
    const e = this.byPath.get(path);
    if (!e || --e.uses > 0) return;
    this.idle.add(e);
    if (this.idle.size <= IDLE_KEPT) return;
    const oldest = this.idle.values().next().value!;
    this.idle.delete(oldest);
    this.byKey.delete(oldest.key);
    this.byPath.delete(oldest.path);
    void oldest.server.stop(false);
  }

  /** Stops every listener (open requests finish) and removes the sockets. */
  async stop() {
    await Promise.all([...this.byKey.values()].map((e) => e.server.stop(false)));
    rmSync(this.dir, { recursive: true, force: true });
  }
}
