/**
 * Bounded JSON helpers (engine/claimcheck/README.md §2.1, §4.4).
 */
import { canonicalJson } from './canonicalJson.js';

export const MAX_JSON_DEPTH = 32;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

function isPlainObject(v) {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function setOwn(obj, key, value) {
  // defineProperty so that keys such as "__proto__" stay ordinary own data keys.
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

/**
 * ownData(v, keys?): v must be a plain JSON object (not an array, not null);
 * with keys, every own key of v must be one of them. Returns v.
 */
export function ownData(v, keys) {
  if (!isPlainObject(v)) throw new TypeError('Expected a JSON object.');
  if (keys !== undefined) {
    for (const k of Object.keys(v)) {
      if (!keys.includes(k)) throw new TypeError(`Unknown key ${JSON.stringify(k)}.`);
    }
  }
  return v;
}

function copy(v, depth) {
  if (v === null || typeof v === 'boolean') return v;
  if (typeof v === 'string') {
    if (LONE_SURROGATE.test(v)) throw new TypeError('JSON string holds a lone surrogate.');
    return v;
  }
  if (typeof v === 'number') {
    if (!Number.isSafeInteger(v) || Object.is(v, -0))
      throw new TypeError('JSON number is not a safe integer.');
    return v;
  }
  if (typeof v !== 'object') throw new TypeError('Not a JSON value.');
  if (depth + 1 > MAX_JSON_DEPTH) throw new TypeError('JSON nesting too deep.');
  if (Array.isArray(v)) {
    if (Object.getPrototypeOf(v) !== Array.prototype) throw new TypeError('Not a JSON array.');
    const out = [];
    for (let i = 0; i < v.length; i++) {
      if (!Object.hasOwn(v, i)) throw new TypeError('Sparse JSON array.');
      out.push(copy(v[i], depth + 1));
    }
    return out;
  }
  if (!isPlainObject(v)) throw new TypeError('Not a JSON object.');
  if (Object.getOwnPropertySymbols(v).length !== 0) throw new TypeError('Not a JSON object.');
  const out = {};
  for (const k of Object.keys(v)) {
    if (LONE_SURROGATE.test(k)) throw new TypeError('JSON key holds a lone surrogate.');
    setOwn(out, k, copy(v[k], depth + 1));
  }
  return out;
}

/**
 * copyJson(v, max, strict): a detached deep copy of the JSON value v.
 * Throws TypeError unless v is null, a boolean, a string, a safe integer,
 * an array or a plain object (recursively), nested at most 32 deep (a scalar
 * is depth 0, [] and {} depth 1), and its canonical JSON is at most max UTF-8
 * bytes. The seed only ever calls it with strict === true; there is no
 * lenient mode, so the flag does not change anything.
 */
export function copyJson(v, max, strict = true) {
  void strict;
  const out = copy(v, 0);
  if (Buffer.byteLength(canonicalJson(out), 'utf8') > max)
    throw new TypeError(`JSON value exceeds ${max} bytes.`);
  return out;
}
