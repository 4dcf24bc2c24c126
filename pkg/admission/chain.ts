// The admission chain: every mutating plugin in upstream's order, then every validating one. A plugin
// refuses by throwing (a Status); the first refusal ends the request.
import type { AdmissionMetrics, StepType } from "../metrics/admission.ts";
import type { Attributes, Plugin } from "./types.ts";

export interface NamedPlugin { name: string; plugin: Plugin }

export class AdmissionChain {
  private mutating: NamedPlugin[];
  private validating: NamedPlugin[];

  constructor(readonly plugins: NamedPlugin[], private metrics?: AdmissionMetrics) {
    this.mutating = plugins.filter((p) => p.plugin.admit);
    this.validating = plugins.filter((p) => p.plugin.validate);
  }

  /** The mutating step: plugins may change a.object. */
  admit(a: Attributes): Promise<void> { return this.run(a, "admit", this.mutating); }

  /** The validating step, on the object as it will be stored. */
  validate(a: Attributes): Promise<void> { return this.run(a, "validate", this.validating); }

  private async run(a: Attributes, type: StepType, plugins: NamedPlugin[]) {
    const start = performance.now();
    let rejected = false;
    try {
      for (const { name, plugin } of plugins) {
        if (!plugin.handles(a)) continue;
        const t0 = performance.now();
        let failed = false;
        try {
          await (type === "admit" ? plugin.admit!(a) : plugin.validate!(a));
        } catch (e) {
          failed = true;
          throw e;
        } finally {
          this.metrics?.observePlugin(name, a.operation, type, failed, (performance.now() - t0) / 1000);
        }
      }
    } catch (e) {
      rejected = true;
      throw e;
    } finally {
      this.metrics?.observeStep(a.operation, type, rejected, (performance.now() - start) / 1000);
    }
  }
}
