#!/usr/bin/env node
// Second-opinion driver: reads FILE (JSON Lines) as bytes, applies the line
// and JSON rules of engine/claimcheck/README.md §2.1 with its own strict
// parser, then calls the seed's readClaimVerificationRow unmodified (the
// test puts the seed's JavaScript beside this file at test time; it is not
// in the repository). Prints one line per input line:
//   line N: ok
//   line N: invalid: <message>
// Exit code 0 when every line is ok, 1 otherwise, 2 on a usage or I/O error.
import { readFileSync } from 'node:fs';
import { readClaimVerificationRow } from './src/recorder/claims/verify/verificationRow.js';

const ROW_BYTES = 65536;
const MAX_DEPTH = 32;
const MAX_SAFE = 9007199254740991n;

class LineError extends Error {}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function isWs(b) {
  return b === 0x20 || b === 0x09 || b === 0x0a || b === 0x0d;
}

function setOwn(obj, key, value) {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}

function hexVal(b) {
  if (b >= 0x30 && b <= 0x39) return b - 0x30;
  if (b >= 0x41 && b <= 0x46) return b - 0x41 + 10;
  if (b >= 0x61 && b <= 0x66) return b - 0x61 + 10;
  return -1;
}

/** Strict parser over the bytes of one line (already known to be valid UTF-8). */
function parseLine(buf) {
  let i = 0;
  const n = buf.length;

  const fail = (what) => {
    throw new LineError(`${what} at byte ${i}`);
  };
  const skipWs = () => {
    while (i < n && isWs(buf[i])) i++;
  };

  function readHex4() {
    if (i + 4 > n) fail('truncated \\u escape');
    let v = 0;
    for (let k = 0; k < 4; k++) {
      const h = hexVal(buf[i + k]);
      if (h < 0) fail('bad \\u escape');
      v = v * 16 + h;
    }
    i += 4;
    return v;
  }

  function parseString() {
    // buf[i] === '"'
    i++;
    let out = '';
    let runStart = i;
    for (;;) {
      if (i >= n) fail('unterminated string');
      const b = buf[i];
      if (b === 0x22) {
        out += utf8.decode(buf.subarray(runStart, i));
        i++;
        return out;
      }
      if (b < 0x20) fail('raw control character in string');
      if (b !== 0x5c) {
        i++;
        continue;
      }
      out += utf8.decode(buf.subarray(runStart, i));
      i++;
      if (i >= n) fail('unterminated escape');
      const e = buf[i];
      i++;
      switch (e) {
        case 0x22: out += '"'; break;
        case 0x5c: out += '\\'; break;
        case 0x2f: out += '/'; break;
        case 0x62: out += '\b'; break;
        case 0x66: out += '\f'; break;
        case 0x6e: out += '\n'; break;
        case 0x72: out += '\r'; break;
        case 0x74: out += '\t'; break;
        case 0x75: {
          const u = readHex4();
          if (u >= 0xdc00 && u <= 0xdfff) fail('lone low surrogate escape');
          if (u >= 0xd800 && u <= 0xdbff) {
            if (!(i + 1 < n && buf[i] === 0x5c && buf[i + 1] === 0x75)) fail('lone high surrogate escape');
            i += 2;
            const lo = readHex4();
            if (!(lo >= 0xdc00 && lo <= 0xdfff)) fail('lone high surrogate escape');
            out += String.fromCharCode(u, lo);
          } else {
            out += String.fromCharCode(u);
          }
          break;
        }
        default:
          i--;
          fail('invalid escape');
      }
      runStart = i;
    }
  }

  function parseNumber() {
    const start = i;
    if (buf[i] === 0x2d) i++;
    if (i >= n) fail('bad number');
    if (buf[i] === 0x30) {
      i++;
    } else if (buf[i] >= 0x31 && buf[i] <= 0x39) {
      while (i < n && buf[i] >= 0x30 && buf[i] <= 0x39) i++;
    } else {
      fail('bad number');
    }
    if (i < n && (buf[i] === 0x2e || buf[i] === 0x65 || buf[i] === 0x45)) fail('number with fraction or exponent');
    if (i < n && buf[i] >= 0x30 && buf[i] <= 0x39) fail('number with leading zero');
    const text = buf.toString('latin1', start, i);
    if (text === '-0') fail('negative zero');
    const big = BigInt(text);
    if (big > MAX_SAFE || big < -MAX_SAFE) fail('number beyond 2^53-1');
    return Number(big);
  }

  function literal(word, value) {
    for (let k = 0; k < word.length; k++) {
      if (i + k >= n || buf[i + k] !== word.charCodeAt(k)) fail('unexpected token');
    }
    i += word.length;
    return value;
  }

  function parseValue(depth) {
    skipWs();
    if (i >= n) fail('expected a value');
    const b = buf[i];
    if (b === 0x7b) {
      if (depth + 1 > MAX_DEPTH) fail('nesting deeper than 32');
      i++;
      const obj = {};
      const seen = new Set();
      skipWs();
      if (i < n && buf[i] === 0x7d) {
        i++;
        return obj;
      }
      for (;;) {
        skipWs();
        if (i >= n || buf[i] !== 0x22) fail('expected a key');
        const key = parseString();
        if (seen.has(key)) fail(`duplicate key ${JSON.stringify(key)}`);
        seen.add(key);
        skipWs();
        if (i >= n || buf[i] !== 0x3a) fail("expected ':'");
        i++;
        setOwn(obj, key, parseValue(depth + 1));
        skipWs();
        if (i < n && buf[i] === 0x2c) {
          i++;
          continue;
        }
        if (i < n && buf[i] === 0x7d) {
          i++;
          return obj;
        }
        fail("expected ',' or '}'");
      }
    }
    if (b === 0x5b) {
      if (depth + 1 > MAX_DEPTH) fail('nesting deeper than 32');
      i++;
      const arr = [];
      skipWs();
      if (i < n && buf[i] === 0x5d) {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(parseValue(depth + 1));
        skipWs();
        if (i < n && buf[i] === 0x2c) {
          i++;
          continue;
        }
        if (i < n && buf[i] === 0x5d) {
          i++;
          return arr;
        }
        fail("expected ',' or ']'");
      }
    }
    if (b === 0x22) return parseString();
    if (b === 0x2d || (b >= 0x30 && b <= 0x39)) return parseNumber();
    if (b === 0x74) return literal('true', true);
    if (b === 0x66) return literal('false', false);
    if (b === 0x6e) return literal('null', null);
    fail('unexpected token');
  }

  const value = parseValue(0);
  if (i !== n) fail('trailing bytes after the JSON value');
  return value;
}

