#!/usr/bin/env bun
// kite: one binary, many commands (the table is cmd/commands.ts).
// First of all: @peculiar/x509's dependency injection needs the Reflect polyfill loaded before it, and the
// bundler's split chunks do not keep the order of the modules that import both.
import "reflect-metadata";
import { type ArgsDef, type CommandDef, defineCommand, renderUsage, runMain } from "citty";
import { stripVTControlCharacters } from "node:util";
import { hoistGlobalFlags, isGlobalFlag } from "../pkg/cli/flags.ts";
import { KITE_VERSION } from "../pkg/version.ts";
import { exitWithError } from "../pkg/cli/args.ts";
import { COMMANDS } from "./commands.ts";

const main = defineCommand({
  meta: { name: "kite", version: KITE_VERSION, description: "A Kubernetes-compatible control plane in one binary" },
  subCommands: COMMANDS,
});

/** --help in colour on a terminal only: piped, redirected or with NO_COLOR set it is plain text. */
const plain = !process.stdout.isTTY || !!process.env.NO_COLOR;
async function showUsage<T extends ArgsDef = ArgsDef>(cmd: CommandDef<T>, parent?: CommandDef<T>) {
  const text = await renderUsage(cmd, parent);
  console.log(`${plain ? stripVTControlCharacters(text) : text}\n`);
}

function usageError(message: string): never {
  exitWithError(`${message} (see 'kite --help')`, 2);
}

// kubectl's global flags may come before the command (`kite -n prod get pods`).
const argv = hoistGlobalFlags(process.argv.slice(2));
if (argv.length === 0) argv.push("--help");
const first = argv[0];
if (first.startsWith("-") && !["--help", "-h", "--version"].includes(first)) {
  usageError(isGlobalFlag(first) ? `no command after ${first}` : `unknown flag: ${first.split("=")[0]} for "kite"`);
}
if (!first.startsWith("-") && !(first in COMMANDS)) usageError(`unknown command "${first}" for "kite"`);
void runMain(main, { rawArgs: argv, showUsage });
