/**
 * Byte scans of a small WebAssembly module with SIMD instructions, 16 bytes
 * at a time.
 *
 * For the skim (see skim.ts): from a position inside a JSON string, where the
 * next byte is that the string cannot hold as it is (a quote, a control
 * character, a backslash). The escapes it can vouch for are stepped over in
 * the module (a file's content holds one every line or so). The skim checks
 * every string of a tool call's line this way, tens of MB of file contents
 * and command output in a long log: one call per string, far cheaper than the
 * two Buffer#indexOf calls and the escapes judged one by one it replaces.
 *
 * For the input layer (see input.ts), before it trusts a line's first key as
 * its type without parsing it: every place of a chunk that may say otherwise
 * (`places`), in one call, and the structure of a line followed up to one
 * (`walk`).
 *
 * The module is written below instruction by instruction, each under its
 * name in WebAssembly's text format; the skim and the input layer each make
 * one scan, on first use. Where WebAssembly or its SIMD is not available
 * (`node --jitless`), {@link makeByteScan} gives undefined: the skim searches
 * with Buffer#indexOf, as it always could, and the input layer with
 * {@link placeAt} and {@link walkBytes}.
 */

/** The scan: {@link load} a line's bytes, then ask where each string ends. */
export interface ByteScan {
  /**
   * Makes `raw` the bytes scanned. They are copied into the module's memory a
   * window at a time, as the scan reaches them: that memory stays at one
   * window, whatever the length of the lines.
   */
  load(raw: Buffer): void;
  /**
   * The index of the first quote, byte below 0x20 or backslash in `[from,
   * end)` of the loaded bytes; `end` when none is. A backslash that starts a
   * valid JSON escape is stepped over with its escape: `\"`, `\\`, `\/`,
   * `\b`, `\f`, `\n`, `\r`, `\t`, and `\u` with four hex digits, but for
   * `\u0000`, which is left to the caller, as is an escape that may not end
   * before `end`. So the index given is the quote that closes a string, a
   * control byte, a backslash for the caller to judge, or `end`.
   */
  string(from: number, end: number): number;
  /**
   * Appends to `found` the index of every place in `[from, end)` of the
   * loaded bytes (`from` at least 1) that may make an event line's first key
   * other than its type (see input.ts): `"` with `y` 2 bytes on (`"type"`
   * perhaps) but for one right after `{`, `[` or `:`, which is no key of the
   * line; `\u0` (an escape that may spell a letter of `type`); and `}`
   * followed by `{` or by a byte below `!` other than a newline (perhaps
   * values glued together). A place is judged by the byte before it and the
   * 2 after it, read past `end` (beyond the bytes, whatever the memory
   * holds): a place is only one for the caller to check.
   */
  places(from: number, end: number, found: number[]): void;
  /**
   * Follows the structure of the loaded bytes `[from, to)` from `state` (0 at
   * the start of a line) and gives the state after them: how many objects
   * and arrays are open (never below 0), whether a string is, and whether
   * the last byte began an escape whose second byte is at `to` (the next
   * walk steps over it). See {@link walkDepth}, {@link walkInString},
   * {@link walkEscaped}.
   */
  walk(from: number, to: number, state: number): number;
}

/**
 * True when `raw[at]` is a place {@link ByteScan.places} finds, judged by the
 * bytes themselves (none before the first or past the last): where there is
 * no WebAssembly, and the reference the module is tested against.
 */
export function placeAt(raw: Uint8Array, at: number): boolean {
  const b = raw[at];
  const before = raw[at - 1];
  const next = raw[at + 1];
  if (b === 0x22) return raw[at + 2] === 0x79 && before !== 0x7b && before !== 0x5b && before !== 0x3a;
  if (b === 0x5c) return next === 0x75 && raw[at + 2] === 0x30;
  return b === 0x7d && next !== undefined && (next === 0x7b || (next < 0x21 && next !== 0x0a));
}

/** How many objects and arrays are open after a walk. */
export function walkDepth(state: number): number {
  return state >>> 2;
}

/** True when a string is open after a walk. */
export function walkInString(state: number): boolean {
  return (state & 2) !== 0;
}

/** True when the byte after a walk is the second of an escape. */
export function walkEscaped(state: number): boolean {
  return (state & 1) !== 0;
}

