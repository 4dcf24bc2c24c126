// pods/proxy, services/proxy and nodes/proxy end to end: `kubectl proxy` (1.20, 1.33) to a Service whose
// endpoint is a real pod (python3's http.server in its own network namespace, with the agent's bridge: the
// whole test runs inside a network namespace of its own, test/helpers/netns.ts), `kubectl get --raw` to the
// agent through nodes/proxy, upstream's 503 for a Service without ready endpoints, and through pods/proxy of
// a host-network pod to a server in this test: methods, headers and bodies, Location rewrites, WebSockets.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { until } from "../helpers/component.ts";
import { inOwnNetns } from "../helpers/netns.ts";
import { startNodeAgent, type TestNodeAgent } from "../helpers/nodeagent.ts";
import { tempDir, track } from "../helpers/processes.ts";
import { TEST_TOKEN, freePort, startServer, type TestServer } from "../helpers/server.ts";

const KUBECTLS = ["/opt/kubernetes-client-1.20/usr/bin/kubectl", "/usr/lib/google-cloud-sdk/bin/kubectl.1.33"].filter(existsSync);
const NS = "default";

const WEB_PORT = 8080;
/** python3's http.server on a folder, but without its reverse lookup of the host's name at bind (no DNS in here: a 10 s wait). */
const SERVE_DIR = [
  "import functools, http.server as h, socketserver, sys",
  "class S(h.ThreadingHTTPServer):",
  "    def server_bind(self): socketserver.TCPServer.server_bind(self); self.server_name, self.server_port = 'web', self.server_address[1]",
  "S(('', int(sys.argv[1])), functools.partial(h.SimpleHTTPRequestHandler, directory=sys.argv[2])).serve_forever()",
].join("\n");

inOwnNetns(import.meta.path, "the proxy subresources", tests);

