// The tag of a container image reference, read as upstream's image-name parser reads it: which
// decides a container's default imagePullPolicy.

const DOMAIN_PART = "(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])";
const PATH_PART = "[a-z0-9]+(?:(?:[._]|__|-*)[a-z0-9]+)*";
const NAME = `(?:${DOMAIN_PART}(?:\\.${DOMAIN_PART})*(?::[0-9]+)?/)?${PATH_PART}(?:/${PATH_PART})*`;
const TAG = "[\\w][\\w.-]{0,127}";
const DIGEST = "[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*:[0-9a-fA-F]{32,}";
const REFERENCE = new RegExp(`^(${NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);

/**
 * The image's tag: `latest` when it names neither a tag nor a digest, "" when it names only a digest
 * or is no valid reference (upstream then ignores the parse error).
 */
export function imageTag(image: string): string {
  const m = REFERENCE.exec(image);
  if (!m || m[1].length > 255) return "";
  return m[2] ?? (m[3] ? "" : "latest");
}

/** Always for `:latest` (said or implied), IfNotPresent for any other tag, a digest, or a bad name. */
export const defaultPullPolicy = (image: unknown) => (imageTag(typeof image === "string" ? image : "") === "latest" ? "Always" : "IfNotPresent");
