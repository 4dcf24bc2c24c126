// Resource versions in writes and reads: the client's, parsed; the one a write must find; and the retry
// of a write that lost a compare-and-swap race to another writer.
import { StatusError, badRequest } from "../api/status.ts";

/** The resourceVersion a write must find: none when unset or "0" (upstream's unconditional update). */
export const precondition = (rv: string | undefined) => (rv === "0" ? undefined : rv);

/** A client's resourceVersion as a number (0 when unset); 400 with upstream's message when it is not one. */
export function parseRV(rv: string | undefined): number {
  if (!rv) return 0;
  if (!/^\d+$/.test(rv)) throw badRequest(`resourceVersion: Invalid value: "${rv}": strconv.ParseUint: parsing "${rv}": invalid syntax`);
  return Number(rv);
}

/**
 * Retries of a write that lost a compare-and-swap race. Upstream retries without bound; each round some
 * writer wins, so this many rounds outlast any realistic number of writers to one object.
 */
const MAX_RACE_RETRIES = 1000;

export function lostRace(e: unknown, attempt: number): boolean {
  return attempt < MAX_RACE_RETRIES && e instanceof StatusError && e.code === 409 && e.reason === "Conflict";
}
