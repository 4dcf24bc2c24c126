// Every command in the command table has an end-to-end test (the type makes a new command without one
// a compile error), and every command's --help runs and describes it.
import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { COMMANDS, type CommandName } from "../../cmd/commands.ts";
import { KITE, ROOT } from "../helpers/server.ts";

const TESTS: Record<CommandName, string[]> = {
  apiserver: ["test/api/server-flags.test.ts", "test/api/health.test.ts"],
  up: ["test/e2e/up.test.ts"],
  get: ["test/e2e/cli-get.test.ts"],
  apply: ["test/e2e/cli-apply.test.ts"],
  delete: ["test/e2e/cli-delete.test.ts"],
  datastore: ["test/e2e/datastore.test.ts"],
  version: ["test/e2e/version.test.ts"],
};

for (const name of Object.keys(COMMANDS) as CommandName[]) {
  test(`kite ${name}: has end-to-end tests and a truthful --help`, () => {
    for (const f of TESTS[name]) expect(existsSync(join(ROOT, f))).toBe(true);
    const r = Bun.spawnSync([...KITE, name, "--help"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.toString()).toContain(`kite ${name}`);
  });
}
