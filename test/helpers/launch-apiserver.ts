// The body of a startServer launcher (`bun LAUNCHER.ts apiserver --flags...`): `kite apiserver` from source
// in this process, with options a test changes beyond its flags, stopped cleanly on SIGTERM and SIGINT.
import { parseArgs } from "citty";
import { args, toOptions } from "../../cmd/apiserver.ts";
import { ApiServer, type ApiServerOptions } from "../../pkg/server/apiserver.ts";

export async function launchApiServer(overrides: Partial<ApiServerOptions> = {}): Promise<void> {
  const flags = parseArgs(process.argv.slice(3), args as any) as Record<string, any>;
  const server = new ApiServer({ ...toOptions(flags), ...overrides });
  await server.start();
  const stop = async () => {
    await server.shutdown();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
}
