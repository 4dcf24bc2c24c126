#!/bin/sh
# Installs kite.
#   Inside a checkout:   ./install.sh             builds dist/kite and installs it
#   From a release:      curl -fsSL URL/install.sh | sh      downloads the binary for this OS/CPU, checks its sha256
#   Remove:              ./install.sh --uninstall  (or: ... | sh -s -- --uninstall)
# Installs into ${KITE_INSTALL_DIR:-$HOME/.local/bin}. A release's install.sh carries its own URL;
# KITE_RELEASE_URL overrides it.
set -eu

KITE_RELEASE_URL="${KITE_RELEASE_URL:-@KITE_RELEASE_URL@}"
dest="${KITE_INSTALL_DIR:-$HOME/.local/bin}"

say() { printf '%s\n' "$*" >&2; }
die() { say "install.sh: $*"; exit 1; }

if [ "${1:-}" = "--uninstall" ]; then
  if [ -f "$dest/kite" ]; then rm -f "$dest/kite"; say "removed $dest/kite"; else say "kite is not installed in $dest"; fi
  exit 0
fi
[ $# -eq 0 ] || die "unknown argument: $1 (usage: install.sh [--uninstall])"

mkdir -p "$dest"
# Run as a file (./install.sh), $0 names the script; piped into sh, it names the shell.
here=""
case "$0" in */install.sh|install.sh) here=$(cd "$(dirname "$0")" && pwd) ;; esac

if [ -n "$here" ] && [ -f "$here/package.json" ] && [ -f "$here/cmd/main.ts" ]; then
  # A checkout: build with the pinned bun.
  cd "$here"
  [ -x node_modules/.bin/bun ] || { say "installing dependencies (npm ci)"; npm ci --no-audit --no-fund >&2; }
  say "building dist/kite"
  npm run --silent build >&2
  cp dist/kite "$dest/kite.tmp" && mv "$dest/kite.tmp" "$dest/kite"
else
  case "$KITE_RELEASE_URL" in @*) die "no release URL: set KITE_RELEASE_URL to the release directory";; esac
  os=$(uname -s | tr '[:upper:]' '[:lower:]')
  case "$(uname -m)" in
    x86_64|amd64) arch=x64 ;;
    aarch64|arm64) arch=arm64 ;;
    *) die "unsupported CPU: $(uname -m)" ;;
  esac
  case "$os" in linux|darwin) ;; *) die "unsupported OS: $os" ;; esac
  name="kite-$os-$arch"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT INT TERM
  fetch() { if command -v curl >/dev/null 2>&1; then curl -fsSL "$1" -o "$2"; else wget -qO "$2" "$1"; fi; }
  say "downloading $KITE_RELEASE_URL/$name"
  fetch "$KITE_RELEASE_URL/$name" "$tmp/kite" || die "download failed: $KITE_RELEASE_URL/$name"
  fetch "$KITE_RELEASE_URL/SHA256SUMS" "$tmp/SHA256SUMS" || die "download failed: $KITE_RELEASE_URL/SHA256SUMS"
  want=$(awk -v n="$name" '$2 == n || $2 == "*" n { print $1 }' "$tmp/SHA256SUMS")
  [ -n "$want" ] || die "SHA256SUMS has no entry for $name"
  if command -v sha256sum >/dev/null 2>&1; then got=$(sha256sum "$tmp/kite" | awk '{print $1}'); else got=$(shasum -a 256 "$tmp/kite" | awk '{print $1}'); fi
  [ "$want" = "$got" ] || die "checksum mismatch for $name: expected $want, got $got"
  chmod +x "$tmp/kite"
  mv "$tmp/kite" "$dest/kite"
fi

say "installed $dest/kite ($("$dest/kite" version --client 2>/dev/null || echo unknown version))"
case ":$PATH:" in
  *":$dest:"*) ;;
  *) say "note: $dest is not on your PATH; add it with: export PATH=\"$dest:\$PATH\"" ;;
esac
