// `kite up` warm start: from spawning the process to its banner, and to the Node Ready with a heartbeat of
// this start (the Node object of the last run still says Ready: only a fresh heartbeat counts). The first
// start (certificates and keys made) is reported apart. Pods on the host's network, no proxy.
// Run: npm run build && KITE_BIN=dist/kite bun test/bench/up-start.bench.ts   (RUNS overrides 5)
import { join } from "node:path";
import { KITE, freePort } from "../helpers/server.ts";
import { killAll, tempDir, track } from "../helpers/processes.ts";
const dir = tempDir("warm-"); const kc = join(dir, "kubeconfig.yaml"); const port = await freePort();
async function once() {
  const t0 = performance.now(); const wall = Math.floor(Date.now() / 1000) * 1000;
  const p = Bun.spawn([...KITE, "up", `--data-dir=${dir}`, `--secure-port=${port}`, "--pod-network=host", "--proxy-mode=none", "--node-ip=127.0.0.1"], { stdout: "pipe", stderr: "pipe" });
  track(p);
  const r = p.stdout.getReader(); let out = "";
  while (!out.includes("Ctrl-C")) { const { value, done } = await r.read(); if (done) break; out += new TextDecoder().decode(value); }
  const banner = performance.now() - t0;
  let ready = 0;
  for (;;) {
    const g = Bun.spawnSync(["kubectl", `--kubeconfig=${kc}`, "get", "nodes", "-o", "jsonpath={.items[*].status.conditions[?(@.type==\"Ready\")].lastHeartbeatTime} {.items[*].status.conditions[?(@.type==\"Ready\")].status}"]);
    const [hb, st] = g.stdout.toString().split(" ");
    if (st === "True" && Date.parse(hb) >= wall) { ready = performance.now() - t0; break; }
    await Bun.sleep(20);
  }
  console.log(`banner ${banner.toFixed(0)} ms, node Ready ${ready.toFixed(0)} ms (${out.match(/ready in \d+ ms/)?.[0]})`);
  p.kill("SIGINT"); await p.exited;
}
try {
  process.stdout.write("first start: ");
  await once();
  for (let i = 0; i < Number(process.env.RUNS ?? 5); i++) { process.stdout.write("warm start: "); await once(); }
} finally {
  killAll();
}
