// A watch: a chunked stream of JSON events, one per line (spec §4.6, §6.1). The registry decides what
// to send; this file streams it, with bookmarks, the timeout, and the ERROR event that ends a watch which
// can't go on (a watcher that can't keep up, an event this representation can't carry). outbox.ts
// carries the bytes to the socket.
import { parseLabelSelector } from "../../registry/selector.ts";
import { nameSelector } from "../../util/fieldselector.ts";
import { eventFrame, eventLine } from "../../registry/serialized.ts";
import { encodeWatchEvent } from "../../protobuf/index.ts";
import { apiVersionOf } from "../../registry/types.ts";
import { StoreError } from "../../storage/store.ts";
import { boolParam, parseInt64 } from "../queryparams.ts";
import { StatusError, gone, internal } from "../status.ts";
import { type HandlerContext, contentType } from "./context.ts";
import { Outbox } from "./outbox.ts";
import { represent, representationKey } from "./transform.ts";

export interface WatchSettings { minRequestTimeoutSeconds: number; bookmarkIntervalMs?: number }

/** The longest timer (2^31-1 ms, about 24.8 days): a longer one would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const enc = new TextEncoder();
const NEWLINE = enc.encode("\n");

/**
 * How long the watch stays open. `timeoutSeconds` is an int64 as upstream parses it (anything else is
 * 400); unset or 0 is the server's minimum randomized up to twice it, a negative one ends the watch at
 * once (a negative timer in Go fires at once), and one past the longest timer is clamped to it.
 */
export function watchTimeoutMs(param: string | null, minRequestTimeoutSeconds: number): number {
  const random = () => Math.min(minRequestTimeoutSeconds * (1 + Math.random()) * 1000, MAX_TIMER_MS);
  if (param === null) return random();
  const n = parseInt64(param);
  if (n === 0n) return random();
  return n < 0n ? 0 : Math.min(Number(n) * 1000, MAX_TIMER_MS);
}

export function watch(ctx: HandlerContext, settings: WatchSettings): Response {
  const { url, info, rs } = ctx;
  const p = url.searchParams;
  const label = parseLabelSelector(p.get("labelSelector"));
  let fieldSel = p.get("fieldSelector") ?? "";
  if (info.name) fieldSel = [fieldSel, nameSelector(info.name)].filter(Boolean).join(",");
  const field = rs.fieldSelector(fieldSel);
  const rv = p.get("resourceVersion") ?? "";
  const bookmarks = boolParam(p, "allowWatchBookmarks") ?? false;
  const timeoutMs = watchTimeoutMs(p.get("timeoutSeconds"), settings.minRequestTimeoutSeconds);
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
    const out = new Outbox(controller, {
      overflow: () => end(status(gone("watch was too slow and was cut off: list and watch again"))),
      finished: () => finish(),
    });
    /** Ends the watch: what is queued goes out (dropped if the client is behind), then `last`. */
    const end = (last?: Uint8Array, patient = true) => {
      if (!open) return;
      open = false;
      stop();
      timers.forEach(clearTimeout);
      ctx.signal.removeEventListener("abort", shutdown);
      out.end(last, patient);
    };
    const shutdown = () => end(undefined, false);
    cleanup = () => { end(); out.gone(); };
    /** An ERROR event; if even a Status cannot be encoded, the watch ends without one. */
    const status = (e: StatusError) => { try { return control("ERROR", e.toStatus()); } catch { return undefined; } };
    let sentAny = false;
    const write = (b: Uint8Array) => {
      if (!open) return false;
      sentAny = true;
      return out.push(b) && open;
    };
    const bookmark = () => {
      if (!bookmarks || !lastRV) return;
      write(control("BOOKMARK", { kind: rs.def.kind, apiVersion: apiVersionOf(rs.def), metadata: { resourceVersion: lastRV } }));
    };
    ctx.signal.addEventListener("abort", shutdown);
    // Bun commits the response headers with the first bytes; a JSON stream may begin with a newline
    // (every JSON watch decoder skips it), so clients see the 200 at once even on a quiet collection.
    if (!binary) write(NEWLINE);
    // The closing bookmark carries how far the cache has got, as the periodic ones do: a client whose
    // selection saw nothing still resumes from a current version (an informer's watch stays in the window).
    timers.push(setTimeout(() => { if (bookmarks) rs.watchCache()?.progress(); bookmark(); end(); }, timeoutMs));
    if (bookmarks) {
      const every = settings.bookmarkIntervalMs ?? 60_000;
      timers.push(setInterval(() => { rs.watchCache()?.progress(); bookmark(); }, every) as unknown as Timer);
    }
    try {
      stop = await rs.watch(info.namespace, rv, label, field, {
        event: (type, obj) => {
          let b: Uint8Array;
          // An object this representation cannot carry ends this watch only, with the reason.
          try { b = frame(type, obj); } catch (e) {
            end(status(internal(`unable to encode watch event: ${(e as Error)?.message ?? e}`)));
            return false;
          }
          lastRV = obj.metadata.resourceVersion;
          return write(b);
        },
        progress: (r) => { if (!lastRV || Number(lastRV) < r) lastRV = String(r); },
        fail: (e) => {
          const st = e instanceof StatusError ? e
            : e instanceof StoreError ? gone(e.code === "Compacted" ? `too old resource version: ${rv}` : e.message)
            : internal((e as Error)?.message ?? String(e));
          end(status(st));
        },
      });
      if (!lastRV) lastRV = String(rs.watchCache()?.rev ?? (await rs.store.currentRevision()));
      // A binary stream has no harmless filler byte; a client that allows bookmarks gets one at once,
      // which also commits the response headers.
      if (binary && !sentAny) bookmark();
      if (!open) stop();
    } catch (e) {
      const st = e instanceof StatusError ? (e.code === 410 ? gone(`too old resource version: ${rv}`) : e) : internal((e as Error)?.message ?? String(e));
      end(status(st));
    }
    return finished;
  }

  const type = binary ? `${contentType(ctx)};stream=watch` : contentType(ctx);
  return new Response(stream, { headers: { "Content-Type": type, "Cache-Control": "no-cache, private" } });
}
