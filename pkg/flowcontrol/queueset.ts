// Fair queuing for one limited priority level, on one JavaScript thread. Each flow is dealt a hand of
// queues (shuffle sharding: a noisy flow shares its hand's queues with few others) and waits in the
// shortest of them; a free seat goes to the busy queue that has been served least so far (start-time
// fair queuing: a queue that was idle starts level with the busy ones, not ahead of them).
//
// A request handled without awaiting anything holds its seat for no time at all, so seats alone would
// never queue: a burst is simply run in arrival order, the last arrival waiting for all the others. So
// limited requests also share a time budget per turn of the event loop (TURN_MS): past it, the others
// wait, and start in later turns in fair order, one after another (the next when the last is done),
// with the event loop free to read new requests in between. A request that fair order would start
// before all of them (its queue idle and served least) does not wait for a later turn: a quiet flow's
// request starts in the turn it is read, ahead of a noisy flow's backlog. While nothing waits, the fair
// clock keeps up with the service given, so what a flow had while nobody waited is no debt later.

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
export interface Entered { outcome: Outcome; release: () => void }

/**
 * How long one turn of the event loop may go on starting limited requests (ms, from the first): later
 * ones wait for a later turn. Time, not a count: a turn holds a few cheap requests or one costly one. A
 * request that fair order starts first (a quiet flow's) starts in the turn it is read, whatever the
 * backlog; the less noisy work each turn does, the sooner that turn comes. 0.15 ms gave a quiet GET
 * under 400 noisy LISTs about half the median latency of 1 ms, with no fewer cheap GETs/s
 * (docs/PERFORMANCE.md, session 11).
 */
const TURN_MS = 0.15;
const turn = {
  /** When the current turn started its first limited request; -1 when it has started none. */
  start: -1,
  /** Marks limited work begun in this turn. */
  begin() {
    if (this.start >= 0) return;
    this.start = performance.now();
    setImmediate(() => { this.start = -1; });
  },
  /** Whether another limited request may start in this turn: the first always may. */
  take(): boolean {
    if (this.start >= 0) return performance.now() - this.start < TURN_MS;
    this.begin();
    return true;
  },
};

interface Waiter { flow: string; queue: Queue; done: (o: Outcome) => void; timer?: Timer }
class Queue {
  waiting: Waiter[] = [];
  executing = 0;
  /** Milliseconds of service its requests have had (virtual: an idle queue is brought level on waking). */
  served = 0;
}

/** Hands are cached per flow (a hash and a partial shuffle each); bounded, cleared when full. */
const MAX_HANDS = 10_000;

export class QueueSet {
  executing = 0;
  waiting = 0;
  private queues: Queue[] = [];
  private busy = new Set<Queue>();
  private hands = new Map<string, number[]>();
  private pumping = false;
  /** The least service among busy queues when last looked: where a waking queue starts. */
  private now = 0;

  constructor(private shape: LevelShape) {
    this.configure(shape);
  }

  /** A new shape (the objects changed): waiting requests move to their hands of the new queues. */
  configure(shape: LevelShape) {
    const waiters = this.queues.flatMap((q) => q.waiting);
    this.shape = shape;
    this.queues = Array.from({ length: Math.max(1, shape.queues) }, () => new Queue());
    this.hands.clear();
    this.busy.clear();
    // counted again as each is parked (counting them twice once dispatched from no busy queue at all)
    this.waiting = 0;
    for (const w of waiters) this.park(w, this.pick(w.flow));
    this.pump();
  }

  /** The request may run now (then `release` must follow once), after a wait, or not at all. */
  enter(flow: string, waitLimitMs: number): Entered | Promise<Entered> {
    const queue = this.pick(flow);
    if (this.executing < this.shape.limit && (this.shape.reject || (this.waiting === 0 ? turn.take() : this.startsNext(queue)))) {
      return { outcome: "dispatched", release: this.start(queue) };
    }
    if (this.shape.reject) return { outcome: "concurrency-limit", release: () => {} };
    if (queue.waiting.length >= this.shape.queueLengthLimit) return { outcome: "queue-full", release: () => {} };
    return new Promise((resolve) => {
      const w: Waiter = { flow, queue, done: (outcome) => resolve({ outcome, release: outcome === "dispatched" ? this.started(w.queue) : () => {} }) };
      w.timer = setTimeout(() => this.expire(w), waitLimitMs);
      this.park(w, queue);
      this.pump();
    });
  }

