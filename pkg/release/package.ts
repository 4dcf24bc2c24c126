// Lays out a release directory: the binary named for its OS and CPU, SHA256SUMS, and install.sh with
// the release URL written in, so `curl -fsSL URL/install.sh | sh` installs from it.
// Usage: bun pkg/release/package.ts <release-url> [out-dir]   (after npm run build)
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

export function packageRelease(root: string, url: string, out: string): string {
  mkdirSync(out, { recursive: true });
  const os = process.platform === "darwin" ? "darwin" : "linux";
  const arch = process.arch === "arm64" ? "arm64" : "x64";
  const name = `kite-${os}-${arch}`;
  copyFileSync(join(root, "dist", "kite"), join(out, name));
  const sum = new Bun.CryptoHasher("sha256").update(readFileSync(join(out, name))).digest("hex");
  writeFileSync(join(out, "SHA256SUMS"), `${sum}  ${name}\n`);
  const script = readFileSync(join(root, "install.sh"), "utf8").replace("@KITE_RELEASE_URL@", url);
  writeFileSync(join(out, "install.sh"), script, { mode: 0o755 });
  return name;
}

if (import.meta.main) {
  const [url, out = "dist/release"] = process.argv.slice(2);
  if (!url) {
    console.error("usage: bun pkg/release/package.ts <release-url> [out-dir]");
    process.exit(2);
  }
  const root = resolve(import.meta.dir, "../..");
  const name = packageRelease(root, url.replace(/\/$/, ""), resolve(out));
  console.error(`release in ${out}: ${name}, SHA256SUMS, install.sh (for ${url})`);
}
