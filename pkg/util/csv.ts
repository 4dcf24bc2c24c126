// CSV as Go's encoding/csv reads it (comma-separated, `"`-quoted fields that may hold commas, `""` and line
// breaks; empty lines skipped; any number of fields per record), with its error words.

export class CsvError extends Error {}

export function parseCsv(text: string): string[][] {
  const s = text.replace(/\r\n/g, "\n");
  const records: string[][] = [];
  let i = 0, line = 1;
  const fail = (col: number, what: string): never => {
    throw new CsvError(`parse error on line ${line}, column ${col}: ${what}`);
  };
  while (i < s.length) {
    if (s[i] === "\n") { i++; line++; continue; }
    const record: string[] = [];
    let lineStart = i;
    for (;;) {
      let field = "";
      if (s[i] === '"') {
        i++;
        for (;;) {
          if (i >= s.length) fail(i - lineStart + 1, 'extraneous or missing " in quoted-field');
          const c = s[i++];
          if (c === '"') {
            if (s[i] === '"') { field += '"'; i++; continue; }
            if (i < s.length && s[i] !== "," && s[i] !== "\n") fail(i - lineStart + 1, 'extraneous or missing " in quoted-field');
            break;
          }
          if (c === "\n") { line++; lineStart = i; }
          field += c;
        }
      } else {
        while (i < s.length && s[i] !== "," && s[i] !== "\n") {
          if (s[i] === '"') fail(i - lineStart + 1, 'bare " in non-quoted field');
          field += s[i++];
        }
      }
      record.push(field);
      if (s[i] === ",") { i++; continue; }
      break;
    }
    records.push(record);
    if (s[i] === "\n") { i++; line++; }
  }
  return records;
}
