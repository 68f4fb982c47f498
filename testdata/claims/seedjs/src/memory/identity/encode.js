/**
 * Identity fields (engine/claimcheck/README.md §4.3).
 */

/** "_" becomes "%5F"; otherwise every "%" becomes "%25", then every "/" becomes "%2F". */
export function encodeIdentityField(v) {
  if (typeof v !== 'string') throw new TypeError('Identity field is not a string.');
  if (v === '_') return '%5F';
  return v.replaceAll('%', '%25').replaceAll('/', '%2F');
}

/**
 * Left to right: "%25" -> "%", "%2F" -> "/", "%5F" -> "_"; any other "%"
 * rejects (lowercase and truncated escapes included). "" and "_" (the
 * spelling of absence) reject.
 */
export function decodePresentIdentityField(s) {
  if (typeof s !== 'string' || s === '' || s === '_')
    throw new TypeError('Absent identity field.');
  let out = '';
  for (let i = 0; i < s.length; ) {
    if (s[i] !== '%') {
      out += s[i];
      i += 1;
      continue;
    }
    const esc = s.slice(i, i + 3);
    if (esc === '%25') out += '%';
    else if (esc === '%2F') out += '/';
    else if (esc === '%5F') out += '_';
    else throw new TypeError('Invalid identity field escape.');
    i += 3;
  }
  return out;
}
