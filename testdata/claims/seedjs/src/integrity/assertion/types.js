/**
 * Assertion value helpers (engine/claimcheck/README.md §4.4).
 */

/** v itself for a string, an integer or a boolean; null for null; undefined otherwise. */
export function comparableValueOf(v) {
  if (v === null) return null;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return v;
  return undefined;
}

/** False for null, "unknown", and an object whose kind is "unknown" or "not-applicable". */
export function participates(v) {
  if (v === null || v === 'unknown') return false;
  if (typeof v === 'object' && !Array.isArray(v) && Object.hasOwn(v, 'kind') &&
      (v.kind === 'unknown' || v.kind === 'not-applicable'))
    return false;
  return true;
}
