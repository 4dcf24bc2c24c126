// Every row of the conversion table, one file per group (or kind where a kind's rows are long).
import type { VersionRow } from "../table.ts";
import { ADMISSION_ROWS } from "./admission.ts";
import { AUTOSCALING_ROWS } from "./autoscaling.ts";
import { BETA_ROWS } from "./betas.ts";
import { APPS_ROWS } from "./apps.ts";
import { AUTHORIZATION_ROWS } from "./authorization.ts";
import { CERTIFICATES_ROWS } from "./certificates.ts";
import { CRD_ROWS } from "./crd.ts";
import { DISCOVERY_ROWS } from "./discovery.ts";
import { EVENTS_ROWS } from "./events.ts";
import { EXTENSIONS_ROWS } from "./extensions.ts";
import { INGRESS_ROWS } from "./ingress.ts";
import { PDB_ROWS } from "./pdb.ts";

export const ROWS: VersionRow[] = [
  ...APPS_ROWS, ...EXTENSIONS_ROWS, ...INGRESS_ROWS, ...ADMISSION_ROWS, ...CRD_ROWS, ...AUTHORIZATION_ROWS,
  ...CERTIFICATES_ROWS, ...DISCOVERY_ROWS, ...EVENTS_ROWS, ...PDB_ROWS, ...BETA_ROWS, ...AUTOSCALING_ROWS,
];
