/**
 * A byte scan for the skim (see skim.ts): from a position inside a JSON
 * string, where the next byte is that the string cannot hold as it is (a
 * quote, a control character, a backslash), looked for 16 bytes at a time by
 * a small WebAssembly module with SIMD instructions. The escapes it can vouch
 * for are stepped over in the module (a file's content holds one every line
 * or so). The skim checks every string of a tool call's line this way, tens
 * of MB of file contents and command output in a long log: one call per
 * string, far cheaper than the two Buffer#indexOf calls and the escapes
 * judged one by one it replaces.
 *
 * The module is written below instruction by instruction, each under its
 * name in WebAssembly's text format; the skim makes one scan, on first use.
 * Where WebAssembly or its SIMD is not available (`node --jitless`),
 * {@link makeByteScan} gives undefined and the skim searches with
 * Buffer#indexOf, as it always could.
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
   * The index of the first place in `[from, end)` of the loaded bytes that
   * may make an event line's first key other than its type (see
   * input.ts): `"ty` with a quote 5 bytes after its own (`"type"`, once the
   * caller checks the bytes between), `\u00` (an escape that may spell a
   * letter of `type`), or `}` followed by a space, a tab, a carriage return
   * or `{` (perhaps values glued together). Each pattern is looked for
   * wherever all its bytes are before `end`; `end` when none is found.
   */
  doubt(from: number, end: number): number;
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

// Locals of `doubt`, after its parameters: a mask, then the vectors of the 16 bytes at the place and at 1 and 2 after it.
const MASK_D = 2;
const AT = [3, 4, 5];

/**
 * What `doubt` looks for, each a list of tests of the byte at an offset from
 * the place: equal to one of some bytes, or below one. A few tests per
 * pattern, enough to make a place rare; the caller checks the rest.
 */
type ByteTest = [offset: number, equal: number[], below?: number];
const DOUBT_PATTERNS: ByteTest[][] = [
  // `"` and `y` after the next byte: `"type"` perhaps.
  [
    [0, [0x22]],
    [2, [0x79]],
  ],
  // `\u0`: an escape that may spell a letter of `type`.
  [
    [0, [0x5c]],
    [1, [0x75]],
    [2, [0x30]],
  ],
  // `}` then `{`, or a byte up to a space (a tab, a carriage return): perhaps values glued together.
  [
    [0, [0x7d]],
    [1, [0x7b], 0x21],
  ],
];

/** On the stack: the vector of the 16 bytes at `offset` from `from`. */
const vectorAt = (offset: number): number[] => localGet(AT[offset]!);

/** On the stack: a vector true at each of the 16 places from `from` where one of the patterns is. */
const vectorDoubt = DOUBT_PATTERNS.flatMap((pattern, p) => [
  ...pattern.flatMap(([offset, equal, below], k) => [
    ...equal.flatMap((byte, b) => [...vectorAt(offset), ...v128Const(byte), ...i8x16Eq, ...(b > 0 ? v128Or : [])]),
    ...(below === undefined ? [] : [...vectorAt(offset), ...v128Const(below), ...i8x16LtU, ...v128Or]),
    ...(k > 0 ? v128And : []),
  ]),
  ...(p > 0 ? v128Or : []),
]);

/** On the stack: true when one of the patterns is at `from`. */
const byteDoubt = DOUBT_PATTERNS.flatMap((pattern, p) => [
  ...pattern.flatMap(([offset, equal, below], k) => [
    ...equal.flatMap((byte, b) => [...localGet(FROM), ...i32Load8UAt(offset), ...i32Const(byte), ...i32Eq, ...(b > 0 ? i32Or : [])]),
    ...(below === undefined ? [] : [...localGet(FROM), ...i32Load8UAt(offset), ...i32Const(below), ...i32LtU, ...i32Or]),
    ...(k > 0 ? i32And : []),
  ]),
  ...(p > 0 ? i32Or : []),
]);

