/**
 * The skim parse: one JSON line parsed without decoding its large values.
 *
 * Tool-call events are mostly payload: the content of a file read or written,
 * a command's output, a diff, the matches of a search. A tool that reads a
 * call's paths, command and exit code has no use for them, yet `JSON.parse`
 * decodes every byte. {@link skimParse} checks the whole line with one scan
 * of its structure, in the WebAssembly module of byte-scan.ts (each string's
 * bytes searched 16 at a time), or in JavaScript where WebAssembly is not
 * available (strings searched with Buffer#indexOf), replaces each large value
 * by a short stand-in, parses what is left, and puts each large value back as
 * a property that parses its bytes on first read. Reading the object gives
 * exactly what `JSON.parse` gives; only the cost moves to the values read.
 *
 * Large values are strings of at least `threshold` bytes, and arrays of at
 * least `threshold` bytes once their own large values are left out (the
 * matches of a search, the files of a listing). Objects are never left out:
 * their small members (a path, an exit code) are what tools read.
 *
 * The scan validates the line as strictly as `JSON.parse` (structure, numbers,
 * literals, escapes, no raw control characters in strings), and gives up,
 * returning undefined, on anything it cannot vouch for: the caller then parses
 * the line in full, which gives the verdict. So a line is read the same way
 * whether or not it was skimmed, broken lines included.
 */
import type { JsonObject } from '../events.js';
import { LARGE_INVALID, makeByteScan } from './byte-scan.js';
import { escapeEnd, isDigit, literalAt, nestedTooDeep, numberEnd } from './json-bytes.js';
import type { ByteScan } from './byte-scan.js';

/** Values smaller than this are parsed with the line. */
export const SKIM_THRESHOLD = 4096;

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const SPACE = 0x20;

// What the scan expects next.
const VALUE = 0; // a value (after `:`, or `,` in an array)
const FIRST_VALUE = 1; // a value or `]` (after `[`)
const KEY = 2; // a key (after `,` in an object)
const FIRST_KEY = 3; // a key or `}` (after `{`)
const COLON = 4; // `:` after a key
const AFTER = 5; // `,` or the container's end, after a value
const DONE = 6; // only spaces (after the top-level value)

let lineScan: ByteScan | null | undefined;

/** The byte scan lines are loaded in, made on first use; undefined where there is none. */
function lineBytes(): ByteScan | undefined {
  if (lineScan === undefined) lineScan = makeByteScan() ?? null;
  return lineScan ?? undefined;
}

/**
 * Where the strings of one line end, each escape checked on the way. A class
 * so that the position of the next backslash is remembered from one string to
 * the next: each backslash of the line is looked for once.
 */
class Scan {
  /** The next backslash at or after the position last asked about (`raw.length` when none). */
  private backslash = -1;
  /** A `\u0000` escape was seen: the stand-ins would not be told apart from the line's own strings. */
  nul = false;

  /**
   * `bytes`: a byte scan the line is loaded in; then every string is also
   * checked for raw control characters, and the scan steps over the escapes
   * it can vouch for, leaving the others (`\u0000`, a broken one) to be
   * judged here.
   */
  constructor(
    private readonly raw: Buffer,
    readonly bytes?: ByteScan,
  ) {}

  /**
   * The index of the quote that closes the string opened at `open`, checking
   * every escape on the way; -1 when the string is not valid JSON or not
   * closed.
   */
  stringEnd(open: number): number {
    const raw = this.raw;
    const bytes = this.bytes;
    if (bytes !== undefined) {
      const n = raw.length;
      let at = open + 1;
      for (;;) {
        // Escapes are stepped over by the scan; what it stops at is a quote, or a byte to judge here.
        at = bytes.string(at, n);
        const b = raw[at];
        if (b === QUOTE) return at;
        if (b !== BACKSLASH) return -1; // a control character, or the end of the line
        const next = this.escapeEnd(at);
        if (next === -1) return -1;
        at = next;
      }
    }
    const n = raw.length;
    let from = open + 1;
    for (;;) {
      const close = raw.indexOf(QUOTE, from);
      if (close === -1) return -1;
      let b = this.backslash;
      if (b < from) {
        b = raw.indexOf(BACKSLASH, from);
        if (b === -1) b = n;
      }
      let escapedQuote = false;
      while (b < close) {
        const next = this.escapeEnd(b);
        if (next === -1) return -1;
        if (b + 1 === close) escapedQuote = true;
        b = raw.indexOf(BACKSLASH, next);
        if (b === -1) b = n;
        if (escapedQuote) break;
      }
      this.backslash = b;
      if (!escapedQuote) return close;
      from = close + 1;
    }
  }

