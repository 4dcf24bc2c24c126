// kite version: the client's version (the server's comes with the CLI issue).
import { defineCommand } from "citty";
import { strict } from "../pkg/cli/args.ts";
import { KITE_VERSION, VERSION_INFO } from "../pkg/version.ts";

const args = {} as const;

export default defineCommand({
  meta: { name: "version", description: "Print the kite version and the Kubernetes API version it serves" },
  args,
  run: strict("version", args, () => {
    console.log(`kite ${KITE_VERSION} (Kubernetes API ${VERSION_INFO.gitVersion.split("+")[0]}, ${VERSION_INFO.platform})`);
  }),
});
