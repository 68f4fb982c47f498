/**
 * Canonical JSON (engine/claimcheck/README.md §4.2): object keys sorted by UTF-16 code units,
 * no whitespace, arrays in order, integers in plain decimal, strings escaped
 * exactly as JSON.stringify escapes them.
 */
function canon(v) {
  if (v === null) return 'null';
  switch (typeof v) {
    case 'boolean':
      return v ? 'true' : 'false';
    case 'string':
      return JSON.stringify(v);
    case 'number':
      if (!Number.isSafeInteger(v) || Object.is(v, -0))
        throw new TypeError('canonicalJson: not a safe integer.');
      return String(v);
    case 'object': {
      if (Array.isArray(v)) return '[' + v.map(canon).join(',') + ']';
      const keys = Object.keys(v).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
      return '{' + keys.map((k) => JSON.stringify(k) + ':' + canon(v[k])).join(',') + '}';
    }
    default:
      throw new TypeError('canonicalJson: not a JSON value.');
  }
}

export function canonicalJson(v) {
  return canon(v);
}
