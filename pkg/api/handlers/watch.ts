// A watch: a chunked stream of JSON events, one per line (spec §4.6, §6.1). The registry decides what
// to send; this file streams it, with bookmarks, the timeout, and cut-off of a watcher that can't keep up.
import { parseFieldSelector, parseLabelSelector } from "../../registry/selector.ts";
import { eventFrame, eventLine } from "../../registry/serialized.ts";
import { encodeWatchEvent } from "../../protobuf/index.ts";
import { apiVersionOf } from "../../registry/types.ts";
import { StoreError } from "../../storage/store.ts";
import { StatusError, gone } from "../status.ts";
import { type HandlerContext, contentType } from "./context.ts";
import { flusher, joined } from "./flusher.ts";
import { represent, representationKey } from "./transform.ts";

export interface WatchSettings { minRequestTimeoutSeconds: number; bookmarkIntervalMs?: number }

/** Bytes a watcher may have queued before it is cut off (a slow client must not grow memory without bound). */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;
const enc = new TextEncoder();
const NEWLINE = enc.encode("\n");

export function watch(ctx: HandlerContext, settings: WatchSettings): Response {
  const { url, info, rs } = ctx;
  const p = url.searchParams;
  const label = parseLabelSelector(p.get("labelSelector"));
  let fieldSel = p.get("fieldSelector") ?? "";
  if (info.name) fieldSel = [fieldSel, `metadata.name=${info.name}`].filter(Boolean).join(",");
  const field = parseFieldSelector(fieldSel, rs.supportedFieldLabels).match;
  const rv = p.get("resourceVersion") ?? "";
  const bookmarks = p.get("allowWatchBookmarks") === "true";
  const timeoutParam = p.get("timeoutSeconds");
  const min = settings.minRequestTimeoutSeconds;
  const timeoutMs = (timeoutParam && Number(timeoutParam) > 0 ? Number(timeoutParam) : min * (1 + Math.random())) * 1000;
  let cleanup = () => {};
  const repKey = representationKey(ctx);
  const convert = repKey ? (o: object) => represent(ctx, o as Record<string, any>) : undefined;
  const binary = ctx.rep.format === "protobuf";
  /** Events in the negotiated form; ERROR and BOOKMARK events are rare and built per watcher. */
  const frame = (type: string, obj: Record<string, any>) => (binary ? eventFrame(type, obj) : eventLine(type, obj, repKey, convert));
  const control = (type: string, obj: Record<string, any>) => (binary ? encodeWatchEvent(type, obj) : enc.encode(JSON.stringify({ type, object: obj }) + "\n"));

  // A direct stream: each flush is one write into the response's socket, no stream queue in between.
  let started = false;
  const stream = new ReadableStream({
    type: "direct",
    pull(controller) {
      if (started) return;
      started = true;
      return run(controller);
    },
    cancel() { cleanup(); },
  });

  async function run(controller: ReadableStreamDirectController): Promise<void> {
    let finish!: () => void;
    const finished = new Promise<void>((r) => (finish = r));
    let open = true, lastRV = rv && rv !== "0" ? rv : "", stop = () => {};
    const timers: Timer[] = [];
    const close = () => {
      if (!open) return;
      flush(); // what was written before the close still goes out
      open = false;
      stop();
      timers.forEach(clearTimeout);
      ctx.signal.removeEventListener("abort", close);
      try { controller.close(); } catch { /* the client went away */ }
      finish();
    };
    cleanup = close;
    // Bytes written while the client was not reading (the socket's buffer is full).
    let backlog = -1;
    let sentAny = false;
    // Events written between two shared flushes leave as one chunk (one TLS record, one syscall).
    let pending: Uint8Array[] = [];
    let pendingBytes = 0;
    const flush = () => {
      if (!open || pending.length === 0) return;
      if (backlog >= 0 && (backlog += pendingBytes) > MAX_QUEUED_BYTES) {
        pending = [];
        controller.write(control("ERROR", gone("watch was too slow and was cut off: list and watch again").toStatus()));
        close();
        return;
      }
      const chunk = joined(pending, pendingBytes);
      pending = [];
      pendingBytes = 0;
      const r = controller.write(chunk);
      if (r instanceof Promise) {
        if (backlog < 0) { backlog = 0; r.then(() => { backlog = -1; }, close); }
      } else controller.flush();
    };
    const write = (b: Uint8Array) => {
      if (!open) return false;
      sentAny = true;
      if (pending.length === 0) flusher.mark(flush);
      pending.push(b);
      pendingBytes += b.length;
      return true;
    };
    const bookmark = () => {
      if (!bookmarks || !lastRV) return;
      write(control("BOOKMARK", { kind: rs.def.kind, apiVersion: apiVersionOf(rs.def), metadata: { resourceVersion: lastRV } }));
    };
    ctx.signal.addEventListener("abort", close);
    // Bun commits the response headers with the first bytes; a JSON stream may begin with a newline
    // (every JSON watch decoder skips it), so clients see the 200 at once even on a quiet collection.
    if (!binary) write(NEWLINE);
    timers.push(setTimeout(() => { bookmark(); close(); }, timeoutMs));
    if (bookmarks) {
      const every = settings.bookmarkIntervalMs ?? 60_000;
      timers.push(setInterval(() => { rs.watchCache()?.progress(); bookmark(); }, every) as unknown as Timer);
    }
    try {
      stop = await rs.watch(info.namespace, rv, label, field, {
        event: (type, obj) => { lastRV = obj.metadata.resourceVersion; return write(frame(type, obj)); },
        progress: (r) => { if (!lastRV || Number(lastRV) < r) lastRV = String(r); },
        fail: (e) => {
          const st = e instanceof StatusError ? e : gone(e instanceof StoreError && e.code === "Compacted" ? `too old resource version: ${rv}` : e.message);
          write(control("ERROR", st.toStatus()));
          close();
        },
      });
      if (!lastRV) lastRV = String(rs.watchCache()?.rev ?? (await rs.store.currentRevision()));
      // A binary stream has no harmless filler byte; a client that allows bookmarks gets one at once,
      // which also commits the response headers.
      if (binary && !sentAny) bookmark();
      if (!open) stop();
    } catch (e) {
      const st = e instanceof StatusError ? e : null;
      if (!st) { close(); throw e; }
      write(control("ERROR", (st.code === 410 ? gone(`too old resource version: ${rv}`) : st).toStatus()));
      close();
    }
    return finished;
  }

  const type = binary ? `${contentType(ctx)};stream=watch` : contentType(ctx);
  return new Response(stream, { headers: { "Content-Type": type, "Cache-Control": "no-cache, private" } });
}
