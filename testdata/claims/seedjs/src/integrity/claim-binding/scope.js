/**
 * Binding limits (engine/claimcheck/README.md §4.4).
 */
export const BINDING_LIMITS = Object.freeze({
  resultBytes: 65536,
  scopeBytes: 8192,
  dimensions: 8,
  resultIdText: 4096,
});

export const TEXT_UNITS = 4096;

/** A string of 1..4096 UTF-16 code units (JavaScript's length). */
export function boundedText(v) {
  return typeof v === 'string' && v.length >= 1 && v.length <= TEXT_UNITS;
}
