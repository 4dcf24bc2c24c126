// kite console in a real browser (Chromium) against `kite up`: the console `kite up` serves opens with its
// token, lists live, follows logs, edits by server-side apply, scales, shows what a user may not do, and
// refuses requests that do not come from its own page.
import { afterAll, beforeAll, expect, test } from "bun:test";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { ensureClientCert } from "../../pkg/pki/certs.ts";
import { writeKubeconfig } from "../../pkg/server/kubeconfig.ts";
import { launchBrowser, readUntil, screenshotDir, startConsoleProcess, tcpRelay } from "../helpers/browser.ts";
import { KITE, freePort } from "../helpers/server.ts";
import { tempDir, track } from "../helpers/processes.ts";

/** The page's document, in functions that run in the browser. */
declare const document: { body: unknown; querySelector(s: string): { textContent: string | null } | null; querySelectorAll(s: string): { length: number } };
declare function getComputedStyle(e: unknown): { backgroundColor: string };

const dir = tempDir("kite-console-");
const kubeconfig = join(dir, "kubeconfig.yaml");
const shots = screenshotDir();
let up: ReturnType<typeof Bun.spawn>;
let consoleUrl: string;
let origin: string;
let browser: Browser;
let page: Page;
/** Watches and followed logs the page asked for over HTTP (each would hold one of the browser's 6 connections). */
const streamedOverHttp: string[] = [];
const sockets: string[] = [];

const kubectl = (args: string[], stdin?: string) => {
  const r = Bun.spawnSync(["kubectl", `--kubeconfig=${kubeconfig}`, ...args], { stdin: stdin ? new Blob([stdin]) : undefined });
  return { code: r.exitCode, out: r.stdout.toString(), err: r.stderr.toString() };
};
const shot = (name: string) => page.screenshot({ path: join(shots, `${name}.png`) });

beforeAll(async () => {
  const [port, consolePort] = [await freePort(), await freePort()];
  up = Bun.spawn([...KITE, "up", `--data-dir=${dir}`, `--secure-port=${port}`, `--console-port=${consolePort}`, "--pod-network=host", "--proxy-mode=none", "--node-ip=127.0.0.1", "--node-name=console-node"], { stdout: "pipe", stderr: "pipe" });
  track(up);
  const [out, b] = await Promise.all([readUntil(up as never, "Ctrl-C"), launchBrowser()]);
  browser = b;
  consoleUrl = /console:\s+(http:\/\/\S+)/.exec(out)![1];
  origin = new URL(consoleUrl).origin;
  page = await browser.newPage({ viewport: { width: 1280, height: 760 } });
  page.setDefaultTimeout(15_000);
  page.on("request", (r) => { if (/[?&](watch|follow)=(1|true)/.test(r.url())) streamedOverHttp.push(r.url()); });
  page.on("websocket", (w) => sockets.push(new URL(w.url()).pathname));
  await page.goto(consoleUrl); // the session every test's page uses
});

afterAll(async () => {
  await browser?.close();
  up?.kill("SIGINT");
  await up?.exited;
});

test("the console refuses requests without this start's token, from a foreign origin or for a foreign host", async () => {
  expect((await fetch(`${origin}/api/v1/namespaces`)).status).toBe(401);
  expect((await fetch(`${origin}/login?token=wrong`, { redirect: "manual" })).status).toBe(401);
  const login = await fetch(consoleUrl, { redirect: "manual" });
  expect(login.status).toBe(303);
  expect(login.headers.get("location")).toBe("/#ns=default"); // the kubeconfig context's namespace
  const cookie = login.headers.get("set-cookie")!;
  expect(cookie).toContain("HttpOnly");
  expect(cookie).toContain("SameSite=Strict");
  const session = { cookie: cookie.split(";")[0] };
  expect((await fetch(`${origin}/api/v1/namespaces`, { headers: session })).status).toBe(200);
  const foreign = await fetch(`${origin}/api/v1/namespaces/default/configmaps`, { method: "POST", headers: { ...session, origin: "http://evil.example", "content-type": "application/json" }, body: "{}" });
  expect(foreign.status).toBe(403);
  expect(((await foreign.json()) as { message: string }).message).toContain("origin http://evil.example is not this console");
  expect((await fetch(`${origin}/api/v1/namespaces`, { headers: { ...session, host: "evil.example" } })).status).toBe(403);
  const socket = (headers: Record<string, string>) => new Promise<string>((resolve) => {
    const ws = new WebSocket(`${origin.replace(/^http/, "ws")}/api/v1/namespaces/default/pods/none/exec?command=sh&stdin=1&stdout=1`, { protocols: ["v4.channel.k8s.io"], headers } as never);
    ws.onopen = () => { resolve("open"); ws.close(); };
    ws.onerror = () => resolve("refused");
  });
  expect(await socket({ origin: "http://evil.example", ...session })).toBe("refused");
  expect(await socket({ origin })).toBe("refused");
  // only the public API is proxied
  expect((await fetch(`${origin}/metrics`, { headers: session })).status).toBe(404);
});

