/**
 * Period validation (engine/claimcheck/README.md §4.4): periodProblem(p, 'camel') is undefined
 * when p is a valid period and a string naming the problem otherwise.
 */

const INSTANT = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(?:\.(\d+))?(?:([Zz])|([+-])(\d{2}):(\d{2}))$/;

function isObject(v) {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function unknownKey(v, keys) {
  return Object.keys(v).find((k) => !keys.includes(k));
}

function leap(y) {
  return y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
}

function daysInMonth(y, m) {
  return [31, leap(y) ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
}

/** Days from 1970-01-01 to the proleptic Gregorian date y-m-d. */
function daysFromCivil(y, m, d) {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const mp = (m + 9) % 12;
  const doy = Math.floor((153 * mp + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/**
 * Parses an RFC 3339 date-time with a zone. Returns {seconds, fraction}
 * (integer seconds since the epoch in UTC, fraction digits with trailing
 * zeros stripped) or undefined.
 */
export function parseInstant(s) {
  if (typeof s !== 'string') return undefined;
  const m = INSTANT.exec(s);
  if (m === null) return undefined;
  const [y, mo, d, h, mi, se] = m.slice(1, 7).map(Number);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return undefined;
  if (h > 23 || mi > 59 || se > 59) return undefined;
  let offset = 0;
  if (m[8] === undefined) {
    const oh = Number(m[10]);
    const om = Number(m[11]);
    if (oh > 23 || om > 59) return undefined;
    offset = (m[9] === '-' ? -1 : 1) * (oh * 3600 + om * 60);
  }
  const seconds = daysFromCivil(y, mo, d) * 86400 + h * 3600 + mi * 60 + se - offset;
  const fraction = (m[7] ?? '').replace(/0+$/, '');
  return { seconds, fraction };
}

function notAfter(a, b) {
  if (a.seconds !== b.seconds) return a.seconds < b.seconds;
  return a.fraction <= b.fraction;
}

function rangeProblem(r, name) {
  if (!isObject(r)) return `${name} is not an object`;
  const extra = unknownKey(r, ['from', 'to']);
  if (extra !== undefined) return `${name} has unknown key ${JSON.stringify(extra)}`;
  if (!Object.hasOwn(r, 'from')) return `${name}.from is missing`;
  if (!Object.hasOwn(r, 'to')) return `${name}.to is missing`;
  const from = parseInstant(r.from);
  if (from === undefined) return `${name}.from is not an RFC 3339 instant with a zone`;
  const to = parseInstant(r.to);
  if (to === undefined) return `${name}.to is not an RFC 3339 instant with a zone`;
  if (!notAfter(from, to)) return `${name}.from is after ${name}.to`;
  return undefined;
}

export function periodProblem(p, style = 'camel') {
  if (style !== 'camel') return `unsupported key style ${String(style)}`;
  if (!isObject(p)) return 'period is not an object';
  const extra = unknownKey(p, ['queried', 'held', 'readAt']);
  if (extra !== undefined) return `period has unknown key ${JSON.stringify(extra)}`;
  if (!Object.hasOwn(p, 'queried')) return 'period.queried is missing';
  const q = rangeProblem(p.queried, 'queried');
  if (q !== undefined) return q;
  if (!Object.hasOwn(p, 'held')) return 'period.held is missing';
  if (p.held !== 'unknown') {
    const h = rangeProblem(p.held, 'held');
    if (h !== undefined) return h;
  }
  if (Object.hasOwn(p, 'readAt') && parseInstant(p.readAt) === undefined)
    return 'period.readAt is not an RFC 3339 instant with a zone';
  return undefined;
}
