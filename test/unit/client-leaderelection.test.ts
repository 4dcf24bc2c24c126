import { expect, test } from "bun:test";
import { LeaderElector, type LeaderElectionConfig } from "../../pkg/client/leaderelection.ts";
import { newResourceLock, type ResourceLock } from "../../pkg/client/resourcelock.ts";
import type { Client } from "../../pkg/client/client.ts";

const lock = (identity = "a"): ResourceLock => ({ identity, describe: () => "ns/x", get: async () => { throw new Error("unused"); }, create: async () => {}, update: async () => {} });
const valid = (): LeaderElectionConfig => ({
  lock: lock(), leaseDuration: 15_000, renewDeadline: 10_000, retryPeriod: 2_000,
  callbacks: { onStartedLeading() {}, onStoppedLeading() {} },
});

test("the elector refuses what upstream refuses, with its messages", () => {
  expect(() => new LeaderElector(valid())).not.toThrow();
  const cases: [Partial<LeaderElectionConfig>, string][] = [
    [{ leaseDuration: 10_000 }, "leaseDuration must be greater than renewDeadline"],
    [{ retryPeriod: 9_000 }, "renewDeadline must be greater than retryPeriod*JitterFactor"],
    [{ leaseDuration: 0, renewDeadline: -2, retryPeriod: -5 }, "leaseDuration must be greater than zero"],
    [{ leaseDuration: 1, renewDeadline: 0, retryPeriod: -1 }, "renewDeadline must be greater than zero"],
    [{ retryPeriod: 0 }, "retryPeriod must be greater than zero"],
    [{ callbacks: { onStoppedLeading() {} } as any }, "OnStartedLeading callback must not be nil"],
    [{ callbacks: { onStartedLeading() {} } as any }, "OnStoppedLeading callback must not be nil"],
    [{ lock: undefined as any }, "Lock must not be nil."],
    [{ lock: lock("") }, "Lock identity is empty"],
  ];
  for (const [change, message] of cases) expect(() => new LeaderElector({ ...valid(), ...change })).toThrow(message);
});

test("an unknown lock type is refused", () => {
  expect(() => newResourceLock("zookeeper", {} as Client, "ns", "x", "a")).toThrow("Invalid lock-type zookeeper");
  for (const t of ["leases", "endpoints", "configmaps", "endpointsleases", "configmapsleases"]) {
    expect(newResourceLock(t, {} as Client, "ns", "x", "a").describe()).toBe("ns/x");
  }
});
