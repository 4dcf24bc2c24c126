// A watch: a chunked stream of JSON events, one per line, started per spec §4.6.
import type { WatchEvent } from "../../storage/store.ts";
import { parseFieldSelector, parseLabelSelector } from "../../registry/selector.ts";
import { parseRV } from "../../registry/generic.ts";
import type { Obj } from "../../registry/types.ts";
import { apiVersionOf } from "../../registry/types.ts";
import { StatusError, gone } from "../status.ts";
import type { HandlerContext } from "./context.ts";

export interface WatchSettings { minRequestTimeoutSeconds: number }

const BOOKMARK_EVERY_MS = 60_000;

export function watch(ctx: HandlerContext, settings: WatchSettings): Response {
  const { url, info, rs } = ctx;
  const p = url.searchParams;
  const label = parseLabelSelector(p.get("labelSelector"));
  let fieldSel = p.get("fieldSelector") ?? "";
  if (info.name) fieldSel = [fieldSel, `metadata.name=${info.name}`].filter(Boolean).join(",");
  const field = parseFieldSelector(fieldSel, rs.supportedFieldLabels).match;
  const rvParam = p.get("resourceVersion") ?? "";
  const startRV = parseRV(rvParam);
  const bookmarks = p.get("allowWatchBookmarks") === "true";
  const timeoutParam = p.get("timeoutSeconds");
  const min = settings.minRequestTimeoutSeconds;
  const timeoutMs = (timeoutParam ? Number(timeoutParam) : min * (1 + Math.random())) * 1000;
  const enc = new TextEncoder();
  const matches = (o: Obj) => rs.matches(o, label, field);
  let lastRV = startRV;

  let cleanup = () => {};
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      let open = true;
      const send = (type: string, object: unknown) => {
        if (!open) return;
        try { controller.enqueue(enc.encode(JSON.stringify({ type, object }) + "\n")); } catch { close(); }
      };
      const bookmark = () => send("BOOKMARK", { kind: rs.def.kind, apiVersion: apiVersionOf(rs.def), metadata: { resourceVersion: String(lastRV) } });
      const timers: Timer[] = [];
      let unwatch = () => {};
      const close = () => {
        if (!open) return;
        open = false;
        unwatch();
        timers.forEach(clearTimeout);
        try { controller.close(); } catch { /* already closed by the client */ }
      };
      cleanup = close;
      ctx.signal.addEventListener("abort", close);
      timers.push(setTimeout(() => { if (bookmarks) bookmark(); close(); }, timeoutMs));
      if (bookmarks) timers.push(setInterval(bookmark, BOOKMARK_EVERY_MS) as unknown as Timer);
      try {
        let after = startRV;
        if (rvParam === "" || rvParam === "0") {
          // Get State and Start: synthetic ADDED for the current state at one revision, then changes after it.
          const list = await rs.list(info.namespace, { labelSelector: label, fieldSelector: field });
          after = Number(list.metadata.resourceVersion);
          for (const item of list.items) send("ADDED", item);
          lastRV = after;
        }
        const w = await rs.store.watch(rs.collectionPrefix(info.namespace), after, (ev: WatchEvent) => {
          const t = translate(ev);
          if (t) { lastRV = ev.kv.modRevision; send(t.type, t.object); }
        });
        unwatch = () => w.close();
        if (!open) unwatch();
      } catch (e) {
        const err = e instanceof StatusError ? e : (e as any)?.code === "Compacted" ? gone(`too old resource version: ${startRV}`) : null;
        if (err) send("ERROR", err.toStatus());
        close();
      }
    },
    cancel() { cleanup(); },
  });

  /** Maps a store event onto what this watcher sees: objects leaving the selection are DELETED, entering ADDED. */
  function translate(ev: WatchEvent): { type: string; object: Obj } | null {
    const obj = rs.decode(ev.kv);
    if (ev.type === "DELETE") return matches(obj) ? { type: "DELETED", object: obj } : null;
    const now = matches(obj);
    const before = ev.prev ? matches(rs.decode(ev.prev)) : false;
    if (now && (ev.created || !before)) return { type: "ADDED", object: obj };
    if (now) return { type: "MODIFIED", object: obj };
    if (before) return { type: "DELETED", object: obj };
    return null;
  }

  return new Response(stream, { headers: { "Content-Type": "application/json", "Cache-Control": "no-cache, private" } });
}
