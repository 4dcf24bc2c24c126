// The YAML readers of request bodies: the fast one reads a megabyte in well under 100 ms and agrees with
// the full one wherever it does not give up; the full one follows go-yaml v2 (as upstream's decoder runs
// it) on aliases, merges, repeated keys and keys that are not strings; both refuse nesting past 10,000.
import { randomValues } from "../helpers/random-values.ts";
import { describe, expect, test } from "bun:test";
import YAML from "yaml";
import { nestsDeeper } from "../../pkg/util/jsondepth.ts";
import { decodeYaml } from "../../pkg/yaml/decode.ts";
import { parseYamlFast } from "../../pkg/yaml/fast.ts";
import { parseYamlFull } from "../../pkg/yaml/full.ts";
import { YamlLimitError } from "../../pkg/yaml/limits.ts";

/** Both readers on one source: the fast one's documents (undefined when it gives up) and the full one's. */
function both(src: string): { fast: unknown[] | undefined; full: unknown[] } {
  return { fast: parseYamlFast(src, { lastKeyWins: true }), full: parseYamlFull(src) };
}

/**
 * CPU milliseconds of the quickest of `runs` calls, after one to warm up: CPU time, since other processes
 * on a shared machine stretch the wall clock without making the parse any slower.
 */
function quickest(f: () => unknown, runs = 10): number {
  f();
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    const t0 = process.cpuUsage();
    f();
    const t = process.cpuUsage(t0);
    best = Math.min(best, (t.user + t.system) / 1000);
  }
  return best;
}

