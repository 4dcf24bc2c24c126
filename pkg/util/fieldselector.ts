// A field selector term as kubectl writes one: `\`, `,` and `=` in the value escaped, so any name selects itself.

export const escapeFieldValue = (v: string) => v.replace(/[\\,=]/g, (c) => `\\${c}`);

/** The term that selects an object by name. */
export const nameSelector = (name: string) => `metadata.name=${escapeFieldValue(name)}`;