/**
 * {@link ByteScan.walk} over `raw` itself, byte by byte: where there is no
 * WebAssembly, and the reference the module's walk is tested against.
 */
export function walkBytes(raw: Uint8Array, from: number, to: number, state: number): number {
  let depth = state >>> 2;
  let inString = (state & 2) !== 0;
  let i = (state & 1) !== 0 ? from + 1 : from;
  while (i < to) {
    const b = raw[i]!;
    if (inString) {
      if (b === 0x5c) {
        i += 2;
        continue;
      }
      if (b === 0x22) inString = false;
    } else if (b === 0x22) inString = true;
    else if (b === 0x7b || b === 0x5b) depth++;
    else if ((b === 0x7d || b === 0x5d) && depth > 0) depth--;
    i++;
  }
  return (depth << 2) | (inString ? 2 : 0) | (i > to ? 1 : 0);
}

/** How many bytes of a line are in the module's memory at a time. */
export const WINDOW = 1024 * 1024;

function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
}

function section(id: number, contents: number[]): number[] {
  return [id, ...uleb(contents.length), ...contents];
}

function name(s: string): number[] {
  return [...uleb(s.length), ...Buffer.from(s, 'latin1')];
}

// The instructions used, by their text names.
const I32 = 0x7f;
const V128 = 0x7b;
const block = [0x02, 0x40];
const loop = [0x03, 0x40];
const if_ = [0x04, 0x40];
const end = [0x0b];
const br = (depth: number): number[] => [0x0c, depth];
const brIf = (depth: number): number[] => [0x0d, depth];
const return_ = [0x0f];
const localGet = (i: number): number[] => [0x20, i];
const localSet = (i: number): number[] => [0x21, i];
const localTee = (i: number): number[] => [0x22, i];
const i32Const = (n: number): number[] => [0x41, ...sleb(n)];
const i32Load8UAt = (offset: number): number[] => [0x2d, 0x00, ...uleb(offset)];
const i32Load8U = i32Load8UAt(0);
const i32LoadAt = (offset: number): number[] => [0x28, 0x00, ...uleb(offset)];
const i32Eq = [0x46];
const i32Ne = [0x47];
const i32Eqz = [0x45];
const i32Store = [0x36, 0x02, 0x00];
const i32Sub = [0x6b];
const i32And = [0x71];
const i32LtU = [0x49];
const i32GtU = [0x4b];
const i32GeU = [0x4f];
const i32Ctz = [0x68];
const i32Add = [0x6a];
const i32Or = [0x72];
const i32Shl = [0x74];
const i32ShrU = [0x76];
const call = (f: number): number[] => [0x10, f];
const v128LoadAt = (offset: number): number[] => [0xfd, 0x00, 0x00, ...uleb(offset)];
const v128Load = v128LoadAt(0);
const i8x16Splat = [0xfd, 0x0f];
const i8x16Eq = [0xfd, 0x23];
const i8x16LtU = [0xfd, 0x26];
const v128Const = (byte: number): number[] => [0xfd, 0x0c, ...new Array<number>(16).fill(byte)]; // 16 copies of one byte
const v128And = [0xfd, 0x4e];
const v128AndNot = [0xfd, 0x4f];
const i8x16Ne = [0xfd, 0x24];
const v128Or = [0xfd, 0x50];
const i8x16Bitmask = [0xfd, 0x64];

// Locals of `string`: its parameters, then a vector of 16 bytes, a mask and the byte being looked at.
const FROM = 0;
const END = 1;
const VEC = 2;
const MASK = 3;
const C = 4;

/** True on the stack when the byte at `from + offset` is a hex digit: `(c - '0') <u 10 | ((c | 0x20) - 'a') <u 6`. */
const isHexAt = (offset: number): number[] => [
  ...[...localGet(FROM), ...i32Load8UAt(offset), ...localTee(C), ...i32Const(0x30), ...i32Sub, ...i32Const(10), ...i32LtU],
  ...[...localGet(C), ...i32Const(0x20), ...i32Or, ...i32Const(0x61), ...i32Sub, ...i32Const(6), ...i32LtU, ...i32Or],
];

/** True on the stack when `c` is one of the bytes of a one-letter escape: `"` `\` `/` `b` `f` `n` `r` `t`. */
const isSimpleEscape = [0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74].flatMap((b, k) => [
  ...localGet(C),
  ...i32Const(b),
  ...i32Eq,
  ...(k > 0 ? i32Or : []),
]);

