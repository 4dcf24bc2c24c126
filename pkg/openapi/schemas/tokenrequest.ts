// authentication.k8s.io/v1 TokenRequest: what serviceaccounts/{name}/token takes and answers.
import { i64, obj, pkg, ref, specStatus, str, strs, time, type Table } from "./dsl.ts";

export const TOKEN_REQUEST_SCHEMAS: Table = pkg("authentication", {
  TokenRequest: {
    ...specStatus("A token for a service account.", "authentication.TokenRequestSpec", "authentication.TokenRequestStatus", true),
    "x-kubernetes-group-version-kind": [{ group: "authentication.k8s.io", kind: "TokenRequest", version: "v1" }],
  },
  TokenRequestSpec: obj("What the token is for.", {
    audiences: strs("Audiences the token is for; the API server's own when empty.", { "x-kubernetes-list-type": "atomic" }),
    expirationSeconds: i64("Requested lifetime (at least 600 s); the server may shorten it."),
    boundObjectRef: ref("authentication.BoundObjectReference", "A Pod or Secret the token is valid only as long as it exists."),
  }, ["audiences"]),
  TokenRequestStatus: obj("The issued token.", {
    token: str("The opaque bearer token."),
    expirationTimestamp: time("When the token expires."),
  }, ["token", "expirationTimestamp"]),
  BoundObjectReference: obj("An object a token is bound to.", {
    kind: str("Kind: Pod or Secret."),
    apiVersion: str("API version of the object."),
    name: str("Name of the object."),
    uid: str("UID of the object."),
  }, undefined, { "x-kubernetes-map-type": "atomic" }),
});
