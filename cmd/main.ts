#!/usr/bin/env bun
// kite: one binary, many commands. Each subcommand loads lazily from its own file.
import { defineCommand, runMain } from "citty";
import { KITE_VERSION } from "../pkg/version.ts";

const main = defineCommand({
  meta: { name: "kite", version: KITE_VERSION, description: "A Kubernetes-compatible control plane in one binary" },
  subCommands: {
    apiserver: () => import("./apiserver.ts").then((m) => m.default),
    up: () => import("./up.ts").then((m) => m.default),
    version: () => import("./version.ts").then((m) => m.default),
    get: () => import("./get.ts").then((m) => m.default),
    apply: () => import("./apply.ts").then((m) => m.default),
    delete: () => import("./delete.ts").then((m) => m.default),
    datastore: () => import("./datastore.ts").then((m) => m.default),
  },
});

const argv = process.argv.slice(2);
if (argv.length === 0) argv.push("--help");
const first = argv[0];
if (!first.startsWith("-") && !(first in (main.subCommands as Record<string, unknown>))) {
  console.error(`Error: unknown command "${first}" for "kite" (see 'kite --help')`);
  process.exit(2);
}
void runMain(main, { rawArgs: argv });