/** The body of `string(from, end) -> index`. */
const STRING_BODY = [
  // (local $vec v128) (local $mask i32) (local $c i32)
  ...[2, 1, V128, 2, I32],
  ...loop, // $scan: from one escape stepped over to the next byte of interest
  ...block, // $found
  ...block, // $tail
  ...loop, // $simd
  ...[...localGet(FROM), ...i32Const(16), ...i32Add, ...localGet(END), ...i32GtU, ...brIf(1)],
  ...[...localGet(FROM), ...v128Load, ...localSet(VEC)],
  ...[...localGet(VEC), ...i32Const(0x22), ...i8x16Splat, ...i8x16Eq],
  ...[...localGet(VEC), ...i32Const(0x5c), ...i8x16Splat, ...i8x16Eq, ...v128Or],
  ...[...localGet(VEC), ...i32Const(0x20), ...i8x16Splat, ...i8x16LtU, ...v128Or],
  ...[...i8x16Bitmask, ...localTee(MASK)],
  ...[...if_, ...localGet(FROM), ...localGet(MASK), ...i32Ctz, ...i32Add, ...localSet(FROM), ...br(3), ...end],
  ...[...localGet(FROM), ...i32Const(16), ...i32Add, ...localSet(FROM), ...br(0)],
  ...end, // $simd
  ...end, // $tail
  ...loop, // $bytes: the last few bytes one at a time
  ...[...localGet(FROM), ...localGet(END), ...i32GeU, ...if_, ...localGet(END), ...return_, ...end],
  ...[...localGet(FROM), ...i32Load8U, ...localTee(C), ...i32Const(0x22), ...i32Eq],
  ...[...localGet(C), ...i32Const(0x5c), ...i32Eq, ...i32Or],
  ...[...localGet(C), ...i32Const(0x20), ...i32LtU, ...i32Or, ...brIf(1)],
  ...[...localGet(FROM), ...i32Const(1), ...i32Add, ...localSet(FROM), ...br(0)],
  ...end, // $bytes
  ...end, // $found: the byte at from is a quote, a backslash or a control byte
  // Not a backslash, or one whose escape may not end before `end`: the caller's.
  ...[...localGet(FROM), ...i32Load8U, ...i32Const(0x5c), ...i32Ne, ...if_, ...localGet(FROM), ...return_, ...end],
  ...[...localGet(FROM), ...i32Const(6), ...i32Add, ...localGet(END), ...i32GtU, ...if_, ...localGet(FROM), ...return_, ...end],
  ...[...localGet(FROM), ...i32Load8UAt(1), ...localSet(C)],
  // A one-letter escape: stepped over.
  ...[...isSimpleEscape, ...if_, ...localGet(FROM), ...i32Const(2), ...i32Add, ...localSet(FROM), ...br(1), ...end],
  // Anything but \u and four hex digits, or \u0000: the caller's.
  ...[...localGet(C), ...i32Const(0x75), ...i32Ne, ...if_, ...localGet(FROM), ...return_, ...end],
  ...[...isHexAt(2), ...isHexAt(3), ...i32And, ...isHexAt(4), ...i32And, ...isHexAt(5), ...i32And],
  ...[...i32Const(0), ...i32Eq, ...if_, ...localGet(FROM), ...return_, ...end],
  ...[...localGet(FROM), ...i32LoadAt(2), ...i32Const(0x30303030), ...i32Eq, ...if_, ...localGet(FROM), ...return_, ...end],
  ...[...localGet(FROM), ...i32Const(6), ...i32Add, ...localSet(FROM), ...br(0)],
  ...end, // $scan
  ...localGet(END),
  ...end,
];

// Parameters and locals of `places`: the range, where to write the places found, how many are; a mask; the
// vectors of the 16 bytes at the place and around it, by their offset from it.
const OUT = 2;
const COUNT = 3;
const MASK_P = 4;
const AT: Record<number, number> = { [-1]: 5, 0: 6, 1: 7, 2: 8 };
/** How many places `places` writes in one call, at most: one page of i32. */
const MAX_PLACES = 16384;

