// Values to and from storage through an ordered provider list: the first provider writes, and a stored
// value is read by the provider whose prefix (`k8s:enc:<provider>:v1:<key name>:`) it carries.
import { randomBytes } from "node:crypto";
import { type Cipher, aesCBC, aesGCM, secretbox } from "./ciphers.ts";
import type { ProviderConfig } from "./config.ts";
import { KmsClient, KmsError } from "./kms.ts";
import type { TransformMetrics } from "./metrics.ts";

const ENCRYPTED = Buffer.from("k8s:enc:");
const utf8 = new TextEncoder();

export const isEncrypted = (b: Uint8Array) => b.length >= ENCRYPTED.length && Buffer.from(b.buffer, b.byteOffset, ENCRYPTED.length).equals(ENCRYPTED);

/** One way to read and write values: a key of a cipher, a KMS plugin, or identity (empty prefix). */
interface Provider {
  prefix: Buffer;
  /** The metric label: the provider's prefix without its key name. */
  label: string;
  toStorage(plain: Uint8Array, context: string): Promise<Uint8Array>;
  fromStorage(data: Uint8Array, context: string): Promise<Uint8Array>;
}

const CIPHERS: Record<string, (key: Uint8Array) => Cipher> = { aescbc: aesCBC, aesgcm: aesGCM, secretbox };

function cipherProviders(type: string, keys: { name: string; secret: Buffer }[]): Provider[] {
  return keys.map((k) => {
    const c = CIPHERS[type]!(k.secret);
    return {
      prefix: Buffer.from(`k8s:enc:${type}:v1:${k.name}:`), label: `k8s:enc:${type}:v1:`,
      toStorage: async (plain, ctx) => c.seal(plain, ctx),
      fromStorage: async (data, ctx) => c.open(data, ctx),
    };
  });
}

const identity: Provider = {
  prefix: Buffer.alloc(0), label: "identity",
  toStorage: async (plain) => plain,
  fromStorage: async (data) => {
    if (isEncrypted(data)) throw new Error("identity transformer tried to read encrypted data");
    return data;
  },
};

/**
 * Envelope encryption through a KMS plugin: each write gets a fresh data key (AES-CBC), stored wrapped by
 * the plugin as length(2) ‖ wrapped key ‖ ciphertext. Unwrapped keys are cached (cachesize, LRU).
 */
function kmsProvider(c: Extract<ProviderConfig, { type: "kms" }>, metrics?: TransformMetrics): Provider & { client: KmsClient } {
  const client = new KmsClient(c.endpoint, c.timeoutMs);
  const cache = new Map<string, Cipher>();
  const remember = (wrapped: Uint8Array, cipher: Cipher) => {
    if (c.cacheSize < 0) return;
    const id = Buffer.from(wrapped).toString("base64");
    cache.delete(id);
    cache.set(id, cipher);
    if (cache.size > c.cacheSize) cache.delete(cache.keys().next().value!);
  };
  return {
    client,
    prefix: Buffer.from(`k8s:enc:kms:v1:${c.name}:`), label: "k8s:enc:kms:v1:",
    async toStorage(plain, ctx) {
      const dek = randomBytes(32);
      const wrapped = await client.encrypt(dek);
      const cipher = aesCBC(dek);
      remember(wrapped, cipher);
      const len = Buffer.alloc(2);
      len.writeUInt16BE(wrapped.length);
      return Buffer.concat([len, wrapped, cipher.seal(plain, ctx)]);
    },
    async fromStorage(data, ctx) {
      if (data.length < 2) throw new Error("invalid data encountered by envelope transformer: failed to read key length");
      const n = Buffer.from(data.buffer, data.byteOffset, 2).readUInt16BE(0);
      if (data.length < 2 + n) throw new Error("invalid data encountered by envelope transformer: length longer than available bytes");
      const wrapped = data.subarray(2, 2 + n);
      let cipher = cache.get(Buffer.from(wrapped).toString("base64"));
      if (!cipher) {
        metrics?.cacheMiss();
        cipher = aesCBC(await client.decrypt(wrapped));
        remember(wrapped, cipher);
      }
      return cipher.open(data.subarray(2 + n), ctx);
    },
  };
}

export class ValueTransformer {
  private providers: Provider[];
  /** The KMS plugins this transformer talks to (checked at start-up, closed at shutdown). */
  readonly kms: KmsClient[] = [];

  constructor(configs: ProviderConfig[], private metrics?: TransformMetrics) {
    this.providers = configs.flatMap((c): Provider[] => {
      if (c.type === "identity") return [identity];
      if (c.type === "kms") {
        const p = kmsProvider(c, metrics);
        this.kms.push(p.client);
        return [p];
      }
      return cipherProviders(c.type, c.keys);
    });
  }

  async toStorage(plain: Uint8Array | string, context: string): Promise<Uint8Array> {
    const p = this.providers[0]!;
    const bytes = typeof plain === "string" ? utf8.encode(plain) : plain;
    return this.measure("to_storage", p, async () => {
      const out = await p.toStorage(bytes, context);
      return p.prefix.length ? Buffer.concat([p.prefix, out]) : out;
    });
  }

  /** The value in the clear; `stale` when a provider other than the writing one read it. */
  async fromStorage(stored: Uint8Array, context: string): Promise<{ data: Uint8Array; stale: boolean }> {
    let last: Error | undefined;
    for (const p of this.providers) {
      if (!Buffer.from(stored.buffer, stored.byteOffset, stored.length).subarray(0, p.prefix.length).equals(p.prefix)) continue;
      try {
        const data = await this.measure("from_storage", p, () => p.fromStorage(stored.subarray(p.prefix.length), context));
        return { data, stale: p !== this.providers[0] };
      } catch (e) {
        // an empty prefix matches everything: a failure there lets the next provider try
        if (p.prefix.length) throw e;
        last = e as Error;
      }
    }
    throw last ?? new Error("no matching prefix found");
  }

  private async measure<T>(type: "to_storage" | "from_storage", p: Provider, run: () => Promise<T>): Promise<T> {
    if (!this.metrics) return run();
    const t0 = performance.now();
    try {
      const out = await run();
      this.metrics.record(type, p.label, "OK", (performance.now() - t0) / 1000);
      return out;
    } catch (e) {
      // a KMS call's gRPC status, or upstream's label for a failure before any call
      this.metrics.record(type, p.label, e instanceof KmsError ? e.code : "unknown-non-grpc");
      throw e;
    }
  }
}
