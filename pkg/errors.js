// Errors of the JS layer, shaped like the core's: a plain Error with a stable `code`.

/** A new Error with `code` and any extra properties (e.g. `reason`, `cause`). */
export function memdagError(code, message, extra = {}) {
  const error = new Error(message, extra.cause === undefined ? undefined : { cause: extra.cause });
  error.code = code;
  for (const [k, v] of Object.entries(extra)) if (k !== 'cause') error[k] = v;
  return error;
}

/**
 * Any failure of a storage adapter as a `STORAGE` error: an error that already has a code is
 * kept; anything else is wrapped, with its name as `reason` and itself as `cause`.
 */
export function storageError(e, what = 'storage') {
  if (e && typeof e === 'object' && typeof e.code === 'string' && e.code === 'STORAGE') return e;
  const reason = e?.name ?? 'Error';
  return memdagError('STORAGE', `storage failed: ${what}: ${e?.message ?? String(e)}`, { reason, cause: e });
}

/** A failure of a host callback (embed, complete) as a `HOST` error. */
export function hostError(message, cause) {
  return memdagError('HOST', `host callback failed: ${message}`, cause === undefined ? {} : { cause });
}
