// `kite apiserver` with the server's own namespace controller and garbage collector off, as `kite up` runs
// it beside a controller-manager: tests of the controller-manager's versions use it to show those alone do
// the work. Spawned as startServer's launcher (`bun apiserver-alone.ts apiserver --flags...`).
import { parseArgs } from "citty";
import { args, toOptions } from "../../cmd/apiserver.ts";
import { ApiServer } from "../../pkg/server/apiserver.ts";

const flags = parseArgs(process.argv.slice(3), args as any) as Record<string, any>;
const server = new ApiServer({ ...toOptions(flags), namespaceAndGCControllers: false });
await server.start();
const stop = async () => {
  await server.shutdown();
  process.exit(0);
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
