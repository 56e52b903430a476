/**
 * The byte scan's WebAssembly module (see byte-scan.ts), written below
 * instruction by instruction, each under its name in WebAssembly's text
 * format. {@link moduleBytes} assembles it. The build writes those bytes into
 * byte-scan-module.js (see byte-scan-emit.ts), so that a command loads them
 * rather than assembling them at every start; run from the sources (tests),
 * they are assembled here.
 */
import {
  DELTA_AREA,
  DELTA_HEAD,
  DELTA_MIDDLE,
  DELTA_TEXTS,
  DELTA_WORDS,
  MAX_DELTAS,
  TEXT_ASCII,
  TEXT_ESCAPED,
  LARGE_INVALID,
  LARGE_SPANS,
  LARGE_STACK,
  LARGE_UNSURE,
  MAX_DEPTH,
  MAX_PLACES,
  MAX_SPANS,
  MORE,
  PREFIX_LENGTH,
  PREFIX_PLAIN,
  RUN_AREA,
  RUN_PREFIXES,
  RUN_START_WINDOW,
  RUN_TAIL,
  RUN_WORDS,
  STATE_BLOCK,
  STATE_WORDS,
} from './byte-scan-layout.js';

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

/**
 * Instructions as they are written below: bytes, in arrays nested as the
 * code is, flattened once (spreading each array into the next, as the module
 * is made at every start, cost 10 ms and more and MiB of garbage).
 */
type Code = number | Code[];

/** The bytes of `code`, appended to `out`. */
function bytesOf(code: Code, out: number[] = []): number[] {
  if (typeof code === 'number') out.push(code);
  else for (const c of code) bytesOf(c, out);
  return out;
}