  /**
   * Whether fair order would start the queue's request ahead of every waiting one: nothing of the queue
   * waits or runs and it has had no more service than any busy queue. Such a request (a quiet flow's,
   * arriving while a noisy flow's backlog waits for later turns) starts at once, in the turn it arrived.
   */
  private startsNext(queue: Queue): boolean {
    if (queue.waiting.length || queue.executing) return false;
    queue.served = Math.max(queue.served, this.now);
    for (const q of this.busy) if (q.served < queue.served) return false;
    turn.begin();
    return true;
  }

  private park(w: Waiter, queue: Queue) {
    w.queue = queue;
    if (!queue.waiting.length) {
      queue.served = Math.max(queue.served, this.now);
      this.busy.add(queue);
    }
    queue.waiting.push(w);
    this.waiting++;
  }

  private expire(w: Waiter) {
    const i = w.queue.waiting.indexOf(w);
    if (i < 0) return;
    w.queue.waiting.splice(i, 1);
    if (!w.queue.waiting.length) this.busy.delete(w.queue);
    this.waiting--;
    w.done("time-out");
  }

  /** Counts a request as running from `queue`; returns its release, which charges the queue its service time. */
  private start(queue: Queue): () => void {
    queue.executing++;
    this.executing++;
    const t0 = performance.now();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      queue.served += performance.now() - t0;
      queue.executing--;
      this.executing--;
      // without a backlog nobody is behind: the service had meanwhile is no debt once one forms
      if (!this.waiting) this.now = Math.max(this.now, queue.served);
      // the next waiting request starts when this one is done, one after another while the turn lasts
      if (this.waiting && this.executing < this.shape.limit && turn.take()) this.dispatchOne();
      else this.pump();
    };
  }

  private started = (queue: Queue) => this.start(queue);

  /** Starts waiting requests in a later turn of the event loop, as many as the turn has places for. */
  private pump() {
    if (this.pumping || !this.waiting || this.executing >= this.shape.limit) return;
    this.pumping = true;
    setImmediate(() => {
      this.pumping = false;
      if (this.waiting && this.executing < this.shape.limit && turn.take()) this.dispatchOne();
      this.pump();
    });
  }

  private dispatchOne() {
    let next: Queue | undefined;
    for (const q of this.busy) if (!next || q.served < next.served) next = q;
    const q = next!;
    this.now = q.served;
    const w = q.waiting.shift()!;
    if (!q.waiting.length) this.busy.delete(q);
    this.waiting--;
    clearTimeout(w.timer);
    w.done("dispatched");
  }

  /** The shortest queue of the flow's hand: handSize distinct queues chosen by the flow's hash. */
  private pick(flow: string): Queue {
    let hand = this.hands.get(flow);
    if (!hand) {
      if (this.hands.size >= MAX_HANDS) this.hands.clear();
      this.hands.set(flow, (hand = deal(flow, this.queues.length, Math.min(this.shape.handSize, this.queues.length))));
    }
    let best = this.queues[hand[0]!]!;
    for (const i of hand) {
      const q = this.queues[i]!;
      if (q.waiting.length + q.executing < best.waiting.length + best.executing) best = q;
    }
    return best;
  }
}

/** Deals `size` distinct cards of a `deck`, the flow's hash read as a number in a falling-factorial base. */
function deal(flow: string, deck: number, size: number): number[] {
  let h = BigInt.asUintN(64, BigInt(Bun.hash(flow)));
  const dealt: number[] = [];
  for (let i = 0; i < size; i++) {
    const left = BigInt(deck - i);
    let idx = Number(h % left);
    h /= left;
    // the idx-th card not yet dealt
    for (const d of [...dealt].sort((a, b) => a - b)) if (d <= idx) idx++;
    dealt.push(idx);
  }
  return dealt;
}
