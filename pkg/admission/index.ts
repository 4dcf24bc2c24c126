// Builds the admission chain of a server from its options.
import type { AuthorizerChain } from "../auth/authorize.ts";
import type { AdmissionMetrics } from "../metrics/admission.ts";
import type { Registry } from "../registry/registry.ts";
import { AdmissionChain } from "./chain.ts";
import { PLUGINS } from "./plugins.ts";
import type { AdmissionOptions } from "./types.ts";

export function buildAdmission(options: AdmissionOptions, registry: Registry, authz: AuthorizerChain | undefined, metrics?: AdmissionMetrics): AdmissionChain {
  const plugins = PLUGINS.filter(([name]) => options.plugins.includes(name))
    .map(([name, make]) => ({ name, plugin: make({ registry, authz, options, config: options.configs[name], metrics }) }));
  return new AdmissionChain(plugins, metrics);
}
