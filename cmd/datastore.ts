// kite datastore export|import: move a cluster's stored objects between stores (SQLite ⇄ etcd); pkg/datastore does the work.
import { defineCommand } from "citty";
import { strict } from "../pkg/cli/args.ts";
import { FORMAT_HELP, runExport, runImport, storeArgs } from "../pkg/datastore/cli.ts";

const exportArgs = {
  ...storeArgs,
  output: { type: "string", alias: "o", description: "File to write (default: stdout; '-' is stdout too)" },
  "chunk-size": { type: "string", description: "Objects per list request to the store (default 500 on etcd, 5000 on SQLite)" },
} as const;

const importArgs = {
  ...storeArgs,
  filename: { type: "string", alias: "f", description: "File to read, as written by 'kite datastore export' (default: stdin; '-' is stdin too)" },
  concurrency: { type: "string", default: "64", description: "Objects written to the store at once" },
} as const;

const exportCmd = defineCommand({
  meta: {
    name: "export",
    description: `Write every object of a store (SQLite data dir or etcd) to stdout or -o FILE, with progress and a summary on stderr. The server may be running: the store is read at one revision, a consistent snapshot. ${FORMAT_HELP} Example: kite datastore export --data-dir ~/.kite/server -o cluster.jsonl`,
  },
  args: exportArgs,
  run: strict("datastore export", exportArgs, async ({ args }: { args: Record<string, any> }) => {
    process.exitCode = await runExport(args);
  }),
});

const importCmd = defineCommand({
  meta: {
    name: "import",
    description: `Read objects written by 'kite datastore export' (from stdin or -f FILE) into an EMPTY store of either backend; a store that holds any object under the prefix is refused (exit 1), and a malformed file is refused before anything is written. Start no server on the target until the import is done. ${FORMAT_HELP} Example: kite datastore import --etcd-servers http://127.0.0.1:2379 -f cluster.jsonl`,
  },
  args: importArgs,
  run: strict("datastore import", importArgs, async ({ args }: { args: Record<string, any> }) => {
    process.exitCode = await runImport(args);
  }),
});

export default defineCommand({
  meta: { name: "datastore", description: "Move a cluster's stored objects between stores: export from one (SQLite or etcd), import into an empty one" },
  subCommands: { export: exportCmd, import: importCmd },
});
