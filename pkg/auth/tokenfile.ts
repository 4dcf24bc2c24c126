// Static bearer tokens: --token-auth-file, upstream's CSV, one `token,user,uid[,"group1,group2"]` per line,
// read once at start; a file that cannot be read or parsed stops the server.
import { readFileSync } from "node:fs";
import { parseCsv } from "../util/csv.ts";
import type { UserInfo } from "./user.ts";
import type { TokenAuthenticator } from "./token.ts";

export interface StaticToken { token: string; user: UserInfo }

export function staticTokens(entries: StaticToken[]): TokenAuthenticator {
  const users = new Map(entries.map((e) => [e.token, e.user]));
  return {
    authenticateToken(token) {
      const user = users.get(token);
      return user ? { user } : null;
    },
  };
}

export function readTokenFile(path: string): StaticToken[] {
  const out: StaticToken[] = [];
  for (const r of parseCsv(readFileSync(path, "utf8"))) {
    if (r.length < 3) throw new Error(`token file '${path}' must have at least 3 columns (token, user name, user uid), found ${r.length}`);
    // An empty token would let an empty credential through: skipped, as upstream skips it.
    if (r[0] === "") continue;
    out.push({ token: r[0], user: { name: r[1], uid: r[2], groups: r.length >= 4 ? r[3].split(",") : [] } });
  }
  return out;
}
