// The serviceaccount-token controller (upstream's tokens controller, v1.21): every ServiceAccount gets a
// legacy token Secret (`<sa>-token-xxxxx`, type kubernetes.io/service-account-token, holding a token signed
// with --service-account-private-key-file, the root CA and the namespace) that it references in `secrets`;
// token Secrets missing a part are completed; a ServiceAccount's token Secrets go with it, and a deleted
// token Secret leaves the ServiceAccount's references. Without a signing key it does not run, as upstream.
import { consola } from "consola";
import { SignJWT } from "jose";
import { legacyClaims } from "../auth/serviceaccount-claims.ts";
import type { SigningKey } from "../auth/serviceaccount-keys.ts";
import { isConflict, isNotFound, type Client, type Obj } from "../client/client.ts";
import { RESOURCES } from "../client/resources.ts";
import { namespaceIndex, NAMESPACE_INDEX, objectOf, type DeletedFinalStateUnknown, type Store } from "../client/store.ts";
import { isNamespaceTerminating } from "./endpointutil.ts";
import { KeyedController, type ControllerContext, type ControllerInit } from "./framework.ts";

export const TOKEN_SECRET_TYPE = "kubernetes.io/service-account-token";
const NAME_ANNOTATION = "kubernetes.io/service-account.name";
const UID_ANNOTATION = "kubernetes.io/service-account.uid";
/** Upstream's tokens controller gives up on a key after this many failures. */
const MAX_RETRIES = 10;
/** The characters and length of upstream's generated name suffixes (utilrand.String). */
const NAME_ALPHABET = "bcdfghjklmnpqrstvwxz2456789";
const MAX_NAME_LENGTH = 63;
const b64 = (s: string) => Buffer.from(s).toString("base64");

/** A queued sync: of a ServiceAccount (by uid, so that a deleted one's tokens are found) or of a token Secret. */
type Work =
  | { kind: "sa"; namespace: string; name: string; uid: string }
  | { kind: "secret"; namespace: string; name: string; uid: string; saName: string; saUID: string };

/** names.SimpleNameGenerator: the base (cut to leave room) and five random characters. */
function generateName(base: string): string {
  const suffix = Array.from(crypto.getRandomValues(new Uint8Array(5)), (b) => NAME_ALPHABET[b % NAME_ALPHABET.length]).join("");
  return base.slice(0, MAX_NAME_LENGTH - suffix.length) + suffix;
}

/** serviceaccount.IsServiceAccountToken: a token Secret naming this ServiceAccount (and its uid, if any). */
function isTokenOf(secret: Obj, sa: { name: string; uid: string }): boolean {
  const a = secret.metadata.annotations ?? {};
  return secret.type === TOKEN_SECRET_TYPE && a[NAME_ANNOTATION] === sa.name && (!a[UID_ANNOTATION] || a[UID_ANNOTATION] === sa.uid);
}

/** A read's or delete's 404 as undefined; other failures go on. */
function notFound(e: unknown): undefined {
  if (!isNotFound(e)) throw e;
  return undefined;
}

class TokensController extends KeyedController {
  private readonly client: Client;
  private readonly accounts: Store;
  private readonly secrets: Store;

  constructor(ctx: ControllerContext, private readonly key: SigningKey, private readonly rootCA: string) {
    super("serviceaccount-token", MAX_RETRIES);
    this.client = ctx.client;
    const accounts = ctx.factory.informerFor(RESOURCES.serviceaccounts);
    const secrets = ctx.factory.informerFor(RESOURCES.secrets, { fieldSelector: `type=${TOKEN_SECRET_TYPE}`, indexers: { [NAMESPACE_INDEX]: namespaceIndex } });
    this.accounts = accounts.store;
    this.secrets = secrets.store;
    const queueAccount = (o: Obj | DeletedFinalStateUnknown) => {
      const m = objectOf(o).metadata;
      this.add({ kind: "sa", namespace: m.namespace, name: m.name, uid: m.uid });
    };
    const queueSecret = (o: Obj | DeletedFinalStateUnknown) => {
      const m = objectOf(o).metadata;
      this.add({ kind: "secret", namespace: m.namespace, name: m.name, uid: m.uid, saName: m.annotations?.[NAME_ANNOTATION] ?? "", saUID: m.annotations?.[UID_ANNOTATION] ?? "" });
    };
    accounts.addEventHandler({ add: queueAccount, update: (_, sa) => queueAccount(sa), delete: queueAccount });
    secrets.addEventHandler({ add: queueSecret, update: (_, s) => queueSecret(s), delete: queueSecret });
  }