function section(id: number, contents: Code): number[] {
  const bytes = bytesOf(contents);
  return [id, ...uleb(bytes.length), ...bytes];
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
const br = (depth: number): Code => [0x0c, depth];
const brIf = (depth: number): Code => [0x0d, depth];
const return_ = [0x0f];
const localGet = (i: number): Code => [0x20, i];
const localSet = (i: number): Code => [0x21, i];
const localTee = (i: number): Code => [0x22, i];
const i32Const = (n: number): Code => [0x41, sleb(n)];
const i32Load8UAt = (offset: number): Code => [0x2d, 0x00, uleb(offset)];
const i32Load8U = i32Load8UAt(0);
const i32LoadAt = (offset: number): Code => [0x28, 0x00, uleb(offset)];
const i32Eq = [0x46];
const i32Ne = [0x47];
const i32Eqz = [0x45];
const i32Store = [0x36, 0x02, 0x00];
const i32Sub = [0x6b];
const i32And = [0x71];
const i32LtU = [0x49];
const i32LtS = [0x48];
const i32GtU = [0x4b];
const i32GeU = [0x4f];
const i32LeU = [0x4d];
const i32LeS = [0x4c];
const i32BelowZero = [0x41, 0, 0x48]; // i32.const 0, i32.lt_s
const i32Ctz = [0x68];
const i32Add = [0x6a];
const i32Or = [0x72];
const i32Shl = [0x74];
const i32ShrU = [0x76];
const call = (f: number): Code => [0x10, f];
const v128LoadAt = (offset: number): Code => [0xfd, 0x00, 0x00, uleb(offset)];
const v128Load = v128LoadAt(0);
const i8x16Splat = [0xfd, 0x0f];
const i8x16Eq = [0xfd, 0x23];
const i8x16LtU = [0xfd, 0x26];
const v128Const = (byte: number): Code => [0xfd, 0x0c, new Array<number>(16).fill(byte)]; // 16 copies of one byte
const v128And = [0xfd, 0x4e];
const v128AndNot = [0xfd, 0x4f];
const i8x16Ne = [0xfd, 0x24];
const v128Or = [0xfd, 0x50];
const i8x16Bitmask = [0xfd, 0x64];
const v128AnyTrue = [0xfd, 0x53];
const i8x16AllTrue = [0xfd, 0x63];
const select = [0x1b];
const i32StoreAt = (offset: number): Code => [0x36, 0x02, uleb(offset)];
const i32Mul = [0x6c];
const I64 = 0x7e;
const i64And = [0x83];
const i64Or = [0x84];
const i64Xor = [0x85];
const i64Add = [0x7c];
const i64Shl = [0x86];
const i64ShrU = [0x88];
const i64LtU = [0x54];
const i64Ctz = [0x7a];
const i64Eqz = [0x50];
const i64ExtendI32U = [0xad];
const i32WrapI64 = [0xa7];
const i8x16Swizzle = [0xfd, 0x0e];
const i8x16ShrU = [0xfd, 0x6d];
/** `i64.const n`, `n` as a BigInt (sleb above works on 32 bits). */
const i64Const = (n: bigint): Code => {
  const out: number[] = [0x42];
  n = BigInt.asIntN(64, n);
  for (;;) {
    const byte = Number(n & 0x7fn);
    n >>= 7n;
    if ((n === 0n && (byte & 0x40) === 0) || (n === -1n && (byte & 0x40) !== 0)) {
      out.push(byte);
      return out;
    }
    out.push(byte | 0x80);
  }
};
/** `v128.const` of the 16 bytes given. */
const v128Bytes = (bytes: readonly number[]): Code => [0xfd, 0x0c, [...bytes]];

// Locals of `string`: its parameters, then a vector of 16 bytes, a mask, the byte being looked at, the vectors
// left to look at one by one before the blocks of 64 (see STRING_BODY), the four vectors of a block, and its masks.
const FROM = 0;
const END = 1;
const VEC = 2;
const MASK = 3;
const C = 4;
const K = 5;
const V0 = 6;
const QC = 10;
const BS = 11;
const PREV = 12;
const ESC = 13;
const STOP = 14;
const ODD = 15;
const SEQ = 16;

/**
 * True on the stack when the byte at `at + offset` (`at` a local) is a hex
 * digit, `(c - '0') <u 10 | ((c | 0x20) - 'a') <u 6`; the byte is left in
 * the local `c`.
 */
const hexDigitAt = (at: number, c: number, offset: number): Code => [
  [localGet(at), i32Load8UAt(offset), localTee(c), i32Const(0x30), i32Sub, i32Const(10), i32LtU],
  [localGet(c), i32Const(0x20), i32Or, i32Const(0x61), i32Sub, i32Const(6), i32LtU, i32Or],
];

/** True on the stack when the local `c` is one of the bytes of a one-letter escape: `"` `\` `/` `b` `f` `n` `r` `t`. */
const isSimpleEscape = (c: number): Code => [0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74].map((b, k) => [localGet(c), i32Const(b), i32Eq, k > 0 ? i32Or : []]);
const isHexAt = (offset: number): Code => hexDigitAt(FROM, C, offset);

/**
 * The bytes of a one-letter escape (as isSimpleEscape), looked up by their
 * two halves: a byte is one when the entries of its low and high four bits
 * share a bit (`"` 0x22 and `/` 0x2f bit 0, `\` 0x5c bit 1, `b` `f` `n`
 * 0x62 0x66 0x6e bit 2, `r` `t` 0x72 0x74 bit 3; no byte of 0x80 and above).
 */
const ESCAPE_LOW = [0, 0, 0x0d, 0, 0x08, 0, 0x04, 0, 0, 0, 0, 0, 0x02, 0, 0x04, 0x01];
const ESCAPE_HIGH = [0, 0, 0x01, 0, 0, 0x02, 0x04, 0x08, 0, 0, 0, 0, 0, 0, 0, 0];

/** The 64 bits of a block: bit `i` set when lane `test` (of the vector in a local) is true for the byte `FROM + i`. */
const blockMask = (test: (vector: number) => Code): Code =>
  [0, 1, 2, 3].map((k) => [test(V0 + k), i8x16Bitmask, i64ExtendI32U, k > 0 ? [i64Const(BigInt(16 * k)), i64Shl, i64Or] : []]);
const quoteOrControl = (v: number): Code => [localGet(v), v128Const(0x22), i8x16Eq, localGet(v), v128Const(0x20), i8x16LtU, v128Or];
const backslash = (v: number): Code => [localGet(v), v128Const(0x5c), i8x16Eq];
const simpleEscape = (v: number): Code => [
  [v128Bytes(ESCAPE_LOW), localGet(v), v128Const(0x0f), v128And, i8x16Swizzle],
  [v128Bytes(ESCAPE_HIGH), localGet(v), i32Const(4), i8x16ShrU, i8x16Swizzle],
  [v128And, v128Const(0), i8x16Ne],
];
// Bits 0, 2, 4, … of a block, and 1, 3, 5, ….
const EVEN_BITS = 0x5555555555555555n;
const ODD_BITS = 0xaaaaaaaaaaaaaaaan;
const NOT = [i64Const(-1n), i64Xor];
/** How many vectors of 16 bytes `string` looks at one by one before it goes on in blocks of 64. */
const ONE_BY_ONE = 4;

/**
 * One vector of 16 bytes of `string`'s scan, at `from`: out to the block
 * `tail` levels up when fewer than 16 bytes are left; to `found` levels up
 * (from inside its `if`), `from` at the byte, when one of them is a quote, a
 * backslash or a control byte; else `from` past them.
 */
const oneVector = (tail: number, found: number): Code => [
  [localGet(FROM), i32Const(16), i32Add, localGet(END), i32GtU, brIf(tail)],
  [localGet(FROM), v128Load, localSet(VEC)],
  [localGet(VEC), i32Const(0x22), i8x16Splat, i8x16Eq],
  [localGet(VEC), i32Const(0x5c), i8x16Splat, i8x16Eq, v128Or],
  [localGet(VEC), i32Const(0x20), i8x16Splat, i8x16LtU, v128Or],
  [i8x16Bitmask, localTee(MASK)],
  [if_, localGet(FROM), localGet(MASK), i32Ctz, i32Add, localSet(FROM), br(found), end],
  [localGet(FROM), i32Const(16), i32Add, localSet(FROM)],
];

/**
 * The body of `string(from, end) -> index`.
 *
 * Short strings (a key, a delta's few words) end within the first vectors,
 * looked at one by one. Past {@link ONE_BY_ONE} of them, the string is a long
 * one (a file's content, a command's output), which holds an escape every
 * line or so: it is read in blocks of 64 bytes, each block's escapes found
 * without a branch, as simdjson finds them: of each run of backslashes, the
 * bytes escaped are every other one from its second, and the byte after the
 * run when the run is odd, a carry telling the next block whether its first
 * byte is escaped. A block stops the scan at its first byte that is a quote
 * or a control byte not escaped, or an escaped byte that is no one-letter
 * escape (`\u`, a broken escape), whose backslash is then judged as before.
 * Blocks stop 6 bytes before `end`, so that every escape they step over ends
 * before it, as the one-by-one scan asks.
 */
const STRING_BODY = [
  // (local $vec v128) (local $mask $c $k i32) (local $v0 $v1 $v2 $v3 v128) (local $qc $bs $prev $esc $stop $odd $seq i64)
  [4, 1, V128, 3, I32, 4, V128, 7, I64],
  [i32Const(ONE_BY_ONE), localSet(K)],
  loop, // $scan: from one escape stepped over to the next byte of interest
  block, // $found
  block, // $tail
  block, // $probed
  [localGet(K), i32Eqz, brIf(0)],
  loop, // $probe: the first vectors, one by one
  oneVector(2, 4),
  [localGet(K), i32Const(1), i32Sub, localTee(K), brIf(0)],
  end, // $probe
  end, // $probed
  block, // $short
  loop, // $blocks
  [localGet(FROM), i32Const(70), i32Add, localGet(END), i32GtU, brIf(1)],
  [0, 1, 2, 3].map((k) => [localGet(FROM), v128LoadAt(16 * k), localSet(V0 + k)]),
  [blockMask(quoteOrControl), localSet(QC)],
  // A backslash escaped by the block before escapes nothing.
  [blockMask(backslash), localGet(PREV), NOT, i64And, localSet(BS)],
  // $esc: first the bytes that follow a backslash.
  [localGet(BS), i64Const(1n), i64Shl, localGet(PREV), i64Or, localSet(ESC)],
  // The runs of backslashes that start on an odd bit; added to every backslash, the carry of each run lands after it.
  [localGet(BS), i64Const(ODD_BITS), i64And, localGet(ESC), NOT, i64And, localSet(ODD)],
  [localGet(ODD), localGet(BS), i64Add, localSet(SEQ)],
  [i64Const(EVEN_BITS), localGet(SEQ), i64Const(1n), i64Shl, i64Xor, localGet(ESC), i64And, localSet(ESC)],
  [localGet(QC), localGet(ESC), NOT, i64And],
  [blockMask(simpleEscape), NOT, localGet(ESC), i64And, i64Or, localTee(STOP)],
  [i64Eqz, i32Eqz, if_],
  // At an escaped byte, its backslash.
  [localGet(FROM), localGet(STOP), i64Ctz, i32WrapI64, i32Add],
  [localGet(ESC), localGet(STOP), i64Ctz, i64ShrU, i32WrapI64, i32Const(1), i32And, i32Sub, localSet(FROM)],
  [i64Const(0n), localSet(PREV), br(4)],
  end,
  [localGet(SEQ), localGet(ODD), i64LtU, i64ExtendI32U, localSet(PREV)],
  [localGet(FROM), i32Const(64), i32Add, localSet(FROM), br(0)],
  end, // $blocks
  end, // $short
  // A block that ended in a backslash escaping the next byte: back to it.
  [localGet(FROM), localGet(PREV), i32WrapI64, i32Sub, localSet(FROM), i64Const(0n), localSet(PREV)],
  loop, // $simd
  oneVector(1, 3),
  br(0),
  end, // $simd
  end, // $tail
  loop, // $bytes: the last few bytes one at a time
  [localGet(FROM), localGet(END), i32GeU, if_, localGet(END), return_, end],
  [localGet(FROM), i32Load8U, localTee(C), i32Const(0x22), i32Eq],
  [localGet(C), i32Const(0x5c), i32Eq, i32Or],
  [localGet(C), i32Const(0x20), i32LtU, i32Or, brIf(1)],
  [localGet(FROM), i32Const(1), i32Add, localSet(FROM), br(0)],
  end, // $bytes
  end, // $found: the byte at from is a quote, a backslash or a control byte
  // Not a backslash, or one whose escape may not end before `end`: the caller's.
  [localGet(FROM), i32Load8U, i32Const(0x5c), i32Ne, if_, localGet(FROM), return_, end],
  [localGet(FROM), i32Const(6), i32Add, localGet(END), i32GtU, if_, localGet(FROM), return_, end],
  [localGet(FROM), i32Load8UAt(1), localSet(C)],
  // A one-letter escape: stepped over.
  [isSimpleEscape(C), if_, localGet(FROM), i32Const(2), i32Add, localSet(FROM), br(1), end],
  // Anything but \u and four hex digits, or \u0000: the caller's.
  [localGet(C), i32Const(0x75), i32Ne, if_, localGet(FROM), return_, end],
  [isHexAt(2), isHexAt(3), i32And, isHexAt(4), i32And, isHexAt(5), i32And],
  [i32Const(0), i32Eq, if_, localGet(FROM), return_, end],
  [localGet(FROM), i32LoadAt(2), i32Const(0x30303030), i32Eq, if_, localGet(FROM), return_, end],
  [localGet(FROM), i32Const(6), i32Add, localSet(FROM), br(0)],
  end, // $scan
  localGet(END),
  end,
];

// Parameters and locals of `places`: the range, where to write the places found, how many are; a mask; the
// vectors of the 16 bytes at the place and around it, by their offset from it.
const OUT = 2;
const COUNT = 3;
const MASK_P = 4;
const AT: Record<number, number> = { [-1]: 5, 0: 6, 1: 7, 2: 8 };

/**
 * A test of the byte at an offset from a place: one of `is`, or below
 * `below` but not `except`; or none of `not`. `exact`: made only by the
 * full test of a place (see mayBePlaces).
 */
interface ByteTest {
  at: number;
  is?: number[];
  below?: number;
  except?: number;
  not?: number[];
  exact?: true;
}
const PLACE_PATTERNS: ByteTest[][] = [
  // `"` and `y` after the next byte, `"type"` perhaps, but not after `{` `[` `:`.
  [{ at: 0, is: [0x22] }, { at: 2, is: [0x79] }, { at: -1, not: [0x7b, 0x5b, 0x3a] }],
  // `\u0`: an escape that may spell a letter of `type`.
  [{ at: 0, is: [0x5c] }, { at: 1, is: [0x75] }, { at: 2, is: [0x30], exact: true }],
  // `}` then `{`, a byte-order mark's first byte, or a byte below `!` but a newline: perhaps values glued together.
  [{ at: 0, is: [0x7d] }, { at: 1, is: [0x7b, 0xef], below: 0x21, except: 0x0a }],
];

/**
 * `{"t` after a byte that cannot come before an object (`42{"type"…`,
 * `"x"{"type"…`, `null{"type"…`), or after white space (`42 {"type"…`, and
 * `: {"type"…` of a stream written with spaces, which its judge clears):
 * perhaps values glued together, the second an event (whose first key is its
 * type). Glued before an object whose first key is another, a later `"type"`
 * key is a place. Searched for by `places` alone: `lineEnd` judges each
 * `{"t` it finds for a run's first event (see judgeRunStart).
 */
const GLUED_EVENT: ByteTest[] = [{ at: 0, is: [0x7b] }, { at: 1, is: [0x22] }, { at: 2, is: [0x74] }, { at: -1, not: [0x3a, 0x5b, 0x2c, 0x0a] }];
const LINE_PLACE_PATTERNS: ByteTest[][] = [...PLACE_PATTERNS, GLUED_EVENT];

/** The instructions the patterns are tested with: on 16 bytes at a time (vectors of lanes), or on one. */
interface Lanes {
  /** On the stack: the byte(s) at `at` from `from`. */
  byteAt(at: number): Code;
  /** On the stack: `byte` (in every lane). */
  constant(byte: number): Code;
  eq: Code;
  ltU: Code;
  ne: Code;
  and: Code;
  or: Code;
  /** The one below on the stack, and not the one on top. */
  andNot: Code;
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
  byteAt: (at) => [localGet(FROM), i32Const(at), i32Add, i32Load8U],
  constant: i32Const,
  eq: i32Eq,
  ltU: i32LtU,
  ne: i32Ne,
  and: i32And,
  or: i32Or,
  andNot: [i32Eqz, i32And],
};

/** On the stack: true (in each lane) where one of the patterns is at the place. */
function matchPlaces(l: Lanes, patterns = PLACE_PATTERNS): Code {
  const anyOf = (at: number, bytes: number[]): Code => bytes.flatMap((byte, b) => [l.byteAt(at), l.constant(byte), l.eq, (b > 0 ? l.or : [])]);
  return patterns.flatMap((pattern, p) => [
    pattern
      .filter((test) => test.is !== undefined)
      .flatMap((test, k) => [
        anyOf(test.at, test.is!),
        (test.below === undefined ? [] : [l.byteAt(test.at), l.constant(test.below), l.ltU, l.byteAt(test.at), l.constant(test.except!), l.ne, l.and, l.or]),
        (k > 0 ? l.and : []),
      ]),
    pattern.filter((test) => test.not !== undefined).flatMap((test) => [anyOf(test.at, test.not!), l.andNot]),
    (p > 0 ? l.or : []),
  ]);
}

/**
 * On the stack: true where a place may be, from the bytes at the place and
 * after it alone: a byte of 16 most often fails it, and the whole test is
 * left out. It is the full test less what costs more than it sorts out: the
 * byte before the place, the exception to a byte below a bound (a newline
 * after `}` passes it), and the tests marked `exact` (the `0` of `\u0`: the
 * `\u` escapes of a stream are mostly of control characters, `\u001b`).
 * Each operation counts, as the search makes them on every 16 bytes read
 * (README, *What each change bought*).
 */
function mayBePlaces(l: Lanes, patterns = PLACE_PATTERNS): Code {
  return patterns.flatMap((pattern, p) => [
    pattern
      .filter((test) => test.at >= 0 && test.is !== undefined && test.exact !== true)
      .flatMap((test, k) => [
        test.is!.flatMap((byte, b) => [l.byteAt(test.at), l.constant(byte), l.eq, (b > 0 ? l.or : [])]),
        (test.below === undefined ? [] : [l.byteAt(test.at), l.constant(test.below), l.ltU, l.or]),
        (k > 0 ? l.and : []),
      ]),
    (p > 0 ? l.or : []),
  ]);
}

/** Writes the place `from + ctz(mask)` and counts it; returns the count when the page of places is full. */
const writePlace = [
  [localGet(OUT), localGet(COUNT), i32Const(2), i32Shl, i32Add],
  [localGet(FROM), localGet(MASK_P), i32Ctz, i32Add, i32Store],
  [localGet(COUNT), i32Const(1), i32Add, localTee(COUNT), i32Const(MAX_PLACES), i32Eq, if_, localGet(COUNT), return_, end],
];

/** The body of `places(from, end, out) -> count`: the places found are written at `out`, as i32, up to a page of them. */
const PLACES_BODY = [
  // (local $count $mask i32) (local $before $at0 $at1 $at2 v128)
  [2, 2, I32, 4, V128],
  block, // $tail
  loop, // $simd: while the 16 places and the 2 bytes after the last are before `end`
  [localGet(FROM), i32Const(18), i32Add, localGet(END), i32GtU, brIf(1)],
  [0, 1, 2].flatMap((at) => [localGet(FROM), v128LoadAt(at), localSet(AT[at]!)]),
  [mayBePlaces(VECTOR, LINE_PLACE_PATTERNS), v128AnyTrue, if_],
  [localGet(FROM), i32Const(1), i32Sub, v128Load, localSet(AT[-1]!)],
  [matchPlaces(VECTOR, LINE_PLACE_PATTERNS), i8x16Bitmask, localSet(MASK_P)],
  loop, // $each: every place of the 16
  block,
  [localGet(MASK_P), i32Eqz, brIf(0)],
  writePlace,
  [localGet(MASK_P), localGet(MASK_P), i32Const(1), i32Sub, i32And, localSet(MASK_P), br(1)],
  end,
  end, // $each
  end, // if
  [localGet(FROM), i32Const(16), i32Add, localSet(FROM), br(0)],
  end, // $simd
  end, // $tail
  loop, // $bytes: the last places one at a time
  [localGet(FROM), localGet(END), i32GeU, if_, localGet(COUNT), return_, end],
  [matchPlaces(SCALAR, LINE_PLACE_PATTERNS), if_, i32Const(1), localSet(MASK_P), writePlace, end],
  [localGet(FROM), i32Const(1), i32Add, localSet(FROM), br(0)],
  end, // $bytes
  localGet(COUNT),
  end,
];

// Parameters and locals of `walk`, after `from` and `to`: the state given, then the state's parts and the byte being looked at.
const STATE = 2;
const DEPTH = 3;
const IN_STRING = 4;
const B = 5;
const STRING_FUNC = 0;

/** On the stack: true when the byte `b` is one of `bytes`. */
const isByte = (...bytes: number[]): Code => bytes.flatMap((byte, k) => [localGet(B), i32Const(byte), i32Eq, (k > 0 ? i32Or : [])]);

/** The body of `walk(from, to, state) -> state`, as {@link walkBytes}; through a string, `string` steps over what cannot end it. */
const WALK_BODY = [
  // (local $depth $inString $b i32)
  [1, 3, I32],
  [localGet(STATE), i32Const(2), i32ShrU, localSet(DEPTH)],
  [localGet(STATE), i32Const(1), i32ShrU, i32Const(1), i32And, localSet(IN_STRING)],
  [localGet(STATE), i32Const(1), i32And, if_, localGet(FROM), i32Const(1), i32Add, localSet(FROM), end],
  block, // $done
  loop, // $walk
  [localGet(FROM), localGet(END), i32GeU, brIf(1)],
  [localGet(IN_STRING), if_],
  [localGet(FROM), localGet(END), call(STRING_FUNC), localTee(FROM), localGet(END), i32GeU, brIf(2)],
  [localGet(FROM), i32Load8U, localSet(B)],
  [isByte(0x5c), if_, localGet(FROM), i32Const(2), i32Add, localSet(FROM), br(2), end],
  [isByte(0x22), if_, i32Const(0), localSet(IN_STRING), end],
  [localGet(FROM), i32Const(1), i32Add, localSet(FROM), br(1)],
  end,
  [localGet(FROM), i32Load8U, localSet(B)],
  [isByte(0x22), if_, i32Const(1), localSet(IN_STRING), end],
  [isByte(0x7b, 0x5b), if_, localGet(DEPTH), i32Const(1), i32Add, localSet(DEPTH), end],
  [isByte(0x7d, 0x5d), localGet(DEPTH), i32Const(0), i32GtU, i32And, if_, localGet(DEPTH), i32Const(1), i32Sub, localSet(DEPTH), end],
  [localGet(FROM), i32Const(1), i32Add, localSet(FROM), br(0)],
  end, // $walk
  end, // $done
  [localGet(DEPTH), i32Const(2), i32Shl, localGet(IN_STRING), i32Const(1), i32Shl, i32Or],
  [localGet(FROM), localGet(END), i32GtU, i32Or],
  end,
];

// Parameters and locals of `quote(from, limit, end) -> index` and `number(at, limit, end) -> index`: where the
// scan starts, the end of the window, the end of the bytes; the position, the byte being looked at, the result.
const Q_AT = 0;
const Q_LIMIT = 1;
const Q_END = 2;
const Q_T = 3;
const Q_C = 4;
const Q_R = 5;

const hexAt = (offset: number): Code => hexDigitAt(Q_T, Q_C, offset);

/** On the stack: true when `t` is in the window and the byte there is `byte`. */
const byteIs = (byte: number): Code => [localGet(Q_T), localGet(Q_LIMIT), i32LtU, localGet(Q_T), i32Load8U, i32Const(byte), i32Eq, i32And];
/** On the stack: true when `t` is in the window and the byte there is a digit. */
const digitAtT = [localGet(Q_T), localGet(Q_LIMIT), i32LtU, localGet(Q_T), i32Load8U, i32Const(0x30), i32Sub, i32Const(10), i32LtU, i32And];
const stepT = (n: number): Code => [localGet(Q_T), i32Const(n), i32Add, localSet(Q_T)];
/** Steps `t` over the digits from it. */
const digits = [loop, digitAtT, if_, stepT(1), br(1), end, end];


/**
 * The body of `quote(from, limit, end) -> index`: the quote that closes the
 * string whose bytes go on at `from`, every escape checked as JSON.parse
 * checks it; -1 when the string is not valid JSON or not closed, or holds
 * `\u0000` (the skim's stand-ins are made of it: such a line is not
 * skimmed); `MORE - t` when the window ends first.
 */
const QUOTE_BODY = [
  // (local $t $c $r i32)
  [1, 3, I32],
  [localGet(Q_AT), localSet(Q_T)],
  loop, // $scan
  [localGet(Q_T), localGet(Q_LIMIT), call(STRING_FUNC), localTee(Q_T), localGet(Q_LIMIT), i32GeU, if_],
  [localGet(Q_LIMIT), localGet(Q_END), i32LtU, if_, i32Const(MORE), localGet(Q_T), i32Sub, return_, end],
  [i32Const(-1), return_],
  end,
  [localGet(Q_T), i32Load8U, localTee(Q_C), i32Const(0x22), i32Eq, if_, localGet(Q_T), return_, end],
  // A control byte; else a backslash the scan left: one near the end, a \u0000, or no escape at all.
  [localGet(Q_C), i32Const(0x5c), i32Ne, if_, i32Const(-1), return_, end],
  [localGet(Q_T), i32Const(6), i32Add, localGet(Q_LIMIT), i32GtU, localGet(Q_LIMIT), localGet(Q_END), i32LtU, i32And],
  [if_, i32Const(MORE), localGet(Q_T), i32Sub, return_, end],
  [localGet(Q_T), i32Const(1), i32Add, localGet(Q_END), i32GeU, if_, i32Const(-1), return_, end],
  [localGet(Q_T), i32Load8UAt(1), localSet(Q_C)],
  [localGet(Q_C), i32Const(0x75), i32Eq, if_],
  [localGet(Q_T), i32Const(6), i32Add, localGet(Q_END), i32GtU, if_, i32Const(-1), return_, end],
  [hexAt(2), hexAt(3), i32And, hexAt(4), i32And, hexAt(5), i32And, i32Eqz, if_, i32Const(-1), return_, end],
  [localGet(Q_T), i32LoadAt(2), i32Const(0x30303030), i32Eq, if_, i32Const(-1), return_, end],
  [stepT(6), br(1)],
  end,
  isSimpleEscape(Q_C),
  [if_, stepT(2), br(1), end],
  [i32Const(-1), return_],
  end, // $scan
  i32Const(-1),
  end,
];

/**
 * The body of `number(at, limit, end) -> index`: where the JSON number that
 * starts at `at` ends; -1 when none starts there; `MORE` when the window
 * ends before the bytes say (the number is read again from `at`).
 */
const NUMBER_BODY = [
  // (local $t $c $r i32)
  [1, 3, I32],
  [localGet(Q_AT), localSet(Q_T), i32Const(-1), localSet(Q_R)],
  block, // $out: `r` is -1 unless set
  [byteIs(0x2d), if_, stepT(1), end],
  [byteIs(0x30), if_, stepT(1), 0x05 /* else */, digitAtT, i32Eqz, brIf(1), digits, end],
  [byteIs(0x2e), if_, stepT(1), digitAtT, i32Eqz, brIf(1), digits, end],
  [byteIs(0x65), byteIs(0x45), i32Or, if_],
  [stepT(1), byteIs(0x2b), byteIs(0x2d), i32Or, if_, stepT(1), end],
  [digitAtT, i32Eqz, brIf(1), digits],
  end,
  [localGet(Q_T), localSet(Q_R)],
  end, // $out
  // Judged at the end of the window, with more bytes after it: the number may go on, or be valid after all.
  [localGet(Q_T), localGet(Q_LIMIT), i32GeU, localGet(Q_LIMIT), localGet(Q_END), i32LtU, i32And, if_, i32Const(MORE), return_, end],
  localGet(Q_R),
  end,
];

// Parameters and locals of `large(base, limit, end) -> count`: see ByteScan.large and largeValues (skim.ts), whose
// scan it is, state for state. Positions are absolute (offsets in the bytes) in the state block, the stack and the
// spans; in the function, relative to the window (`base` is the offset of its first byte).
const L_BASE = 0;
const L_LIMIT = 1;
const L_END = 2;
const L_I = 3;
const L_STATE = 4;
const L_DEPTH = 5;
const L_LARGE = 6;
const L_SPANS = 7;
const L_B = 8;
const L_T = 9;
const L_ENTRY = 10;
const L_SIZE = 11;
const L_THRESHOLD = 12;
const L_STRING = 13;
// What the scan expects next (as in skim.ts), and the two states of a string the window ended in.
const S_VALUE = 0;
const S_FIRST_VALUE = 1;
const S_KEY = 2;
const S_FIRST_KEY = 3;
const S_COLON = 4;
const S_AFTER = 5;
const S_DONE = 6;
const S_KEY_STRING = 7;
const S_VALUE_STRING = 8;
const QUOTE_FUNC = 4;
const NUMBER_FUNC = 5;

/** The window moves to the next token when fewer bytes than this are left in it (and the line goes on): room for a number or a literal. */
const ROOM = 64;

const get = localGet;
const set = localSet;
/** On the stack: true when `b` is `byte`. */
const bIs = (byte: number): Code => [get(L_B), i32Const(byte), i32Eq];
const goTo = (state: number): Code => [i32Const(state), set(L_STATE)];
const stepI = (n: number): Code => [get(L_I), i32Const(n), i32Add, set(L_I)];
/** On the stack: the absolute position of the relative one `local`, plus `plus`. */
const absolute = (local: number, plus = 0): Code => [get(local), get(L_BASE), i32Add, (plus ? [i32Const(plus), i32Add] : [])];
/** On the stack: the offset in the stack page of the entry of the container at `depth - back`. */
const entryOf = (back: number): Code => [get(L_DEPTH), (back > 0 ? [i32Const(back), i32Sub] : []), i32Const(16), i32Mul];
/** The locals kept in the state block between windows, by their offset in it. */
const KEPT: Array<[number, number]> = (
  [
    ['i', L_I],
    ['state', L_STATE],
    ['depth', L_DEPTH],
    ['large', L_LARGE],
    ['spans', L_SPANS],
    ['threshold', L_THRESHOLD],
    ['string', L_STRING],
  ] as const
).map(([word, local]) => [4 * STATE_WORDS[word], local]);

function largeBody(stackPage: number, spansPage: number): Code {
  const close = (d: number) => br(d);
  const next = (d: number) => br(d + 1);
  const fail = (d: number) => br(d + 3);
  const state = stackPage + STATE_BLOCK;
  /** Saves the state, `i` made absolute, and asks for the window to move to it. */
  const more = [
    KEPT.map(([offset, local]) => [i32Const(0), local === L_I ? absolute(L_I) : get(local), i32StoreAt(state + offset)]),
    [i32Const(MORE), return_],
  ];
  /** Writes the span `[start, end)` (absolute, each pushed by the code given) and counts it; LARGE_UNSURE when the page is full. */
  const writeSpan = (start: Code, endAt: Code): Code => [
    [get(L_SPANS), i32Const(MAX_SPANS), i32GeU, if_, i32Const(LARGE_UNSURE), return_, end],
    [get(L_SPANS), i32Const(8), i32Mul, start, i32StoreAt(spansPage)],
    [get(L_SPANS), i32Const(8), i32Mul, endAt, i32StoreAt(spansPage + 4)],
    [get(L_SPANS), i32Const(1), i32Add, set(L_SPANS)],
  ];
  /**
   * The string whose bytes go on at `from` (a key's when `key`), at `d` ifs
   * inside `$close`: closed, it is counted and the scan goes on after it; cut
   * by the window, the scan stops, to go on inside it.
   */
  const string = (from: Code, key: boolean, d: number): Code => [
    [from, get(L_LIMIT), get(L_END), call(QUOTE_FUNC), localTee(L_T), i32Const(-1), i32Eq, if_, fail(d + 1), end],
    [get(L_T), i32Const(MORE + 1), i32LtS, if_, i32Const(MORE), get(L_T), i32Sub, set(L_I), goTo(key ? S_KEY_STRING : S_VALUE_STRING), more, end],
    (key
      ? []
      : [
          [absolute(L_T, 1), get(L_STRING), i32Sub, localTee(L_SIZE), get(L_THRESHOLD), i32GeU, if_],
          writeSpan(get(L_STRING), absolute(L_T, 1)),
          [get(L_LARGE), get(L_SIZE), i32Add, set(L_LARGE)],
          end,
        ]),
    [get(L_T), i32Const(1), i32Add, set(L_I), goTo(key ? S_COLON : S_AFTER), next(d)],
  ];
  const value = [
    // A string.
    [bIs(0x22), if_],
    [get(L_DEPTH), i32Eqz, if_, fail(3), end],
    [absolute(L_I), set(L_STRING)],
    string([get(L_I), i32Const(1), i32Add], false, 2),
    end,
    // An object or an array: the line's own object only at its first byte.
    [bIs(0x7b), bIs(0x5b), i32Or, if_],
    [get(L_DEPTH), i32Eqz, bIs(0x7b), i32Eqz, absolute(L_I), i32Const(0), i32Ne, i32Or, i32And, if_, fail(3), end],
    [get(L_DEPTH), i32Const(MAX_DEPTH), i32GeU, if_, i32Const(LARGE_UNSURE), return_, end],
    [entryOf(0), set(L_ENTRY)],
    [get(L_ENTRY), absolute(L_I), i32StoreAt(stackPage)],
    [get(L_ENTRY), bIs(0x5b), i32StoreAt(stackPage + 4)],
    [get(L_ENTRY), get(L_SPANS), i32StoreAt(stackPage + 8)],
    [get(L_ENTRY), get(L_LARGE), i32StoreAt(stackPage + 12)],
    [get(L_DEPTH), i32Const(1), i32Add, set(L_DEPTH), i32Const(0), set(L_LARGE), stepI(1)],
    [i32Const(S_FIRST_KEY), i32Const(S_FIRST_VALUE), bIs(0x7b), select, set(L_STATE), next(2)],
    end,
    // `]` closes an empty array.
    [bIs(0x5d), get(L_STATE), i32Const(S_FIRST_VALUE), i32Eq, i32And, if_, close(2), end],
    // No number or literal at the top level.
    [get(L_DEPTH), i32Eqz, if_, fail(2), end],
    [bIs(0x2d), get(L_B), i32Const(0x30), i32Sub, i32Const(10), i32LtU, i32Or, if_],
    [get(L_I), get(L_LIMIT), get(L_END), call(NUMBER_FUNC), localTee(L_T), i32Const(-1), i32Eq, if_, fail(3), end],
    [get(L_T), i32Const(MORE), i32Eq, if_, more, end],
    [get(L_T), set(L_I), goTo(S_AFTER), next(2)],
    end,
    // true, null, false (the window holds ROOM bytes from i, or all that is left).
    [
      [0x74, 4, 0, 0x65757274],
      [0x6e, 4, 0, 0x6c6c756e],
      [0x66, 5, 1, 0x65736c61],
    ].flatMap(([first, length, offset, word]) => [
      [bIs(first!), get(L_I), i32Const(length!), i32Add, get(L_END), i32GtU, i32Eqz, i32And],
      [get(L_I), i32LoadAt(offset!), i32Const(word! | 0), i32Eq, i32And],
      [if_, stepI(length!), goTo(S_AFTER), next(2), end],
    ]),
    fail(1),
  ];
  const key = [
    [bIs(0x22), if_, string([get(L_I), i32Const(1), i32Add], true, 2), end],
    [bIs(0x7d), get(L_STATE), i32Const(S_FIRST_KEY), i32Eq, i32And, if_, close(2), end],
    fail(1),
  ];
  const colon = [bIs(0x3a), if_, stepI(1), goTo(S_VALUE), next(2), end, fail(1)];
  // `t`: the container is an array.
  const after = [
    [entryOf(1), i32LoadAt(stackPage + 4), set(L_T)],
    [bIs(0x2c), if_, stepI(1), i32Const(S_VALUE), i32Const(S_KEY), get(L_T), select, set(L_STATE), next(2), end],
    [get(L_B), i32Const(0x5d), i32Const(0x7d), get(L_T), select, i32Eq, if_, close(2), end],
    fail(1),
  ];
  return [
    // (local $i $state $depth $large $spans $b $t $entry $size $threshold $string i32)
    [1, 11, I32],
    KEPT.flatMap(([offset, local]) => [i32Const(0), i32LoadAt(state + offset), set(local)]),
    [get(L_I), get(L_BASE), i32Sub, set(L_I)],
    [get(L_LIMIT), get(L_BASE), i32Sub, set(L_LIMIT)],
    [get(L_END), get(L_BASE), i32Sub, set(L_END)],
    block, // $fail
    block, // $finish
    loop, // $main
    // The window ends soon and the bytes go on: it moves to i first.
    [get(L_I), i32Const(ROOM), i32Add, get(L_LIMIT), i32GtU, get(L_LIMIT), get(L_END), i32LtU, i32And, if_, more, end],
    [get(L_I), get(L_END), i32GeU, brIf(1)],
    block, // $close
    // Inside a string the window ended in.
    [get(L_STATE), i32Const(S_KEY_STRING), i32Eq, if_, string(get(L_I), true, 1), end],
    [get(L_STATE), i32Const(S_VALUE_STRING), i32Eq, if_, string(get(L_I), false, 1), end],
    [get(L_I), i32Load8U, set(L_B)],
    [bIs(0x20), if_, stepI(1), next(1), end],
    [get(L_STATE), i32Const(2), i32LtU, if_, value, end],
    [get(L_STATE), i32Const(S_KEY), i32Sub, i32Const(2), i32LtU, if_, key, end],
    [get(L_STATE), i32Const(S_COLON), i32Eq, if_, colon, end],
    [get(L_STATE), i32Const(S_AFTER), i32Eq, if_, after, end],
    fail(0), // after the top-level value: only spaces
    end, // $close: the byte at i closes the innermost container
    [get(L_DEPTH), i32Const(1), i32Sub, set(L_DEPTH), entryOf(0), set(L_ENTRY)],
    [absolute(L_I, 1), get(L_ENTRY), i32LoadAt(stackPage), i32Sub, set(L_SIZE)],
    // An array inside the line, large even without its own large values: left out whole, in place of them.
    [get(L_ENTRY), i32LoadAt(stackPage + 4), get(L_DEPTH), i32Const(0), i32Ne, i32And],
    [get(L_SIZE), get(L_LARGE), i32Sub, get(L_THRESHOLD), i32GeU, i32And, if_],
    [get(L_ENTRY), i32LoadAt(stackPage + 8), set(L_SPANS)],
    writeSpan([get(L_ENTRY), i32LoadAt(stackPage)], absolute(L_I, 1)),
    [get(L_ENTRY), i32LoadAt(stackPage + 12), get(L_SIZE), i32Add, set(L_LARGE)],
    0x05, // else
    [get(L_ENTRY), i32LoadAt(stackPage + 12), get(L_LARGE), i32Add, set(L_LARGE)],
    end,
    stepI(1),
    [i32Const(S_DONE), i32Const(S_AFTER), get(L_DEPTH), i32Eqz, select, set(L_STATE), br(0)],
    end, // $main
    end, // $finish: the end of the bytes
    [get(L_STATE), i32Const(S_DONE), i32Eq, if_, get(L_SPANS), return_, end],
    end, // $fail
    i32Const(LARGE_INVALID),
    end,
  ];
}

// `run(from, end) -> count` and its helpers: each a function of two parameters, its locals after them.
const RUN_WORD = (word: number): Code => [i32Const(RUN_AREA), i32LoadAt(4 * word)];
const PREFIX_FUNC = 7;
const LINE_END_FUNC = 8;
const TAIL_FUNC = 9;
const SAME_TAIL_FUNC = 10;
const CONCERN_FUNC = 11;
const SAME_BYTES_FUNC = 13;
const PLAIN_FUNC = 15;
const RUN_START_FUNC = 16;
/** How many members `tail` reads back from a line's end, as peekSession (input.ts). */
const MAX_MEMBERS = 16;
/** What `lineEnd` gives when a place comes before the newline, and when no newline comes before the end. */
const PLACE_BEFORE = -1;
const NO_NEWLINE = -2;

/**
 * The body of `prefix(p, end) -> entry`: the length byte of the prefix at
 * RUN_PREFIXES the bytes at `p` start with, before `end` (its length, with
 * PREFIX_PLAIN set for the types that pass only when `plain`); 0 when
 * none.
 */
const PREFIX_BODY = (() => {
  const [P, E, T, TEND, LEN, K, ENTRY] = [0, 1, 2, 3, 4, 5, 6];
  return [
    // (local $t $tEnd $len $k $entry i32)
    [1, 5, I32],
    [i32Const(RUN_PREFIXES), localSet(T)],
    [i32Const(RUN_PREFIXES), RUN_WORD(RUN_WORDS.prefixes), i32Add, localSet(TEND)],
    loop, // $entries
    [localGet(T), localGet(TEND), i32GeU, if_, i32Const(0), return_, end],
    [localGet(T), i32Load8U, localTee(ENTRY), i32Const(PREFIX_LENGTH), i32And, localSet(LEN)],
    [localGet(P), localGet(LEN), i32Add, localGet(E), i32LeU, if_],
    [i32Const(0), localSet(K)],
    block, // $differ
    loop, // $bytes
    [localGet(K), localGet(LEN), i32Eq, if_, localGet(ENTRY), return_, end],
    [localGet(P), localGet(K), i32Add, i32Load8U, localGet(T), localGet(K), i32Add, i32Load8UAt(1), i32Ne, brIf(1)],
    [localGet(K), i32Const(1), i32Add, localSet(K), br(0)],
    end, // $bytes
    end, // $differ
    end,
    [localGet(T), localGet(LEN), i32Add, i32Const(1), i32Add, localSet(T), br(0)],
    end, // $entries
    i32Const(0),
    end,
  ];
})();

/**
 * For each bit set in the local `mask` (of 16 bytes from the local `from`),
 * lowest first: the local `at` set to the byte's address, then `body`
 * (which may return). `mask` is used up.
 */
const eachBit = (mask: number, from: number, at: number, body: Code): Code => [
  block, // $judged
  loop, // $bits
  [localGet(mask), i32Eqz, brIf(1)],
  [localGet(from), localGet(mask), i32Ctz, i32Add, localSet(at)],
  body,
  [localGet(mask), localGet(mask), i32Const(1), i32Sub, i32And, localSet(mask), br(0)],
  end, // $bits
  end, // $judged
];

/**
 * The body of `plain(p, nl) -> bool`: whether the line `[p, nl)` holds none
 * of `"tool_` (the start of `"tool_use"`, `"tool_result"`) and `\u` (an
 * escape that may spell one of them): for the types whose lines a reader
 * lets by only then (see ReaderOptions.passesPlain in input.ts). Nor may
 * they hold a run's first event glued on, which `lineEnd` has looked for
 * in the line before `run` asks this.
 */
const PLAIN_BODY = (() => {
  const [P, NL, START, M, Q, B, R, V] = [0, 1, 2, 3, 4, 5, 6, 7];
  const TOOL = [...Buffer.from('"tool')];
  /** Returns false when the byte `b` at `q` (a backslash or a `_`) starts `\u`, or ends `"tool_`, in the line. */
  const judge: Code = [
    [localGet(B), i32Const(0x5c), i32Eq, if_],
    [localGet(Q), i32Const(1), i32Add, localGet(NL), i32LtU, if_, localGet(Q), i32Load8UAt(1), i32Const(0x75), i32Eq, if_, i32Const(0), return_, end, end],
    0x05, // else: a `_`
    [localGet(Q), localGet(START), i32Sub, i32Const(TOOL.length), i32GeU, if_],
    [localGet(Q), i32Const(TOOL.length), i32Sub, localSet(R)],
    [TOOL.map((b, k) => [localGet(R), i32Load8UAt(k), i32Const(b), i32Eq, k > 0 ? i32And : []]), if_, i32Const(0), return_, end],
    end,
    end,
  ];
  /** True on the stack when the byte in `b` is one `judge` judges. */
  const candidate: Code = [[0x5c, 0x5f].map((c, k) => [localGet(B), i32Const(c), i32Eq, k > 0 ? i32Or : []])];
  return [
    // (local $start $m $q $b $r i32) (local $v v128)
    [2, 5, I32, 1, V128],
    [localGet(P), localSet(START)],
    block, // $tail
    loop, // $simd: the backslashes and `_` of 16 bytes, each judged
    [localGet(P), i32Const(16), i32Add, localGet(NL), i32GtU, brIf(1)],
    [localGet(P), v128Load, localSet(V)],
    [[0x5c, 0x5f].map((c, k) => [localGet(V), v128Const(c), i8x16Eq, k > 0 ? v128Or : []]), i8x16Bitmask, localSet(M)],
    eachBit(M, P, Q, [[localGet(Q), i32Load8U, localSet(B)], judge]),
    [localGet(P), i32Const(16), i32Add, localSet(P), br(0)],
    end, // $simd
    end, // $tail
    loop, // $bytes: the last ones one at a time
    [localGet(P), localGet(NL), i32GeU, if_, i32Const(1), return_, end],
    [localGet(P), localTee(Q), i32Load8U, localSet(B), candidate, if_, judge, end],
    [localGet(P), i32Const(1), i32Add, localSet(P), br(0)],
    end, // $bytes
    i32Const(1),
    end,
  ];
})();

/**
 * The body of `runStart(p, nl) -> bool`: whether the line `[p, nl)` holds
 * `{"type":"system"` (a run's first event glued on it) past its first byte,
 * within RUN_START_WINDOW of its end, as holdsRunStart finds it (input.ts).
 * Each `{"t` of 16 bytes at a time is compared whole.
 */
const RUN_START_BODY = (() => {
  const [P, NL, M, Q] = [0, 1, 2, 3];
  const RUN_START = [...Buffer.from('{"type":"system"')];
  /** Returns true when the 16 bytes at `q`, all before `nl`, are RUN_START. */
  const judge: Code = [
    [localGet(Q), i32Const(RUN_START.length), i32Add, localGet(NL), i32LeU, if_],
    [localGet(Q), v128Load, [0xfd, 0x0c, RUN_START], i8x16Eq, i8x16AllTrue, if_, i32Const(1), return_, end],
    end,
  ];
  return [
    // (local $m $q i32)
    [1, 2, I32],
    // From the line's second byte, or RUN_START_WINDOW before its end when that is later.
    [localGet(P), i32Const(1), i32Add, localSet(P)],
    [localGet(NL), i32Const(RUN_START_WINDOW), i32Sub, localSet(Q), localGet(P), localGet(Q), i32LtS, if_, localGet(Q), localSet(P), end],
    block, // $tail
    loop, // $simd: the `{"t` of 16 bytes (and the 2 after them), each judged
    [localGet(P), i32Const(18), i32Add, localGet(NL), i32GtU, brIf(1)],
    [localGet(P), v128Load, v128Const(0x7b), i8x16Eq, localGet(P), v128LoadAt(1), v128Const(0x22), i8x16Eq, v128And, localGet(P), v128LoadAt(2), v128Const(0x74), i8x16Eq, v128And, i8x16Bitmask, localSet(M)],
    eachBit(M, P, Q, judge),
    [localGet(P), i32Const(16), i32Add, localSet(P), br(0)],
    end, // $simd
    end, // $tail
    loop, // $bytes: the last ones one at a time
    [localGet(P), localGet(NL), i32GeU, if_, i32Const(0), return_, end],
    [localGet(P), i32Load8U, i32Const(0x7b), i32Eq, if_, localGet(P), localSet(Q), judge, end],
    [localGet(P), i32Const(1), i32Add, localSet(P), br(0)],
    end, // $bytes
    i32Const(0),
    end,
  ];
})();

/**
 * The body of `concern(x, end) -> bool`: whether the place at `x` (see
 * `places`) may make a line's first key not its type, as the input layer
 * judges places (input.ts, LineScan): a `}` followed by `{` (spaces, tabs
 * and carriage returns between; or what may start another value, a
 * byte-order mark's first byte too: files joined with cat), an escape `\u006…` or `\u007…`, or a
 * `"type"`, which only following the line's structure could clear. What
 * runs into `end` is a concern.
 */
const CONCERN_BODY = (() => {
  const [X, E, B, I] = [0, 1, 2, 3];
  const byteAt = (offset: number): Code => [localGet(X), i32Load8UAt(offset)];
  const bytesAre = (bytes: number[]): Code => bytes.map((b, k) => [byteAt(k), i32Const(b), i32Eq, (k > 0 ? i32And : [])]);
  return [
    // (local $b $i i32)
    [1, 2, I32],
    [localGet(X), i32Load8U, localSet(B)],
    [localGet(B), i32Const(0x7d), i32Eq, if_],
    [localGet(X), i32Const(1), i32Add, localSet(I)],
    loop,
    [localGet(I), localGet(E), i32GeU, if_, i32Const(1), return_, end],
    [localGet(I), i32Load8U, localTee(B), i32Const(0x7b), i32Eq, if_, i32Const(1), return_, end],
    // After the spaces, a byte that may start another value (`[`, `"`, `-`, a digit, `tr`, `fa`, `nu`, a byte-order mark) is a concern too.
    [localGet(B), i32Const(0x20), i32Eq, localGet(B), i32Const(0x09), i32Eq, i32Or, localGet(B), i32Const(0x0d), i32Eq, i32Or, i32Eqz, if_],
    [0x5b, 0x22, 0x2d, 0xef].map((b, k) => [localGet(B), i32Const(b), i32Eq, (k > 0 ? i32Or : [])]),
    [localGet(B), i32Const(0x30), i32Sub, i32Const(10), i32LtU, i32Or],
    [
      [0x74, 0x72],
      [0x66, 0x61],
      [0x6e, 0x75],
    ].map(([first, second]) => [localGet(B), i32Const(first!), i32Eq, localGet(I), i32Load8UAt(1), i32Const(second!), i32Eq, i32And, i32Or]),
    [return_, end],
    [localGet(I), i32Const(1), i32Add, localSet(I), br(0)],
    end,
    end,
    [localGet(X), i32Const(6), i32Add, localGet(E), i32GeU, if_, i32Const(1), return_, end],
    [localGet(B), i32Const(0x5c), i32Eq, if_],
    [bytesAre([0x5c, 0x75, 0x30, 0x30]), byteAt(4), i32Const(0x36), i32Eq, byteAt(4), i32Const(0x37), i32Eq, i32Or, i32And, return_],
    end,
    [bytesAre([0x22, 0x74, 0x79, 0x70, 0x65, 0x22])],
    end,
  ];
})();

/** Calls `concern` on each place in the local `mask` (bits from `from`); returns PLACE_BEFORE at the first that is one. */
const concernsIn = (mask: number): Code => [
  loop,
  block,
  [localGet(mask), i32Eqz, brIf(0)],
  [localGet(FROM), localGet(mask), i32Ctz, i32Add, localGet(END), call(CONCERN_FUNC), if_, i32Const(PLACE_BEFORE), return_, end],
  [localGet(mask), localGet(mask), i32Const(1), i32Sub, i32And, localSet(mask), br(1)],
  end,
  end,
];

/**
 * The body of `lineEnd(q, end) -> index`: the first newline at `q` or after
 * it, before `end`; PLACE_BEFORE when a place (see `places`) that is a
 * concern (see `concern`) comes first, or a run's first event glued on
 * (`{"type":"system"`, all before `end`), or an event glued on a value
 * (GLUED_EVENT, as `judgeRunStart` finds it), NO_NEWLINE when no newline comes
 * before `end`. `q` is at least 1. The glued event is looked for in the
 * same pass as the newline: its `{"t` is tested with the places, on bytes
 * already loaded, and compared whole only where one is.
 */
const LINE_END_BODY = (() => {
  const [NL, PM, STEP, NEXT, MAYBE, NEWLINES, RS, Q, W, V] = [2, 3, 4, 9, 10, 11, 12, 13, 14, 15];
  const RUN_START = [...Buffer.from('{"type":"system"')];
  /** On the stack: true in each lane where `{"t` starts. */
  const runStarts = [localGet(AT[0]!), v128Const(0x7b), i8x16Eq, localGet(AT[1]!), v128Const(0x22), i8x16Eq, v128And, localGet(AT[2]!), v128Const(0x74), i8x16Eq, v128And];
  /**
   * Returns PLACE_BEFORE when the 16 bytes at `q`, all before `end`, are
   * RUN_START; or when the byte before `q`, white space stepped over, is
   * none an object may follow (`:`, `[`, `,`) nor a newline (the next
   * line's start): an event glued on a value (see GLUED_EVENT). The line's
   * bytes before `q` are in memory, and its start is no white space.
   */
  const judgeRunStart: Code = [
    [localGet(Q), i32Const(RUN_START.length), i32Add, localGet(END), i32LeU, if_],
    [localGet(Q), v128Load, v128Bytes(RUN_START), i8x16Eq, i8x16AllTrue, if_, i32Const(PLACE_BEFORE), return_, end],
    end,
    [localGet(Q), localSet(W)],
    loop,
    [localGet(W), i32Const(1), i32Sub, localTee(W), i32Load8U, localTee(V), i32Const(0x20), i32Eq],
    [localGet(V), i32Const(0x09), i32Eq, i32Or, localGet(V), i32Const(0x0d), i32Eq, i32Or, brIf(0)],
    end,
    [[0x3a, 0x5b, 0x2c, 0x0a].map((b, k) => [localGet(V), i32Const(b), i32Ne, (k > 0 ? i32And : [])]), if_, i32Const(PLACE_BEFORE), return_, end],
  ];
  return [
    // (local $nl $pm $step i32) (local $before $at0 $at1 $at2 $next $maybe $newlines v128): the first four where `places` has them
    // (local $rs $q $w $v i32): the `{"t` of 16 bytes, one of them, and the bytes before it
    [3, 3, I32, 7, V128, 4, I32],
    block, // $tail
    loop, // $simd: while the 16 bytes and the 2 after them are before `end`
    [localGet(FROM), i32Const(18), i32Add, localGet(END), i32GtU, brIf(1)],
    // Most blocks hold neither a newline nor a byte that may be a place: one test lets them by, two blocks at a time.
    [i32Const(16), localSet(STEP), v128Const(0), localSet(NEXT)],
    [localGet(FROM), i32Const(34), i32Add, localGet(END), i32LeU, if_],
    [0, 1, 2].flatMap((at) => [localGet(FROM), v128LoadAt(16 + at), localSet(AT[at]!)]),
    [mayBePlaces(VECTOR), runStarts, v128Or, localGet(AT[0]!), v128Const(0x0a), i8x16Eq, v128Or, localSet(NEXT), i32Const(32), localSet(STEP)],
    end,
    [0, 1, 2].flatMap((at) => [localGet(FROM), v128LoadAt(at), localSet(AT[at]!)]),
    [mayBePlaces(VECTOR), runStarts, v128Or, localSet(MAYBE), localGet(AT[0]!), v128Const(0x0a), i8x16Eq, localSet(NEWLINES)],
    [localGet(MAYBE), localGet(NEWLINES), v128Or, localGet(NEXT), v128Or, v128AnyTrue, i32Eqz, if_],
    [localGet(FROM), localGet(STEP), i32Add, localSet(FROM), br(1)],
    end,
    [localGet(MAYBE), localGet(NEWLINES), v128Or, v128AnyTrue, if_],
    [localGet(NEWLINES), i8x16Bitmask, localSet(NL)],
    [i32Const(0), localSet(PM), i32Const(0), localSet(RS)],
    [localGet(MAYBE), v128AnyTrue, if_],
    [localGet(FROM), i32Const(1), i32Sub, v128Load, localSet(AT[-1]!)],
    [matchPlaces(VECTOR), i8x16Bitmask, localSet(PM)],
    [runStarts, i8x16Bitmask, localSet(RS)],
    end,
    [localGet(NL), if_],
    // The places and `{"t` among the bytes before the newline.
    [localGet(PM), i32Const(1), localGet(NL), i32Ctz, i32Shl, i32Const(1), i32Sub, i32And, localSet(PM)],
    [localGet(RS), i32Const(1), localGet(NL), i32Ctz, i32Shl, i32Const(1), i32Sub, i32And, localSet(RS)],
    concernsIn(PM),
    eachBit(RS, FROM, Q, judgeRunStart),
    [localGet(FROM), localGet(NL), i32Ctz, i32Add, return_],
    end,
    concernsIn(PM),
    eachBit(RS, FROM, Q, judgeRunStart),
    end,
    [localGet(FROM), i32Const(16), i32Add, localSet(FROM), br(0)],
    end, // $simd
    end, // $tail
    loop, // $bytes: the last bytes one at a time
    [localGet(FROM), localGet(END), i32GeU, if_, i32Const(NO_NEWLINE), return_, end],
    [localGet(FROM), i32Load8U, i32Const(0x0a), i32Eq, if_, localGet(FROM), return_, end],
    [matchPlaces(SCALAR), if_, localGet(FROM), localGet(END), call(CONCERN_FUNC), if_, i32Const(PLACE_BEFORE), return_, end, end],
    [localGet(FROM), i32Load8U, i32Const(0x7b), i32Eq, if_, localGet(FROM), localSet(Q), judgeRunStart, end],
    [localGet(FROM), i32Const(1), i32Add, localSet(FROM), br(0)],
    end, // $bytes
    i32Const(NO_NEWLINE),
    end,
  ];
})();

/**
 * The body of `sameTail(p, i) -> bool`: whether the tail at RUN_TAIL is the
 * bytes that end at `i` (included), all after `p`: compared by `sameBytes`
 * (a tail is 16 bytes at least: `,"session_id":""`).
 */
const SAME_TAIL_BODY = (() => {
  const [P, I, LEN, S] = [0, 1, 2, 3];
  return [
    // (local $len $s i32)
    [1, 2, I32],
    [RUN_WORD(RUN_WORDS.tail), localSet(LEN)],
    [localGet(I), localGet(LEN), i32Sub, i32Const(1), i32Add, localTee(S), localGet(P), i32LeS, if_, i32Const(0), return_, end],
    [localGet(S), i32Const(RUN_TAIL), localGet(LEN), call(SAME_BYTES_FUNC)],
    end,
  ];
})();

/**
 * The body of `tail(p, nl) -> bool`: whether the line `[p, nl)` ends with
 * `}` after members of plain keys and plain strings, numbers or literals,
 * the last `"session_id"` among them the session's tail: as peekSession
 * reads a line's end (input.ts), up to as many members.
 */
const TAIL_BODY = (() => {
  const [P, NL, I, J, B, N, K] = [0, 1, 2, 3, 4, 5, 6];
  const byteJ = [localGet(J), i32Load8U];
  const stepBack = [localGet(J), i32Const(1), i32Sub, localSet(J)];
  /** On the stack: true when the byte in `b` is one of a number or of `true`, `false`, `null` (isScalarByte). */
  const scalar = [
    [localGet(B), i32Const(0x30), i32Sub, i32Const(10), i32LtU],
    [localGet(B), i32Const(0x61), i32Sub, i32Const(26), i32LtU, i32Or],
    [0x2e, 0x2b, 0x2d, 0x45].map((c) => [localGet(B), i32Const(c), i32Eq, i32Or]),
  ];
  /** On the stack: true when the byte in `b` is printable ASCII but a quote or a backslash (isPlain). */
  const plain = [localGet(B), i32Const(0x20), i32Sub, i32Const(0x5f), i32LtU, localGet(B), i32Const(0x22), i32Ne, i32And, localGet(B), i32Const(0x5c), i32Ne, i32And];
  /** Steps `j` back while it is after `p` and its byte passes `test`. */
  const backWhile = (test: Code): Code => [loop, localGet(J), localGet(P), i32GtU, if_, byteJ, localSet(B), test, if_, stepBack, br(2), end, end, end];
  const expect = (byte: number): Code => [byteJ, i32Const(byte), i32Ne, if_, i32Const(0), return_, end];
  const SESSION_KEY = [...Buffer.from('"session_id"')];
  return [
    // (local $i $j $b $n $k i32)
    [1, 5, I32],
    [localGet(NL), i32Const(1), i32Sub, i32Load8U, i32Const(0x7d), i32Ne, if_, i32Const(0), return_, end],
    [localGet(NL), i32Const(2), i32Sub, localSet(I)],
    loop, // $members: the value of one ends at `i`
    [localGet(N), i32Const(MAX_MEMBERS), i32GeU, if_, i32Const(0), return_, end],
    [localGet(N), i32Const(1), i32Add, localSet(N)],
    [localGet(I), i32Load8U, i32Const(0x22), i32Eq, if_],
    // A string: the session's, or one of plain bytes.
    [localGet(P), localGet(I), call(SAME_TAIL_FUNC), if_, i32Const(1), return_, end],
    [localGet(I), i32Const(1), i32Sub, localSet(J)],
    backWhile(plain),
    expect(0x22),
    [localGet(J), i32Const(1), i32Sub, localSet(J)],
    0x05, // else: a number or a literal
    [localGet(I), localSet(J)],
    backWhile(scalar),
    [localGet(J), localGet(I), i32Eq, if_, i32Const(0), return_, end],
    end,
    // `j` is before the value: `:`, then a plain key, then `,`.
    expect(0x3a),
    stepBack,
    expect(0x22),
    [localGet(J), localSet(K)],
    stepBack,
    backWhile(plain),
    expect(0x22),
    // A `"session_id"` with another value: the line is another session's.
    [localGet(K), localGet(J), i32Sub, i32Const(SESSION_KEY.length - 1), i32Eq],
    SESSION_KEY.map((b, k) => [localGet(J), i32Load8UAt(k), i32Const(b), i32Eq, i32And]),
    [if_, i32Const(0), return_, end],
    stepBack,
    expect(0x2c),
    [localGet(J), i32Const(1), i32Sub, localSet(I), br(0)],
    end, // $members
    i32Const(0),
    end,
  ];
})();

/**
 * The body of `run(from, end) -> count`: how many lines, from the line that
 * starts at `from`, a reader may let by (see ReaderOptions.passes in
 * input.ts), each before `end`: a line that starts with one of the prefixes
 * (`{"type":"thinking",` …), holds no place up to its newline (see
 * `places`) nor a run's first event glued on (see `lineEnd`), and ends with
 * the session's tail (see `tail`). The start of the
 * last of them, and where the first other line starts, are written at
 * RUN_AREA (RUN_WORDS).
 */
const RUN_BODY = (() => {
  const [F, E, P, NL, COUNT, LAST, ENTRY] = [0, 1, 2, 3, 4, 5, 6];
  return [
    // (local $p $nl $count $last $entry i32)
    [1, 5, I32],
    [localGet(F), localSet(P), i32Const(-1), localSet(LAST)],
    block, // $stop
    loop, // $lines
    [localGet(P), localGet(E), call(PREFIX_FUNC), localTee(ENTRY), i32Eqz, brIf(1)],
    // The prefix holds no place (its `"type"` follows `{`, its name `:`): the search starts after it.
    [localGet(P), localGet(ENTRY), i32Const(PREFIX_LENGTH), i32And, i32Add, localGet(E), call(LINE_END_FUNC), localTee(NL), i32BelowZero, brIf(1)],
    [localGet(P), localGet(NL), call(TAIL_FUNC), i32Eqz, brIf(1)],
    [localGet(ENTRY), i32Const(PREFIX_PLAIN), i32And, if_, localGet(P), localGet(NL), call(PLAIN_FUNC), i32Eqz, brIf(2), end],
    [localGet(COUNT), i32Const(1), i32Add, localSet(COUNT), localGet(P), localSet(LAST)],
    [localGet(NL), i32Const(1), i32Add, localSet(P), br(0)],
    end, // $lines
    end, // $stop
    [i32Const(RUN_AREA), localGet(LAST), i32StoreAt(4 * RUN_WORDS.last)],
    [i32Const(RUN_AREA), localGet(P), i32StoreAt(4 * RUN_WORDS.next)],
    [i32Const(RUN_AREA), localGet(NL), i32Const(NO_NEWLINE), i32Eq, i32StoreAt(4 * RUN_WORDS.cut)],
    localGet(COUNT),
    end,
  ];
})();

const DELTA_WORD = (word: number): Code => [i32Const(DELTA_AREA), i32LoadAt(4 * word)];
const DELTAS_FUNC = 12;
const TEXT_FLAGS_FUNC = 14;

/**
 * The body of `sameBytes(a, b, len) -> bool`: whether the `len` bytes at `a`
 * are those at `b`; 16 at a time, the last 16 aligned on the end (`len` is
 * 16 at least).
 */
const SAME_BYTES_BODY = (() => {
  const [A, B, LEN, K] = [0, 1, 2, 3];
  const same = (offset: Code): Code => [localGet(A), offset, i32Add, v128Load, localGet(B), offset, i32Add, v128Load, i8x16Eq, i8x16AllTrue];
  return [
    // (local $k i32)
    [1, 1, I32],
    loop,
    [localGet(K), i32Const(16), i32Add, localGet(LEN), i32LtU, if_],
    [same(localGet(K)), i32Eqz, if_, i32Const(0), return_, end],
    [localGet(K), i32Const(16), i32Add, localSet(K), br(1)],
    end,
    end,
    same([localGet(LEN), i32Const(16), i32Sub]),
    end,
  ];
})();

/** The body of `textFlags(t, q) -> flags`: TEXT_ESCAPED when the bytes `[t, q)` hold a backslash, TEXT_ASCII when none is 0x80 or above. */
const TEXT_FLAGS_BODY = (() => {
  const [T, Q, C, ESC, HIGH] = [0, 1, 2, 3, 4];
  return [
    // (local $c i32) (local $esc $high v128)
    [2, 1, I32, 2, V128],
    block, // $tail
    loop, // $simd
    [localGet(T), i32Const(16), i32Add, localGet(Q), i32GtU, brIf(1)],
    [localGet(T), v128Load, i32Const(0x5c), i8x16Splat, i8x16Eq, localGet(ESC), v128Or, localSet(ESC)],
    [localGet(T), v128Load, localGet(HIGH), v128Or, localSet(HIGH)],
    [localGet(T), i32Const(16), i32Add, localSet(T), br(0)],
    end, // $simd
    end, // $tail
    // The sign bit of a byte is its 0x80: the high ones are those below zero as signed bytes.
    [localGet(ESC), v128AnyTrue, i32Const(TEXT_ESCAPED), i32Mul],
    [localGet(HIGH), i8x16Bitmask, i32Eqz, i32Const(TEXT_ASCII), i32Mul, i32Or, localSet(C)],
    loop, // $bytes
    [localGet(T), localGet(Q), i32GeU, if_, localGet(C), return_, end],
    [localGet(T), i32Load8U, i32Const(0x5c), i32Eq, if_, localGet(C), i32Const(TEXT_ESCAPED), i32Or, localSet(C), end],
    [localGet(T), i32Load8U, i32Const(0x80), i32GeU, if_, localGet(C), i32Const(~TEXT_ASCII), i32And, localSet(C), end],
    [localGet(T), i32Const(1), i32Add, localSet(T), br(0)],
    end, // $bytes
    localGet(C),
    end,
  ];
})();

/**
 * The body of `deltas(from, end) -> count`: how many lines, from the line
 * that starts at `from`, are text deltas of the session whose deltas the
 * reader is joining (see ReaderOptions.joinDeltas in input.ts), each read
 * as the input layer reads a line of the delta shape (shapes.ts) and before
 * `end`: the head (the line's bytes up to its text's opening quote), a
 * string `string` vouches for, its closing quote, the middle (the bytes up
 * to the time, the session's id among them), a time of digits (0, or up to
 * 15 not starting with 0), `}` and the newline. Anything else stops it, for
 * the reader to read that line itself. The text of each is written to
 * DELTA_TEXTS (see DELTA_WORDS for the rest).
 */
const DELTAS_BODY = (() => {
  const [F, E, P, T, Q, K, COUNT, LAST, CUT, HEAD, MIDDLE, OUT, D] = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12];
  const stop = (cut: boolean): Code => [cut ? [i32Const(1), localSet(CUT)] : [], br(2)];
  return [
    // (local $p $t $q $k $count $last $cut $head $middle $out $d i32)
    [1, 11, I32],
    [localGet(F), localSet(P), i32Const(-1), localSet(LAST), i32Const(DELTA_TEXTS), localSet(OUT)],
    [DELTA_WORD(DELTA_WORDS.head), localSet(HEAD), DELTA_WORD(DELTA_WORDS.middle), localSet(MIDDLE)],
    block, // $stop
    loop, // $lines: inside an `if`, `stop` branches to $stop
    [localGet(COUNT), i32Const(MAX_DELTAS), i32GeU, brIf(1)],
    [localGet(P), localGet(HEAD), i32Add, localGet(E), i32GtU, if_, stop(true), end],
    [localGet(P), i32Const(DELTA_HEAD), localGet(HEAD), call(SAME_BYTES_FUNC), i32Eqz, brIf(1)],
    [localGet(P), localGet(HEAD), i32Add, localTee(T), localGet(E), call(STRING_FUNC), localTee(Q), localGet(E), i32GeU, if_, stop(true), end],
    [localGet(Q), i32Load8U, i32Const(0x22), i32Ne, brIf(1)],
    [localGet(Q), i32Const(1), i32Add, localTee(D), localGet(MIDDLE), i32Add, localGet(E), i32GtU, if_, stop(true), end],
    [localGet(D), i32Const(DELTA_MIDDLE), localGet(MIDDLE), call(SAME_BYTES_FUNC), i32Eqz, brIf(1)],
    // The time: 0, or digits not starting with 0.
    [localGet(D), localGet(MIDDLE), i32Add, localTee(D), localTee(K), localGet(E), i32GeU, if_, stop(true), end],
    [localGet(K), i32Load8U, i32Const(0x30), i32Eq, if_],
    [localGet(K), i32Const(1), i32Add, localSet(K)],
    0x05, // else
    [localGet(K), i32Load8U, i32Const(0x31), i32Sub, i32Const(9), i32GeU, brIf(2)],
    loop,
    [localGet(K), i32Const(1), i32Add, localTee(K), localGet(E), i32LtU, if_],
    [localGet(K), i32Load8U, i32Const(0x30), i32Sub, i32Const(10), i32LtU, brIf(1)],
    end,
    end,
    end,
    [localGet(K), localGet(D), i32Sub, i32Const(15), i32GtU, brIf(1)],
    [localGet(K), i32Const(1), i32Add, localGet(E), i32GeU, if_, stop(true), end],
    [localGet(K), i32Load8U, i32Const(0x7d), i32Ne, brIf(1)],
    [localGet(K), i32Load8UAt(1), i32Const(0x0a), i32Ne, brIf(1)],
    // A delta: its text, and the time of the last.
    [localGet(OUT), localGet(T), i32StoreAt(0), localGet(OUT), localGet(Q), i32StoreAt(4)],
    [localGet(OUT), localGet(T), localGet(Q), call(TEXT_FLAGS_FUNC), i32StoreAt(8)],
    [localGet(OUT), i32Const(12), i32Add, localSet(OUT)],
    [i32Const(DELTA_AREA), localGet(D), i32StoreAt(4 * DELTA_WORDS.timeStart)],
    [i32Const(DELTA_AREA), localGet(K), i32StoreAt(4 * DELTA_WORDS.timeEnd)],
    [localGet(COUNT), i32Const(1), i32Add, localSet(COUNT), localGet(P), localSet(LAST)],
    [localGet(K), i32Const(2), i32Add, localSet(P), br(0)],
    end, // $lines
    end, // $stop
    [i32Const(DELTA_AREA), localGet(LAST), i32StoreAt(4 * DELTA_WORDS.last)],
    [i32Const(DELTA_AREA), localGet(P), i32StoreAt(4 * DELTA_WORDS.next)],
    [i32Const(DELTA_AREA), localGet(CUT), i32StoreAt(4 * DELTA_WORDS.cut)],
    localGet(COUNT),
    end,
  ];
})();

