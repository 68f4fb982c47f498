export const VERIFICATION_UNVERIFIED_REASONS = Object.freeze([
  'missing-check',
  'malformed-check',
  'ineligible-noise',
  'missing-result',
  'unresolved-result',
  'evidence-conflict',
  'not-asserted',
]);
