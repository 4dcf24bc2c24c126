// authentication.k8s.io kinds (v1 and v1beta1 share their shapes): the reviews a client asks the server to
// make, answered and never stored.
import { ATOMIC, bool, kind, map, obj, ref, str, strs, type Table } from "./dsl.ts";

function authentication(v: string): Table {
  const n = (k: string) => `io.k8s.api.authentication.${v}.${k}`;
  return {
    [n("TokenReview")]: kind("Asks whether a token is valid and whose it is.", {
      spec: ref(n("TokenReviewSpec"), "The token to check."),
      status: ref(n("TokenReviewStatus"), "The answer, filled by the server."),
    }, ["spec"]),
    [n("TokenReviewSpec")]: obj("The token to check.", {
      token: str("The opaque bearer token."),
      audiences: strs("Audiences the token must be for; the server's own when empty.", ATOMIC),
    }),
    [n("TokenReviewStatus")]: obj("Whether the token is valid, and whose it is.", {
      authenticated: bool("The token is valid."),
      user: ref(n("UserInfo"), "The token's user."),
      audiences: strs("Audiences the token is good for, of those asked.", ATOMIC),
      error: str("Why the token could not be checked."),
    }),
    [n("UserInfo")]: obj("A user as authenticators report it.", {
      username: str("The user's name."),
      uid: str("A unique, stable identifier of the user."),
      groups: strs("The user's groups.", ATOMIC),
      extra: map({ type: "array", items: { type: "string", default: "" } }, "Extra attributes of the user."),
    }),
  };
}

export const AUTHENTICATION_SCHEMAS: Table = { ...authentication("v1"), ...authentication("v1beta1") };
