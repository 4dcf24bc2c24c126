// Continue tokens for chunked lists: the first chunk's revision, the key to start from, and which
// collection issued it (so a token cannot be replayed against another collection).
import { badRequest } from "../api/status.ts";

interface Token { v: string; rv: number; start: string; c: string; left?: number }

const collectionId = (prefix: string) => Bun.hash(prefix).toString(36);

/** `left`: keys still to come after this chunk, so later chunks need not count them again. */
export function encodeContinue(prefix: string, rv: number, start: string, left?: number): string {
  return Buffer.from(JSON.stringify({ v: "meta.k8s.io/v1", rv, start, c: collectionId(prefix), left } satisfies Token)).toString("base64url");
}

/** Decodes and checks a token against the collection's key prefix. */
export function decodeContinue(token: string, prefix: string): { rv: number; start: string; left?: number } {
  let t: Token;
  try {
    t = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    throw badRequest("continue key is not valid: illegal base64 data");
  }
  if (!t || typeof t !== "object" || t.v !== "meta.k8s.io/v1" || !Number.isInteger(t.rv) || t.rv <= 0 || typeof t.start !== "string") {
    throw badRequest("continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)");
  }
  if (t.c !== collectionId(prefix)) throw badRequest("continue key is not valid: it was issued for another collection");
  // The start key is relative to the collection; '..' or a leading '/' would escape it.
  if (t.start.startsWith("/") || t.start.split("/").includes("..")) throw badRequest("continue key is not valid: invalid start key");
  return { rv: t.rv, start: t.start, left: Number.isInteger(t.left) && t.left! >= 0 ? t.left : undefined };
}
