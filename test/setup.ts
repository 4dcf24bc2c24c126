// Preloaded by bun test (bunfig.toml): after every test file has run, no server or etcd is left behind.
import { afterAll } from "bun:test";
import { killAll } from "./helpers/processes.ts";

afterAll(killAll);
