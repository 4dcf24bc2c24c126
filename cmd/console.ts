// kite console: a live web view of the cluster of the current kubeconfig context (pkg/console).
import { defineCommand } from "citty";
import { consola } from "consola";
import { int } from "../pkg/cli/args.ts";
import { clientCommand, clientFlags, globalArgs } from "../pkg/cli/flags.ts";
import { loadClientConfig } from "../pkg/client/kubeconfig.ts";
import { Transport } from "../pkg/client/transport.ts";
import { startConsole } from "../pkg/console/server/serve.ts";

const args = {
  port: { type: "string", default: "8001", description: "The port to serve the console on (0 picks a free one)" },
  address: { type: "string", default: "127.0.0.1", description: "The address to serve on; anything but loopback lets other machines try to reach the console (each request still needs this start's token)" },
  open: { type: "boolean", description: "Open the console in the default web browser" },
  ...globalArgs,
} as const;

export default defineCommand({
  meta: {
    name: "console",
    description: "Serve a live web view of the cluster of the current kubeconfig context (or --kubeconfig/--context): workloads, pods, logs, a terminal into containers, events, custom resources, YAML editing. It opens in the context's namespace (or -n's). The page calls the API with the kubeconfig's credentials through this process, as kubectl proxy does; only a browser that opened the printed address (it carries a token made for this start) gets an answer.",
  },
  args,
  run: clientCommand("console", args, async ({ values: v }) => {
    const port = int("port", String(v.port), 0, 65535);
    const config = await loadClientConfig(clientFlags(v));
    let running;
    try {
      running = startConsole({ transport: new Transport(config), address: v.address, port, namespace: config.namespace });
    } catch (e) {
      console.error(`error: cannot serve the console on ${v.address}:${port}: ${(e as Error).message}`);
      return 1;
    }
    console.log(`kite console for ${config.server}${config.context ? ` (context ${config.context})` : ""}:\n  ${running.url}\nCtrl-C stops it.`);
    if (v.open) openBrowser(running.url);
    await new Promise<void>((resolve) => {
      const stop = () => void running.stop().then(resolve);
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
  }),
});

/** The platform's opener; a missing one is only a warning, the address is printed anyway. */
function openBrowser(url: string) {
  const cmd = process.platform === "darwin" ? ["open", url] : process.platform === "win32" ? ["cmd", "/c", "start", "", url] : ["xdg-open", url];
  try {
    Bun.spawn(cmd, { stdout: "ignore", stderr: "ignore" });
  } catch {
    consola.warn(`could not open a browser (${cmd[0]}): open ${url} yourself`);
  }
}
