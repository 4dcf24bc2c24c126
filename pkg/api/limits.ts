// The request limits that are upstream's fixed values (the ones with flags live in the server options).

/** The largest request body, and the largest object a patch may produce: upstream's 3 MiB. */
export const MAX_BODY = 3 * 1024 * 1024;

/** Responses larger than this are gzipped for clients that accept it (the APIResponseCompression gate). */
export const GZIP_OVER = 128 * 1024;
export const acceptsGzip = (headers: Headers) => /\bgzip\b/.test(headers.get("accept-encoding") ?? "");