/** A test of the byte at an offset from a place: one of `is`, or below `below` but not `except`; or none of `not`. */
interface ByteTest {
  at: number;
  is?: number[];
  below?: number;
  except?: number;
  not?: number[];
}
const PLACE_PATTERNS: ByteTest[][] = [
  // `"` and `y` after the next byte, `"type"` perhaps, but not after `{` `[` `:`.
  [{ at: 0, is: [0x22] }, { at: 2, is: [0x79] }, { at: -1, not: [0x7b, 0x5b, 0x3a] }],
  // `\u0`: an escape that may spell a letter of `type`.
  [{ at: 0, is: [0x5c] }, { at: 1, is: [0x75] }, { at: 2, is: [0x30] }],
  // `}` then `{`, or a byte below `!` but a newline: perhaps values glued together.
  [{ at: 0, is: [0x7d] }, { at: 1, is: [0x7b], below: 0x21, except: 0x0a }],
];

/** The instructions the patterns are tested with: on 16 bytes at a time (vectors of lanes), or on one. */
interface Lanes {
  /** On the stack: the byte(s) at `at` from `from`. */
  byteAt(at: number): number[];
  /** On the stack: `byte` (in every lane). */
  constant(byte: number): number[];
  eq: number[];
  ltU: number[];
  ne: number[];
  and: number[];
  or: number[];
  /** The one below on the stack, and not the one on top. */
  andNot: number[];
}

const VECTOR: Lanes = {
  byteAt: (at) => localGet(AT[at]!),
  constant: v128Const,
  eq: i8x16Eq,
  ltU: i8x16LtU,
  ne: i8x16Ne,
  and: v128And,
  or: v128Or,
  andNot: v128AndNot,
};

const SCALAR: Lanes = {
  byteAt: (at) => [...localGet(FROM), ...i32Const(at), ...i32Add, ...i32Load8U],
  constant: i32Const,
  eq: i32Eq,
  ltU: i32LtU,
  ne: i32Ne,
  and: i32And,
  or: i32Or,
  andNot: [...i32Eqz, ...i32And],
};

/** On the stack: true (in each lane) where one of the patterns is at the place. */
function matchPlaces(l: Lanes): number[] {
  const anyOf = (at: number, bytes: number[]): number[] => bytes.flatMap((byte, b) => [...l.byteAt(at), ...l.constant(byte), ...l.eq, ...(b > 0 ? l.or : [])]);
  return PLACE_PATTERNS.flatMap((pattern, p) => [
    ...pattern
      .filter((test) => test.is !== undefined)
      .flatMap((test, k) => [
        ...anyOf(test.at, test.is!),
        ...(test.below === undefined ? [] : [...l.byteAt(test.at), ...l.constant(test.below), ...l.ltU, ...l.byteAt(test.at), ...l.constant(test.except!), ...l.ne, ...l.and, ...l.or]),
        ...(k > 0 ? l.and : []),
      ]),
    ...pattern.filter((test) => test.not !== undefined).flatMap((test) => [...anyOf(test.at, test.not!), ...l.andNot]),
    ...(p > 0 ? l.or : []),
  ]);
}

/** Writes the place `from + ctz(mask)` and counts it; returns the count when the page of places is full. */
const writePlace = [
  ...[...localGet(OUT), ...localGet(COUNT), ...i32Const(2), ...i32Shl, ...i32Add],
  ...[...localGet(FROM), ...localGet(MASK_P), ...i32Ctz, ...i32Add, ...i32Store],
  ...[...localGet(COUNT), ...i32Const(1), ...i32Add, ...localTee(COUNT), ...i32Const(MAX_PLACES), ...i32Eq, ...if_, ...localGet(COUNT), ...return_, ...end],
];

