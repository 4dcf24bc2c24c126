// Every command in the command table has an end-to-end test (the type makes a new command without one
// a compile error), and every command's --help runs and describes it, in plain text when piped.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { COMMANDS, type CommandName } from "../../cmd/commands.ts";
import { KITE, ROOT } from "../helpers/server.ts";

const TESTS: Record<CommandName, string[]> = {
  apiserver: ["test/api/server-flags.test.ts", "test/api/health.test.ts", "test/api/startup.test.ts"],
  up: ["test/e2e/up.test.ts", "test/api/startup.test.ts"],
  get: ["test/e2e/cli-get.test.ts", "test/e2e/cli-input.test.ts"],
  apply: ["test/e2e/cli-apply.test.ts", "test/e2e/cli-input.test.ts"],
  delete: ["test/e2e/cli-delete.test.ts", "test/e2e/cli-input.test.ts"],
  convert: ["test/e2e/cli-convert.test.ts", "test/unit/convert-golden.test.ts"],
  console: ["test/e2e/console.test.ts"],
  datastore: ["test/e2e/datastore.test.ts"],
  scheduler: ["test/scheduler/options.test.ts", "test/scheduler/serving.test.ts"],
  version: ["test/e2e/version.test.ts"],
  "node-agent": ["test/nodeagent/node.test.ts", "test/nodeagent/pods.test.ts", "test/nodeagent/servers-auth.test.ts", "test/nodeagent/logs-kubectl.test.ts"],
  "controller-manager": ["test/controllers/manager.test.ts"],
};

for (const name of Object.keys(COMMANDS) as CommandName[]) {
  test(`kite ${name}: has end-to-end tests and a truthful --help`, () => {
    for (const f of TESTS[name]) expect(existsSync(join(ROOT, f))).toBe(true);
    const r = Bun.spawnSync([...KITE, name, "--help"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.toString()).toContain(`kite ${name}`);
    expect(r.stdout.toString()).not.toContain("\x1b[");
  });
}

test("kite --help: plain text through a pipe; colour on a terminal unless NO_COLOR is set", () => {
  const piped = Bun.spawnSync([...KITE, "--help"], { env: { ...process.env, NO_COLOR: "" } });
  expect(piped.stdout.toString()).toContain("USAGE kite");
  expect(piped.stdout.toString()).not.toContain("\x1b[");
  // A terminal, through util-linux's script(1) where it exists.
  if (!Bun.which("script")) return;
  const onTty = (env: Record<string, string>) =>
    Bun.spawnSync(["script", "-qec", [...KITE, "--help"].map((a) => `'${a}'`).join(" "), "/dev/null"], { env: { ...process.env, ...env } }).stdout.toString();
  // (citty also turns colour off for CI, TEST and TERM=dumb)
  expect(onTty({ NO_COLOR: "", CI: "", TEST: "", TERM: "xterm" })).toContain("\x1b[");
  expect(onTty({ NO_COLOR: "true" })).not.toContain("\x1b[");
});
