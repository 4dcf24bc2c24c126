// The API's two timestamp forms: metav1.Time (RFC 3339, whole seconds) and metav1.MicroTime (six
// fractional digits), from the wall clock.

/** metav1.Time: `2021-04-08T12:00:00Z`. */
export const rfc3339 = (d: Date): string => d.toISOString().replace(/\.\d{3}Z$/, "Z");

/** metav1.MicroTime of now: `2021-04-08T12:00:00.123456Z` (the sub-millisecond part from the high-resolution clock). */
export const microTimeNow = (): string => microTime(performance.timeOrigin + performance.now());

/** metav1.MicroTime of an instant in milliseconds since the epoch (fractional milliseconds kept). */
export function microTime(ms: number): string {
  const whole = Math.floor(ms);
  const us = Math.floor((ms - whole) * 1000);
  return `${new Date(whole).toISOString().slice(0, -1)}${String(us).padStart(3, "0")}Z`;
}
