// A long-lived perl helper of the agent's (the probe helper, the shim spawner) and the requests it has not
// answered yet. Requests are lines of hex fields, the request's id first; answers are lines of spaced
// fields, "WHAT ID …". The helper starts with the first request and again after it is gone; what it had
// not answered is given up then (`gone`). Perl with an empty environment: a PERL5OPT in the agent's
// must not change it.
import type { Subprocess } from "bun";

const hex = (s: string) => Buffer.from(s).toString("hex");

interface Generation<P> { proc: Subprocess<"pipe", "pipe", "ignore">; pending: Map<number, P> }

export class PerlHelper<P> {
  private current?: Generation<P>;
  private nextId = 0;

  /**
   * `answer(p, fields)` gets each answer line's fields but its id (WHAT first) and returns true when it is
   * the last one for that request; `gone(p)` each request unanswered when the helper exits.
   */
  constructor(private readonly argv: string[], private readonly answer: (p: P, fields: string[]) => boolean,
    private readonly gone: (p: P) => void) {}

  /** Sends one request (its fields, hex-encoded on the wire). */
  request(fields: string[], p: P): void {
    const { proc, pending } = this.generation();
    const id = this.nextId++;
    pending.set(id, p);
    proc.stdin.write(`${[String(id), ...fields].map(hex).join(" ")}\n`);
    proc.stdin.flush();
  }

  /** Ends the helper (its stdin closes: it exits). */
  close(): void {
    this.current?.proc.stdin.end();
    this.current = undefined;
  }

  private generation(): Generation<P> {
    if (this.current) return this.current;
    const proc = Bun.spawn(this.argv, { env: {}, stdin: "pipe", stdout: "pipe", stderr: "ignore" });
    const g: Generation<P> = this.current = { proc, pending: new Map() };
    void this.read(g);
    return g;
  }

  private async read(g: Generation<P>): Promise<void> {
    let buffered = "";
    const decoder = new TextDecoder();
    try {
      for await (const chunk of g.proc.stdout) {
        buffered += decoder.decode(chunk, { stream: true });
        let nl: number;
        while ((nl = buffered.indexOf("\n")) >= 0) {
          const [what, id, ...rest] = buffered.slice(0, nl).split(" ");
          buffered = buffered.slice(nl + 1);
          const p = g.pending.get(Number(id));
          if (p !== undefined && this.answer(p, [what, ...rest])) g.pending.delete(Number(id));
        }
      }
    } catch { /* the helper is gone: below */ }
    if (this.current === g) this.current = undefined;
    for (const p of g.pending.values()) this.gone(p);
    g.pending.clear();
  }
}
