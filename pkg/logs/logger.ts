// Every program's log lines go through consola (its callers need not know about flags); configureLogging
// makes consola's one reporter the Sink the logging flags describe. consola's types map to klog's
// severities, and its debug and trace lines to verbosities 4 and 6.
import { type ConsolaReporter, type LogObject, consola } from "consola";
import { formatWithOptions } from "node:util";
import type { LogOptions } from "./options.ts";
import { Sink } from "./sink.ts";

const SEVERITY: Record<string, number> = { fatal: 2, error: 2, fail: 2, warn: 1 };
const VERBOSITY: Record<string, number> = { debug: 4, trace: 6, verbose: 6 };

function message(o: LogObject): string {
  const args = o.message !== undefined ? [o.message, ...o.args] : o.args;
  return formatWithOptions({ colors: false }, ...args.map((x) => (x instanceof Error ? x.message : x)));
}

/** Installs the logger of `program` (apiserver, scheduler, ...); lines go where `o` says from now on. */
export function configureLogging(program: string, o: LogOptions, verbosityGiven: boolean) {
  const sink = new Sink(o, program);
  const source = o.addDirHeader ? `kite/${program}` : program;
  const reporter: ConsolaReporter = {
    log(obj) {
      const v = VERBOSITY[obj.type] ?? 0;
      const from = obj.tag || program;
      if (!sink.enabled(v, from)) return;
      sink.write({ severity: SEVERITY[obj.type] ?? 0, v, source: obj.tag ? `${source}/${obj.tag}` : source, msg: message(obj), time: obj.date });
    },
  };
  consola.setReporters([reporter]);
  // consola drops lines above its level before any reporter sees them: under a test runner that is
  // warnings only, unless --v asks for more; otherwise it passes what --v or --vmodule may want.
  const wanted = Math.max(o.verbosity, ...o.vmodule.map((m) => m.level));
  const level = wanted >= 6 ? 5 : wanted >= 4 ? 4 : 3;
  if (verbosityGiven) consola.level = level;
  else if (consola.level >= 3) consola.level = Math.max(consola.level, level);
}