  /** Where the escape whose backslash is at `b` ends (the index after it); -1 when it is not a JSON escape. Notes `\u0000`. */
  private escapeEnd(b: number): number {
    const raw = this.raw;
    const end = escapeEnd(raw, b);
    if (end === b + 6 && raw[b + 2] === 0x30 && raw[b + 3] === 0x30 && raw[b + 4] === 0x30 && raw[b + 5] === 0x30) this.nul = true;
    return end;
  }
}

/**
 * How {@link largeValues} scans a line: all in the byte scan's module
 * (`module`; what the module leaves to it, below); in JavaScript, each
 * string's bytes searched by the byte scan (`strings`); in JavaScript,
 * strings searched with Buffer#indexOf (`search`). The first two give the
 * same answer on every line; `search` refuses a raw control character in a
 * small string only later, in JSON.parse. Where WebAssembly is not
 * available, every scan is a `search`.
 */
export type SkimScan = 'module' | 'strings' | 'search';

/**
 * The large values of a line, as offsets `[start, end)` in pairs, in order
 * (none overlapping); undefined when the line is not exactly one JSON object
 * the scan can vouch for (see the module comment), or has a `\u0000` escape.
 * `scan` says how (for tests; see {@link SkimScan}). The module's scan
 * (ByteScan.large) is this function's loop, state for state; it leaves to
 * the loop below a line nested deeper than it follows, with more large values
 * than it writes, or with a number longer than its window.
 */
export function largeValues(raw: Buffer, threshold: number = SKIM_THRESHOLD, scan: SkimScan = 'module'): number[] | undefined {
  const n = raw.length;
  const bytes = scan !== 'search' ? lineBytes() : undefined;
  if (bytes !== undefined) {
    bytes.load(raw);
    if (scan === 'module') {
      const found: number[] = [];
      const count = bytes.large(threshold, found);
      if (count >= 0) return found;
      if (count === LARGE_INVALID) return undefined;
    }
  }
  // The loop below follows any depth (the module's scan, a few thousand levels): a line nested deeper than a tool reads
  // (see MAX_DEPTH) is left to the full path, which reports it.
  if (nestedTooDeep(raw)) return undefined;
  const strings = new Scan(raw, bytes);
  const spans: number[] = [];
  // Per open container: its start, whether it is an array, the spans it began after, the large bytes of its parent so far.
  const starts: number[] = [];
  const arrays: boolean[] = [];
  const spansBefore: number[] = [];
  const parentLarge: number[] = [];
  // Bytes of the current container already left out as large values.
  let large = 0;
  let state = VALUE;
  let i = 0;
  while (i < n) {
    const b = raw[i]!;
    if (b === SPACE) {
      i++;
      continue;
    }
    switch (state) {
      case VALUE:
      case FIRST_VALUE:
        if (b === QUOTE) {
          if (starts.length === 0) return undefined;
          const close = strings.stringEnd(i);
          if (close === -1) return undefined;
          const size = close + 1 - i;
          if (size >= threshold) {
            spans.push(i, close + 1);
            large += size;
          }
          i = close + 1;
          state = AFTER;
          continue;
        }
        if (b === 0x7b /* { */ || b === 0x5b /* [ */) {
          if (starts.length === 0 && (b !== 0x7b || i !== 0)) return undefined;
          starts.push(i);
          arrays.push(b === 0x5b);
          spansBefore.push(spans.length);
          parentLarge.push(large);
          large = 0;
          i++;
          state = b === 0x7b ? FIRST_KEY : FIRST_VALUE;
          continue;
        }
        if (b === 0x5d /* ] */ && state === FIRST_VALUE) break; // an empty array: closed below
        if (starts.length === 0) return undefined;
        if (b === 0x2d /* - */ || isDigit(b)) {
          const end = numberEnd(raw, i);
          if (end === -1) return undefined;
          i = end;
          state = AFTER;
          continue;
        }
        // `true`, `false`, `null`, or no value at all.
        const literal = literalAt(raw, i);
        if (literal === 0) return undefined;
        i += literal;
        state = AFTER;
        continue;
      case KEY:
      case FIRST_KEY:
        if (b === QUOTE) {
          const close = strings.stringEnd(i);
          if (close === -1) return undefined;
          i = close + 1;
          state = COLON;
          continue;
        }
        if (b === 0x7d /* } */ && state === FIRST_KEY) break; // an empty object: closed below
        return undefined;
      case COLON:
        if (b !== 0x3a /* : */) return undefined;
        i++;
        state = VALUE;
        continue;
      case AFTER:
        if (b === 0x2c /* , */) {
          i++;
          state = arrays[arrays.length - 1] ? VALUE : KEY;
          continue;
        }
        if (b === (arrays[arrays.length - 1] ? 0x5d : 0x7d)) break; // the container's end: closed below
        return undefined;
      default:
        return undefined; // DONE: something after the top-level value
    }
    // `raw[i]` closes the current container.
    const start = starts.pop()!;
    const isArray = arrays.pop()!;
    const before = spansBefore.pop()!;
    const size = i + 1 - start;
    const outer = parentLarge.pop()!;
    if (isArray && starts.length > 0 && size - large >= threshold) {
      // Large even without its large values: left out whole, in place of them.
      spans.length = before;
      spans.push(start, i + 1);
      large = outer + size;
    } else {
      large = outer + large;
    }
    i++;
    state = starts.length === 0 ? DONE : AFTER;
  }
  if (state !== DONE || strings.nul) return undefined;
  // No raw control character in the large values (the rest is checked by JSON.parse); the byte scan checked every string.
  if (strings.bytes === undefined) for (let k = 0; k < spans.length; k += 2) if (hasControlByte(raw.subarray(spans[k]!, spans[k + 1]!))) return undefined;
  return spans;
}