describe("a megabyte in under 100 ms", () => {
  test("a stream of Deployments (1 MB)", () => {
    const docs: string[] = [];
    let size = 0;
    for (let i = 0; size < 1 << 20; i++) {
      const d = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web-${i}
  labels: {app: web, tier: "frontend"}
spec:
  replicas: 3
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: nginx:1.25
        args: ["--port", "8080"]
        ports:
        - containerPort: 8080
          protocol: TCP
        env:
        - name: MODE
          value: 'production'
        command:
        - /bin/sh
        - -c
        - |
          echo starting
          exec nginx
`;
      docs.push(d);
      size += d.length + 4;
    }
    const src = docs.join("---\n");
    expect(parseYamlFast(src)).toHaveLength(docs.length);
    expect(quickest(() => parseYamlFast(src))).toBeLessThanOrEqual(100);
  });

  test("one ConfigMap of 45,000 keys (1 MB), as a request body", () => {
    const lines = ["apiVersion: v1", "kind: ConfigMap", "metadata:", "  name: big", "data:"];
    for (let i = 0; i < 45_000; i++) lines.push(`  key-${i}: "value ${i}"`);
    const src = `${lines.join("\n")}\n`;
    expect(src.length).toBeGreaterThan(1_000_000);
    expect(Object.keys((decodeYaml(src) as any).data)).toHaveLength(45_000);
    expect(quickest(() => decodeYaml(src))).toBeLessThanOrEqual(100);
  });
});

describe("the fast reader and the full one agree", () => {
  const scalars = [
    "yes", "Yes", "YES", "no", "No", "on", "On", "off", "OFF", "y", "Y", "n", "N", "true", "True", "FALSE", "yEs",
    "~", "null", "Null", "NULL", "nULL", "", "0644", "0o17", "09", "0x1F", "0X1F", "0b11", "-0b11", "+0b1", "1_000",
    "+2", "-7", "0", "-0", "007", "08", ".5", "-.5", "1.", "1e3", "1E3", "1.5e-3", "6.8523015e+5", "1_000.5",
    "99999999999999999999", ".inf", "-.Inf", ".NaN", ".", "-", "1:20", "-1:20:30", "1:20.5", "2020-01-01",
    "2020-01-01T00:00:00Z", "2001-12-14 21:59:43.10 -5", "http://x.y/z?a=b#frag", "nginx:1.25", "a:b", "a b  c",
    "'quoted'", "'it''s'", `"0644"`, `"yes"`, `"tab\\tand\\u00e9"`, `"\\x41\\U0001F600"`, "ünïcödé", "#not-first", "a #comment",
    "<<", "=", "!", "key: value", "- item",
  ];

  test("on tricky scalars, as values of maps and sequences, block and flow", () => {
    let fast = 0;
    for (const s of scalars) {
      for (const src of [`k: ${s}\n`, `- ${s}\n`, `k: [${s}]\n`, `k: {a: ${s}}\n`, `${s}: 1\n`]) {
        let r;
        try {
          r = both(src);
        } catch {
          expect(parseYamlFast(src, { lastKeyWins: true }), `the fast reader reads ${JSON.stringify(src)}, which the full one refuses`).toBeUndefined();
          continue;
        }
        if (r.fast === undefined) continue;
        fast++;
        expect(r.fast, JSON.stringify(src)).toEqual(r.full);
      }
    }
    expect(fast).toBeGreaterThan(scalars.length * 3);
  });

  test("on go-yaml v2's YAML 1.1 values", () => {
    const src = "a: yes\nb: 0644\nc: on\nd: 0x1F\ne: 1:20\nf: 2020-01-01\ng: ~\nh: y\ni: 1e3\nj: 0b11\nk: No\n";
    const want = { a: true, b: 420, c: true, d: 31, e: "1:20", f: "2020-01-01", g: null, h: true, i: 1000, j: 3, k: false };
    expect(decodeYaml(src)).toEqual(want);
    expect(parseYamlFull(src)).toEqual([want]);
  });

  test("on random objects written in several styles", () => {
    const { rnd, value: gen } = randomValues(7, ["a", "web", "nginx:1.25", "0644", "1.5", "yes", "No", "~", "", "x y", "a: b", "#c", "it's", 'say "hi"', "- dash", "line\nbreak\n", "ünïcödé", "123", "-7", "{x}", "[y]", "true", "null", " pad ", "1:20", "2020-01-01"]);
    const styles = [{}, { indentSeq: false }, { collectionStyle: "flow" }, { indentSeq: false, indent: 4 }];
    let fast = 0;
    for (let i = 0; i < 300; i++) {
      const obj = { kind: "Thing", spec: gen(0) };
      const src = YAML.stringify(obj, { version: "1.1", ...styles[rnd(styles.length)] } as never);
      const r = both(src);
      expect(r.full, src).toEqual([obj]);
      if (r.fast === undefined) continue;
      fast++;
      expect(r.fast, src).toEqual(r.full);
    }
    expect(fast).toBeGreaterThan(150);
  });

  test("on repeated keys: the last value wins, in the first key's place", () => {
    const r = both("a: 1\nb: 2\na: 3\nm: {x: 1, x: 2}\n");
    expect(r.fast).toEqual([{ a: 3, b: 2, m: { x: 2 } }]);
    expect(Object.keys(r.fast![0] as object)).toEqual(["a", "b", "m"]);
    expect(r.full).toEqual(r.fast!);
    expect(Object.keys(r.full[0] as object)).toEqual(["a", "b", "m"]);
  });

  test("on __proto__, which is a key like any other", () => {
    for (const src of ["__proto__: {x: 1}\n", "m: {__proto__: 1}\n"]) {
      const r = both(src);
      expect(r.fast).toEqual(r.full);
      expect(JSON.stringify(r.fast)).toBe(JSON.stringify(r.full));
      expect(JSON.stringify(r.full)).toContain("__proto__");
    }
  });

  test("on CRLF line breaks", () => {
    const r = both("a: 1\r\nb:\r\n- x\r\n- 'y'\r\n");
    expect(r.fast).toEqual([{ a: 1, b: ["x", "y"] }]);
    expect(r.full).toEqual(r.fast!);
  });
});

describe("the full reader follows go-yaml v2", () => {
  const one = (src: string) => {
    const docs = parseYamlFull(src);
    expect(docs).toHaveLength(1);
    return docs[0] as any;
  };

  test("an alias inside its own anchor is an error", () => {
    for (const src of ["a: &x [*x]\n", "a: &x\n  b: *x\n", "a: &x [1, &y [*x]]\n"]) {
      expect(() => parseYamlFull(src)).toThrow("value contains itself");
    }
  });

  test("aliases expand to copies, bound where they stand", () => {
    const v = one("a: &x {k: [1]}\nb: *x\nc: &y [&z 1, *x]\nz: 2\nd: *y\ne: *z\n");
    expect(v).toEqual({ a: { k: [1] }, b: { k: [1] }, c: [1, { k: [1] }], z: 2, d: [1, { k: [1] }], e: 1 });
    expect(v.b).not.toBe(v.a);
    expect(v.d[1]).not.toBe(v.a);
    const rebound = one("a: &x 1\nb: &y [*x]\nc: &x 2\nd: *y\ne: *x\n");
    expect(rebound).toEqual({ a: 1, b: [1], c: 2, d: [1], e: 2 });
    expect(() => parseYamlFull("a: *nope\n")).toThrow("unknown anchor 'nope' referenced");
  });

  test("a billion laughs is refused early, a few hundred aliases are not", () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]'];
    for (let i = 1; i < 9; i++) levels.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill(`*${String.fromCharCode(96 + i)}`).join(",")}]`);
    const t0 = performance.now();
    expect(() => parseYamlFull(levels.join("\n"))).toThrow(YamlLimitError);
    expect(performance.now() - t0).toBeLessThan(1_000);
    const many = `base: &b {image: nginx, port: 80}\nitems:\n${Array.from({ length: 300 }, () => "- *b").join("\n")}\n`;
    expect(one(many).items).toHaveLength(300);
  });

  test("merge keys set the merged keys in document order; of a list, the earlier map wins", () => {
    expect(one("b: &b {p: 1, q: 2}\nm:\n  p: 0\n  <<: *b\n  r: 3\n").m).toEqual({ p: 1, q: 2, r: 3 });
    expect(one("b: &b {p: 1, q: 2}\nm:\n  <<: *b\n  p: 9\n").m).toEqual({ p: 9, q: 2 });
    expect(one("m:\n  <<: [{a: 1}, {a: 2, b: 2}]\n").m).toEqual({ a: 1, b: 2 });
    expect(() => parseYamlFull("m:\n  <<: 1\n")).toThrow("map merge requires map");
    expect(one("m: {'<<': 1}\n").m).toEqual({ "<<": 1 });
  });

  test("keys that are numbers or booleans become strings; others are errors", () => {
    expect(one("1: a\nyes: b\n1.5: c\n")).toEqual({ 1: "a", true: "b", "1.5": "c" });
    expect(() => parseYamlFull("? [x]\n: y\n")).toThrow("unsupported map key");
    expect(() => parseYamlFull("~: y\n")).toThrow("unsupported map key");
  });

  test("tags, binary, and what JSON cannot hold", () => {
    expect(one("a: !!str 1\nb: !!int '3'\nc: !!binary aGVsbG8=\nd: !custom x\n")).toEqual({ a: "1", b: 3, c: "hello", d: "x" });
    expect(() => parseYamlFull("a: .inf\n")).toThrow("unsupported value");
  });
});

