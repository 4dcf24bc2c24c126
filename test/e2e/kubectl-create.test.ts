// Issue 5 item 6: stock kubectl's `create <kind>` generators (kubectl 1.32+ sends them as protobuf) and the
// columns `kubectl get` prints from the server's Tables. The kubectl on PATH (google-cloud-sdk's dispatcher,
// which runs its built-in 1.32 against this server) gets the whole set, one test per kind; every other
// kubectl build found next to it (kubectl.1.27 ... kubectl.1.33) runs the same commands in a namespace of
// its own on the same server.
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { startServer, type TestServer } from "../helpers/server.ts";

setDefaultTimeout(60_000);

const SDK_BIN = "/usr/lib/google-cloud-sdk/bin";
/** The versioned kubectl builds present on this machine, oldest first. */
const BUILDS = existsSync(SDK_BIN)
  ? readdirSync(SDK_BIN).filter((f) => /^kubectl\.1\.\d+$/.test(f)).sort((a, b) => Number(a.split(".")[2]) - Number(b.split(".")[2]))
  : [];

/** The object the server keeps in every namespace, per resource (builtin-objects.test.ts). */
const SERVER_KEPT: Record<string, string> = { configmaps: "kube-root-ca.crt", serviceaccounts: "default" };

let s: TestServer;
beforeAll(async () => { s = await startServer(); }, 30_000);
afterAll(async () => { await s?.stop(); }, 30_000);

interface Run { code: number; out: string; err: string; cmd: string }

async function run(bin: string, args: string[]): Promise<Run> {
  const p = Bun.spawn([bin, `--kubeconfig=${s.kubeconfig}`, ...args], { stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text(), p.exited]);
  return { code, out, err, cmd: [bin.split("/").pop() ?? bin, ...args].map((a) => (/[\s*]/.test(a) ? `'${a}'` : a)).join(" ") };
}

/** Fails with the command line and everything it printed. */
function ok(r: Run): Run {
  if (r.code !== 0) throw new Error(`\`${r.cmd}\` exited ${r.code}\nstdout: ${r.out}\nstderr: ${r.err}`);
  return r;
}

// ---- kubectl's tabular output, cut at the header's column starts (tabwriter aligns every column)

interface Printed { header: string[]; rows: Record<string, string>[] }

function parseBlock(lines: string[]): Printed {
  const head = lines[0];
  const header = head.trim().split(/\s{2,}/);
  const starts: number[] = [];
  let from = 0;
  for (const h of header) {
    const at = head.indexOf(h, from);
    starts.push(at);
    from = at + h.length;
  }
  const rows = lines.slice(1).map((line) => {
    const row: Record<string, string> = {};
    header.forEach((h, i) => { row[h] = line.slice(starts[i], i + 1 < starts.length ? starts[i + 1] : undefined).trim(); });
    return row;
  });
  return { header, rows };
}

/** One table per resource type (kubectl separates them with a blank line when asked for several). */
function parseTables(out: string): Printed[] {
  return out.split(/\n\s*\n/).map((b) => b.split("\n").filter((l) => l.trim())).filter((b) => b.length).map(parseBlock);
}

function header(r: Run): string {
  const t = parseTables(r.out);
  if (t.length !== 1) throw new Error(`\`${r.cmd}\`: expected one table, got ${t.length}:\n${r.out}\n${r.err}`);
  return t[0].header.join(" ");
}

function rowOf(r: Run, name: string, ns?: string): Record<string, string> {
  const rows = parseTables(r.out).flatMap((t) => t.rows);
  const row = rows.find((x) => (x.NAME === name || x.NAME?.endsWith(`/${name}`)) && (ns === undefined || x.NAMESPACE === ns));
  if (!row) throw new Error(`\`${r.cmd}\`: no row for ${ns ? `${ns}/` : ""}${name}:\n${r.out}`);
  return row;
}

// ---- the commands, as a user types them, and what upstream v1.21 prints for each kind