test("opened with its token, the console lists the namespace's pods and shows a new Deployment's pods, running, without reloading", async () => {
  await page.goto(consoleUrl);
  await page.waitForSelector("section.list[data-resource=pods]");
  const deployment = { apiVersion: "apps/v1", kind: "Deployment", metadata: { name: "web" }, spec: {
    replicas: 1, selector: { matchLabels: { app: "web" } },
    template: { metadata: { labels: { app: "web" } }, spec: { terminationGracePeriodSeconds: 1, containers: [{ name: "web", image: "busybox", command: ["sh", "-c", "echo hello-from-web; i=0; while true; do echo tick $i; i=$((i+1)); sleep 1; done"] }] } },
  } };
  expect(kubectl(["apply", "-f", "-"], JSON.stringify(deployment)).code).toBe(0);
  const row = page.locator("tr.row", { hasText: "web-" }).first();
  await row.filter({ hasText: "Running" }).waitFor({ timeout: 20_000 });
  await expect(row.textContent()).resolves.toContain("1/1");
  await shot("pods");
});

test("a pod's log streams while the container writes it", async () => {
  await page.locator("tr.row", { hasText: "web-" }).first().click();
  await page.locator("a.tab", { hasText: "logs" }).click();
  await page.waitForFunction(() => /hello-from-web[\s\S]*tick 3/.test(document.querySelector("pre.log")?.textContent ?? ""), undefined, { timeout: 15_000 });
  await page.fill("input.log-search", "tick 2");
  await page.waitForFunction(() => document.querySelector("pre.log")?.textContent?.trim() === "tick 2");
  await shot("logs");
});

test("a pod's CPU and memory from the metrics API show as charts, and so do its node's", async () => {
  const charted = async () => {
    await page.locator("a.tab", { hasText: "metrics" }).click();
    await page.waitForFunction(() => /^[0-9.]+m$/.test(document.querySelector("figure.chart[data-metric=cpu] .value")?.textContent ?? "")
      && /^[0-9.]+Mi$/.test(document.querySelector("figure.chart[data-metric=memory] .value")?.textContent ?? ""));
    expect(await page.locator("figure.chart canvas").count()).toBe(2);
  };
  await charted();
  await shot("pod-metrics");
  await page.goto(`${origin}/#res=v1/nodes&name=console-node`);
  await charted();
});

test("every watch and log stream of the page shares one WebSocket: none holds an HTTP connection", () => {
  expect(streamedOverHttp).toEqual([]);
  expect(sockets).toContain("/streams");
});

test("a command runs in a pod's terminal (exec through the console's WebSocket relay)", async () => {
  await page.goto(`${origin}/#res=v1/pods&ns=default`);
  await page.locator("tr.row", { hasText: "web-" }).first().click();
  await page.locator("a.tab", { hasText: "terminal" }).click();
  await page.locator("[data-state=open]").waitFor();
  await page.keyboard.type("echo $((6*7))\n");
  await page.waitForFunction(() => /\n?42/.test(document.querySelector(".xterm-rows")?.textContent?.replace(/echo \$\(\(6\*7\)\)/, "") ?? ""));
  await shot("terminal");
  await page.keyboard.type("exit 3\n");
  await page.locator("[data-state=closed]").waitFor();
  // xterm.js renders what it is given on a later frame: wait for the exit status's line
  await page.waitForFunction(() => document.querySelector(".xterm-rows")?.textContent?.includes("command terminated with non-zero exit code"));
});

