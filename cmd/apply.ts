// kite apply: flags → ApplyOptions; pkg/cli/apply.ts does the work.
import { defineCommand } from "citty";
import { UsageError, oneOf } from "../pkg/cli/args.ts";
import { runApply } from "../pkg/cli/apply.ts";
import { clientCommand, clientFlags, globalArgs } from "../pkg/cli/flags.ts";

const args = {
  filename: { type: "string", alias: "f", multiple: true, description: "Manifest file, directory (its .yaml, .yml and .json files), http(s) URL, or - for stdin; repeatable" },
  recursive: { type: "boolean", alias: "R", description: "Process directories given with -f recursively" },
  "server-side": { type: "boolean", default: true, description: "Apply on the server (server-side apply); --server-side=false applies client-side with the kubectl.kubernetes.io/last-applied-configuration annotation. A server without server-side apply gets client-side apply, with a warning" },
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
    description: "Create or update objects from manifests (multi-document YAML, JSON, Lists), like kubectl apply, printing kind/name created|configured|unchanged|serverside-applied. Examples: kite apply -f app.yaml; kite apply -R -f k8s/; cat x.yaml | kite apply -f -",
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
