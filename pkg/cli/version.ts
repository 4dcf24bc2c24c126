// kite version: the client's version, and the server's when one is reachable.
import { Client } from "../client/client.ts";
import type { KubeconfigFlags } from "../client/kubeconfig.ts";
import { formatError } from "../client/errors.ts";
import { KITE_VERSION, VERSION_INFO } from "../version.ts";

export async function runVersion(flags: KubeconfigFlags, clientOnly: boolean): Promise<number> {
  console.log(`Client Version: kite ${KITE_VERSION} (Kubernetes API ${VERSION_INFO.gitVersion.split("+")[0]}, ${VERSION_INFO.platform})`);
  if (clientOnly) return 0;
  try {
    const client = await Client.load(flags);
    const v = await client.transport.json<{ gitVersion: string; platform?: string }>("/version");
    console.log(`Server Version: ${v.gitVersion}${v.platform ? ` (${v.platform})` : ""}`);
    return 0;
  } catch (e) {
    console.error(formatError(e));
    return 1;
  }
}