describe("nesting past 10,000 levels", () => {
  const deep = (n: number) => ({
    "block sequences": `${"- ".repeat(n)}x\n`,
    "block sequences around a map": `${"- ".repeat(n - 1)}k: v\n`,
    "flow": `${"[".repeat(n)}${"]".repeat(n)}\n`,
    "flow in a map": `a: ${"{b: ".repeat(n - 2)}{}${"}".repeat(n - 2)}\n`,
  });

  test("is refused by the fast reader, and 10,000 are read", () => {
    for (const [what, src] of Object.entries(deep(10_001))) expect(() => parseYamlFast(src), what).toThrow("exceeded max depth of 10000");
    for (const [what, src] of Object.entries(deep(10_000))) expect(parseYamlFast(src), what).toHaveLength(1);
  });

  test("is refused by the full reader, however the nesting is made", () => {
    expect(() => parseYamlFull(`a: &a ${"[".repeat(12_000)}${"]".repeat(12_000)}\n`)).toThrow("exceeded max depth of 10000");
    // 5,001 levels that an alias nests into 5,001 more
    const src = `a: &a ${"[".repeat(5_001)}${"]".repeat(5_001)}\nb: ${"[".repeat(5_000)}*a${"]".repeat(5_000)}\n`;
    expect(() => parseYamlFull(src)).toThrow("exceeded max depth of 10000");
  });

  test("is found in JSON text before it is parsed, strings skipped", () => {
    expect(nestsDeeper(`${"[".repeat(10_001)}${"]".repeat(10_001)}`, 10_000)).toBe(true);
    expect(nestsDeeper(`${"[".repeat(10_000)}${"]".repeat(10_000)}`, 10_000)).toBe(false);
    expect(nestsDeeper(`["${"[".repeat(20_000)}", "\\"[[", {"a": "]]]"}]`, 10_000)).toBe(false);
  });

  test("makes a body the full reader would need too long for refused before it is read", () => {
    const src = `a: &a 1\nb: [${"1, ".repeat(40_000)}1]\n`;
    expect(() => decodeYaml(src)).toThrow(YamlLimitError);
  });
});
