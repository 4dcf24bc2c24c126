// Certificate rotation (upstream kubelet's certificate manager, --rotate-certificates and
// --rotate-server-certificates): at a random point between 70 % and 90 % of the current certificate's
// validity — at once when there is none yet — the agent makes a new key, asks for a certificate with a
// CertificateSigningRequest under its own credentials, waits until it is approved and issued, keeps it in
// --cert-dir as PREFIX-current.pem and hands it over (`onIssued`): the client's new connections, or the
// serving port, use it from then on. A failed round is retried with a doubling pause.
import { consola } from "consola";
import type { Client } from "../client/client.ts";
import { sleep } from "../client/ratelimit.ts";
import { certificateRequest, createRequest, issued, newKeyPair, readCurrent, storePair, type CurrentPair } from "./csr.ts";

export interface RotationOptions {
  /** The agent's client: the request is made with the node's current credentials. */
  client: Client;
  certDir: string;
  /** kubelet-client or kubelet-server: the files' names in --cert-dir. */
  prefix: string;
  /** "client" or "serving", for the log. */
  kind: string;
  signerName: string;
  usages: string[];
  subject: string;
  sans?: { dns?: string[]; ips?: string[] };
  onIssued: (pair: CurrentPair) => void;
}

const RETRY_FIRST_MS = 1000;
const RETRY_MAX_MS = 128_000;

/** Upstream's rotation deadline: a random point between 70 % and 90 % of the validity. */
export function rotationDeadline(p: { notBefore: number; notAfter: number }, random = Math.random()): number {
  return p.notBefore + (0.7 + 0.2 * random) * (p.notAfter - p.notBefore);
}

/** Renews the certificate until `signal` aborts; returns then. */
export async function rotateCertificates(o: RotationOptions, signal: AbortSignal): Promise<void> {
  let current = readCurrent(o.certDir, o.prefix);
  let retryMs = RETRY_FIRST_MS;
  while (!signal.aborted) {
    const deadline = current ? rotationDeadline(current) : Date.now();
    if (current) consola.debug(`the ${o.kind} certificate expires ${new Date(current.notAfter).toISOString()}; rotating it at ${new Date(deadline).toISOString()}`);
    try {
      await sleep(Math.max(0, deadline - Date.now()), signal);
      const key = await newKeyPair();
      const name = await createRequest(o.client, await certificateRequest(o.subject, key.keys, o.sans), o.signerName, o.usages);
      consola.info(`rotating the ${o.kind} certificate: waiting for CertificateSigningRequest ${name} to be approved and issued`);
      storePair(o.certDir, o.prefix, await issued(o.client, name, signal), key.pem);
      current = readCurrent(o.certDir, o.prefix)!;
      consola.info(`the ${o.kind} certificate was rotated: valid until ${new Date(current.notAfter).toISOString()}`);
      o.onIssued(current);
      retryMs = RETRY_FIRST_MS;
    } catch (e) {
      if (signal.aborted) return;
      consola.warn(`rotating the ${o.kind} certificate failed (retried in ${retryMs / 1000}s): ${(e as Error).message}`);
      await sleep(retryMs, signal).catch(() => {});
      retryMs = Math.min(2 * retryMs, RETRY_MAX_MS);
    }
  }
}
