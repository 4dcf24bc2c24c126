// Text helpers of the page: an object as the YAML people edit (without the fields the server manages), and a
// line diff for the preview before saving.
import { stringify } from "yaml";

/** Drops what an apply should not carry: managed fields, the server's bookkeeping and status. */
export function forEditing(obj: any): any {
  const { managedFields: _m, resourceVersion: _r, uid: _u, creationTimestamp: _c, generation: _g, selfLink: _s, ...metadata } = obj.metadata ?? {};
  const { status: _status, ...rest } = obj;
  return { ...rest, metadata };
}

export function toYaml(obj: unknown): string {
  return stringify(obj, { lineWidth: 0 });
}

export function withoutManagedFields(obj: any): any {
  if (!obj?.metadata?.managedFields) return obj;
  const { managedFields: _m, ...metadata } = obj.metadata;
  return { ...obj, metadata };
}

/** A Secret with its values replaced by their sizes, until the user asks to see them. */
export function hideSecretValues(obj: any): any {
  const hide = (d?: Record<string, string>) => d && Object.fromEntries(Object.keys(d).map((k) => [k, `(hidden, ${atob(d[k] ?? "").length} bytes)`]));
  return { ...obj, ...(obj.data ? { data: hide(obj.data) } : {}), ...(obj.stringData ? { stringData: hide(obj.stringData) } : {}) };
}

export type DiffLine = { op: " " | "+" | "-"; text: string };

/** The lines of `a` and `b` as kept, removed and added lines (longest common subsequence). */
export function diffLines(a: string, b: string): DiffLine[] {
  const x = a.split("\n"), y = b.split("\n");
  // the common head and tail are kept as they are; only the middle is compared line by line
  let head = 0;
  while (head < x.length && head < y.length && x[head] === y[head]) head++;
  let tail = 0;
  while (tail < x.length - head && tail < y.length - head && x[x.length - 1 - tail] === y[y.length - 1 - tail]) tail++;
  const xs = x.slice(head, x.length - tail), ys = y.slice(head, y.length - tail);
  const out: DiffLine[] = x.slice(0, head).map((text) => ({ op: " ", text }));
  if (xs.length * ys.length > 4_000_000) {
    out.push(...xs.map((text) => ({ op: "-" as const, text })), ...ys.map((text) => ({ op: "+" as const, text })));
  } else {
    const n = xs.length, m = ys.length;
    const lcs = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
    for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) lcs[i][j] = xs[i] === ys[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    let i = 0, j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && xs[i] === ys[j]) { out.push({ op: " ", text: xs[i++] }); j++; }
      else if (j < m && (i === n || lcs[i][j + 1] >= lcs[i + 1][j])) out.push({ op: "+", text: ys[j++] });
      else out.push({ op: "-", text: xs[i++] });
    }
  }
  out.push(...x.slice(x.length - tail).map((text) => ({ op: " " as const, text })));
  return out;
}
