// Fair queuing for one limited priority level. Each flow is dealt a hand of queues (shuffle sharding:
// a noisy flow shares its hand's queues with few others) and waits in the shortest of them; a freed
// seat goes to the non-empty queue with the fewest requests executing, so every busy queue gets an
// equal share of the level's concurrency whatever the depth of the others. (Upstream orders queues by
// virtual finish time; with requests of unknown cost this is the same equal-share rule.)

export interface LevelShape {
  /** Seats: the level's share of the server's concurrency. */
  limit: number;
  /** Reject when no seat is free, instead of queuing. */
  reject: boolean;
  queues: number;
  handSize: number;
  queueLengthLimit: number;
}

export type Outcome = "dispatched" | "queue-full" | "concurrency-limit" | "time-out";

interface Waiter { flow: string; queue: Queue; done: (o: Outcome) => void; timer?: Timer }
class Queue {
  waiting: Waiter[] = [];
  executing = 0;
}

export class QueueSet {
  executing = 0;
  waiting = 0;
  private queues: Queue[] = [];
  private busy = new Set<Queue>();

  constructor(private shape: LevelShape) {
    this.configure(shape);
  }

  /** A new shape (the objects changed): waiting requests move to their hands of the new queues. */
  configure(shape: LevelShape) {
    const waiters = this.queues.flatMap((q) => q.waiting);
    this.shape = shape;
    this.queues = Array.from({ length: Math.max(1, shape.queues) }, () => new Queue());
    this.busy.clear();
    for (const w of waiters) {
      w.queue = this.pick(w.flow);
      w.queue.waiting.push(w);
      this.busy.add(w.queue);
    }
    this.dispatch();
  }

  /** Resolves when the request may run (then `release` must follow once) or was turned away. */
  enter(flow: string, waitLimitMs: number): Promise<{ outcome: Outcome; release: () => void }> | { outcome: Outcome; release: () => void } {
    const queue = this.pick(flow);
    const release = () => this.leave(queue);
    if (this.executing < this.shape.limit && this.waiting === 0) {
      this.start(queue);
      return { outcome: "dispatched", release };
    }
    if (this.shape.reject) return { outcome: "concurrency-limit", release };
    if (queue.waiting.length >= this.shape.queueLengthLimit) return { outcome: "queue-full", release };
    return new Promise((resolve) => {
      const w: Waiter = { flow, queue, done: (outcome) => resolve({ outcome, release: () => this.leave(w.queue) }) };
      w.timer = setTimeout(() => this.expire(w), waitLimitMs);
      w.queue.waiting.push(w);
      this.busy.add(w.queue);
      this.waiting++;
    });
  }

  private expire(w: Waiter) {
    const i = w.queue.waiting.indexOf(w);
    if (i < 0) return;
    w.queue.waiting.splice(i, 1);
    if (!w.queue.waiting.length) this.busy.delete(w.queue);
    this.waiting--;
    w.done("time-out");
  }

  private start(queue: Queue) {
    queue.executing++;
    this.executing++;
  }

  private leave(queue: Queue) {
    queue.executing--;
    this.executing--;
    this.dispatch();
  }

  private dispatch() {
    while (this.executing < this.shape.limit && this.busy.size) {
      let next: Queue | undefined;
      for (const q of this.busy) if (!next || q.executing < next.executing) next = q;
      const w = next!.waiting.shift()!;
      // the queue goes to the back of the turn order: equal executing counts take turns
      this.busy.delete(next!);
      if (next!.waiting.length) this.busy.add(next!);
      this.waiting--;
      clearTimeout(w.timer);
      this.start(next!);
      w.done("dispatched");
    }
  }

  /** The shortest queue of the flow's hand: handSize distinct queues chosen by the flow's hash. */
  private pick(flow: string): Queue {
    const n = this.queues.length;
    const hand = Math.min(this.shape.handSize, n);
    let h = BigInt.asUintN(64, BigInt(Bun.hash(flow)));
    const dealt: number[] = [];
    let best: Queue | undefined;
    for (let i = 0; i < hand; i++) {
      const left = BigInt(n - i);
      let idx = Number(h % left);
      h /= left;
      // the idx-th queue not yet dealt
      for (const d of [...dealt].sort((a, b) => a - b)) if (d <= idx) idx++;
      dealt.push(idx);
      const q = this.queues[idx]!;
      if (!best || q.waiting.length + q.executing < best.waiting.length + best.executing) best = q;
    }
    return best!;
  }
}
