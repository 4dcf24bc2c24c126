// Issue 13 item 10: the kite CLI reads its input as kubectl does. Global flags before the command
// (`kite --kubeconfig X -n ns get cm`); manifests with no objects (`error: no objects passed to apply`);
// multi-document YAML with empty, comment-only and `null` documents, comments after `---`, a `List`, a
// `---` line carrying content (refused, as kubectl refuses it), and JSON streams; for apply and delete.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { tempDir } from "../helpers/processes.ts";
import { KITE, startServer, type TestServer } from "../helpers/server.ts";

setDefaultTimeout(30_000);

let s: TestServer;
let home: string;
let dir: string;
const NS = "input";

beforeAll(async () => {
  s = await startServer();
  home = tempDir("kite-input-home-");
  dir = tempDir("kite-input-");
  await s.call("POST", "/api/v1/namespaces", { metadata: { name: NS } });
});
afterAll(() => s.stop());

/** Runs kite with a HOME and environment that point nowhere: only the flags given find the server. */
async function kite(args: string[]) {
  const env: Record<string, string> = { ...(process.env as Record<string, string>), HOME: home };
  delete env.KUBECONFIG;
  const p = Bun.spawn([...KITE, ...args], { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err };
}
const file = (name: string, text: string) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const cm = (name: string) => `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\n  namespace: ${NS}\ndata: {k: v}\n`;
const exists = async (name: string) => (await s.call("GET", `/api/v1/namespaces/${NS}/configmaps/${name}`)).status === 200;
/** Applies with the kubeconfig flag, client-side (its lines do not depend on server-side apply). */
const apply = (f: string) => kite(["apply", "--server-side=false", "-f", f, `--kubeconfig=${s.kubeconfig}`]);

describe("kubectl's global flags before the command", () => {
  test("--kubeconfig and -n before get, apply and delete", async () => {
    const f = file("global.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: global\ndata: {a: b}\n");
    const applied = await kite(["--kubeconfig", s.kubeconfig, "-n", NS, "apply", "--server-side=false", "-f", f]);
    expect(applied).toEqual({ code: 0, out: "configmap/global created\n", err: "" });
    expect(await exists("global")).toBe(true);
    // The joined forms, and flags on both sides of the command.
    const got = await kite([`--kubeconfig=${s.kubeconfig}`, `-n${NS}`, "get", "cm", "global", "-o", "jsonpath={.data.a}"]);
    expect(got).toEqual({ code: 0, out: "b", err: "" });
    const del = await kite([`--namespace=${NS}`, "delete", "cm", "global", "--kubeconfig", s.kubeconfig]);
    expect(del).toEqual({ code: 0, out: 'configmap "global" deleted\n', err: "" });
  });

  test("a flag before the command that kite does not know, or no command after the flags, exits 2", async () => {
    expect(await kite(["--bogus", "get", "pods"])).toEqual({ code: 2, out: "", err: `Error: unknown flag: --bogus for "kite" (see 'kite --help')\n` });
    expect(await kite(["-n", NS])).toEqual({ code: 2, out: "", err: "Error: no command after -n (see 'kite --help')\n" });
    // A global flag before a command that does not take it is refused by that command.
    const r = await kite(["-n", NS, "apiserver"]);
    expect(r.code).toBe(2);
    expect(r.err).toBe("Error: unknown flag: -n (see 'kite apiserver --help')\n");
  });
});

describe("manifests with no objects", () => {
  for (const [name, text] of [
    ["empty.yaml", ""],
    ["comments.yaml", "# nothing here\n# nor here\n"],
    ["separators.yaml", "---\n---\n# only a comment\n---\n"],
    ["nulls.yaml", "null\n---\n~\n"],
    ["empty-list.yaml", "apiVersion: v1\nkind: List\nitems: []\n"],
  ] as const) {
    test(`${name}: apply fails as kubectl (exit 1), delete finds nothing (exit 0)`, async () => {
      const f = file(name, text);
      expect(await apply(f)).toEqual({ code: 1, out: "", err: "error: no objects passed to apply\n" });
      expect(await kite(["delete", "-f", f, `--kubeconfig=${s.kubeconfig}`])).toEqual({ code: 0, out: "No resources found\n", err: "" });
    });
  }
});

describe("multi-document YAML as kubectl reads it", () => {
  test("empty, comment-only and null documents skipped; comments after ---; a List expanded; apply then delete", async () => {
    const list = `apiVersion: v1\nkind: List\nitems:\n${[cm("m-list-1"), cm("m-list-2")].map((d) => `- ${d.trimEnd().replace(/\n/g, "\n  ")}\n`).join("")}`;
    const f = file("many.yaml", [
      "# leading comment",
      "---",
      "",
      "---",
      "# a comment-only document",
      "--- # a separator with a comment",
      cm("m-one").trimEnd(),
      "---",
      "null",
      "---   ",
      cm("m-two").trimEnd(),
      "...",
      "---",
      list.trimEnd(),
      "---",
      "",
    ].join("\n"));
    const names = ["m-one", "m-two", "m-list-1", "m-list-2"];
    expect(await apply(f)).toEqual({ code: 0, out: names.map((n) => `configmap/${n} created\n`).join(""), err: "" });
    for (const n of names) expect(await exists(n)).toBe(true);
    const del = await kite(["delete", "-f", f, `--kubeconfig=${s.kubeconfig}`]);
    expect(del).toEqual({ code: 0, out: names.map((n) => `configmap "${n}" deleted\n`).join(""), err: "" });
    for (const n of names) expect(await exists(n)).toBe(false);
  });

  test("a --- line carrying content ends the file with an error; the documents before it are applied", async () => {
    const f = file("separator.yaml", `${cm("sep-before")}---\n${cm("sep-ended")}--- {apiVersion: v1, kind: ConfigMap}\n${cm("sep-after")}`);
    const r = await apply(f);
    expect(r).toEqual({ code: 1, out: "configmap/sep-before created\n", err: `error: "${f}" (document 2): invalid Yaml document separator: {apiVersion: v1, kind: ConfigMap}\n` });
    expect([await exists("sep-before"), await exists("sep-ended"), await exists("sep-after")]).toEqual([true, false, false]);
  });

  test("a stream of JSON objects is read object by object", async () => {
    const obj = (name: string) => JSON.stringify({ apiVersion: "v1", kind: "ConfigMap", metadata: { name, namespace: NS }, data: { brace: "}{" } }, null, 1);
    const f = file("stream.json", `${obj("json-1")}\n${obj("json-2")}\n`);
    expect(await apply(f)).toEqual({ code: 0, out: "configmap/json-1 created\nconfigmap/json-2 created\n", err: "" });
    expect((await s.call("GET", `/api/v1/namespaces/${NS}/configmaps/json-2`)).body.data).toEqual({ brace: "}{" });
  });
});