test("a ConfigMap is edited with a diff preview and saved by server-side apply; a conflict names the field and its manager", async () => {
  expect(kubectl(["create", "configmap", "settings", "--from-literal=a=1"]).code).toBe(0);
  await page.goto(`${origin}/#res=v1/configmaps&ns=default&name=settings&tab=edit`);
  const editor = page.locator("textarea.yaml-editor");
  await editor.waitFor();
  const text = await editor.inputValue();
  await editor.fill(text.replace(/^data:\n/m, 'data:\n  b: "2"\n'));
  await page.click("text=Review changes");
  await page.locator(".diff .add", { hasText: 'b: "2"' }).waitFor();
  await shot("edit-diff");
  await page.click("button:has-text('Apply')");
  await page.locator(".banner.ok").waitFor();
  expect(kubectl(["get", "configmap", "settings", "-o", "jsonpath={.data.b}"]).out).toBe("2");

  // .data.a belongs to kubectl create: changing it conflicts until the user takes it over
  await editor.fill((await editor.inputValue()).replace(/a: "1"/, 'a: "3"'));
  await page.click("text=Review changes");
  await page.click("button:has-text('Apply')");
  const conflict = page.locator(".state.conflict");
  await conflict.waitFor();
  expect(await conflict.textContent()).toContain(".data.a");
  expect(await conflict.textContent()).toContain("kubectl-create");
  await page.click("text=Take over these fields and save");
  await page.locator(".banner.ok").waitFor();
  expect(kubectl(["get", "configmap", "settings", "-o", "jsonpath={.data.a}"]).out).toBe("3");
});

test("a Deployment is scaled and restarted from its page, and its owned objects follow", async () => {
  await page.goto(`${origin}/#res=apps/v1/deployments&ns=default&name=web&tab=related`);
  await page.locator("p.muted", { hasText: "No owner" }).waitFor();
  await page.click("button:has-text('Scale')");
  await page.fill("input[name=replicas]", "2");
  await page.click(".dialog button[type=submit]");
  await page.waitForFunction(() => document.querySelector(".dialog") === null);
  expect(kubectl(["get", "deployment", "web", "-o", "jsonpath={.spec.replicas}"]).out).toBe("2");
  await page.locator("a.tab", { hasText: "events" }).click();
  await page.locator("tr.row", { hasText: "ScalingReplicaSet" }).first().waitFor();
  await page.goto(`${origin}/#res=apps/v1/replicasets&ns=default`);
  await page.locator("tr.row", { hasText: "web-" }).click();
  await page.locator("a.tab", { hasText: "related" }).click();
  await page.locator(".chain a", { hasText: "Deployment/web" }).waitFor();
  await page.waitForFunction(() => document.querySelectorAll("[data-owned=pods] tr.row").length === 2, undefined, { timeout: 20_000 });
  await shot("related");

  await page.click(".chain a:has-text('Deployment/web')");
  await page.click("button:has-text('Restart')");
  await page.click(".dialog button[type=submit]");
  await page.waitForFunction(() => document.querySelector(".dialog") === null);
  const restartedAt = kubectl(["get", "deployment", "web", "-o", "jsonpath={.spec.template.metadata.annotations.kubectl\\.kubernetes\\.io/restartedAt}"]).out;
  expect(Date.now() - Date.parse(restartedAt)).toBeLessThan(60_000);
});

test("the keyboard and the search box: / filters, j and Enter open a row, Escape goes back", async () => {
  expect(kubectl(["create", "configmap", "alpha"]).code).toBe(0);
  expect(kubectl(["create", "configmap", "beta"]).code).toBe(0);
  await page.goto(`${origin}/#res=v1/configmaps&ns=default`);
  await page.locator("tr.row", { hasText: "beta" }).waitFor();
  await page.keyboard.press("/");
  await page.keyboard.type("alp");
  await page.waitForFunction(() => document.querySelectorAll("tr.row").length === 1);
  await page.keyboard.press("Escape");
  await page.waitForFunction(() => document.querySelectorAll("tr.row").length > 2);
  await page.keyboard.press("j"); // the second row: beta (rows are sorted by name)
  await page.keyboard.press("Enter");
  await page.locator("h1", { hasText: "ConfigMap beta" }).waitFor();
  await page.keyboard.press("Escape");
  await page.locator("section.list[data-resource=configmaps]").waitFor();
});

test("the namespace picker switches the lists to another namespace", async () => {
  await page.goto(`${origin}/#res=v1/serviceaccounts&ns=default`);
  await page.locator("tr.row", { hasText: "default" }).waitFor();
  await page.selectOption("select.ns", "kube-system");
  await page.locator("tr.row", { hasText: "deployment-controller" }).waitFor();
  expect(await page.evaluate(() => (globalThis as unknown as { location: { hash: string } }).location.hash)).toContain("ns=kube-system");
  await page.selectOption("select.ns", "default");
});

