// What the host says about itself: the figures and identities a Node's status reports. Read once at start
// (capacity and identity do not change while the agent runs), except the filesystem, read per status.
import { readFileSync, statfsSync } from "node:fs";
import { availableParallelism, hostname, release } from "node:os";

export interface HostInfo {
  hostname: string;
  cpus: number;
  memoryBytes: number;
  kernelVersion: string;
  osImage: string;
  /** GOOS and GOARCH spellings: linux, amd64/arm64. */
  operatingSystem: string;
  architecture: string;
  machineID: string;
  bootID: string;
  systemUUID: string;
}

const readOr = (path: string, fallback = "") => {
  try { return readFileSync(path, "utf8").trim(); } catch { return fallback; }
};

const GOARCH: Record<string, string> = { x64: "amd64", ia32: "386", arm64: "arm64", arm: "arm", ppc64: "ppc64le", s390x: "s390x" };

/** PRETTY_NAME of /etc/os-release, as cadvisor reports it ("Ubuntu 22.04.3 LTS"); "Linux" without one. */
export function osImage(text: string): string {
  const m = /^PRETTY_NAME=(.*)$/m.exec(text);
  return m ? m[1].trim().replace(/^(["'])(.*)\1$/, "$2") : "Linux";
}

/** MemTotal of /proc/meminfo in bytes. */
export function memTotalBytes(meminfo: string): number {
  const m = /^MemTotal:\s+(\d+)\s*kB/m.exec(meminfo);
  return m ? Number(m[1]) * 1024 : 0;
}

export function readHost(): HostInfo {
  const machineID = readOr("/etc/machine-id", readOr("/var/lib/dbus/machine-id"));
  return {
    hostname: hostname(),
    cpus: availableParallelism(),
    memoryBytes: memTotalBytes(readOr("/proc/meminfo")),
    kernelVersion: release(),
    osImage: osImage(readOr("/etc/os-release", readOr("/usr/lib/os-release"))),
    operatingSystem: process.platform,
    architecture: GOARCH[process.arch] ?? process.arch,
    machineID,
    bootID: readOr("/proc/sys/kernel/random/boot_id"),
    // readable by root only; cadvisor falls back the same way
    systemUUID: readOr("/sys/class/dmi/id/product_uuid", machineID).toLowerCase(),
  };
}

/** The capacity in bytes of the filesystem holding `path`. */
export function filesystemBytes(path: string): number {
  const s = statfsSync(path);
  return s.blocks * s.bsize;
}
