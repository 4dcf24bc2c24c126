// Values the server writes into an object's metadata itself: its timestamps and generated names.

/** The time as Kubernetes writes it (RFC 3339, whole seconds); formatted once per second. */
let nowSecond = 0, nowText = "";
export function now(): string {
  const s = Math.floor(Date.now() / 1000);
  if (s !== nowSecond) { nowSecond = s; nowText = new Date(s * 1000).toISOString().replace(/\.\d{3}Z$/, "Z"); }
  return nowText;
}
/** generateName's suffix: five characters of upstream's alphabet, with no vowels so no words are spelled. */
const NAME_CHARS = "bcdfghjklmnpqrstvwxz2456789";
export const randomSuffix = () => Array.from({ length: 5 }, () => NAME_CHARS[Math.floor(Math.random() * NAME_CHARS.length)]).join("");
