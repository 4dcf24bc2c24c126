// A set of field paths stored as a trie (upstream's fieldpath.Set): `members` are paths that
// end at this level, `children` lead deeper. Empty children are never kept, so structural
// equality is set equality. Also reads and writes the FieldsV1 encoding.
import { ApplyError } from "./value.ts";
import { type PE, comparePE, parsePE, sortedKeys } from "./pathelement.ts";
import { isMap } from "../util/ismap.ts";

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
    this.members.set(pe.s, pe);
  }

  /** Attaches `set` under `pe` (merging with what is there); empty sets are not kept. */
  addChild(pe: PE, set: FieldSet): void {
    if (set.isEmpty()) return;
    const old = this.children.get(pe.s);
    this.children.set(pe.s, { pe, set: old ? old.set.union(set) : set });
  }

  /**
   * Adds a path in place. Only for a set being built: child sets may be shared with the
   * sets that set operations returned.
   */
  insert(path: readonly PE[]): void {
    let node: FieldSet = this;
    for (let i = 0; i < path.length - 1; i++) {
      const pe = path[i];
      let c = node.children.get(pe.s);
      if (!c) node.children.set(pe.s, (c = { pe, set: new FieldSet() }));
      node = c.set;
    }
    if (path.length > 0) node.addMember(path[path.length - 1]);
  }

  has(path: readonly PE[]): boolean {
    let node: FieldSet | undefined = this;
    for (let i = 0; i < path.length - 1 && node; i++) node = node.children.get(path[i].s)?.set;
    return path.length > 0 && !!node && node.members.has(path[path.length - 1].s);
  }

  hasMember(pe: PE): boolean {
    return this.members.has(pe.s);
  }

  /** The subtree under `pe` (empty when there is none). */
  withPrefix(pe: PE): FieldSet {
    return this.children.get(pe.s)?.set ?? EMPTY;
  }

  isEmpty(): boolean {
    return this.members.size === 0 && this.children.size === 0;
  }

  union(o: FieldSet): FieldSet {
    if (o.isEmpty()) return this;
    if (this.isEmpty()) return o;
    const out = new FieldSet();
    copyInto(out.members, this.members);
    copyInto(out.members, o.members);
    copyInto(out.children, this.children);
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

  /**
   * The FieldsV1 tree: keys sorted as upstream, `.` marking a member that also has children (`dot` puts
   * it first here, rather than copying this level into a new object behind it).
   */
  toFieldsV1(dot = false): Record<string, object> {
    let entries = this.members;
    if (this.children.size) {
      entries = new Map(this.members);
      for (const [k, c] of this.children) entries.set(k, c.pe);
    }
    const out: Record<string, object> = dot ? { ".": {} } : {};
    for (const k of sortedKeys(entries)) {
      const child = this.children.get(k);
      out[k] = child ? child.set.toFieldsV1(this.members.has(k)) : {};
    }
    return out;
  }

  static fromFieldsV1(tree: unknown): FieldSet {
    if (tree === undefined || tree === null) return new FieldSet();
    if (!isMap(tree)) throw new ApplyError("error decoding set: FieldsV1 must be an object");
    return readLevel(tree).set ?? new FieldSet();
  }
}

const EMPTY = new FieldSet();

function copyInto<V>(to: Map<string, V>, from: Map<string, V>): void {
  for (const [k, v] of from) to.set(k, v);
}

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
    if (!isMap(sub)) throw new ApplyError(`error decoding set: value of ${key} must be an object`);
    const pe = parsePE(key);
    const below = readLevel(sub);
    set ??= new FieldSet();
    if (below.member) set.addMember(pe);
    if (below.set) set.addChild(pe, below.set);
  }
  if (!set || set.isEmpty()) return { set: null, member: true };
  return { set, member };
}
