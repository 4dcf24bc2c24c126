// CSV as Go's encoding/csv reads it (pkg/util/csv.ts), for --token-auth-file.
import { expect, test } from "bun:test";
import { parseCsv } from "../../pkg/util/csv.ts";

test("quoted fields hold commas, doubled quotes and line breaks; empty lines are skipped; CRLF is LF", () => {
  expect(parseCsv('t1,alice,u1,"a,b"\r\n\n"t""2",bob,"u\n2"\nt3,,\n')).toEqual([
    ["t1", "alice", "u1", "a,b"],
    ['t"2', "bob", "u\n2"],
    ["t3", "", ""],
  ]);
  expect(parseCsv("")).toEqual([]);
  expect(parseCsv("a,b")).toEqual([["a", "b"]]);
});

test("malformed quotes are errors in Go's words", () => {
  expect(() => parseCsv('a,b"c\n')).toThrow('parse error on line 1, column 4: bare " in non-quoted field');
  expect(() => parseCsv('x\n"a"b,c\n')).toThrow('parse error on line 2, column 4: extraneous or missing " in quoted-field');
  expect(() => parseCsv('"open,\n')).toThrow('extraneous or missing " in quoted-field');
});