interface Kind {
  /** `kubectl get` resource name. */
  resource: string;
  namespaced: boolean;
  /** The create command's arguments (after any `-n NS`). */
  create: (sfx: string) => string[];
  /** The object's name. */
  name: (sfx: string) => string;
  /** What `create` prints. */
  created: (sfx: string) => string;
  /** Upstream's column headers, and the `-o wide` ones. */
  columns: string;
  wide: string;
  /** Cells upstream prints for the object (columns not listed are not checked), and checks of the stored object. */
  cells?: (sfx: string) => Record<string, string | RegExp>;
  wideCells?: (sfx: string) => Record<string, string | RegExp>;
  stored?: (o: any, sfx: string) => void;
}

const AGE = /^\d+s$/;
const KINDS: Kind[] = [
  {
    resource: "namespaces", namespaced: false,
    create: (x) => ["create", "namespace", `team-${x}`], name: (x) => `team-${x}`, created: (x) => `namespace/team-${x} created`,
    columns: "NAME STATUS AGE", wide: "NAME STATUS AGE",
    cells: () => ({ STATUS: "Active", AGE }),
    stored: (o) => expect(o.status.phase).toBe("Active"),
  },
  {
    resource: "configmaps", namespaced: true,
    create: () => ["create", "configmap", "app-config", "--from-literal=color=blue", "--from-literal=size=large"],
    name: () => "app-config", created: () => "configmap/app-config created",
    columns: "NAME DATA AGE", wide: "NAME DATA AGE",
    cells: () => ({ DATA: "2", AGE }),
    stored: (o) => expect(o.data).toEqual({ color: "blue", size: "large" }),
  },
  {
    resource: "secrets", namespaced: true,
    create: () => ["create", "secret", "generic", "db-creds", "--from-literal=username=admin", "--from-literal=password=s3cr3t"],
    name: () => "db-creds", created: () => "secret/db-creds created",
    columns: "NAME TYPE DATA AGE", wide: "NAME TYPE DATA AGE",
    cells: () => ({ TYPE: "Opaque", DATA: "2" }),
    stored: (o) => {
      expect(o.type).toBe("Opaque");
      expect(o.data).toEqual({ username: btoa("admin"), password: btoa("s3cr3t") });
    },
  },
  {
    resource: "deployments", namespaced: true,
    create: () => ["create", "deployment", "web", "--image=nginx:1.25", "--replicas=2", "--port=80"],
    name: () => "web", created: () => "deployment.apps/web created",
    columns: "NAME READY UP-TO-DATE AVAILABLE AGE", wide: "NAME READY UP-TO-DATE AVAILABLE AGE CONTAINERS IMAGES SELECTOR",
    cells: () => ({ READY: "0/2", "UP-TO-DATE": "0", AVAILABLE: "0", AGE }),
    wideCells: () => ({ CONTAINERS: "nginx", IMAGES: "nginx:1.25", SELECTOR: "app=web" }),
    stored: (o) => {
      expect(o.spec.replicas).toBe(2);
      expect(o.spec.selector).toEqual({ matchLabels: { app: "web" } });
      expect(o.spec.template.spec.containers[0]).toMatchObject({ name: "nginx", image: "nginx:1.25", ports: [{ containerPort: 80 }] });
    },
  },
  {
    resource: "services", namespaced: true,
    create: () => ["create", "service", "clusterip", "web", "--tcp=80:8080"],
    name: () => "web", created: () => "service/web created",
    columns: "NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE", wide: "NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE SELECTOR",
    cells: () => ({ TYPE: "ClusterIP", "CLUSTER-IP": /^\d+\.\d+\.\d+\.\d+$/, "EXTERNAL-IP": "<none>", "PORT(S)": "80/TCP" }),
    wideCells: () => ({ SELECTOR: "app=web" }),
    stored: (o) => {
      expect(o.spec.type).toBe("ClusterIP");
      expect(o.spec.ports[0]).toMatchObject({ name: "80-8080", port: 80, targetPort: 8080, protocol: "TCP" });
    },
  },
  {
    resource: "jobs", namespaced: true,
    create: () => ["create", "job", "migrate", "--image=busybox:1.36", "--", "echo", "done"],
    name: () => "migrate", created: () => "job.batch/migrate created",
    columns: "NAME COMPLETIONS DURATION AGE", wide: "NAME COMPLETIONS DURATION AGE CONTAINERS IMAGES SELECTOR",
    cells: () => ({ COMPLETIONS: "0/1", AGE }),
    // Upstream's job strategy generates the selector (controller-uid=<uid>) unless spec.manualSelector.
    wideCells: () => ({ CONTAINERS: "migrate", IMAGES: "busybox:1.36", SELECTOR: /^controller-uid=[0-9a-f-]{36}$/ }),
    stored: (o) => expect(o.spec.template.spec.containers[0]).toMatchObject({ name: "migrate", image: "busybox:1.36", command: ["echo", "done"] }),
  },
  {
    resource: "cronjobs", namespaced: true,
    create: () => ["create", "cronjob", "nightly", "--image=busybox:1.36", "--schedule=0 2 * * *", "--", "echo", "hi"],
    name: () => "nightly", created: () => "cronjob.batch/nightly created",
    columns: "NAME SCHEDULE SUSPEND ACTIVE LAST SCHEDULE AGE", wide: "NAME SCHEDULE SUSPEND ACTIVE LAST SCHEDULE AGE CONTAINERS IMAGES SELECTOR",
    // spec.suspend defaults to false upstream, so SUSPEND prints False.
    cells: () => ({ SCHEDULE: "0 2 * * *", SUSPEND: "False", ACTIVE: "0", "LAST SCHEDULE": "<none>", AGE }),
    wideCells: () => ({ CONTAINERS: "nightly", IMAGES: "busybox:1.36" }),
    stored: (o) => {
      expect(o.spec.schedule).toBe("0 2 * * *");
      expect(o.spec.jobTemplate.spec.template.spec.containers[0]).toMatchObject({ image: "busybox:1.36", command: ["echo", "hi"] });
    },
  },
  {
    resource: "roles", namespaced: true,
    create: () => ["create", "role", "pod-reader", "--verb=get,list,watch", "--resource=pods"],
    name: () => "pod-reader", created: () => "role.rbac.authorization.k8s.io/pod-reader created",
    columns: "NAME CREATED AT", wide: "NAME CREATED AT",
    cells: () => ({ "CREATED AT": /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/ }),
    stored: (o) => expect(o.rules).toEqual([{ apiGroups: [""], resources: ["pods"], verbs: ["get", "list", "watch"] }]),
  },
  {
    resource: "rolebindings", namespaced: true,
    create: () => ["create", "rolebinding", "read-pods", "--role=pod-reader", "--user=jane", "--serviceaccount=kube-system:builder"],
    name: () => "read-pods", created: () => "rolebinding.rbac.authorization.k8s.io/read-pods created",
    columns: "NAME ROLE AGE", wide: "NAME ROLE AGE USERS GROUPS SERVICEACCOUNTS",
    cells: () => ({ ROLE: "Role/pod-reader", AGE }),
    wideCells: () => ({ USERS: "jane", GROUPS: "", SERVICEACCOUNTS: "kube-system/builder" }),
    stored: (o) => expect(o.roleRef).toEqual({ apiGroup: "rbac.authorization.k8s.io", kind: "Role", name: "pod-reader" }),
  },
  {
    resource: "clusterroles", namespaced: false,
    create: (x) => ["create", "clusterrole", `node-reader-${x}`, "--verb=get,list", "--resource=nodes"],
    name: (x) => `node-reader-${x}`, created: (x) => `clusterrole.rbac.authorization.k8s.io/node-reader-${x} created`,
    columns: "NAME CREATED AT", wide: "NAME CREATED AT",
    cells: () => ({ "CREATED AT": /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/ }),
    stored: (o) => expect(o.rules).toEqual([{ apiGroups: [""], resources: ["nodes"], verbs: ["get", "list"] }]),
  },
  {
    resource: "clusterrolebindings", namespaced: false,
    create: (x) => ["create", "clusterrolebinding", `read-nodes-${x}`, `--clusterrole=node-reader-${x}`, "--group=ops"],
    name: (x) => `read-nodes-${x}`, created: (x) => `clusterrolebinding.rbac.authorization.k8s.io/read-nodes-${x} created`,
    columns: "NAME ROLE AGE", wide: "NAME ROLE AGE USERS GROUPS SERVICEACCOUNTS",
    cells: (x) => ({ ROLE: `ClusterRole/node-reader-${x}`, AGE }),
    wideCells: () => ({ USERS: "", GROUPS: "ops", SERVICEACCOUNTS: "" }),
    stored: (o) => expect(o.subjects).toEqual([{ apiGroup: "rbac.authorization.k8s.io", kind: "Group", name: "ops" }]),
  },
  {
    resource: "serviceaccounts", namespaced: true,
    create: () => ["create", "serviceaccount", "builder"],
    name: () => "builder", created: () => "serviceaccount/builder created",
    columns: "NAME SECRETS AGE", wide: "NAME SECRETS AGE",
    cells: () => ({ SECRETS: /^\d+$/, AGE }),
  },
  {
    resource: "priorityclasses", namespaced: false,
    create: (x) => ["create", "priorityclass", `high-${x}`, "--value=1000", "--description=important workloads"],
    name: (x) => `high-${x}`, created: (x) => `priorityclass.scheduling.k8s.io/high-${x} created`,
    columns: "NAME VALUE GLOBAL-DEFAULT AGE", wide: "NAME VALUE GLOBAL-DEFAULT AGE",
    cells: () => ({ VALUE: "1000", "GLOBAL-DEFAULT": "false", AGE }),
    stored: (o) => {
      expect(o.value).toBe(1000);
      expect(o.description).toBe("important workloads");
    },
  },
  {
    resource: "resourcequotas", namespaced: true,
    create: () => ["create", "quota", "compute", "--hard=cpu=4,memory=8Gi,pods=10"],
    name: () => "compute", created: () => "resourcequota/compute created",
    columns: "NAME AGE REQUEST LIMIT", wide: "NAME AGE REQUEST LIMIT",
    cells: () => ({ AGE }),
    stored: (o) => expect(o.spec.hard).toEqual({ cpu: "4", memory: "8Gi", pods: "10" }),
  },
  {
    resource: "poddisruptionbudgets", namespaced: true,
    create: () => ["create", "poddisruptionbudget", "web-pdb", "--selector=app=web", "--min-available=1"],
    name: () => "web-pdb", created: () => "poddisruptionbudget.policy/web-pdb created",
    columns: "NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE", wide: "NAME MIN AVAILABLE MAX UNAVAILABLE ALLOWED DISRUPTIONS AGE",
    cells: () => ({ "MIN AVAILABLE": "1", "MAX UNAVAILABLE": "N/A", "ALLOWED DISRUPTIONS": "0", AGE }),
    stored: (o) => {
      expect(o.spec.minAvailable).toBe(1);
      expect(o.spec.selector).toEqual({ matchLabels: { app: "web" } });
    },
  },
  {
    resource: "ingresses", namespaced: true,
    create: () => ["create", "ingress", "web", "--rule=web.example.com/*=web:80"],
    name: () => "web", created: () => "ingress.networking.k8s.io/web created",
    columns: "NAME CLASS HOSTS ADDRESS PORTS AGE", wide: "NAME CLASS HOSTS ADDRESS PORTS AGE",
    cells: () => ({ CLASS: "<none>", HOSTS: "web.example.com", ADDRESS: "", PORTS: "80", AGE }),
    stored: (o) => expect(o.spec.rules).toEqual([{
      host: "web.example.com",
      http: { paths: [{ path: "/", pathType: "Prefix", backend: { service: { name: "web", port: { number: 80 } } } }] },
    }]),
  },
];

