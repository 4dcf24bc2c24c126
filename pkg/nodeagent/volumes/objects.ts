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

export class ApiObjects implements PodObjects {
  private readonly tokens: TokenCache;

  constructor(private readonly client: Client) {
    this.tokens = new TokenCache((namespace, account, request) =>
      client.create(RESOURCES.serviceaccounts, request, { namespace, name: account, subresource: "token" }));
  }

  private async get(r: ResourceRef, singular: string, name: string, namespace?: string): Promise<Obj> {
    try {
      return await this.client.get(r, name, { namespace });
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
