// The command table: every kite subcommand, loaded lazily from its own file.
export const COMMANDS = {
  apiserver: () => import("./apiserver.ts").then((m) => m.default),
  up: () => import("./up.ts").then((m) => m.default),
  get: () => import("./get.ts").then((m) => m.default),
  apply: () => import("./apply.ts").then((m) => m.default),
  delete: () => import("./delete.ts").then((m) => m.default),
  convert: () => import("./convert.ts").then((m) => m.default),
  console: () => import("./console.ts").then((m) => m.default),
  datastore: () => import("./datastore.ts").then((m) => m.default),
  scheduler: () => import("./scheduler.ts").then((m) => m.default),
  "node-agent": () => import("./node-agent.ts").then((m) => m.default),
  "controller-manager": () => import("./controller-manager.ts").then((m) => m.default),
  version: () => import("./version.ts").then((m) => m.default),
};

export type CommandName = keyof typeof COMMANDS;
