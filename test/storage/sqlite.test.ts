import { join } from "node:path";
import { SqliteStore } from "../../pkg/storage/sqlite.ts";
import { runStoreConformance } from "./conformance.ts";
import { tempDir } from "../helpers/processes.ts";

runStoreConformance("sqlite", async () => new SqliteStore(join(tempDir("kite-store-"), "state.db")));
