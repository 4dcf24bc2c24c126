// --token-auth-file: upstream's static token CSV, one `token,user,uid[,"group1,group2"]` per line, read once
// at start. A file that cannot be read or parsed stops the server.
import { readFileSync } from "node:fs";
import { parseCsv } from "../util/csv.ts";
import type { Authenticated } from "./authenticate.ts";
import type { TokenAuthenticator } from "./token.ts";

export function readTokenFile(path: string): TokenAuthenticator {
  const tokens = new Map<string, Authenticated>();
  for (const r of parseCsv(readFileSync(path, "utf8"))) {
    if (r.length < 3) throw new Error(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${r.length}`);
    // An empty token would let an empty credential through: skipped, as upstream skips it.
    if (r[0] === "") continue;
    tokens.set(r[0], { user: { name: r[1], uid: r[2], groups: r.length >= 4 ? r[3].split(",") : [] } });
  }
  return { authenticateToken: (token) => tokens.get(token) ?? null };
}
