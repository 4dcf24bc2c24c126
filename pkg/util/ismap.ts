// A JSON object, as decoded bodies and manifests hold them: not null, not an array.

export const isMap = (v: unknown): v is Record<string, any> => typeof v === "object" && v !== null && !Array.isArray(v);
