/**
 * Coverage validation (engine/claimcheck/README.md §4.4). Throws TypeError on failure.
 */
import { ownData } from '../../lib/boundedJson.js';
import { boundedText } from './scope.js';

export const COVERAGE_ENTRIES = 32;

function entries(c, key) {
  if (!Object.hasOwn(c, key)) return [];
  const list = c[key];
  if (!Array.isArray(list) || list.length > COVERAGE_ENTRIES)
    throw new TypeError(`Invalid coverage ${key}.`);
  return list;
}

export function validateCoverage(c) {
  const coverage = ownData(c, ['checked', 'notChecked', 'cannotCover']);
  for (const key of ['checked', 'notChecked']) {
    for (const e of entries(coverage, key)) {
      if (!boundedText(e)) throw new TypeError(`Invalid coverage ${key} entry.`);
    }
  }
  for (const raw of entries(coverage, 'cannotCover')) {
    const e = ownData(raw, ['item', 'reason', 'kind']);
    if (!boundedText(e.item) || !boundedText(e.reason) ||
        (Object.hasOwn(e, 'kind') && e.kind !== 'existence' && e.kind !== 'scope'))
      throw new TypeError('Invalid coverage cannotCover entry.');
  }
}
