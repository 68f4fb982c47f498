/**
 * Result identities (engine/claimcheck/README.md §4.3): the seed's readClaimIdentity with the
 * prefix "claim-result" and RESULT_ID_TEXT (4096) as the length bound.
 */
import { ownData } from '../../lib/boundedJson.js';
import { decodePresentIdentityField, encodeIdentityField } from '../../memory/identity/encode.js';
import { BINDING_LIMITS, boundedText } from './scope.js';

export function resultIdentityOf(raw) {
  const identity = ownData(raw, ['namespace', 'runId', 'ordinal']);
  if (!boundedText(identity.namespace) ||
      !boundedText(identity.runId) ||
      typeof identity.ordinal !== 'number' ||
      !Number.isSafeInteger(identity.ordinal) ||
      identity.ordinal < 1)
    throw new TypeError('Invalid result identity.');
  return `claim-result/${encodeIdentityField(identity.namespace)}/${encodeIdentityField(identity.runId)}/${identity.ordinal}`;
}

export function readResultIdentity(value) {
  if (typeof value !== 'string' || value.length > BINDING_LIMITS.resultIdText)
    throw new TypeError('Invalid saved result identity.');
  const parts = value.split('/');
  if (parts.length !== 4 || parts[0] !== 'claim-result')
    throw new TypeError('Invalid saved result identity.');
  const identity = {
    namespace: decodePresentIdentityField(parts[1]),
    runId: decodePresentIdentityField(parts[2]),
    ordinal: Number(parts[3]),
  };
  if (value !== resultIdentityOf(identity))
    throw new TypeError('Noncanonical saved result identity.');
  return Object.freeze(identity);
}
