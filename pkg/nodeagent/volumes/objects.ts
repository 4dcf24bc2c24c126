// The API objects a pod's env and volumes read: ConfigMaps, Secrets, claims and their volumes, tokens.
// Missing objects fail with the kubelet's own words (`configmap "x" not found`, from its object cache).
import { isNotFound, type Client } from "../../client/client.ts";
import { RESOURCES, type ResourceRef } from "../../client/resources.ts";
import type { Obj } from "../node.ts";
import { TokenCache } from "./token.ts";

export class NotFoundError extends Error {}

export interface PodObjects {
  configMap(namespace: string, name: string): Promise<Obj>;
  secret(namespace: string, name: string): Promise<Obj>;
  claim(namespace: string, name: string): Promise<Obj>;
  volume(name: string): Promise<Obj>;
  token(pod: Obj, audience: string | undefined, expirationSeconds: number): Promise<string>;
  forget(podUid: string): void;
}

/** `optional` objects that do not exist read as empty; every other failure is thrown. */
export async function orEmpty(get: Promise<Obj>, optional: boolean): Promise<Obj | undefined> {
  try {
    return await get;
  } catch (e) {
    if (optional && e instanceof NotFoundError) return undefined;
    throw e;
  }
}

/**
 * The GETs under way per client: pods starting together read the same objects (each namespace's
 * kube-root-ca.crt ConfigMap for its service-account volume) with one request, answered to all of them.
 * Nothing is kept once the answer is in: a later read asks the API server again.
 */
const underWay = new WeakMap<Client, Map<string, Promise<Obj>>>();

export class ApiObjects implements PodObjects {
  private readonly tokens: TokenCache;
  private readonly gets: Map<string, Promise<Obj>>;

  constructor(private readonly client: Client) {
    if (!underWay.has(client)) underWay.set(client, new Map());
    this.gets = underWay.get(client)!;
    this.tokens = new TokenCache((namespace, account, request) =>
      client.create(RESOURCES.serviceaccounts, request, { namespace, name: account, subresource: "token" }));
  }

  private async get(r: ResourceRef, singular: string, name: string, namespace?: string): Promise<Obj> {
    const key = `${r.resource}/${namespace ?? ""}/${name}`;
    let get = this.gets.get(key);
    if (!get) {
      get = this.client.get(r, name, { namespace }).finally(() => this.gets.delete(key));
      this.gets.set(key, get);
    }
    try {
      // a copy each: callers may change what they read
      return structuredClone(await get);
    } catch (e) {
      if (isNotFound(e)) throw new NotFoundError(`${singular} "${name}" not found`);
      throw e;
    }
  }

  configMap(namespace: string, name: string) { return this.get(RESOURCES.configmaps, "configmap", name, namespace); }
  secret(namespace: string, name: string) { return this.get(RESOURCES.secrets, "secret", name, namespace); }
  claim(namespace: string, name: string) { return this.get(RESOURCES.persistentvolumeclaims, "persistentvolumeclaims", name, namespace); }
  volume(name: string) { return this.get(RESOURCES.persistentvolumes, "persistentvolumes", name); }
  token(pod: Obj, audience: string | undefined, expirationSeconds: number) { return this.tokens.get(pod, audience, expirationSeconds); }
  forget(podUid: string): void { this.tokens.forget(podUid); }
}
