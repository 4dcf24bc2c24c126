// The serving flags of §5.1 and §8.1 that change what a client sees on the wire: CORS, HSTS, profiling,
// TLS cipher suites, SNI certificates, privileged pods, the `kubernetes` Service and Endpoints, and the
// external hostname — each against a real server, and each bad value refused in one line.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { generateServingCerts } from "../../pkg/pki/certs.ts";
import { KITE, TEST_TOKEN, type TestServer, startServer } from "../helpers/server.ts";
import { tempDir } from "../helpers/processes.ts";
import { expectCode, until } from "./fixtures.ts";

const dir = tempDir("kite-serving-");
const tokens = join(dir, "tokens.csv");
writeFileSync(tokens, `${TEST_TOKEN},kite-test,kite-test,system:masters\nbob-token,bob,bob\n`);
const sni = generateServingCerts("sni-ca", "sni.example", ["sni.example"]);
writeFileSync(join(dir, "sni.crt"), sni.cert);
writeFileSync(join(dir, "sni.key"), sni.key);

const pod = (name: string, privileged: boolean) => ({
  apiVersion: "v1", kind: "Pod", metadata: { name },
  spec: { containers: [{ name: "c", image: "busybox", securityContext: { privileged } }] },
});

/** openssl s_client against the server: the handshake's cipher and the certificate's subject, or null. */
async function handshake(port: number, args: string[]): Promise<{ cipher: string; subject: string } | null> {
  const p = Bun.spawn(["openssl", "s_client", "-connect", `127.0.0.1:${port}`, ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  const cipher = /Cipher is (\S+)/.exec(out)?.[1];
  if (!cipher || cipher === "(NONE)") return null;
  return { cipher, subject: /subject=(.*)/.exec(out)?.[1] ?? "" };
}

const ADMIN = { Authorization: `Bearer ${TEST_TOKEN}` };

describe("a server with every serving flag set", () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startServer([
      `--token-auth-file=${tokens}`, "--authorization-mode=RBAC",
      "--cors-allowed-origins=^https://ok\\.example$,^http://localhost(:[0-9]+)?$",
      "--strict-transport-security-directives=max-age=31536000,includeSubDomains,preload",
      "--tls-cipher-suites=TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256",
      `--tls-sni-cert-key=${join(dir, "sni.crt")},${join(dir, "sni.key")}`,
      "--kubernetes-service-node-port=30443", "--external-hostname=api.example.test",
    ]);
  }, 60_000);
  afterAll(async () => { await s?.stop(); });

  test("an allowed origin's preflight is answered 204 without credentials; others go on to authentication", async () => {
    const ok = await fetch(`${s.url}/api/v1/namespaces`, { method: "OPTIONS", headers: { Origin: "https://ok.example", "Access-Control-Request-Method": "GET" }, tls: { ca: s.ca } } as RequestInit);
    expect(ok.status).toBe(204);
    expect(ok.headers.get("access-control-allow-origin")).toBe("https://ok.example");
    expect(ok.headers.get("access-control-allow-methods")).toBe("POST, GET, OPTIONS, PUT, DELETE, PATCH");
    expect(ok.headers.get("access-control-allow-credentials")).toBe("true");
    const other = await fetch(`${s.url}/api/v1/namespaces`, { method: "OPTIONS", headers: { Origin: "https://evil.example" }, tls: { ca: s.ca } } as RequestInit);
    expect(other.status).not.toBe(204);
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    // a real request from the allowed origin carries the headers; HSTS is on every answer
    const r = await s.req("/api", { headers: { Authorization: `Bearer ${TEST_TOKEN}`, Origin: "http://localhost:8001" } });
    expect(r.status).toBe(200);
    expect(r.headers.get("access-control-allow-origin")).toBe("http://localhost:8001");
    expect(r.headers.get("access-control-expose-headers")).toBe("Date");
    expect(r.headers.get("strict-transport-security")).toBe("max-age=31536000; includeSubDomains; preload");
    expect(((await r.json()) as any).serverAddressByClientCIDRs[0].serverAddress).toBe(`api.example.test:${s.port}`);
  });

  test("a privileged container is refused by cluster policy (--allow-privileged defaults to false)", async () => {
    const r = await s.call("POST", "/api/v1/namespaces/default/pods", pod("priv", true), ADMIN);
    expectCode(r, 422, "privileged pod");
    expect(r.body.message).toContain("spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy");
    expectCode(await s.call("POST", "/api/v1/namespaces/default/pods", pod("plain", false), ADMIN), 201, "unprivileged pod");
  });

  test("/debug/pprof serves a CPU report and a heap snapshot to an admin, and is forbidden to others", async () => {
    const cpu = await s.req("/debug/pprof/profile?seconds=1", { headers: { Authorization: `Bearer ${TEST_TOKEN}` } });
    expect(cpu.status).toBe(200);
    expect(await cpu.text()).toContain("Sampling rate");
    const heap = await s.req("/debug/pprof/heap", { headers: { Authorization: `Bearer ${TEST_TOKEN}` } });
    expect(heap.status).toBe(200);
    expect(Object.keys((await heap.json()) as object)).toContain("snapshot");
    const bob = await s.req("/debug/pprof/heap", { headers: { Authorization: "Bearer bob-token" } });
    expect(bob.status).toBe(403);
    expect((await s.req("/debug/pprof/profile?seconds=0", { headers: { Authorization: `Bearer ${TEST_TOKEN}` } })).status).toBe(400);
  });

  test("TLS 1.2 offers only the listed suites; SNI picks the named certificate, else the default one", async () => {
    expect((await handshake(s.port, ["-tls1_2", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256"]))?.cipher).toBe("ECDHE-RSA-AES128-GCM-SHA256");
    expect(await handshake(s.port, ["-tls1_2", "-cipher", "ECDHE-RSA-AES256-GCM-SHA384"])).toBeNull();
    expect((await handshake(s.port, ["-servername", "sni.example"]))?.subject).toContain("CN = sni.example");
    expect((await handshake(s.port, ["-servername", "other.example"]))?.subject).toContain("CN = kite-apiserver");
  });

  test("the kubernetes Service is a NodePort Service on the given port; its Endpoints list this server from its lease", async () => {
    const svc: any = await until(async () => {
      const r = await s.call("GET", "/api/v1/namespaces/default/services/kubernetes", undefined, ADMIN);
      return r.body.spec?.type === "NodePort" ? r.body : undefined;
    }, "the kubernetes Service as NodePort");
    expect(svc.spec.ports[0].nodePort).toBe(30443);
    const ep = await s.call("GET", "/api/v1/namespaces/default/endpoints/kubernetes", undefined, ADMIN);
    expect(ep.body.subsets).toEqual([{ addresses: [{ ip: "127.0.0.1" }], ports: [{ name: "https", port: s.port, protocol: "TCP" }] }]);
    const leases = await s.call("GET", "/apis/coordination.k8s.io/v1/namespaces/kube-system/leases", undefined, ADMIN);
    expect(leases.body.items.filter((l: any) => l.metadata.name.startsWith("kite-apiserver-")).map((l: any) => l.spec.holderIdentity)).toEqual([`127.0.0.1:${s.port}`]);
  });
});

test("--profiling=false, --allow-privileged and --endpoint-reconciler-type=none do what they say", async () => {
  const s = await startServer(["--profiling=false", "--allow-privileged=true", "--endpoint-reconciler-type=none"]);
  try {
    expect((await s.req("/debug/pprof/heap")).status).toBe(404);
    expectCode(await s.call("POST", "/api/v1/namespaces/default/pods", pod("priv", true)), 201, "privileged pod");
    await until(async () => (await s.call("GET", "/api/v1/namespaces/default/services/kubernetes")).status === 200, "the kubernetes Service");
    expect((await s.call("GET", "/api/v1/namespaces/default/endpoints/kubernetes")).status).toBe(404);
  } finally {
    await s.stop();
  }
});

test("bad serving flags exit 2 with one line naming the flag", async () => {
  const cases: [string, string][] = [
    ["--tls-cipher-suites=TLS_NO_SUCH_SUITE", "Cipher suite TLS_NO_SUCH_SUITE not supported or doesn't exist"],
    ["--strict-transport-security-directives=max-age=1,always", "--strict-transport-security-directives invalid"],
    ["--kubernetes-service-node-port=80", "--kubernetes-service-node-port 80 must be within the service node port range 30000-32767"],
    ["--endpoint-reconciler-type=sometimes", "endpoint-reconciler-type"],
    ["--cors-allowed-origins=(", "--cors-allowed-origins"],
    ["--tls-sni-cert-key=only-one-file", "--tls-sni-cert-key"],
  ];
  await Promise.all(cases.map(async ([flag, said]) => {
    const p = Bun.spawn([...KITE, "apiserver", flag], { stdout: "pipe", stderr: "pipe" });
    const [err, code] = await Promise.all([new Response(p.stderr).text(), p.exited]);
    expect(code).toBe(2);
    expect(err.trim().split("\n")).toHaveLength(1);
    expect(err).toContain(said);
  }));
});