/** The body of `places(from, end, out) -> count`: the places found are written at `out`, as i32, up to a page of them. */
const PLACES_BODY = [
  // (local $count $mask i32) (local $before $at0 $at1 $at2 v128)
  ...[2, 2, I32, 4, V128],
  ...block, // $tail
  ...loop, // $simd: while the 16 places and the 2 bytes after the last are before `end`
  ...[...localGet(FROM), ...i32Const(18), ...i32Add, ...localGet(END), ...i32GtU, ...brIf(1)],
  ...[-1, 0, 1, 2].flatMap((at) => [...localGet(FROM), ...(at < 0 ? [...i32Const(1), ...i32Sub, ...v128Load] : v128LoadAt(at)), ...localSet(AT[at]!)]),
  ...[...matchPlaces(VECTOR), ...i8x16Bitmask, ...localSet(MASK_P)],
  ...loop, // $each: every place of the 16
  ...block,
  ...[...localGet(MASK_P), ...i32Eqz, ...brIf(0)],
  ...writePlace,
  ...[...localGet(MASK_P), ...localGet(MASK_P), ...i32Const(1), ...i32Sub, ...i32And, ...localSet(MASK_P), ...br(1)],
  ...end,
  ...end, // $each
  ...[...localGet(FROM), ...i32Const(16), ...i32Add, ...localSet(FROM), ...br(0)],
  ...end, // $simd
  ...end, // $tail
  ...loop, // $bytes: the last places one at a time
  ...[...localGet(FROM), ...localGet(END), ...i32GeU, ...if_, ...localGet(COUNT), ...return_, ...end],
  ...[...matchPlaces(SCALAR), ...if_, ...i32Const(1), ...localSet(MASK_P), ...writePlace, ...end],
  ...[...localGet(FROM), ...i32Const(1), ...i32Add, ...localSet(FROM), ...br(0)],
  ...end, // $bytes
  ...localGet(COUNT),
  ...end,
];

// Parameters and locals of `walk`, after `from` and `to`: the state given, then the state's parts and the byte being looked at.
const STATE = 2;
const DEPTH = 3;
const IN_STRING = 4;
const B = 5;
const STRING_FUNC = 0;

/** On the stack: true when the byte `b` is one of `bytes`. */
const isByte = (...bytes: number[]): number[] => bytes.flatMap((byte, k) => [...localGet(B), ...i32Const(byte), ...i32Eq, ...(k > 0 ? i32Or : [])]);

/** The body of `walk(from, to, state) -> state`, as {@link walkBytes}; through a string, `string` steps over what cannot end it. */
const WALK_BODY = [
  // (local $depth $inString $b i32)
  ...[1, 3, I32],
  ...[...localGet(STATE), ...i32Const(2), ...i32ShrU, ...localSet(DEPTH)],
  ...[...localGet(STATE), ...i32Const(1), ...i32ShrU, ...i32Const(1), ...i32And, ...localSet(IN_STRING)],
  ...[...localGet(STATE), ...i32Const(1), ...i32And, ...if_, ...localGet(FROM), ...i32Const(1), ...i32Add, ...localSet(FROM), ...end],
  ...block, // $done
  ...loop, // $walk
  ...[...localGet(FROM), ...localGet(END), ...i32GeU, ...brIf(1)],
  ...[...localGet(IN_STRING), ...if_],
  ...[...localGet(FROM), ...localGet(END), ...call(STRING_FUNC), ...localTee(FROM), ...localGet(END), ...i32GeU, ...brIf(2)],
  ...[...localGet(FROM), ...i32Load8U, ...localSet(B)],
  ...[...isByte(0x5c), ...if_, ...localGet(FROM), ...i32Const(2), ...i32Add, ...localSet(FROM), ...br(2), ...end],
  ...[...isByte(0x22), ...if_, ...i32Const(0), ...localSet(IN_STRING), ...end],
  ...[...localGet(FROM), ...i32Const(1), ...i32Add, ...localSet(FROM), ...br(1)],
  ...end,
  ...[...localGet(FROM), ...i32Load8U, ...localSet(B)],
  ...[...isByte(0x22), ...if_, ...i32Const(1), ...localSet(IN_STRING), ...end],
  ...[...isByte(0x7b, 0x5b), ...if_, ...localGet(DEPTH), ...i32Const(1), ...i32Add, ...localSet(DEPTH), ...end],
  ...[...isByte(0x7d, 0x5d), ...localGet(DEPTH), ...i32Const(0), ...i32GtU, ...i32And, ...if_, ...localGet(DEPTH), ...i32Const(1), ...i32Sub, ...localSet(DEPTH), ...end],
  ...[...localGet(FROM), ...i32Const(1), ...i32Add, ...localSet(FROM), ...br(0)],
  ...end, // $walk
  ...end, // $done
  ...[...localGet(DEPTH), ...i32Const(2), ...i32Shl, ...localGet(IN_STRING), ...i32Const(1), ...i32Shl, ...i32Or],
  ...[...localGet(FROM), ...localGet(END), ...i32GtU, ...i32Or],
  ...end,
];

