// What the cluster allows pods, set once when the API server starts (upstream's capabilities package,
// which its --allow-privileged sets): validation reads it for every pod it checks.
let allowPrivileged = false;

/** --allow-privileged. */
export function setAllowPrivileged(allow: boolean): void {
  allowPrivileged = allow;
}

export const privilegedAllowed = (): boolean => allowPrivileged;
