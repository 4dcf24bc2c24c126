// kite delete: flags → DeleteOptions; pkg/cli/delete.ts does the work.
import { defineCommand } from "citty";
import { duration, int, oneOf } from "../pkg/cli/args.ts";
import { clientCommand, clientFlags, globalArgs } from "../pkg/cli/flags.ts";
import { runDelete } from "../pkg/cli/delete.ts";
import { errLine } from "../pkg/cli/output.ts";

const args = {
  resources: { type: "positional", required: false, description: "TYPE NAME..., TYPE/NAME..., or TYPE with -l/--field-selector/--all" },
  filename: { type: "string", alias: "f", multiple: true, description: "Delete the objects in these manifests (file, directory, URL or - for stdin); repeatable" },
  recursive: { type: "boolean", alias: "R", description: "Process directories given with -f recursively" },
  selector: { type: "string", alias: "l", description: "Delete the objects matching this label selector" },
  "field-selector": { type: "string", description: "Delete the objects matching this field selector" },
  all: { type: "boolean", description: "Delete all objects of the given types in the namespace" },
  "all-namespaces": { type: "boolean", alias: "A", description: "With -l, --field-selector or --all: select across all namespaces" },
  wait: { type: "boolean", default: true, description: "Wait until the objects are gone (finalizers done) before returning; --wait=false returns at once" },
  timeout: { type: "string", default: "0s", description: "How long to wait for the deletion (0s: no limit), e.g. 30s, 2m" },
  "grace-period": { type: "string", default: "-1", description: "Seconds an object gets to terminate gracefully (-1: the type's default; 0 only with --force, else it becomes 1)" },
  now: { type: "boolean", description: "Signal the objects to stop at once (grace period 1)" },
  force: { type: "boolean", description: "With --grace-period=0: remove at once, without waiting for confirmation of termination" },
  cascade: { type: "string", default: "background", description: "What happens to dependents: background, foreground (wait for them) or orphan (keep them)" },
  "ignore-not-found": { type: "boolean", description: "Treat objects that do not exist as deleted (no error)" },
  "dry-run": { type: "string", default: "none", description: "none, server (the server checks without deleting) or client (only print what would be deleted)" },
  output: { type: "string", alias: "o", description: "'name' prints only kind/name per deleted object" },
  ...globalArgs,
} as const;

export default defineCommand({
  meta: {
    name: "delete",
    description: "Delete objects by name, selector, --all or manifest, as kubectl delete does, and wait until they are gone (e.g. kite delete pod web)",
  },
  args,
  run: clientCommand("delete", args, async ({ values: v, positionals }) => {
    let cascade = String(v.cascade);
    if (cascade === "true" || cascade === "false") {
      await errLine(`warning: --cascade=${cascade} is deprecated (boolean value) and can be replaced with --cascade=${cascade === "true" ? "background" : "orphan"}.`);
      cascade = cascade === "true" ? "background" : "orphan";
    }
    const output = v.output ?? "";
    if (output !== "") oneOf("output", output, ["name"]);
    return runDelete({
      args: positionals,
      filenames: v.filename ?? [],
      recursive: !!v.recursive,
      labelSelector: v.selector || undefined,
      fieldSelector: v["field-selector"] || undefined,
      all: !!v.all,
      allNamespaces: !!v["all-namespaces"],
      wait: v.wait !== false,
      timeoutMs: duration("timeout", String(v.timeout)),
      gracePeriod: int("grace-period", String(v["grace-period"]), -1),
      now: !!v.now,
      force: !!v.force,
      cascade: oneOf("cascade", cascade, ["background", "foreground", "orphan"]) as "background",
      ignoreNotFound: !!v["ignore-not-found"],
      dryRun: oneOf("dry-run", v["dry-run"] === "" ? "client" : String(v["dry-run"]), ["none", "server", "client"]) as "none",
      output: output as "" | "name",
    }, clientFlags(v));
  }),
});
