// Issue 14: what the x509 and front-proxy authenticators make of a certificate and headers (the API test,
// test/api/auth-x509.test.ts, shows the user names through a real server; groups and extras are read here).
import { describe, expect, test } from "bun:test";
import { X509Certificate } from "node:crypto";
import { AuthenticationError } from "../../pkg/auth/authenticate.ts";
import { RequestHeaderAuthenticator } from "../../pkg/auth/requestheader.ts";
import { ChainVerifier, X509Authenticator, subjectOf } from "../../pkg/auth/x509.ts";
import { issueClient, makeCA } from "../helpers/certs.ts";

const ca = makeCA("unit-ca");
const proxyCA = makeCA("unit-proxy-ca");
const x = (pem: string) => new X509Certificate(pem);

describe("X509Authenticator", () => {
  const auth = new X509Authenticator(new ChainVerifier([x(ca.cert)]));

  test("CommonName is the user, Organizations are the groups, in order", () => {
    const c = x(issueClient(ca, "alice", { orgs: ["devs", "ops"] }).cert);
    expect(auth.authenticate({ headers: new Headers(), clientCertificates: [c] })).toEqual({ user: { name: "alice", groups: ["devs", "ops"] } });
  });

  test("escaped and non-ASCII subject values read as they were issued", () => {
    const c = x(issueClient(ca, "bob, jr.+x=\"y\"", { orgs: ["équipe"] }).cert);
    expect(subjectOf(c).get("CN")).toEqual(["bob, jr.+x=\"y\""]);
    expect(auth.authenticate({ headers: new Headers(), clientCertificates: [c] })?.user.groups).toEqual(["équipe"]);
  });

  test("no certificate is no opinion; a failing one throws", () => {
    expect(auth.authenticate({ headers: new Headers() })).toBeNull();
    const foreign = x(issueClient(proxyCA, "mallory").cert);
    expect(() => auth.authenticate({ headers: new Headers(), clientCertificates: [foreign] })).toThrow(AuthenticationError);
    expect(() => auth.authenticate({ headers: new Headers(), clientCertificates: [foreign] })).toThrow("x509: certificate signed by unknown authority");
  });

  test("a certificate valid once is refused after it expires (dates are checked on every request)", () => {
    const v = new ChainVerifier([x(ca.cert)]);
    const c = x(issueClient(ca, "short", { notAfter: new Date(Date.now() + 3600_000) }).cert);
    expect(v.check(c)).toBeNull();
    expect(v.check(c, new Date(Date.now() + 7200_000))).toContain("certificate has expired or is not yet valid");
  });
});

describe("RequestHeaderAuthenticator", () => {
  const options = {
    clientCAFile: "", allowedNames: ["front-proxy"], usernameHeaders: ["X-Remote-User", "X-Other-User"],
    groupHeaders: ["X-Remote-Group"], extraHeaderPrefixes: ["X-Remote-Extra-"],
  };
  const auth = new RequestHeaderAuthenticator(options, new ChainVerifier([x(proxyCA.cert)]));
  const proxyCert = x(issueClient(proxyCA, "front-proxy").cert);

  test("the allowed proxy's headers name the user, groups (each field) and extras (key lower-cased, %-decoded)", () => {
    const h = new Headers([["X-Other-User", "carol"], ["X-Remote-Group", "a"], ["X-Remote-Group", "b"], ["X-Remote-Extra-Scopes", "read"], ["X-Remote-Extra-Acme.com%2Fteam", "x"], ["Accept", "*/*"]]);
    expect(auth.authenticate({ headers: h, clientCertificates: [proxyCert] })).toEqual({ user: { name: "carol", groups: ["a", "b"], extra: { scopes: ["read"], "acme.com/team": ["x"] } } });
    expect([...h.keys()]).toEqual(["accept"]);
  });

  test("headers from a caller without the proxy's certificate are ignored and removed", () => {
    const h = new Headers([["X-Remote-User", "system:admin"], ["X-Remote-Extra-Scopes", "all"]]);
    expect(auth.authenticate({ headers: h })).toBeNull();
    expect([...h.keys()]).toEqual([]);
  });

  test("a proxy-CA certificate with another CommonName is refused", () => {
    const other = x(issueClient(proxyCA, "someone-else").cert);
    expect(() => auth.authenticate({ headers: new Headers([["X-Remote-User", "carol"]]), clientCertificates: [other] })).toThrow("x509: subject with cn=someone-else is not in the allowed list");
  });
});
