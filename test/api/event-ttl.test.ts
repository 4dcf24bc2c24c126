// --event-ttl: Events are removed once unwritten for the TTL (here 2 s); a write starts the time again.
import { describe, expect, test } from "bun:test";
import type { TestServer } from "../helpers/server.ts";
import { expectCode, until, useServer } from "./fixtures.ts";

const NS = "event-ttl";
let s: TestServer;
useServer(NS, (started) => (s = started), ["--event-ttl=2s"]);

const event = (name: string) => ({
  apiVersion: "v1", kind: "Event", metadata: { name, namespace: NS },
  involvedObject: { kind: "Pod", namespace: NS, name: "p" }, reason: "Tested", message: "m", type: "Normal",
});

describe("--event-ttl", () => {
  test("an Event expires after the TTL; an Event written again lives on; other kinds stay", async () => {
    const EV = `/api/v1/namespaces/${NS}/events`;
    expectCode(await s.call("POST", EV, event("old")), 201, "create old");
    expectCode(await s.call("POST", EV, event("kept")), 201, "create kept");
    expectCode(await s.call("POST", `/api/v1/namespaces/${NS}/configmaps`, { metadata: { name: "stays" } }), 201, "create a configmap");
    const t0 = Date.now();
    // "kept" is written every half second, so it is never unwritten for 2 s
    const touch = setInterval(() => void s.call("PATCH", `${EV}/kept`, { message: `m${Date.now()}` }, { "Content-Type": "application/merge-patch+json" }), 500);
    try {
      await until(async () => (await s.call("GET", `${EV}/old`)).status === 404, "old expired", 15_000, 200);
      expect(Date.now() - t0).toBeGreaterThanOrEqual(1_900);
      await Bun.sleep(1_500);
      expectCode(await s.call("GET", `${EV}/kept`), 200, "the Event written again");
    } finally {
      clearInterval(touch);
    }
    expectCode(await s.call("GET", `/api/v1/namespaces/${NS}/configmaps/stays`), 200, "the configmap");
    // the events.k8s.io view of the same objects goes with them
    await until(async () => (await s.call("GET", `/apis/events.k8s.io/v1/namespaces/${NS}/events/kept`)).status === 404, "kept expired once left alone", 15_000, 200);
  });
});
