// The API's two timestamp forms: metav1.Time (RFC 3339, whole seconds) and metav1.MicroTime (six
// fractional digits), from the wall clock.

/** metav1.Time: `2021-04-08T12:00:00Z`. */
export const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, "Z");

/** metav1.MicroTime of now: `2021-04-08T12:00:00.123456Z` (the sub-millisecond part from the high-resolution clock). */
export function microTimeNow(): string {
  const t = performance.timeOrigin + performance.now();
  const ms = Math.floor(t);
  const us = Math.floor((t - ms) * 1000);
  return `${new Date(ms).toISOString().slice(0, -1)}${String(us).padStart(3, "0")}Z`;
}

/** A MicroTime for a given instant (millisecond precision, zero-padded to six digits). */
export const microTime = (d: Date): string => `${d.toISOString().slice(0, -1)}000Z`;
