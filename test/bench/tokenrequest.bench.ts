// The API server's CPU per TokenRequest signed with the key it generates (CERT-DIR/sa.key): what each pod
// with a projected service-account token costs the server for its token. N requests (50 at a time) after
// a warm-up of 200; the reference, on the same run: as many GETs of the ServiceAccount (the request path
// without the token's work).
// Run: npm run build && KITE_BIN=dist/kite bun test/bench/tokenrequest.bench.ts   (N overrides 1000)
import { decodeProtectedHeader } from "jose";
import { killAll } from "../helpers/processes.ts";
import { startServer } from "../helpers/server.ts";
import { cpuOf, load, progress } from "./load.ts";

const N = Number(process.env.N ?? 1000);
const SA = "/api/v1/namespaces/default/serviceaccounts/default";

try {
  const s = await startServer();
  const expect = (status: number) => (r: { status: number; body: unknown }) => {
    if (r.status !== status) throw new Error(`${r.status}: ${JSON.stringify(r.body)}`);
  };
  const request = () => s.call("POST", `${SA}/token`, { apiVersion: "authentication.k8s.io/v1", kind: "TokenRequest", spec: {} });
  const token = () => request().then(expect(201));
  const get = () => s.call("GET", SA).then(expect(200));
  // the ServiceAccount controller makes the namespace's default account shortly after the start
  for (let i = 0; i < 100 && (await s.call("GET", SA)).status !== 200; i++) await Bun.sleep(100);
  const perRequest = async (op: () => Promise<void>) => {
    await load(200, 50, op);
    const c0 = cpuOf(s.proc.pid);
    await load(N, 50, op);
    return ((cpuOf(s.proc.pid) - c0) * 1000) / N;
  };
  progress(`${N} TokenRequests and ${N} GETs, 50 at a time`);
  const tokens = await perRequest(token), gets = await perRequest(get);
  const { alg } = decodeProtectedHeader((await request()).body.status.token);
  console.log(`TokenRequest (${alg}, the generated key): API server CPU ${tokens.toFixed(2)} ms per request; reference, GET of the ServiceAccount: ${gets.toFixed(2)} ms`);
  await s.stop();
} finally {
  killAll();
}
