// A set of field paths stored as a trie (upstream's fieldpath.Set): `members` are paths that
// end at this level, `children` lead deeper. Empty children are never kept, so structural
// equality is set equality. Also reads and writes the FieldsV1 encoding.
import { ApplyError, isObj } from "./value.ts";
import { type PE, comparePE, parsePE, serializePE } from "./pathelement.ts";

interface Child {
  pe: PE;
  set: FieldSet;
}

export class FieldSet {
  readonly members = new Map<string, PE>();
  readonly children = new Map<string, Child>();

  static of(...paths: PE[][]): FieldSet {
    const s = new FieldSet();
    for (const p of paths) s.insert(p);
    return s;
  }

  addMember(pe: PE): void {
    this.members.set(serializePE(pe), pe);
  }

  /** Attaches `set` under `pe` (merging with what is there); empty sets are not kept. */
  addChild(pe: PE, set: FieldSet): void {
    if (set.isEmpty()) return;
    const key = serializePE(pe);
    const old = this.children.get(key);
    this.children.set(key, { pe, set: old ? old.set.union(set) : set });
  }

  insert(path: PE[]): void {
    if (path.length === 0) return;
    if (path.length === 1) return this.addMember(path[0]);
    this.addChild(path[0], FieldSet.of(path.slice(1)));
  }

  has(path: PE[]): boolean {
    if (path.length === 0) return false;
    const key = serializePE(path[0]);
    if (path.length === 1) return this.members.has(key);
    const c = this.children.get(key);
    return !!c && c.set.has(path.slice(1));
  }

  hasMember(pe: PE): boolean {
    return this.members.has(serializePE(pe));
  }

  /** The subtree under `pe` (empty when there is none). */
  withPrefix(pe: PE): FieldSet {
    return this.children.get(serializePE(pe))?.set ?? EMPTY;
  }

  isEmpty(): boolean {
    return this.members.size === 0 && this.children.size === 0;
  }

  union(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) out.members.set(k, pe);
    for (const [k, pe] of o.members) out.members.set(k, pe);
    for (const [k, c] of this.children) out.children.set(k, c);
    for (const [k, c] of o.children) {
      const mine = out.children.get(k);
      out.children.set(k, mine ? { pe: c.pe, set: mine.set.union(c.set) } : c);
    }
    return out;
  }

  intersection(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (o.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const theirs = o.children.get(k);
      if (theirs) out.addChild(c.pe, c.set.intersection(theirs.set));
    }
    return out;
  }

  /** Members minus members, children minus children: a member of `o` does not cut a subtree. */
  difference(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!o.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      const theirs = o.children.get(k);
      out.addChild(c.pe, theirs ? c.set.difference(theirs.set) : c.set);
    }
    return out;
  }

  /** Like difference, but a member of `o` also removes everything below it. */
  recursiveDifference(o: FieldSet): FieldSet {
    const out = new FieldSet();
    for (const [k, pe] of this.members) if (!o.members.has(k)) out.members.set(k, pe);
    for (const [k, c] of this.children) {
      if (o.members.has(k)) continue;
      const theirs = o.children.get(k);
      out.addChild(c.pe, theirs ? c.set.recursiveDifference(theirs.set) : c.set);
    }
    return out;
  }

  equals(o: FieldSet): boolean {
    if (this.members.size !== o.members.size || this.children.size !== o.children.size) return false;
    for (const k of this.members.keys()) if (!o.members.has(k)) return false;
    for (const [k, c] of this.children) {
      const theirs = o.children.get(k);
      if (!theirs || !c.set.equals(theirs.set)) return false;
    }
    return true;
  }

  /** Every path, in upstream's order: this level's members, then each child's paths. */
  paths(prefix: PE[] = [], out: PE[][] = []): PE[][] {
    for (const pe of [...this.members.values()].sort(comparePE)) out.push([...prefix, pe]);
    for (const c of [...this.children.values()].sort((a, b) => comparePE(a.pe, b.pe))) c.set.paths([...prefix, c.pe], out);
    return out;
  }

  /** The FieldsV1 tree: keys sorted as upstream, `.` marking a member that also has children. */
  toFieldsV1(): Record<string, object> {
    const entries = new Map<string, PE>(this.members);
    for (const [k, c] of this.children) entries.set(k, c.pe);
    const out: Record<string, object> = {};
    for (const [k, pe] of [...entries].sort((a, b) => comparePE(a[1], b[1]))) {
      const child = this.children.get(k);
      if (!child) out[k] = {};
      else out[k] = this.members.has(k) ? { ".": {}, ...child.set.toFieldsV1() } : child.set.toFieldsV1();
    }
    return out;
  }

  static fromFieldsV1(tree: unknown): FieldSet {
    if (tree === undefined || tree === null) return new FieldSet();
    if (!isObj(tree)) throw new ApplyError("error decoding set: FieldsV1 must be an object");
    return readLevel(tree).set ?? new FieldSet();
  }
}

const EMPTY = new FieldSet();

// Mirrors upstream's reader: an object with no children is a member (so `{}` and `{".":{}}`
// both mean "this path"), and path elements of unknown types are skipped.
function readLevel(tree: Record<string, unknown>): { set: FieldSet | null; member: boolean } {
  let set: FieldSet | null = null;
  let member = false;
  for (const [key, sub] of Object.entries(tree)) {
    if (key === ".") {
      member = true;
      continue;
    }
    if (!/^[fkvi]:/.test(key)) continue;
    if (!isObj(sub)) throw new ApplyError(`error decoding set: value of ${key} must be an object`);
    const pe = parsePE(key);
    const below = readLevel(sub);
    set ??= new FieldSet();
    if (below.member) set.addMember(pe);
    if (below.set) set.addChild(pe, below.set);
  }
  if (!set || set.isEmpty()) return { set: null, member: true };
  return { set, member };
}