/** The body of `doubt(from, end) -> index`: its patterns read up to 2 bytes after the place. */
const DOUBT_BODY = [
  // (local $mask i32) (local $at0 $at1 $at2 v128)
  ...[2, 1, I32, AT.length, V128],
  ...block, // $tail
  ...loop, // $simd: while the 16 places and the 2 bytes after the last are before `end`
  ...[...localGet(FROM), ...i32Const(18), ...i32Add, ...localGet(END), ...i32GtU, ...brIf(1)],
  // First the bytes a place starts with, `"` `\` `}`: only 16 bytes that hold one are looked at closer.
  ...[...localGet(FROM), ...v128Load, ...localTee(AT[0]!), ...v128Const(0x22), ...i8x16Eq],
  ...[...localGet(AT[0]!), ...v128Const(0x5c), ...i8x16Eq, ...v128Or, ...localGet(AT[0]!), ...v128Const(0x7d), ...i8x16Eq, ...v128Or],
  ...[...i8x16Bitmask, ...if_],
  ...AT.slice(1).flatMap((local, k) => [...localGet(FROM), ...v128LoadAt(k + 1), ...localSet(local)]),
  ...[...vectorDoubt, ...i8x16Bitmask, ...localTee(MASK_D)],
  ...[...if_, ...localGet(FROM), ...localGet(MASK_D), ...i32Ctz, ...i32Add, ...return_, ...end],
  ...end,
  ...[...localGet(FROM), ...i32Const(16), ...i32Add, ...localSet(FROM), ...br(0)],
  ...end, // $simd
  ...end, // $tail
  ...loop, // $bytes: the last places one at a time, reading past `end` what the memory holds (a place found there is the caller's to check)
  ...[...localGet(FROM), ...localGet(END), ...i32GeU, ...if_, ...localGet(END), ...return_, ...end],
  ...[...byteDoubt, ...if_, ...localGet(FROM), ...return_, ...end],
  ...[...localGet(FROM), ...i32Const(1), ...i32Add, ...localSet(FROM), ...br(0)],
  ...end, // $bytes
  ...localGet(END),
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

/** The module: one memory, `string`, `doubt` and `walk`, all exported. */
const MODULE = Uint8Array.from([
  ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
  // (type (func (param i32 i32) (result i32))) (type (func (param i32 i32 i32) (result i32)))
  ...section(1, [2, 0x60, 2, I32, I32, 1, I32, 0x60, 3, I32, I32, I32, 1, I32]),
  // (func $string (type 0)) (func $doubt (type 0)) (func $walk (type 1))
  ...section(3, [3, 0, 0, 1]),
  // (memory 1): grown to one window when made
  ...section(5, [1, 0x00, 1]),
  // (export "memory" (memory 0)) (export "string" (func $string)) (export "doubt" (func $doubt)) (export "walk" (func $walk))
  ...section(7, [4, ...name('memory'), 0x02, 0, ...name('string'), 0x00, 0, ...name('doubt'), 0x00, 1, ...name('walk'), 0x00, 2]),
  ...section(10, [3, ...[STRING_BODY, DOUBT_BODY, WALK_BODY].flatMap((body) => [...uleb(body.length), ...body])]),
]);

const PAGE = 65536;

type Search = (from: number, end: number) => number;
type Walk = (from: number, to: number, state: number) => number;

class WasmScan implements ByteScan {
  private readonly memory: Uint8Array;
  private raw: Buffer = Buffer.alloc(0);
  /** `raw[base, base + size)` is in the memory, from its start. */
  private base = 0;
  private size = 0;

  constructor(
    memory: WebAssembly.Memory,
    private readonly search: Search,
    private readonly doubtSearch: Search,
    private readonly walkState: Walk,
  ) {
    // One page more than a window: `doubt` reads 2 bytes past the end of what it is given.
    memory.grow(Math.ceil(WINDOW / PAGE) + 1 - memory.buffer.byteLength / PAGE);
    this.memory = new Uint8Array(memory.buffer);
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

  doubt(from: number, end: number): number {
    for (;;) {
      if (from >= end) return end;
      // The window holds the place and the 2 bytes after it, or reaches the end of the bytes.
      const windowEnd = this.base + this.size;
      if (from < this.base || (from + 2 >= windowEnd && windowEnd < this.raw.length)) this.show(from);
      const stop = Math.min(end, this.base + this.size);
      const at = this.base + this.doubtSearch(from - this.base, stop - this.base);
      if (at < stop) return at;
      if (stop === end) return end;
      // The last 2 places of the window need bytes of the next: looked at again from there.
      from = stop - 2;
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
    const exports = new WebAssembly.Instance(new WebAssembly.Module(MODULE)).exports as { memory: WebAssembly.Memory; string: Search; doubt: Search; walk: Walk };
    return new WasmScan(exports.memory, exports.string, exports.doubt, exports.walk);
  } catch {
    return undefined;
  }
}