function tests() {
  let s: TestServer, agent: TestNodeAgent, echo: ReturnType<typeof Bun.serve>;
  /** The server runs RBAC: requests of this test carry the admin's token. */
  const ADMIN = { Authorization: `Bearer ${TEST_TOKEN}` };
  async function ok(method: string, path: string, body: unknown) {
    const r = await s.call(method, path, body, ADMIN);
    if (r.status >= 300) throw new Error(`${method} ${path}: ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  /** This test's own upstream for pods/proxy: echoes what it was sent, redirects, and echoes WebSocket messages. */
  function startEcho() {
    return Bun.serve({
      hostname: "127.0.0.1", port: 0,
      async fetch(req, server) {
        const url = new URL(req.url);
        if (url.pathname === "/ws" && server.upgrade(req, { data: undefined, headers: { "Sec-WebSocket-Protocol": "echo.test" } })) return undefined;
        if (url.pathname === "/redirect") return new Response(null, { status: 302, headers: { Location: `http://127.0.0.1:${server.port}/landed?x=1` } });
        return Response.json({ method: req.method, path: url.pathname, query: url.search, body: await req.text(), header: req.headers.get("x-test"), auth: req.headers.get("authorization") }, { headers: { "X-Upstream": "echo" } });
      },
      websocket: { message: (ws, m) => void ws.send(`echo:${m}`) },
    });
  }

  beforeAll(async () => {
    s = await startServer(["--kubelet-preferred-address-types=InternalIP,Hostname", "--authorization-mode=RBAC"]);
    echo = startEcho();
    agent = await startNodeAgent(s, ["--pod-network=bridge", "--pod-cidr=10.98.0.0/24"]);
    const site = tempDir("kite-proxy-site-");
    writeFileSync(join(site, "hello.txt"), "hello through the proxy\n");
    await ok("POST", `/api/v1/namespaces/${NS}/pods`, {
      apiVersion: "v1", kind: "Pod", metadata: { name: "web", labels: { app: "web" } },
      spec: { nodeName: agent.name, containers: [{ name: "web", image: "python", command: ["python3", "-c", SERVE_DIR, String(WEB_PORT), site], ports: [{ name: "http", containerPort: WEB_PORT }] }] },
    });
    // on the host's network: its address is the node's, where this test's own server listens
    await ok("POST", `/api/v1/namespaces/${NS}/pods`, {
      apiVersion: "v1", kind: "Pod", metadata: { name: "host" },
      spec: { nodeName: agent.name, hostNetwork: true, containers: [{ name: "idle", image: "busybox", command: ["sleep", "3600"] }] },
    });
    for (const name of ["web", "empty"]) {
      await ok("POST", `/api/v1/namespaces/${NS}/services`, { apiVersion: "v1", kind: "Service", metadata: { name }, spec: { selector: { app: name }, ports: [{ name: "http", port: 80, targetPort: WEB_PORT }] } });
    }
    const web = await until(async () => {
      const p = (await s.call("GET", `/api/v1/namespaces/${NS}/pods/web`, undefined, ADMIN)).body;
      return p?.status?.podIP && (await fetch(`http://${p.status.podIP}:${WEB_PORT}/hello.txt`).then((r) => r.ok, () => false)) ? p : undefined;
    }, "the web pod serving", 20_000);
    // the endpoints controller's work, by hand: the pod's address, ready
    await ok("POST", `/api/v1/namespaces/${NS}/endpoints`, {
      apiVersion: "v1", kind: "Endpoints", metadata: { name: "web" },
      subsets: [{ addresses: [{ ip: web.status.podIP, targetRef: { kind: "Pod", namespace: NS, name: "web", uid: web.metadata.uid } }], ports: [{ name: "http", port: WEB_PORT }] }],
    });
    await ok("POST", `/api/v1/namespaces/${NS}/endpoints`, { apiVersion: "v1", kind: "Endpoints", metadata: { name: "empty" }, subsets: [{ notReadyAddresses: [{ ip: web.status.podIP }], ports: [{ name: "http", port: WEB_PORT }] }] });
  });
  afterAll(async () => {
    echo?.stop(true);
    console.error(`agent log:\n${agent?.output()}`);
    await agent?.stop();
    await s?.stop();
  });

  async function run(bin: string, args: string[]) {
    const p = Bun.spawn([bin, `--kubeconfig=${s.kubeconfig}`, ...args], { stdout: "pipe", stderr: "pipe" });
    track(p);
    const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
    return { code, out, err };
  }

  /** `kubectl proxy` on a free port; resolves with its address once it says it serves. */
  async function kubectlProxy(bin: string): Promise<{ base: string; stop(): void }> {
    const p = Bun.spawn([bin, `--kubeconfig=${s.kubeconfig}`, "proxy", "--port=0"], { stdout: "pipe", stderr: "pipe" });
    track(p);
    const reader = p.stdout.getReader();
    let text = "";
    while (!/Starting to serve on (\S+)/.test(text)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`kubectl proxy ended: ${text}`);
      text += new TextDecoder().decode(value);
    }
    return { base: `http://${text.match(/Starting to serve on (\S+)/)![1]}`, stop: () => p.kill() };
  }

  for (const bin of KUBECTLS) {
    const version = bin.match(/1\.\d+/)![0];
    describe(`kubectl ${version}`, () => {
      test("kubectl proxy, then services/web:80/proxy/ reaches the pod behind the Service", async () => {
        const proxy = await kubectlProxy(bin);
        try {
          const page = await fetch(`${proxy.base}/api/v1/namespaces/${NS}/services/web:80/proxy/`);
          expect(page.status).toBe(200);
          expect(await page.text()).toContain("hello.txt");
          const named = await fetch(`${proxy.base}/api/v1/namespaces/${NS}/services/http:web:http/proxy/hello.txt`);
          expect([named.status, await named.text()]).toEqual([200, "hello through the proxy\n"]);
        } finally {
          proxy.stop();
        }
      });

      test("kubectl get --raw through nodes/proxy reaches the node agent", async () => {
        expect(await run(bin, ["get", "--raw", `/api/v1/nodes/${agent.name}/proxy/healthz`])).toMatchObject({ code: 0, out: "ok" });
      });

      test("a Service without ready endpoints: upstream's 503", async () => {
        const r = await run(bin, ["get", "--raw", `/api/v1/namespaces/${NS}/services/empty:80/proxy/`]);
        expect(r.code).not.toBe(0);
        expect(r.err).toContain(`Error from server (ServiceUnavailable): no endpoints available for service "empty"`);
      });
    });
  }

  test("the Service proxy's errors in upstream's words", async () => {
    expect((await s.call("GET", `/api/v1/namespaces/${NS}/services/empty/proxy/`, undefined, ADMIN)).body).toMatchObject({ code: 503, reason: "ServiceUnavailable", message: `no endpoints available for service "empty"` });
    expect((await s.call("GET", `/api/v1/namespaces/${NS}/services/web:81/proxy/`, undefined, ADMIN)).body).toMatchObject({ code: 503, message: `no service port 81 found for service "web"` });
    expect((await s.call("GET", `/api/v1/namespaces/${NS}/services/ftp:web:80/proxy/`, undefined, ADMIN)).body).toMatchObject({ code: 400, reason: "BadRequest", message: `invalid service request "ftp:web:80"` });
    // no port number: the Service itself is not read, as upstream (its Endpoints are)
    expect((await s.call("GET", `/api/v1/namespaces/${NS}/services/none/proxy/`, undefined, ADMIN)).body).toMatchObject({ code: 404, message: `endpoints "none" not found` });
    const dead = await freePort();
    expect((await s.call("GET", `/api/v1/namespaces/${NS}/pods/host:${dead}/proxy/`, undefined, ADMIN)).body).toMatchObject({
      code: 503, reason: "ServiceUnavailable", message: `error trying to reach service: dial tcp 127.0.0.1:${dead}: connect: connection refused`,
    });
  });

  test("pods/proxy passes every method, its headers and body through; the caller's credentials stay behind", async () => {
    const base = `/api/v1/namespaces/${NS}/pods/host:${echo.port}/proxy`;
    for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE"]) {
      const body = method === "GET" ? undefined : `a ${method} body`;
      const r = await s.req(`${base}/deep/a/b/c/d/e/?q=1`, { method, body, headers: { ...ADMIN, "X-Test": "passed", "Content-Type": "text/plain" } });
      expect(r.headers.get("x-upstream")).toBe("echo");
      expect(await r.json()).toEqual({ method, path: "/deep/a/b/c/d/e/", query: "?q=1", body: body ?? "", header: "passed", auth: null });
    }
  });

  test("a bare proxy path is redirected to its slash; the upstream's redirects point back through the proxy", async () => {
    const base = `/api/v1/namespaces/${NS}/pods/host:${echo.port}/proxy`;
    const bare = await s.req(base, { redirect: "manual", headers: ADMIN });
    expect([bare.status, bare.headers.get("location")]).toEqual([301, `${base}/`]);
    const moved = await s.req(`${base}/redirect`, { redirect: "manual", headers: ADMIN });
    expect([moved.status, moved.headers.get("location")]).toEqual([302, `${base}/landed?x=1`]);
  });

  test("a WebSocket upgrades through pods/proxy, subprotocol and messages relayed", async () => {
    const ws = new WebSocket(`${s.url.replace(/^https/, "wss")}/api/v1/namespaces/${NS}/pods/host:${echo.port}/proxy/ws`, {
      headers: { Authorization: `Bearer ${TEST_TOKEN}` }, protocols: ["echo.test"], tls: { rejectUnauthorized: false },
    } as unknown as string[]);
    const got: string[] = [];
    await new Promise<void>((resolve, reject) => {
      ws.onopen = () => ws.send("hi");
      ws.onmessage = (e) => { got.push(String(e.data)); resolve(); };
      ws.onerror = () => reject(new Error("websocket failed"));
    });
    expect([ws.protocol, got]).toEqual(["echo.test", ["echo:hi"]]);
    ws.close();
  });

  test("RBAC: the proxy subresources by the verb of the HTTP method", async () => {
    const rbac = "/apis/rbac.authorization.k8s.io/v1/namespaces/default";
    await ok("POST", `${rbac}/roles`, { metadata: { name: "proxy-get" }, rules: [{ verbs: ["get"], apiGroups: [""], resources: ["pods", "pods/proxy"] }] });
    await ok("POST", `${rbac}/rolebindings`, { metadata: { name: "alice-proxy-get" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "proxy-get" }, subjects: [{ kind: "User", name: "alice" }] });
    const as = (method: string, who: string) => s.req(`/api/v1/namespaces/${NS}/pods/host:${echo.port}/proxy/x`, { method, headers: { ...ADMIN, "Impersonate-User": who } });
    expect((await as("GET", "alice")).status).toBe(200);
    const post = await as("POST", "alice");
    expect([post.status, ((await post.json()) as { message: string }).message]).toEqual([403, `pods "host:${echo.port}" is forbidden: User "alice" cannot create resource "pods/proxy" in API group "" in the namespace "default"`]);
    expect(((await (await as("GET", "bob")).json()) as { message: string }).message).toContain(`User "bob" cannot get resource "pods/proxy"`);
    // view may read the resource metrics too (metrics-server's aggregated role is part of the bootstrap policy)
    await ok("POST", `${rbac}/rolebindings`, { metadata: { name: "carol-views" }, roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name: "view" }, subjects: [{ kind: "User", name: "carol" }] });
    const top = await until(async () => {
      const r = await s.req(`/apis/metrics.k8s.io/v1beta1/namespaces/${NS}/pods`, { headers: { ...ADMIN, "Impersonate-User": "carol" } });
      return r.status === 200 ? r : undefined;
    }, "view to cover PodMetrics (roles aggregate as they are written)", 10_000);
    expect(((await top.json()) as { kind: string }).kind).toBe("PodMetricsList");
  });

  test("discovery names the proxy subresources", async () => {
    const r = (await s.call("GET", "/api/v1", undefined, ADMIN)).body.resources;
    for (const [name, kind] of [["pods/proxy", "PodProxyOptions"], ["services/proxy", "ServiceProxyOptions"], ["nodes/proxy", "NodeProxyOptions"]]) {
      expect(r.find((x: { name: string }) => x.name === name)).toMatchObject({ kind, verbs: ["create", "delete", "get", "patch", "update"] });
    }
  });
}
