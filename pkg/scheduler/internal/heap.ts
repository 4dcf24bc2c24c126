// A binary heap with items addressable by key, for update and delete (upstream's queue heap).

export class Heap<T> {
  private readonly items: T[] = [];
  private readonly index = new Map<string, number>();

  constructor(private readonly keyOf: (t: T) => string, private readonly less: (a: T, b: T) => boolean) {}

  get length(): number {
    return this.items.length;
  }

  get(key: string): T | undefined {
    const i = this.index.get(key);
    return i === undefined ? undefined : this.items[i];
  }

  has(key: string): boolean {
    return this.index.has(key);
  }

  /** Adds the item, or replaces the one with its key and restores order. */
  addOrUpdate(t: T): void {
    const key = this.keyOf(t);
    const i = this.index.get(key);
    if (i !== undefined) {
      this.items[i] = t;
      this.fix(i);
      return;
    }
    this.items.push(t);
    this.index.set(key, this.items.length - 1);
    this.up(this.items.length - 1);
  }

  delete(key: string): T | undefined {
    const i = this.index.get(key);
    if (i === undefined) return undefined;
    const t = this.items[i];
    this.removeAt(i);
    return t;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  pop(): T | undefined {
    if (this.items.length === 0) return undefined;
    const t = this.items[0];
    this.removeAt(0);
    return t;
  }

  values(): T[] {
    return this.items.slice();
  }

  private removeAt(i: number): void {
    const last = this.items.length - 1;
    this.index.delete(this.keyOf(this.items[i]));
    if (i !== last) {
      this.items[i] = this.items[last];
      this.index.set(this.keyOf(this.items[i]), i);
      this.items.pop();
      this.fix(i);
    } else {
      this.items.pop();
    }
  }

  private fix(i: number): void {
    if (!this.down(i)) this.up(i);
  }

  private swap(i: number, j: number): void {
    const a = this.items[i];
    this.items[i] = this.items[j];
    this.items[j] = a;
    this.index.set(this.keyOf(this.items[i]), i);
    this.index.set(this.keyOf(this.items[j]), j);
  }

  private up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(this.items[i], this.items[p])) break;
      this.swap(i, p);
      i = p;
    }
  }

  /** Sifts down; true if the item moved. */
  private down(i0: number): boolean {
    let i = i0;
    const n = this.items.length;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      let c = l;
      if (l + 1 < n && this.less(this.items[l + 1], this.items[l])) c = l + 1;
      if (!this.less(this.items[c], this.items[i])) break;
      this.swap(i, c);
      i = c;
    }
    return i > i0;
  }
}
