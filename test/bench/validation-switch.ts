// `kite apiserver` from source whose per-kind validation (the validators of pkg/validation) SIGUSR1 turns
// off and SIGUSR2 turns back on: ./validation.bench.ts measures creates with and without it in one
// process. The switch lives here only; the server's code has none. Spawned as startServer's launcher
// (`bun validation-switch.ts apiserver --flags...`).
import { KIND_VALIDATORS } from "../../pkg/validation/index.ts";
import { launchApiServer } from "../helpers/launch-apiserver.ts";

const validators = { ...KIND_VALIDATORS };
const none = Object.fromEntries(Object.keys(validators).map((kind) => [kind, () => []]));
process.on("SIGUSR1", () => Object.assign(KIND_VALIDATORS, none));
process.on("SIGUSR2", () => Object.assign(KIND_VALIDATORS, validators));

await launchApiServer();
