// Every row of the conversion table, one file per group (or kind where a kind's rows are long).
import type { VersionRow } from "../table.ts";
import { AUTOSCALING_ROWS } from "./autoscaling.ts";
import { BETA_ROWS } from "./betas.ts";

export const ROWS: VersionRow[] = [...BETA_ROWS, ...AUTOSCALING_ROWS];
