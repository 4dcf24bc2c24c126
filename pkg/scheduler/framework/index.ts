// The scheduling framework's public surface, for plugins and the scheduler.
export * from "./api.ts";
export * from "./status.ts";
export * from "./cycle-state.ts";
export * from "./selectors.ts";
export * from "./resource.ts";
export * from "./host-ports.ts";
export * from "./pod-info.ts";
export * from "./node-info.ts";
export * from "./snapshot.ts";
export * from "./interface.ts";
export * from "./runtime.ts";
