// The value ciphers of EncryptionConfiguration, with upstream's byte layouts so that values are the same
// shape upstream writes: aescbc = IV(16) ‖ CBC/PKCS#7; aesgcm = nonce(12) ‖ ciphertext ‖ tag(16), the
// storage key as additional data; secretbox = nonce(24) ‖ NaCl secretbox.
import { type CipherGCMTypes, createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import nacl from "tweetnacl";

/** Encrypts and decrypts one value; `context` is the storage key the value is stored under. */
export interface Cipher {
  seal(plain: Uint8Array, context: string): Uint8Array;
  open(data: Uint8Array, context: string): Uint8Array;
}

const aesName = (mode: "cbc" | "gcm", key: Uint8Array) => `aes-${key.length * 8}-${mode}`;

export function aesCBC(key: Uint8Array): Cipher {
  return {
    seal(plain) {
      const iv = randomBytes(16);
      const c = createCipheriv(aesName("cbc", key), key, iv);
      return Buffer.concat([iv, c.update(plain), c.final()]);
    },
    open(data) {
      if (data.length < 32 || data.length % 16 !== 0) throw new Error("the stored data is not a multiple of the block size");
      const d = createDecipheriv(aesName("cbc", key), key, data.subarray(0, 16));
      return Buffer.concat([d.update(data.subarray(16)), d.final()]);
    },
  };
}

export function aesGCM(key: Uint8Array): Cipher {
  return {
    seal(plain, context) {
      const nonce = randomBytes(12);
      const c = createCipheriv(aesName("gcm", key) as CipherGCMTypes, key, nonce);
      c.setAAD(Buffer.from(context));
      const body = Buffer.concat([c.update(plain), c.final()]);
      return Buffer.concat([nonce, body, c.getAuthTag()]);
    },
    open(data, context) {
      if (data.length < 12 + 16) throw new Error("the stored data was shorter than the required size");
      const d = createDecipheriv(aesName("gcm", key) as CipherGCMTypes, key, data.subarray(0, 12));
      d.setAAD(Buffer.from(context));
      d.setAuthTag(data.subarray(data.length - 16));
      return Buffer.concat([d.update(data.subarray(12, data.length - 16)), d.final()]);
    },
  };
}

export function secretbox(key: Uint8Array): Cipher {
  return {
    seal(plain) {
      const nonce = randomBytes(nacl.secretbox.nonceLength);
      return Buffer.concat([nonce, nacl.secretbox(plain, nonce, key)]);
    },
    open(data) {
      if (data.length < nacl.secretbox.nonceLength) throw new Error("the stored data was shorter than the required size");
      const out = nacl.secretbox.open(data.subarray(nacl.secretbox.nonceLength), data.subarray(0, nacl.secretbox.nonceLength), key);
      if (!out) throw new Error("output array was not large enough for encryption");
      return out;
    },
  };
}
