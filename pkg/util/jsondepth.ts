// How deep JSON text nests, found before JSON.parse builds anything: JSON.parse itself accepts a million
// levels (half a second and 130 MB for 2 MB of brackets), which the rest of the server cannot walk.

/** Whether `text` opens more than `max` arrays and objects inside each other (strings are skipped). */
export function nestsDeeper(text: string, max: number): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) { // a string: up to its closing quote, past escapes
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 92) i++;
        else if (d === 34) break;
      }
    } else if (c === 91 || c === 123) {
      if (++depth > max) return true;
    } else if (c === 93 || c === 125) depth--;
  }
  return false;
}
