import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../pkg/storage/sqlite.ts";
import { runStoreConformance } from "./conformance.ts";

runStoreConformance("sqlite", async () => new SqliteStore(join(mkdtempSync(join(tmpdir(), "kite-store-")), "state.db")));
