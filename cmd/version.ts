// kite version: client and server versions.
import { defineCommand } from "citty";
import { clientCommand, clientFlags, globalArgs } from "../pkg/cli/flags.ts";
import { runVersion } from "../pkg/cli/version.ts";

const args = {
  client: { type: "boolean", description: "Print only the client version (no server needed)" },
  ...globalArgs,
} as const;

export default defineCommand({
  meta: { name: "version", description: "Print the kite version, and the server's version when one is reachable" },
  args,
  run: clientCommand("version", args, ({ values: v }) => runVersion(clientFlags(v), !!v.client)),
});