/**
 * True when `raw` is exactly one JSON object the skim's scan vouches for, as
 * `JSON.parse` would read it; false when it is not, or when the scan cannot
 * say (a `\u0000` escape): parse such a line to know. `scan`: as for
 * {@link largeValues}.
 */
export function isJsonObject(raw: Buffer, scan: SkimScan = 'module'): boolean {
  if (raw.length === 0 || largeValues(raw, NO_THRESHOLD, scan) === undefined) return false;
  // Strings searched with Buffer#indexOf (no byte scan: `node --jitless`) leave a raw control character in a small
  // string to JSON.parse, which does not read this line: it is looked for here (between tokens, the scan takes none).
  return (scan !== 'search' && lineBytes() !== undefined) || !hasControlByte(raw);
}

/** True when `raw` holds a byte below 0x20. */
function hasControlByte(raw: Buffer): boolean {
  for (let c = 0; c < 0x20; c++) if (raw.indexOf(c) !== -1) return true;
  return false;
}

/** A threshold no value reaches: the scan only checks. */
const NO_THRESHOLD = 0x7fffffff;

/** Makes `value` the plain value of `target`'s `key`, in place of the accessor that stood for it. */
function settle(target: JsonObject | unknown[], key: string | number, value: unknown): unknown {
  Object.defineProperty(target, key, { value, writable: true, enumerable: true, configurable: true });
  return value;
}

/** Makes the element `index` of `target` stand for the large value `raw[start, end)`, parsed when read. */
function lazyElement(target: unknown[], index: number, raw: Buffer, start: number, end: number): void {
  Object.defineProperty(target, index, {
    enumerable: true,
    configurable: true,
    get: () => settle(target, index, JSON.parse(raw.toString('utf8', start, end))),
    set: (value: unknown) => settle(target, index, value),
  });
}

/** Where the large values of an object are, for the accessors that stand for them (see lazyObject). */
class LargeValues {
  /** The index of each large value's span, by its key (span `k` is `spans[2k]` to `spans[2k + 1]`). */
  readonly at = new Map<string, number>();

  constructor(
    readonly raw: Buffer,
    readonly spans: number[],
  ) {}

  /** The large value of `key`, parsed. */
  value(key: string): unknown {
    const k = this.at.get(key)!;
    return JSON.parse(this.raw.toString('utf8', this.spans[2 * k], this.spans[2 * k + 1]));
  }
}

/**
 * The large values of each object that holds some, by the object: kept
 * beside it rather than on it, so that nothing but its members is to be
 * found on it, as on what JSON.parse makes.
 */
const LARGE = new WeakMap<object, LargeValues>();

/**
 * The object that holds the large value of `key` that `receiver` reads: the
 * receiver itself, or an object it inherits from. A getter read for another
 * receiver (`Reflect.get` with one) cannot know where its value is.
 */
function holderOf(receiver: object, key: string): { holder: object; large: LargeValues } {
  for (let o: object | null = receiver; o !== null; o = Object.getPrototypeOf(o) as object | null) {
    const large = LARGE.get(o);
    if (large?.at.has(key)) return { holder: o, large };
  }
  throw new TypeError(`the large value ${JSON.stringify(key)} of a skimmed object is read through that object`);
}

