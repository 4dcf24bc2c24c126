// Every row of the conversion table, one file per group (or kind where a kind's rows are long).
import type { VersionRow } from "../table.ts";

export const ROWS: VersionRow[] = [];
