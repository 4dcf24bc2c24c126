// Every type at every version the server can serve: the hubs first (discovery's preferred versions),
// then each served row of the conversion table.
import { BUILTIN } from "./builtin.ts";
import type { ResourceDef } from "./types.ts";
import { servedRowDefs } from "./versions.ts";

export const SERVED: ResourceDef[] = [...BUILTIN, ...servedRowDefs(BUILTIN)];
