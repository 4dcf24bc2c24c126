// Files only their owner may read: private keys, tokens, kubeconfigs.
import { closeSync, fchmodSync, openSync, writeFileSync } from "node:fs";

/**
 * Writes `data` to `path` with mode 0600. A file that already exists keeps its mode on open, so it is
 * tightened (after the truncation, before the secret is written).
 */
export function writePrivateFile(path: string, data: string) {
  const fd = openSync(path, "w", 0o600);
  try {
    fchmodSync(fd, 0o600);
    writeFileSync(fd, data);
  } finally {
    closeSync(fd);
  }
}