/**
 * The accessors that stand for large values, one pair for each key, shared by
 * every object: objects with the same keys then share V8's hidden class, as
 * parsed objects do. (An accessor of its own for each value, set on the
 * parsed object, made V8 move that object to slow properties, and every
 * later read of it slower.) Kept for the first {@link MAX_SHARED_KEYS} keys:
 * a hostile input with a new key on every large value does not grow this.
 */
const ACCESSORS = new Map<string, PropertyDescriptor>();
const MAX_SHARED_KEYS = 1000;

function largeAccessor(key: string): PropertyDescriptor {
  let accessor = ACCESSORS.get(key);
  if (accessor !== undefined) return accessor;
  accessor = {
    enumerable: true,
    configurable: true,
    get(this: object): unknown {
      const { holder, large } = holderOf(this, key);
      return settle(holder as JsonObject, key, large.value(key));
    },
    set(this: object, value: unknown): void {
      settle(holderOf(this, key).holder as JsonObject, key, value);
    },
  };
  if (ACCESSORS.size < MAX_SHARED_KEYS) ACCESSORS.set(key, accessor);
  return accessor;
}

/** Sets `target`'s `key` to `value` as JSON.parse would (an own `__proto__` is a key like any other). */
function setMember(target: JsonObject, key: string, value: unknown): void {
  if (key === '__proto__') settle(target, key, value);
  else target[key] = value;
}

/**
 * A copy of `node` whose keys of `large` are accessors that parse their large
 * values when read: made anew, member by member in order, rather than set
 * on `node`, where V8 would have to move the object to slow properties.
 */
function lazyObject(node: JsonObject, large: LargeValues): JsonObject {
  const fresh: JsonObject = {};
  for (const key of Object.keys(node)) {
    if (large.at.has(key)) Object.defineProperty(fresh, key, largeAccessor(key));
    else setMember(fresh, key, node[key]);
  }
  LARGE.set(fresh, large);
  return fresh;
}

/** The index of the stand-in `v` is (see skimParse), or -1 when it is none. */
function standIn(v: unknown): number {
  return typeof v === 'string' && v.charCodeAt(0) === 0 ? Number(v.slice(1)) : -1;
}

/** The stand-ins of a line, and how many of them are still to be found. */
interface Placing {
  raw: Buffer;
  spans: number[];
  left: number;
}

/**
 * `node` with each stand-in still in it (a later duplicate key may have
 * replaced one), at any depth, in place of its value: `node` itself, its
 * members replaced, or a copy of it when it holds one (see lazyObject).
 */
function placeLarge(node: JsonObject | unknown[], placing: Placing): JsonObject | unknown[] {
  const { raw, spans } = placing;
  if (Array.isArray(node)) {
    for (let i = 0; i < node.length && placing.left > 0; i++) {
      const v = node[i];
      const k = standIn(v);
      if (k >= 0) {
        lazyElement(node, i, raw, spans[2 * k]!, spans[2 * k + 1]!);
        placing.left--;
      } else if (typeof v === 'object' && v !== null) {
        node[i] = placeLarge(v as JsonObject | unknown[], placing);
      }
    }
    return node;
  }
  let large: LargeValues | undefined;
  for (const key in node) {
    if (placing.left === 0) break;
    const v = node[key];
    const k = standIn(v);
    if (k >= 0) {
      (large ??= new LargeValues(raw, spans)).at.set(key, k);
      placing.left--;
    } else if (typeof v === 'object' && v !== null) {
      const placed = placeLarge(v as JsonObject | unknown[], placing);
      if (placed !== v) setMember(node, key, placed);
    }
  }
  return large === undefined ? node : lazyObject(node, large);
}

/**
 * Parses one line holding a JSON object, its large values left to be parsed
 * when read (see the module comment). Undefined when the line has no large
 * value or the scan cannot vouch for it: then parse it in full, which also
 * says whether it is JSON at all.
 *
 * The object keeps `raw` (not a copy) until its large values are read: a
 * caller that keeps a value past the buffer's reuse reads what it needs of
 * it first.
 */
export function skimParse(raw: Buffer, threshold: number = SKIM_THRESHOLD): JsonObject | undefined {
  if (raw.length < threshold) return undefined;
  const spans = largeValues(raw, threshold);
  if (spans === undefined || spans.length === 0) return undefined;
  let text = '';
  let from = 0;
  for (let k = 0; k < spans.length; k += 2) {
    // A stand-in: a string no line that passed the scan can hold (it has no `\u0000`).
    text += `${raw.toString('utf8', from, spans[k]!)}"\\u0000${k >> 1}"`;
    from = spans[k + 1]!;
  }
  text += raw.toString('utf8', from);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return undefined;
  return placeLarge(value as JsonObject, { raw, spans, left: spans.length >> 1 }) as JsonObject;
}
