// kite convert: flags → ConvertOptions; pkg/cli/convert.ts does the work (offline, no server).
import { defineCommand } from "citty";
import { UsageError, oneOf } from "../pkg/cli/args.ts";
import { runConvert } from "../pkg/cli/convert.ts";
import { clientCommand } from "../pkg/cli/flags.ts";
import { parseOutputVersion } from "../pkg/convert/manifest.ts";

const args = {
  filename: { type: "string", alias: "f", multiple: true, description: "Manifest file, directory (its .yaml, .yml and .json files), http(s) URL, or - for stdin; repeatable" },
  recursive: { type: "boolean", alias: "R", description: "Process directories given with -f recursively" },
  "output-version": { type: "string", description: "Convert to this GROUP/VERSION (e.g. apps/v1, networking.k8s.io/v1; the short group form networking/v1 works too); default: each kind's stable version" },
  output: { type: "string", alias: "o", default: "yaml", description: "yaml or json" },
} as const;

export default defineCommand({
  meta: {
    name: "convert",
    description: "Rewrite manifests to another API version, offline; removed fields and changed defaults are written out or reported on stderr, and a field the target version requires but cannot be derived is an error (exit 1) (e.g. kite convert -f ingress.yaml --output-version networking/v1)",
  },
  args,
  run: clientCommand("convert", args, ({ values: v, positionals }) => {
    if (positionals.length) throw new UsageError(`unexpected arguments: ${positionals.join(" ")} (use -f to name manifests)`);
    const filenames: string[] = v.filename ?? [];
    if (filenames.length === 0) throw new UsageError("must specify -f (a file, a directory, or - for stdin)");
    let outputVersion;
    if (v["output-version"] !== undefined) {
      const gv = parseOutputVersion(v["output-version"]);
      if (gv instanceof Error) throw new UsageError(`invalid argument "${v["output-version"]}" for "--output-version" flag: ${gv.message}`);
      outputVersion = gv;
    }
    const output = oneOf("output", v.output ?? "yaml", ["yaml", "json"]) as "yaml" | "json";
    return runConvert({ filenames, recursive: !!v.recursive, outputVersion, output });
  }),
});
