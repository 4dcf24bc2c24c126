#!/usr/bin/env bun
// kite: one binary, many commands (the table is cmd/commands.ts).
import { defineCommand, runMain } from "citty";
import { KITE_VERSION } from "../pkg/version.ts";
import { COMMANDS } from "./commands.ts";

const main = defineCommand({
  meta: { name: "kite", version: KITE_VERSION, description: "A Kubernetes-compatible control plane in one binary" },
  subCommands: COMMANDS,
});

const argv = process.argv.slice(2);
if (argv.length === 0) argv.push("--help");
const first = argv[0];
if (!first.startsWith("-") && !(first in COMMANDS)) {
  console.error(`Error: unknown command "${first}" for "kite" (see 'kite --help')`);
  process.exit(2);
}
void runMain(main, { rawArgs: argv });