  private add(w: Work): void { this.queue.add(JSON.stringify(w)); }

  protected sync(key: string): Promise<void> {
    const w = JSON.parse(key) as Work;
    return w.kind === "sa" ? this.syncServiceAccount(w) : this.syncSecret(w);
  }

  private async syncServiceAccount(w: Extract<Work, { kind: "sa" }>): Promise<void> {
    const sa = await this.serviceAccount(w.namespace, w.name, w.uid, false);
    if (!sa) return this.deleteTokens(w);
    await this.ensureReferencedToken(sa);
  }

  private async syncSecret(w: Extract<Work, { kind: "secret" }>): Promise<void> {
    const cached = this.secrets.get(`${w.namespace}/${w.name}`);
    const secret = cached?.metadata.uid === w.uid ? cached : undefined;
    if (!secret) {
      // The Secret is gone: its ServiceAccount no longer references it.
      if (await this.serviceAccount(w.namespace, w.saName, w.saUID, false)) await this.removeReference(w);
      return;
    }
    const sa = await this.serviceAccount(w.namespace, w.saName, w.saUID, true);
    if (!sa) return this.deleteSecret(secret);
    await this.completeToken(sa, secret);
  }

  /** The ServiceAccount of that name (and uid, if given), from the cache or, when asked, the server. */
  private async serviceAccount(namespace: string, name: string, uid: string, fetchOnMiss: boolean): Promise<Obj | undefined> {
    const matches = (sa: Obj | undefined) => (sa && (!uid || sa.metadata.uid === uid) ? sa : undefined);
    const cached = matches(this.accounts.get(`${namespace}/${name}`));
    if (cached || !fetchOnMiss || !name) return cached;
    return matches(await this.client.get(RESOURCES.serviceaccounts, name, { namespace }).catch(notFound));
  }

  private async deleteSecret(secret: Obj): Promise<void> {
    const m = secret.metadata;
    await this.client.delete(RESOURCES.secrets, m.name, { namespace: m.namespace, preconditions: { uid: m.uid } }).catch(notFound);
  }

  private async deleteTokens(sa: { namespace: string; name: string; uid: string }): Promise<void> {
    for (const s of this.secrets.byIndex(NAMESPACE_INDEX, sa.namespace)) if (isTokenOf(s, sa)) await this.deleteSecret(s);
  }

  /** Whether one of the Secrets the ServiceAccount references is a token for it. */
  private async hasReferencedToken(sa: Obj): Promise<boolean> {
    const ns = sa.metadata.namespace;
    for (const ref of sa.secrets ?? []) {
      if (!ref?.name) continue;
      const s = this.secrets.get(`${ns}/${ref.name}`) ?? (await this.client.get(RESOURCES.secrets, ref.name, { namespace: ns }).catch(notFound));
      if (s && isTokenOf(s, { name: sa.metadata.name, uid: sa.metadata.uid })) return true;
    }
    return false;
  }

  private sign(sa: Obj, secret: Obj): Promise<string> {
    return new SignJWT(legacyClaims(sa, secret)).setProtectedHeader({ alg: this.key.alg, kid: this.key.kid }).sign(this.key.key);
  }