/** The module: one memory, `string`, `places`, `walk`, `large`, `run`, `deltas` and `runStart`, all exported. */
export function moduleBytes(): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(
    bytesOf([
      [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
      // (type (func (param i32 i32) (result i32))) (type (func (param i32 i32 i32) (result i32)))
      section(1, [2, 0x60, 2, I32, I32, 1, I32, 0x60, 3, I32, I32, I32, 1, I32]),
      // (func $string (type 0)) (func $places (type 1)) (func $walk (type 1)) (func $large (type 1)) (func $quote (type 1)) (func $number (type 1))
      // (func $run (type 0)) (func $prefix (type 0)) (func $lineEnd (type 0)) (func $tail (type 0)) (func $sameTail (type 0)) (func $concern (type 0))
      // (func $deltas (type 0)) (func $sameBytes (type 1)) (func $textFlags (type 0)) (func $plain (type 0)) (func $runStart (type 0))
      section(3, [17, 0, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]),
      // (memory 1): grown to one window and more when made
      section(5, [1, 0x00, 1]),
      // (export "memory" (memory 0)) (export "string" (func $string)) (export "places" (func $places)) (export "walk" (func $walk)) (export "large" (func $large)) (export "run" (func $run))
      // (export "deltas" (func $deltas)) (export "runStart" (func $runStart))
      section(7, [
        8,
        [name('memory'), 0x02, 0, name('string'), 0x00, 0, name('places'), 0x00, 1, name('walk'), 0x00, 2, name('large'), 0x00, 3, name('run'), 0x00, 6],
        [name('deltas'), 0x00, DELTAS_FUNC, name('runStart'), 0x00, RUN_START_FUNC],
      ]),
      section(10, [
        17,
        [
          STRING_BODY,
          PLACES_BODY,
          WALK_BODY,
          largeBody(LARGE_STACK, LARGE_SPANS),
          QUOTE_BODY,
          NUMBER_BODY,
          RUN_BODY,
          PREFIX_BODY,
          LINE_END_BODY,
          TAIL_BODY,
          SAME_TAIL_BODY,
          CONCERN_BODY,
          DELTAS_BODY,
          SAME_BYTES_BODY,
          TEXT_FLAGS_BODY,
          PLAIN_BODY,
          RUN_START_BODY,
        ]
          .map((body) => bytesOf(body))
          .map((body) => [uleb(body.length), body]),
      ]),
    ]),
  );
}
