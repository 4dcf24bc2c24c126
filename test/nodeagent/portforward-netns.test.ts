// port-forward into a pod's own network namespace (run as root, inside a network namespace this test
// makes: test/helpers/netns.ts): the agent reaches the pod's localhost through its relay, with kubectl
// over SPDY and over the WebSocket tunnel, a few MB intact, and upstream's error for a closed port.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { IN_OWN_NETNS, ownNetnsSkipReason, runInOwnNetns } from "../helpers/netns.ts";
import { echoContainer, STREAM_KUBECTLS, type StreamCluster, portForward, roundTrip, runningPod, sha, startStreamCluster, versionOf } from "../helpers/streams.ts";

if (!IN_OWN_NETNS) {
  const why = ownNetnsSkipReason();
  test.skipIf(why !== undefined)(`port-forward into pods' own networks, inside a network namespace of the test's own${why ? ` (skipped: ${why})` : ""}`, async () => {
    const r = await runInOwnNetns(import.meta.path);
    if (r.code !== 0) console.error(r.output);
    expect(r.code).toBe(0);
  }, 150_000);
} else {
  tests();
}

function tests() {
  const NS = "default", PORT = 8080;
  let c: StreamCluster;
  beforeAll(async () => {
    c = await startStreamCluster(["--pod-network=bridge", "--pod-cidr=10.98.0.0/24"]);
    // the echo server listens on the pod's own loopback only
    await runningPod(c, NS, "echo", { containers: [echoContainer(PORT)] });
  });
  afterAll(async () => {
    await c?.agent.stop();
    await c?.s.stop();
  });

  for (const bin of [STREAM_KUBECTLS[0], STREAM_KUBECTLS.at(-1)!]) {
    test(`kubectl ${versionOf(bin)}: through the pod's namespace, and a closed port's error`, async () => {
      const { local, k } = await portForward(c.s, bin, NS, "pod/echo", PORT);
      try {
        const big = Buffer.alloc(3 * 1024 * 1024, 7);
        big.write("the start");
        const [small, back] = await Promise.all([roundTrip(local, Buffer.from("hello")), roundTrip(local, big)]);
        expect(String(small)).toBe("hello");
        expect(sha(back)).toBe(sha(big));
      } finally {
        await k.stop();
      }
      const closed = await portForward(c.s, bin, NS, "pod/echo", PORT + 1);
      try {
        expect((await roundTrip(closed.local, Buffer.from("x"))).length).toBe(0);
        await closed.k.waitFor(new RegExp(`failed to connect to localhost:${PORT + 1} inside namespace \\\\?"[0-9a-f-]+\\\\?", IPv4: dial tcp4 127.0.0.1:${PORT + 1}: connect: connection refused IPv6 dial tcp6 \\[::1\\]:${PORT + 1}: connect: `), "kubectl's error");
      } finally {
        await closed.k.stop();
      }
    });
  }
}