function checkLine(buf) {
  if (buf.length > ROW_BYTES) throw new LineError(`line exceeds ${ROW_BYTES} bytes`);
  try {
    utf8.decode(buf);
  } catch {
    throw new LineError('line is not valid UTF-8');
  }
  const value = parseLine(buf);
  readClaimVerificationRow(value);
}

function splitLines(data) {
  const lines = [];
  let start = 0;
  for (;;) {
    const lf = data.indexOf(0x0a, start);
    if (lf < 0) break;
    lines.push(data.subarray(start, lf));
    start = lf + 1;
  }
  if (start < data.length) lines.push(data.subarray(start));
  return lines;
}

function main(argv) {
  if (argv.length !== 1) {
    process.stderr.write('usage: node read-rows.mjs FILE\n');
    return 2;
  }
  let data;
  try {
    data = readFileSync(argv[0]);
  } catch (e) {
    process.stderr.write(`read-rows: ${e.message}\n`);
    return 2;
  }
  const out = [];
  let allOk = true;
  splitLines(data).forEach((line, idx) => {
    try {
      checkLine(line);
      out.push(`line ${idx + 1}: ok`);
    } catch (e) {
      allOk = false;
      const msg = e instanceof Error ? e.message : String(e);
      out.push(`line ${idx + 1}: invalid: ${msg.replace(/[\r\n]/g, ' ')}`);
    }
  });
  if (out.length > 0) process.stdout.write(out.join('\n') + '\n');
  return allOk ? 0 : 1;
}

process.exitCode = main(process.argv.slice(2));
