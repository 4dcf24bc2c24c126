// Continue tokens for chunked lists: the first chunk's revision and the key to start after, as upstream encodes them.
import { badRequest } from "../api/status.ts";

interface Token { v: string; rv: number; start: string }

export function encodeContinue(rv: number, start: string): string {
  return Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv, start } satisfies Token)).toString("base64url");
}

/** Decodes and checks a token; `prefix` is the collection's key prefix, so a key outside it is refused. */
export function decodeContinue(token: string, prefix: string): { rv: number; start: string } {
  let t: Token;
  try {
    t = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    throw badRequest(`continue key is not valid: illegal base64 data`);
  }
  if (!t || t.v !== "meta.k8s.io/v1" || typeof t.rv !== "number" || t.rv <= 0 || typeof t.start !== "string") {
    throw badRequest("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  }
  // The start key is relative to the collection; '..' or a leading '/' would escape it.
  if (t.start.startsWith("/") || t.start.split("/").includes("..") || (prefix + t.start).length <= prefix.length) {
    throw badRequest("continue key is not valid: invalid start key");
  }
  return { rv: t.rv, start: t.start };
}