/** Namespaced kinds go to the namespace the first command creates (team-<sfx>). */
const nsArgs = (k: Kind, sfx: string) => (k.namespaced ? ["-n", `team-${sfx}`] : []);

function expectCells(r: Run, k: Kind, sfx: string, want: Record<string, string | RegExp> | undefined, ns?: string): void {
  if (!want) return;
  const row = rowOf(r, k.name(sfx), ns);
  for (const [col, v] of Object.entries(want)) {
    const got = row[col];
    const fine = typeof v === "string" ? got === v : v.test(got ?? "");
    if (!fine) throw new Error(`\`${r.cmd}\`: column ${col} of ${k.name(sfx)} is ${JSON.stringify(got)}, upstream prints ${v instanceof RegExp ? v : JSON.stringify(v)}\n${r.out}`);
  }
}

const apiPath = (k: Kind, sfx: string): string => {
  const gv: Record<string, string> = {
    deployments: "/apis/apps/v1", jobs: "/apis/batch/v1", cronjobs: "/apis/batch/v1", roles: "/apis/rbac.authorization.k8s.io/v1",
    rolebindings: "/apis/rbac.authorization.k8s.io/v1", clusterroles: "/apis/rbac.authorization.k8s.io/v1",
    clusterrolebindings: "/apis/rbac.authorization.k8s.io/v1", priorityclasses: "/apis/scheduling.k8s.io/v1",
    poddisruptionbudgets: "/apis/policy/v1", ingresses: "/apis/networking.k8s.io/v1",
  };
  return `${gv[k.resource] ?? "/api/v1"}${k.namespaced ? `/namespaces/team-${sfx}` : ""}/${k.resource}/${k.name(sfx)}`;
};

