// kite get: flags → GetOptions; pkg/cli/get.ts does the work.
import { defineCommand } from "citty";
import { int } from "../pkg/cli/args.ts";
import { clientCommand, clientFlags, globalArgs } from "../pkg/cli/flags.ts";
import { runGet } from "../pkg/cli/get.ts";

const args = {
  resources: { type: "positional", required: false, description: "TYPE[.VERSION][.GROUP][,TYPE...] [NAME...] or TYPE/NAME...; 'all' means the types in the \"all\" category" },
  "all-namespaces": { type: "boolean", alias: "A", description: "List the requested objects across all namespaces (the namespace in context is ignored)" },
  selector: { type: "string", alias: "l", description: "Label selector to filter on, e.g. -l key1=value1,key2=value2 (=, ==, !=, in, notin, exists)" },
  "field-selector": { type: "string", description: "Field selector to filter on, e.g. --field-selector metadata.name=x (=, ==, !=)" },
  output: { type: "string", alias: "o", description: "Output format: wide, yaml, json, name, jsonpath=TEMPLATE, custom-columns=HEADER:PATH[,...] (default: the server's table)" },
  watch: { type: "boolean", alias: "w", description: "After listing/getting the requested object(s), watch for changes (one type only)" },
  "watch-only": { type: "boolean", description: "Watch for changes to the requested object(s), without listing/getting first" },
  "output-watch-events": { type: "boolean", description: "With --watch, add a column (or wrapper object) with the event type" },
  "chunk-size": { type: "string", default: "500", description: "Return large lists in chunks of this many objects rather than all at once (0 disables; --sort-by reads everything at once)" },
  "show-labels": { type: "boolean", description: "Show all labels as the last column (table output)" },
  "show-kind": { type: "boolean", description: "Print the resource type with each name (kind/name)" },
  "label-columns": { type: "string", alias: "L", multiple: true, description: "Labels to present as columns, comma-separated or repeated (-L app -L tier)" },
  "sort-by": { type: "string", description: "Sort by a JSONPath expression, e.g. '{.metadata.name}' or .metadata.creationTimestamp" },
  "show-managed-fields": { type: "boolean", description: "Keep metadata.managedFields when printing objects (yaml, json, jsonpath, custom-columns)" },
  "no-headers": { type: "boolean", description: "Do not print headers (table and custom-columns output)" },
  "ignore-not-found": { type: "boolean", description: "Do not report objects that do not exist (and print nothing when none are found)" },
  ...globalArgs,
} as const;

export default defineCommand({
  meta: {
    name: "get",
    description: "Display one or many resources, as kubectl get does (e.g. kite get pods,svc -A; kite get deploy/web -o yaml)",
  },
  args,
  run: clientCommand("get", args, ({ values: v, positionals }) => runGet({
    args: positionals,
    allNamespaces: !!v["all-namespaces"],
    labelSelector: v.selector || undefined,
    fieldSelector: v["field-selector"] || undefined,
    output: v.output ?? "",
    watch: !!v.watch,
    watchOnly: !!v["watch-only"],
    outputWatchEvents: !!v["output-watch-events"],
    chunkSize: int("chunk-size", String(v["chunk-size"]), 0),
    showLabels: !!v["show-labels"],
    showKind: !!v["show-kind"],
    noHeaders: !!v["no-headers"],
    ignoreNotFound: !!v["ignore-not-found"],
    labelColumns: v["label-columns"] ?? [],
    sortBy: v["sort-by"] || undefined,
    showManagedFields: !!v["show-managed-fields"],
  }, clientFlags(v))),
});
