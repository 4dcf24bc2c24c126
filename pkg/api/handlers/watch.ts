// A watch: a chunked stream of JSON events, one per line (spec §4.6, §6.1). The registry decides what
// to send; this file streams it, with bookmarks, the timeout, and cut-off of a watcher that can't keep up.
import { parseFieldSelector, parseLabelSelector } from "../../registry/selector.ts";
import { eventLine } from "../../registry/serialized.ts";
import { apiVersionOf } from "../../registry/types.ts";
import { StoreError } from "../../storage/store.ts";
import { StatusError, gone } from "../status.ts";
import { type HandlerContext, contentType } from "./context.ts";
import { represent, representationKey } from "./transform.ts";

export interface WatchSettings { minRequestTimeoutSeconds: number; bookmarkIntervalMs?: number }

/** Bytes a watcher may have queued before it is cut off (a slow client must not grow memory without bound). */
const MAX_QUEUED_BYTES = 4 * 1024 * 1024;
const enc = new TextEncoder();

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

  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      let open = true, lastRV = rv && rv !== "0" ? rv : "", stop = () => {};
      const timers: Timer[] = [];
      const close = () => {
        if (!open) return;
        open = false;
        stop();
        timers.forEach(clearTimeout);
        ctx.signal.removeEventListener("abort", close);
        try { controller.close(); } catch { /* the client went away */ }
      };
      cleanup = close;
      const write = (b: Uint8Array) => {
        if (!open) return false;
        if ((controller.desiredSize ?? 0) < -MAX_QUEUED_BYTES) {
          try { controller.enqueue(enc.encode(JSON.stringify({ type: "ERROR", object: gone("watch was too slow and was cut off: list and watch again").toStatus() }) + "\n")); } catch { /* closed */ }
          close();
          return false;
        }
        try { controller.enqueue(b); return true; } catch { close(); return false; }
      };
      const bookmark = () => {
        if (!bookmarks || !lastRV) return;
        write(enc.encode(JSON.stringify({ type: "BOOKMARK", object: { kind: rs.def.kind, apiVersion: apiVersionOf(rs.def), metadata: { resourceVersion: lastRV } } }) + "\n"));
      };
      ctx.signal.addEventListener("abort", close);
      timers.push(setTimeout(() => { bookmark(); close(); }, timeoutMs));
      if (bookmarks) {
        const every = settings.bookmarkIntervalMs ?? 60_000;
        timers.push(setInterval(() => { rs.watchCache()?.progress(); bookmark(); }, every) as unknown as Timer);
      }
      try {
        stop = await rs.watch(info.namespace, rv, label, field, {
          event: (type, obj) => { lastRV = obj.metadata.resourceVersion; return write(eventLine(type, obj, repKey, convert)); },
          progress: (r) => { if (!lastRV || Number(lastRV) < r) lastRV = String(r); },
          fail: (e) => {
            const st = e instanceof StatusError ? e : gone(e instanceof StoreError && e.code === "Compacted" ? `too old resource version: ${rv}` : e.message);
            write(enc.encode(JSON.stringify({ type: "ERROR", object: st.toStatus() }) + "\n"));
            close();
          },
        });
        if (!lastRV) lastRV = String(rs.watchCache()?.rev ?? (await rs.store.currentRevision()));
        if (!open) stop();
      } catch (e) {
        const st = e instanceof StatusError ? e : null;
        if (!st) throw e;
        write(enc.encode(JSON.stringify({ type: "ERROR", object: (st.code === 410 ? gone(`too old resource version: ${rv}`) : st).toStatus() }) + "\n"));
        close();
      }
    },
    cancel() { cleanup(); },
  }, { highWaterMark: 64 * 1024, size: (c) => c?.byteLength ?? 0 });

  return new Response(stream, { headers: { "Content-Type": contentType(ctx), "Cache-Control": "no-cache, private" } });
}