// ---- the kubectl on PATH: one test per kind and per view

describe("kubectl on PATH", () => {
  const KC = "kubectl";
  const SFX = "path";

  for (const k of KINDS) {
    test(`kubectl create ${k.create(SFX).slice(1, k.resource === "secrets" || k.resource === "services" ? 3 : 2).join(" ")}`, async () => {
      const r = ok(await run(KC, [...nsArgs(k, SFX), ...k.create(SFX)]));
      expect(r.out.trim()).toBe(k.created(SFX));
      const got = await s.call("GET", apiPath(k, SFX));
      if (got.status !== 200) throw new Error(`GET ${apiPath(k, SFX)} after \`${r.cmd}\`: HTTP ${got.status}: ${JSON.stringify(got.body)}`);
      k.stored?.(got.body, SFX);
    });
  }

  for (const k of KINDS) {
    test(`kubectl get ${k.resource}: ${k.columns}`, async () => {
      const r = ok(await run(KC, [...nsArgs(k, SFX), "get", k.resource]));
      expect(header(r)).toBe(k.columns);
      expectCells(r, k, SFX, k.cells?.(SFX));
    });
  }

  for (const k of KINDS) {
    test(`kubectl get ${k.resource} -o wide: ${k.wide}`, async () => {
      const r = ok(await run(KC, [...nsArgs(k, SFX), "get", k.resource, "-o", "wide"]));
      expect(header(r)).toBe(k.wide);
      expectCells(r, k, SFX, { ...k.cells?.(SFX), ...k.wideCells?.(SFX) });
    });
  }

  for (const k of KINDS) {
    test(`kubectl get ${k.resource} -A${k.namespaced ? " fills NAMESPACE" : " (cluster-scoped: no NAMESPACE)"}`, async () => {
      const r = ok(await run(KC, ["get", k.resource, "-A"]));
      expect(header(r)).toBe(k.namespaced ? `NAMESPACE ${k.columns}` : k.columns);
      if (k.namespaced) {
        const row = rowOf(r, k.name(SFX), `team-${SFX}`);
        expect(row.NAMESPACE).toBe(`team-${SFX}`);
        // Every row names its namespace (kubectl reads it from rows[].object.metadata).
        for (const x of parseTables(r.out)[0].rows) expect(x.NAMESPACE).not.toBe("");
      } else {
        rowOf(r, k.name(SFX));
      }
    });
  }

  test("kubectl get <name> of each kind prints the same columns", async () => {
    for (const k of KINDS) {
      const r = ok(await run(KC, [...nsArgs(k, SFX), "get", k.resource, k.name(SFX)]));
      expect(`${k.resource}: ${header(r)}`).toBe(`${k.resource}: ${k.columns}`);
      expect(parseTables(r.out)[0].rows).toHaveLength(1);
    }
  });
});

