/**
 * What the byte-level readers (the input layer's peeks, input.ts; the skim,
 * skim.ts; the line shapes, shapes.ts; the walk of a line that could not be
 * read, events.ts) share: comparing bytes in place, a byte-order mark, where
 * a string's closing quote is, and JSON's grammar for the few tokens they
 * check themselves, an escape inside a string and a number. Each token
 * reader says where the token ends, or -1 when the bytes are not one,
 * exactly as `JSON.parse` would judge them.
 */

/** 3 when the first `length` bytes of `buf` start with a byte-order mark (at the start of the input, or of each file of a stream joined with cat(1)), else 0. */
export function bomLength(buf: Buffer, length: number): number {
  return length >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf ? 3 : 0;
}

/** True when `c` (a byte, or a character's code) is white space JSON allows between tokens. */
export function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0d || c === 0x0a;
}

/** True when `b` is a byte an object may come right after in JSON (white space aside): `:`, `[` or `,`. */
export function objectMayFollow(b: number | undefined): boolean {
  return b === 0x3a || b === 0x5b || b === 0x2c;
}

/** True when `raw` holds `bytes` at `at` (a loop: short compares cost less than a native call). */
export function sameBytes(raw: Buffer, at: number, bytes: Buffer): boolean {
  if (at < 0 || at + bytes.length > raw.length) return false;
  for (let i = 0; i < bytes.length; i++) if (raw[at + i] !== bytes[i]) return false;
  return true;
}

export function isDigit(b: number): boolean {
  return b >= 0x30 && b <= 0x39;
}

function isHex(b: number): boolean {
  return isDigit(b) || (b >= 0x61 && b <= 0x66) || (b >= 0x41 && b <= 0x46);
}

/** Where the escape whose backslash is at `raw[at]` ends (the index after it); -1 when it is not a JSON escape. */
export function escapeEnd(raw: Buffer, at: number): number {
  const c = raw[at + 1] ?? 0;
  if (c === 0x75 /* u */) {
    return isHex(raw[at + 2] ?? 0) && isHex(raw[at + 3] ?? 0) && isHex(raw[at + 4] ?? 0) && isHex(raw[at + 5] ?? 0) ? at + 6 : -1;
  }
  // " \ / b f n r t
  return c === 0x22 || c === 0x5c || c === 0x2f || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74 ? at + 2 : -1;
}

// `true`, `false` and `null` as bytes.
const LITERALS = [Buffer.from('true'), Buffer.from('false'), Buffer.from('null')];

/** The length of the literal (`true`, `false`, `null`) that starts at `raw[at]`, or 0 when none does. */
export function literalAt(raw: Buffer, at: number): number {
  for (const literal of LITERALS) if (sameBytes(raw, at, literal)) return literal.length;
  return 0;
}

/** Where the number that starts at `raw[at]` ends (the index after it); -1 when no JSON number starts there. */
export function numberEnd(raw: Buffer, at: number): number {
  let j = at;
  if (raw[j] === 0x2d /* - */) j++;
  if (raw[j] === 0x30) j++;
  else if (isDigit(raw[j] ?? 0)) while (isDigit(raw[j] ?? 0)) j++;
  else return -1;
  if (raw[j] === 0x2e /* . */) {
    j++;
    if (!isDigit(raw[j] ?? 0)) return -1;
    while (isDigit(raw[j] ?? 0)) j++;
  }
  if (raw[j] === 0x65 || raw[j] === 0x45 /* e E */) {
    j++;
    if (raw[j] === 0x2b || raw[j] === 0x2d) j++;
    if (!isDigit(raw[j] ?? 0)) return -1;
    while (isDigit(raw[j] ?? 0)) j++;
  }
  return j;
}

// How far a string is searched a byte at a time before a search by the buffer's own `indexOf` (dearer to call).
const SHORT_STRING = 32;

/**
 * Where the string whose text starts at `raw[text]` has its closing quote,
 * searched from `from`, or -1 when `raw` ends first. A quote is the closing
 * one when an even number of backslashes comes before it in the text.
 */
export function closingQuote(raw: Buffer, text: number, from: number): number {
  const n = raw.length;
  const short = Math.min(n, from + SHORT_STRING);
  let q = from;
  while (q < short && raw[q] !== 0x22) q++;
  for (;;) {
    if (q >= short) {
      if (q >= n) return -1;
      q = raw.indexOf(0x22, q);
      if (q === -1) return -1;
    }
    let b = q - 1;
    while (b >= text && raw[b] === 0x5c) b--;
    if ((q - 1 - b) % 2 === 0) return q;
    q++;
    while (q < short && raw[q] !== 0x22) q++;
  }
}

/**
 * {@link closingQuote} of JSON text held as a string: where the string opened
 * by the quote at `open` closes, the first quote after it that an even run of
 * backslashes comes before; -1 when `text` ends first.
 */
export function closingQuoteOf(text: string, open: number): number {
  let end = open + 1;
  for (;;) {
    end = text.indexOf('"', end);
    if (end === -1) return -1;
    let slashes = 0;
    while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
    if (slashes % 2 === 0) return end;
    end++;
  }
}

/**
 * How deep arrays and objects may nest in a value a tool reads: deeper, the
 * line is reported (`nested too deep`) and not read. Each level read costs
 * about 60 bytes of V8's heap, with no closing bracket needed to cost it:
 * without a bound, a line of 64 MiB of `[` would take more memory than the
 * heap holds, and the tool would die. A million levels cost about 60 MB;
 * jq stops at 10,000 (256 in jq 1.6).
 */
export const MAX_DEPTH = 1_000_000;

/**
 * True when the JSON text `raw` nests arrays and objects more than
 * {@link MAX_DEPTH} deep: its brackets counted outside its strings, from
 * `depth` open and inside a string or not (`inString`) where it starts (a
 * line of a value that began on lines before). Only a text longer than the
 * levels left can, so a shorter one is not looked at.
 */
export function nestedTooDeep(raw: Buffer, depth = 0, inString = false): boolean {
  const n = raw.length;
  if (depth + n <= MAX_DEPTH) return false;
  let i = 0;
  if (inString) {
    const q = closingQuote(raw, 0, 0);
    if (q === -1) return false;
    i = q + 1;
  }
  for (; i < n; i++) {
    const c = raw[i]!;
    if (c === 0x22) {
      const q = closingQuote(raw, i + 1, i + 1);
      if (q === -1) return false;
      i = q;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > MAX_DEPTH) return true;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** `JSON.parse(text)`, which throws, as for text that is not JSON, where `text` nests deeper than a tool reads (see MAX_DEPTH). */
export function parseNested(text: string): unknown {
  // A level takes one character at least: a text no longer than MAX_DEPTH cannot be too deep.
  if (text.length > MAX_DEPTH && nestedTooDeep(Buffer.from(text, 'utf8'))) throw new SyntaxError(`nested more than ${MAX_DEPTH} deep`);
  return JSON.parse(text);
}
