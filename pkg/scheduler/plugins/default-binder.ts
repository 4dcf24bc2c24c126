// DefaultBinder: binds through the pods/binding subresource.
import type { BindPlugin, Handle, Plugin } from "../framework/index.ts";
import { DefaultBinder } from "./names.ts";

export function newDefaultBinder(_args: unknown, handle: Handle): Plugin {
  const plugin: BindPlugin = {
    name: DefaultBinder,
    async bind(_state, pod, nodeName) {
      await handle.actions.bind(pod, nodeName);
      return null;
    },
  };
  return plugin;
}
