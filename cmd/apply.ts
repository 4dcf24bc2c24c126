// kite apply: flags → ApplyOptions; pkg/cli/apply.ts does the work.
import { defineCommand } from "citty";
import { UsageError, oneOf } from "../pkg/cli/args.ts";
import { runApply } from "../pkg/cli/apply.ts";
import { clientCommand, clientFlags, globalArgs } from "../pkg/cli/flags.ts";

const args = {
  filename: { type: "string", alias: "f", multiple: true, description: "Manifest file, directory (its .yaml, .yml and .json files), http(s) URL, or - for stdin; repeatable" },
  recursive: { type: "boolean", alias: "R", description: "Process directories given with -f recursively" },
  "server-side": { type: "boolean", default: true, description: "Server-side apply; =false: client-side apply with the last-applied annotation (also used, with a warning, if the server lacks server-side apply)" },
  "field-manager": { type: "string", default: "kite", description: "Name of the manager that owns the applied fields" },
  "force-conflicts": { type: "boolean", description: "Server-side apply: take over fields that other managers own instead of failing" },
  "dry-run": { type: "string", default: "none", description: "none, server (the server checks and answers without saving), or client (only compute; client-side apply only)" },
  output: { type: "string", alias: "o", description: "'name' prints only kind/name per object" },
  validate: { type: "string", description: "Accepted for kubectl compatibility and ignored: the server validates every object" },
  ...globalArgs,
} as const;

export default defineCommand({
  meta: {
    name: "apply",
    description: "Create or update objects from manifests, as kubectl apply does (e.g. kite apply -f app.yaml; kite apply -R -f k8s/)",
  },
  args,
  run: clientCommand("apply", args, ({ values: v, positionals }) => {
    if (positionals.length) throw new UsageError(`unexpected arguments: ${positionals.join(" ")} (use -f to name manifests)`);
    const dryRun = v["dry-run"] === "" ? "client" : oneOf("dry-run", v["dry-run"], ["none", "server", "client"]);
    const output = v.output ?? "";
    if (output !== "" && output !== "name") throw new UsageError(`invalid argument "${output}" for "--output" flag: only 'name' is supported by apply`);
    return runApply({
      filenames: v.filename ?? [],
      recursive: !!v.recursive,
      serverSide: v["server-side"] !== false,
      fieldManager: v["field-manager"] || "kite",
      forceConflicts: !!v["force-conflicts"],
      dryRun: dryRun as "none" | "server" | "client",
      output,
    }, clientFlags(v));
  }),
});
