// Legacy Secret-based tokens, as upstream's tokens controller keeps them: a Secret of type
// kubernetes.io/service-account-token annotated with a ServiceAccount's name gets a token for that
// account, the cluster CA and the namespace; it is deleted when its ServiceAccount is gone or was replaced
// (another uid), and with the ServiceAccount. (Kite does not create such a Secret for every
// ServiceAccount: one is made by hand, as since upstream v1.24.)
import { consola } from "consola";
import type { ResourceStore } from "../registry/generic.ts";
import type { Registry } from "../registry/registry.ts";
import type { Obj } from "../registry/types.ts";
import { legacyClaims } from "./serviceaccount-claims.ts";
import type { ServiceAccountIssuer } from "./serviceaccount.ts";

export const TOKEN_SECRET_TYPE = "kubernetes.io/service-account-token";
const NAME_ANNOTATION = "kubernetes.io/service-account.name";
const UID_ANNOTATION = "kubernetes.io/service-account.uid";
const b64 = (s: string) => Buffer.from(s).toString("base64");

export class LegacyTokensController {
  private closers: (() => void)[] = [];
  /** Syncs run one at a time, in the order events arrive. */
  private queue: Promise<void> = Promise.resolve();
  private secrets: ResourceStore;
  private accounts: ResourceStore;

  constructor(registry: Registry, private issuer: ServiceAccountIssuer, private caPem: string) {
    this.secrets = registry.lookup("", "v1", "secrets")!;
    this.accounts = registry.lookup("", "v1", "serviceaccounts")!;
  }

  async start() {
    const s = this.secrets, a = this.accounts;
    const list = await s.list("");
    for (const o of list.items) this.enqueue(() => this.syncSecret(o));
    const ws = await s.store.watch(s.collectionPrefix(""), Number(list.metadata.resourceVersion), (ev) => {
      if (ev.type === "PUT") {
        const o = s.decode(ev.kv);
        this.enqueue(() => this.syncSecret(o));
      }
    });
    const wa = await a.store.watch(a.collectionPrefix(""), await a.store.currentRevision(), (ev) => {
      if (ev.type === "DELETE") {
        const o = a.decode(ev.kv);
        this.enqueue(() => this.deleteTokensOf(o));
      }
    });
    this.closers.push(() => ws.close(), () => wa.close());
  }

  stop() {
    for (const c of this.closers) c();
  }

  private enqueue(work: () => Promise<void>) {
    this.queue = this.queue.then(work).catch((e) => consola.warn(`service account tokens: ${(e as Error).message}`));
  }

  private async account(ns: string, name: string): Promise<Obj | null> {
    return this.accounts.get(ns, name).catch((e) => {
      if (e.code === 404) return null;
      throw e;
    });
  }

  private async deleteSecret(secret: Obj) {
    await this.secrets.delete(secret.metadata.namespace, secret.metadata.name).catch((e) => {
      if (e.code !== 404) throw e;
    });
  }

  /** Fills in a token Secret for a live ServiceAccount; deletes one whose ServiceAccount is gone. */
  private async syncSecret(secret: Obj) {
    const m = secret.metadata;
    if (secret.type !== TOKEN_SECRET_TYPE || m.deletionTimestamp) return;
    const sa = await this.account(m.namespace, m.annotations?.[NAME_ANNOTATION] ?? "");
    const uid = m.annotations?.[UID_ANNOTATION];
    if (!sa || (uid && uid !== sa.metadata.uid)) return this.deleteSecret(secret);
    const ca = b64(this.caPem);
    const d = secret.data ?? {};
    if (d.token && d["ca.crt"] === ca && d.namespace && uid) return;
    await this.secrets.guaranteedUpdate(m.namespace, m.name, async (cur) => {
      const data = { ...(cur.data ?? {}), "ca.crt": ca, namespace: b64(m.namespace) };
      data.token ??= b64(await this.issuer.sign(legacyClaims(sa, cur)));
      const annotations = { ...cur.metadata.annotations, [NAME_ANNOTATION]: sa.metadata.name, [UID_ANNOTATION]: sa.metadata.uid };
      return { ...cur, metadata: { ...cur.metadata, annotations }, data };
    }).catch((e) => {
      if (e.code !== 404) throw e;
    });
  }

  /** A deleted ServiceAccount's token Secrets go with it. */
  private async deleteTokensOf(sa: Obj) {
    const { namespace, name, uid } = sa.metadata;
    for (const s of (await this.secrets.list(namespace)).items as Obj[]) {
      const a = s.metadata.annotations ?? {};
      if (s.type === TOKEN_SECRET_TYPE && a[NAME_ANNOTATION] === name && (!a[UID_ANNOTATION] || a[UID_ANNOTATION] === uid)) await this.deleteSecret(s);
    }
  }
}