  /** Makes a token Secret for the ServiceAccount unless it references one, and references it. */
  private async ensureReferencedToken(sa: Obj): Promise<void> {
    if (await this.hasReferencedToken(sa)) return;
    const { namespace, name, uid } = sa.metadata;
    const live = await this.client.get(RESOURCES.serviceaccounts, name, { namespace }).catch(notFound);
    if (!live || live.metadata.uid !== uid) return;
    // The cache or the read is stale: try again once they agree.
    if (live.metadata.resourceVersion !== sa.metadata.resourceVersion) throw new Error(`retrying: ServiceAccount ${namespace}/${name} is newer on the server than in the cache`);
    if (await this.hasReferencedToken(live)) return;

    const secret: Obj = {
      apiVersion: "v1", kind: "Secret", type: TOKEN_SECRET_TYPE,
      metadata: { name: generateName(`${name}-token-`), namespace, annotations: { [NAME_ANNOTATION]: name, [UID_ANNOTATION]: uid } },
    };
    secret.data = { token: b64(await this.sign(live, secret)), namespace: b64(namespace) };
    if (this.rootCA) secret.data["ca.crt"] = b64(this.rootCA);
    let created: Obj;
    try {
      created = await this.client.create(RESOURCES.secrets, secret);
    } catch (e) {
      if (isNamespaceTerminating(e)) return;
      throw e;
    }
    if (!(await this.addReference(sa, created.metadata.name))) await this.deleteSecret(created);
  }

  /** Appends the reference, re-reading on conflicts; false when the token is not needed after all. */
  private async addReference(sa: Obj, secretName: string): Promise<boolean> {
    const { namespace, name, uid } = sa.metadata;
    for (;;) {
      const live = await this.client.get(RESOURCES.serviceaccounts, name, { namespace }).catch(notFound);
      if (!live || live.metadata.uid !== uid || (await this.hasReferencedToken(live))) return false;
      live.secrets = [...(live.secrets ?? []), { name: secretName }];
      try {
        await this.client.update(RESOURCES.serviceaccounts, live);
        return true;
      } catch (e) {
        if (!isConflict(e)) throw e;
      }
    }
  }

  /** Drops a deleted Secret from its ServiceAccount's references, re-reading on conflicts. */
  private async removeReference(w: Extract<Work, { kind: "secret" }>): Promise<void> {
    for (;;) {
      const live = await this.client.get(RESOURCES.serviceaccounts, w.saName, { namespace: w.namespace }).catch(notFound);
      if (!live || (w.saUID && live.metadata.uid !== w.saUID)) return;
      const kept = (live.secrets ?? []).filter((r: Obj) => r?.name !== w.name);
      if (kept.length === (live.secrets ?? []).length) return;
      live.secrets = kept;
      try {
        await this.client.update(RESOURCES.serviceaccounts, live);
        return;
      } catch (e) {
        if (!isConflict(e)) throw e;
      }
    }
  }

  /** Fills in what a token Secret lacks: the token, the root CA, the namespace, the ServiceAccount's annotations. */
  private async completeToken(sa: Obj, secret: Obj): Promise<void> {
    const m = secret.metadata;
    const live = await this.client.get(RESOURCES.secrets, m.name, { namespace: m.namespace }).catch(notFound);
    if (!live || live.metadata.uid !== m.uid) return;
    const data: Record<string, string> = { ...live.data };
    const ca = this.rootCA ? b64(this.rootCA) : undefined;
    const needsCA = ca !== undefined && data["ca.crt"] !== ca;
    const needsNamespace = !data.namespace;
    const needsToken = !data.token;
    if (!needsCA && !needsNamespace && !needsToken) return;
    if (needsCA) data["ca.crt"] = ca!;
    if (needsNamespace) data.namespace = b64(m.namespace);
    if (needsToken) data.token = b64(await this.sign(sa, live));
    live.data = data;
    live.metadata.annotations = { ...live.metadata.annotations, [NAME_ANNOTATION]: sa.metadata.name, [UID_ANNOTATION]: sa.metadata.uid };
    try {
      await this.client.update(RESOURCES.secrets, live);
    } catch (e) {
      // Someone changed it meanwhile: its update event brings it back here.
      if (!isConflict(e)) throw e;
    }
  }
}

export const startServiceAccountTokenController: ControllerInit = (ctx) => {
  if (!ctx.options.serviceAccountKey) {
    consola.warn(`"serviceaccount-token" is disabled because there is no private key`);
    return null;
  }
  return new TokensController(ctx, ctx.options.serviceAccountKey, ctx.options.rootCA ?? "");
};
