// The limits both YAML readers and the JSON pre-scan share: upstream's decoders refuse documents nested
// deeper than 10,000 levels, and YAML documents whose aliases expand far past their own size.

export const MAX_DEPTH = 10_000;

/** A document over one of the limits: the caller answers 400, as upstream does. */
export class YamlLimitError extends Error {}

export const tooDeep = () => new YamlLimitError(`exceeded max depth of ${MAX_DEPTH}`);