/** The module: one memory, `string`, `places` and `walk`, all exported. */
const MODULE = Uint8Array.from([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  // (type (func (param i32 i32) (result i32))) (type (func (param i32 i32 i32) (result i32)))
  ...section(1, [2, 0x60, 2, I32, I32, 1, I32, 0x60, 3, I32, I32, I32, 1, I32]),
  // (func $string (type 0)) (func $places (type 1)) (func $walk (type 1))
  ...section(3, [3, 0, 1, 1]),
  // (memory 1): grown to one window and more when made
  ...section(5, [1, 0x00, 1]),
  // (export "memory" (memory 0)) (export "string" (func $string)) (export "places" (func $places)) (export "walk" (func $walk))
  ...section(7, [4, ...name('memory'), 0x02, 0, ...name('string'), 0x00, 0, ...name('places'), 0x00, 1, ...name('walk'), 0x00, 2]),
  ...section(10, [3, ...[STRING_BODY, PLACES_BODY, WALK_BODY].flatMap((body) => [...uleb(body.length), ...body])]),
]);

const PAGE = 65536;

type Search = (from: number, end: number) => number;
type Walk = (from: number, to: number, state: number) => number;
type Places = (from: number, end: number, out: number) => number;

/** Where `places` writes the places it finds: after the window and its page. */
const FOUND = (Math.ceil(WINDOW / PAGE) + 1) * PAGE;

class WasmScan implements ByteScan {
  private readonly memory: Uint8Array;
  private readonly found: Int32Array;
  private raw: Buffer = Buffer.alloc(0);
  /** `raw[base, base + size)` is in the memory, from its start. */
  private base = 0;
  private size = 0;

  constructor(
    memory: WebAssembly.Memory,
    private readonly search: Search,
    private readonly placesSearch: Places,
    private readonly walkState: Walk,
  ) {
    // A window, a page for what `places` reads past its end, and a page of places found.
    memory.grow(Math.ceil(WINDOW / PAGE) + 2 - memory.buffer.byteLength / PAGE);
    this.memory = new Uint8Array(memory.buffer);
    this.found = new Int32Array(memory.buffer, FOUND, MAX_PLACES);
  }

  load(raw: Buffer): void {
    this.raw = raw;
    this.show(0);
  }

  string(from: number, end: number): number {
    for (;;) {
      if (from >= end) return end;
      if (from < this.base || from >= this.base + this.size) this.show(from);
      const stop = Math.min(end, this.base + this.size);
      const at = this.base + this.search(from - this.base, stop - this.base);
      if (at < stop) return at;
      from = stop;
    }
  }

  places(from: number, end: number, found: number[]): void {
    while (from < end) {
      // The window holds the byte before the place and, but at the end of the bytes, the 2 after it.
      const windowEnd = this.base + this.size;
      if (from - 1 < this.base || (from + 2 >= windowEnd && windowEnd < this.raw.length)) this.show(from - 1);
      let stop = Math.min(end, this.base + this.size);
      if (stop < end) stop -= 2;
      const count = this.placesSearch(from - this.base, stop - this.base, FOUND);
      for (let k = 0; k < count; k++) found.push(this.base + this.found[k]!);
      // A full page of places: the search goes on after the last.
      from = count === MAX_PLACES ? found[found.length - 1]! + 1 : stop;
    }
  }

  walk(from: number, to: number, state: number): number {
    for (;;) {
      if (from >= to) return state;
      if (from < this.base || from >= this.base + this.size) this.show(from);
      const stop = Math.min(to, this.base + this.size);
      state = this.walkState(from - this.base, stop - this.base, state);
      if (stop === to) return state;
      from = stop;
    }
  }

  /** Copies the window of the line that starts at `from` into the memory. */
  private show(from: number): void {
    this.base = from;
    this.size = Math.min(WINDOW, this.raw.length - from);
    this.memory.set(this.raw.subarray(from, from + this.size));
  }
}

/** A new scan with a memory of its own; undefined where WebAssembly SIMD is not available. */
export function makeByteScan(): ByteScan | undefined {
  try {
    const exports = new WebAssembly.Instance(new WebAssembly.Module(MODULE)).exports as { memory: WebAssembly.Memory; string: Search; places: Places; walk: Walk };
    return new WasmScan(exports.memory, exports.string, exports.places, exports.walk);
  } catch {
    return undefined;
  }
}
