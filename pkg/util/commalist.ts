// Comma-separated values, as flags (`--admission-plugins=A,B`) and list headers (`Sec-WebSocket-Protocol`)
// carry them: items trimmed, empty ones dropped.

/** The items of a comma-separated value; none for undefined, null or "". */
export function commaList(v: unknown): string[] {
  return String(v ?? "").split(",").map((x) => x.trim()).filter(Boolean);
}