test("a Secret's values stay hidden until asked for", async () => {
  expect(kubectl(["create", "secret", "generic", "login", "--from-literal=password=s3cr3t"]).code).toBe(0);
  await page.goto(`${origin}/#res=v1/secrets&ns=default&name=login`);
  const yaml = page.locator("pre.yaml");
  await yaml.waitFor();
  expect(await yaml.textContent()).toContain("password: (hidden, 6 bytes)");
  expect(await yaml.textContent()).not.toContain(btoa("s3cr3t"));
  await page.click("text=Show values");
  await page.locator("pre.yaml", { hasText: btoa("s3cr3t") }).waitFor();
});

test("delete asks first; an object deleted elsewhere while viewed is shown as deleted", async () => {
  expect(kubectl(["create", "configmap", "doomed"]).code).toBe(0);
  await page.goto(`${origin}/#res=v1/configmaps&ns=default&name=doomed`);
  await page.click("button:has-text('Delete')");
  await page.click(".dialog button:has-text('Cancel')");
  expect(kubectl(["get", "configmap", "doomed"]).code).toBe(0);
  await page.click("button:has-text('Delete')");
  await page.click(".dialog button[type=submit]");
  await page.locator("section.list[data-resource=configmaps]").waitFor();
  expect(kubectl(["get", "configmap", "doomed"]).err).toContain("NotFound");

  expect(kubectl(["create", "configmap", "fleeting"]).code).toBe(0);
  await page.goto(`${origin}/#res=v1/configmaps&ns=default&name=fleeting`);
  await page.locator("pre.yaml", { hasText: "fleeting" }).waitFor();
  expect(kubectl(["delete", "configmap", "fleeting"]).code).toBe(0);
  await page.locator(".banner.gone").waitFor();
});

test("dark mode follows the system's preference", async () => {
  const dark = await browser.newPage({ colorScheme: "dark", viewport: { width: 1280, height: 760 } });
  await dark.goto(consoleUrl);
  await dark.goto(`${origin}/#res=apps/v1/deployments&ns=default`);
  await dark.locator("tr.row", { hasText: "web" }).waitFor();
  expect(await dark.evaluate(() => getComputedStyle(document.body).backgroundColor)).toBe("rgb(20, 23, 28)");
  await dark.screenshot({ path: join(shots, "deployments-dark.png") });
  await dark.close();
});

test("a user without rights sees what is forbidden", async () => {
  const pki = join(dir, "server", "pki");
  const viewer = await ensureClientCert(pki, "viewer", "viewer", []);
  const viewerConfig = join(dir, "viewer.yaml");
  const server = /server: (\S+)/.exec(await Bun.file(kubeconfig).text())![1];
  writeKubeconfig(viewerConfig, server, await Bun.file(join(pki, "ca.crt")).text(), viewer);
  const restricted = await startConsoleProcess(viewerConfig);
  try {
    const p = await browser.newPage();
    await p.goto(restricted.url);
    const forbidden = p.locator(".state.forbidden");
    await forbidden.waitFor();
    expect(await forbidden.textContent()).toContain(`pods is forbidden: User "viewer" cannot list resource "pods" in API group "" in the namespace "default"`);
    await p.screenshot({ path: join(shots, "forbidden.png") });
    await p.close();
  } finally {
    expect(await restricted.stop()).toBe(0);
  }
});

test("when the cluster cannot be reached the page says it is disconnected, and it reconnects by itself", async () => {
  // a console of its own, reaching the API server through a relay this test can cut
  const server = new URL(/server: (\S+)/.exec(await Bun.file(kubeconfig).text())![1]);
  const relay = await tcpRelay(Number(server.port));
  const standalone = await startConsoleProcess(kubeconfig, [`--server=https://127.0.0.1:${relay.port}`]);
  try {
    const p = await browser.newPage();
    await p.goto(standalone.url);
    await p.locator("tr.row", { hasText: "web-" }).first().waitFor();
    relay.cut();
    await p.locator(".banner.disconnected").waitFor();
    expect(await p.locator(".banner.disconnected").textContent()).toContain("reconnecting");
    await relay.resume();
    await p.locator(".banner.disconnected").waitFor({ state: "detached" });
    expect(kubectl(["create", "configmap", "after-reconnect"]).code).toBe(0);
    await p.goto(`${new URL(standalone.url).origin}/#res=v1/configmaps&ns=default`);
    await p.locator("tr.row", { hasText: "after-reconnect" }).waitFor();
    await p.close();
  } finally {
    relay.cut();
    await standalone.stop();
  }
});