// ---- every kubectl build present: the same commands, in a namespace of its own

describe("kubectl builds under google-cloud-sdk", () => {
  if (BUILDS.length === 0) test.skip(`no kubectl.1.* builds in ${SDK_BIN}`, () => {});
  for (const build of BUILDS) {
    const bin = join(SDK_BIN, build);
    const sfx = build.replace("kubectl.", "v").replace(".", "-"); // v1-27
    test(`${build}: create every kind; get prints upstream's columns, -o wide and -A included`, async () => {
      const failures: string[] = [];
      const check = (what: string, fn: () => void) => {
        try { fn(); } catch (e) { failures.push(`${what}: ${(e as Error).message.split("\n").slice(0, 6).join("\n  ")}`); }
      };
      for (const k of KINDS) {
        const r = await run(bin, [...nsArgs(k, sfx), ...k.create(sfx)]);
        check(`create ${k.resource}`, () => {
          ok(r);
          expect(r.out.trim()).toBe(k.created(sfx));
        });
      }
      const namespaced = KINDS.filter((k) => k.namespaced);
      const cluster = KINDS.filter((k) => !k.namespaced);
      // One `get` per view, every kind at once: kubectl prints one table per kind, in the order asked.
      const views: [string, string[], Kind[], (k: Kind) => string][] = [
        ["get", ["-n", `team-${sfx}`, "get", namespaced.map((k) => k.resource).join(",")], namespaced, (k) => k.columns],
        ["get -o wide", ["-n", `team-${sfx}`, "get", namespaced.map((k) => k.resource).join(","), "-o", "wide"], namespaced, (k) => k.wide],
        ["get -A", ["get", "-A", namespaced.map((k) => k.resource).join(",")], namespaced, (k) => `NAMESPACE ${k.columns}`],
        ["get (cluster-scoped)", ["get", ...cluster.map((k) => `${k.resource}/${k.name(sfx)}`)], cluster, (k) => k.columns],
        ["get -o wide (cluster-scoped)", ["get", "-o", "wide", ...cluster.map((k) => `${k.resource}/${k.name(sfx)}`)], cluster, (k) => k.wide],
      ];
      for (const [label, args, kinds, cols] of views) {
        const r = await run(bin, args);
        check(label, () => {
          ok(r);
          const tables = parseTables(r.out);
          expect(tables.map((t) => t.header.join(" "))).toEqual(kinds.map(cols));
          if (label === "get -A") {
            tables.forEach((t, i) => {
              // the objects the server keeps in every namespace are there too
              const mine = t.rows.filter((x) => x.NAMESPACE === `team-${sfx}` && x.NAME.split("/").pop() !== SERVER_KEPT[kinds[i].resource]);
              expect(`${kinds[i].resource}: ${mine.map((x) => x.NAME.split("/").pop()).join(",")}`).toBe(`${kinds[i].resource}: ${kinds[i].name(sfx)}`);
              for (const x of t.rows) expect(x.NAMESPACE).not.toBe("");
            });
          }
        });
      }
      if (failures.length) throw new Error(`${build} (${failures.length} problems):\n${failures.join("\n")}`);
    }, 120_000);
  }
});
