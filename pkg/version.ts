// What `/version` and `kite version` report: the Kubernetes API level Kite serves (v1.21) and Kite's own version.
import pkg from "../package.json" with { type: "json" };

export const KITE_VERSION = pkg.version;

export const VERSION_INFO = {
  major: "1",
  minor: "21",
  gitVersion: `v1.21.0+kite.${KITE_VERSION}`,
  gitCommit: "",
  gitTreeState: "clean",
  buildDate: "",
  goVersion: `bun${Bun.version}`,
  compiler: "bun",
  platform: `${process.platform}/${process.arch === "x64" ? "amd64" : process.arch}`,
};
