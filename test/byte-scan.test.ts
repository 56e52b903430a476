// The WebAssembly byte scan (src/io/byte-scan.ts) against plain loops (its `string`, and
// placeAt and walkBytes for `places` and `walk`): every start and end over random bytes,
// over strings of escapes and over the patterns it looks for, lines longer than its
// window read across windows, and shorter lines after them.
import t from 'tap';
import { Rng } from '../bench/generate.mjs';
import { WINDOW, makeByteScan, placeAt } from '../src/io/byte-scan.js';
import type { ByteScan } from '../src/io/byte-scan.js';

/** The first quote, backslash or control byte, escapes or not. */
function nextReference(raw: Buffer, from: number, end: number): number {
  for (let i = from; i < end; i++) if (raw[i] === 0x22 || raw[i] === 0x5c || raw[i]! < 0x20) return i;
  return end;
}

/** The escapes `string` steps over: one-letter ones, and \u with four hex digits but for \u0000. */
function skippable(raw: Buffer, at: number, end: number): number {
  if (at + 6 > end) return -1;
  const c = raw[at + 1]!;
  if ([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74].includes(c)) return at + 2;
  if (c !== 0x75) return -1;
  const hex = raw.toString('latin1', at + 2, at + 6);
  return /^[0-9a-fA-F]{4}$/.test(hex) && hex !== '0000' ? at + 6 : -1;
}

function stringReference(raw: Buffer, from: number, end: number): number {
  for (let i = from; i < end; i++) {
    if (raw[i] === 0x5c) {
      const after = skippable(raw, i, end);
      if (after !== -1) {
        i = after - 1;
        continue;
      }
      return i;
    }
    if (raw[i] === 0x22 || raw[i]! < 0x20) return i;
  }
  return end;
}

/**
 * The scan under test. By default each line is copied into its memory; with
 * BYTE_SCAN_IN_PLACE=1 (see byte-scan-in-place.test.ts) a line that fits is
 * first put in one of the scan's read buffers, as a file is read, and scanned
 * where it is there (what follows it in the buffer is left as it was).
 */
function scanUnderTest(): ByteScan | undefined {
  if (process.env.BYTE_SCAN_IN_PLACE !== '1') return makeByteScan();
  const scan = makeByteScan(1);
  if (scan === undefined) return undefined;
  const load = scan.load.bind(scan);
  const buffer = scan.readBuffers[0]!;
  scan.load = (raw: Buffer): void => {
    if (raw.length > buffer.length) return load(raw);
    raw.copy(buffer);
    load(buffer.subarray(0, raw.length));
  };
  return scan;
}

const scan = scanUnderTest();

/** Text of letters and, each with chance `share`, one of `pieces`, to a random length below `max`. */
function textOf(rng: Rng, pieces: readonly string[], max: number, share: number): string {
  let text = '';
  while (text.length < rng.int(0, max)) text += rng.chance(share) ? rng.pick(pieces) : String.fromCharCode(0x61 + rng.int(0, 25));
  return text;
}

/** Calls `check` on every range `[from, end)` with `first <= from <= end <= last`, until one returns false; false then. */
function everyRange(first: number, last: number, check: (from: number, end: number) => boolean): boolean {
  for (let from = first; from <= last; from++) for (let end = from; end <= last; end++) if (!check(from, end)) return false;
  return true;
}


t.test('WebAssembly SIMD is available on every Node.js this project supports', async (t) => {
  t.ok(scan, 'the byte scan is made (node --jitless would fall back to Buffer#indexOf)');
});

t.test('over random bytes, from every start to every end', { skip: scan ? false : 'no byte scan' }, async (t) => {
  const alphabet = [0x22, 0x5c, 0x00, 0x1f, 0x20, 0x21, 0x5b, 0x7f, 0x80, 0xff, 0x61];
  const rng = Rng.fromInt(5);
  let checked = 0;
  let found = 0;
  for (let round = 0; round < 60; round++) {
    const size = rng.int(0, 70);
    // Plain letters between, so that some runs of 16 and more hold nothing of interest.
    const raw = Buffer.from(Array.from({ length: size }, () => (rng.chance(0.1) ? rng.pick(alphabet) : 0x61 + rng.int(0, 25))));
    scan!.load(raw);
    const agree = everyRange(0, size, (from, end) => {
      const got = scan!.string(from, end);
      const want = stringReference(raw, from, end);
      if (got !== want) return t.fail(`[${from}, ${end}) of ${raw.toString('hex')}: ${got}, not ${want}`);
      checked++;
      if (want < end) found++;
      return true;
    });
    if (!agree) return;
  }
  t.ok(checked > 10000, `${checked} ranges`);
  t.ok(found > checked / 5 && found < checked, `${found} of them with a byte found`);
});

t.test('a line longer than the window is read across windows; a shorter one after it reads its own bytes', { skip: scan ? false : 'no byte scan' }, async (t) => {
  const big = Buffer.alloc(2 * WINDOW + 1000, 0x61);
  // Bytes of interest just before, at and after each window's edge, and far from them.
  const marks = [5, WINDOW - 1, WINDOW, WINDOW + 1, 2 * WINDOW - 16, 2 * WINDOW + 999];
  marks.forEach((at, i) => (big[at] = [0x22, 0x5c, 0x01][i % 3]!));
  scan!.load(big);
  let from = 0;
  const found: number[] = [];
  for (let at = scan!.string(from, big.length); at < big.length; at = scan!.string(from, big.length)) {
    found.push(at);
    from = at + 1;
  }
  t.same(found, marks, 'every byte of interest, in order, across the windows');
  t.equal(scan!.string(WINDOW + 2, 2 * WINDOW - 16), 2 * WINDOW - 16, 'the end is where it is told');
  t.equal(scan!.string(6, WINDOW - 1), WINDOW - 1, 'nothing between two marks');
  const small = Buffer.from('abc"');
  scan!.load(small);
  t.equal(scan!.string(0, small.length), 3);
  t.equal(scan!.string(0, 3), 3, 'the end is where it is told, whatever follows in memory');
});

t.test('a string: escapes stepped over, anything else of interest given, from every start to every end', { skip: scan ? false : 'no byte scan' }, async (t) => {
  // Escapes whole and broken, \u0000, hex digits of both cases and bytes next to them in the table.
  const pieces = ['\\n', '\\"', '\\\\', '\\/', '\\b', '\\f', '\\r', '\\t', '\\u00e9', '\\uABCD', '\\uD83D', '\\u0000', '\\u00G0', '\\u0@0a', '\\u`0af', '\\x', '\\u12', '\\', '"', '\x01', '\x1f', 'é'];
  const rng = Rng.fromInt(7);
  let checked = 0;
  let stepped = 0;
  for (let round = 0; round < 120; round++) {
    const text = textOf(rng, pieces, 60, 0.3);
    const raw = Buffer.from(text, 'utf8');
    scan!.load(raw);
    const agree = everyRange(0, raw.length, (from, end) => {
      const got = scan!.string(from, end);
      const want = stringReference(raw, from, end);
      if (got !== want) return t.fail(`[${from}, ${end}) of ${JSON.stringify(text)}: ${got}, not ${want}`);
      checked++;
      if (want > nextReference(raw, from, end)) stepped++;
      return true;
    });
    if (!agree) return;
  }
  t.ok(checked > 10000, `${checked} ranges`);
  t.ok(stepped > checked / 10, `${stepped} of them past an escape`);
});

t.test('a long string: read in blocks of 64 bytes, escapes and runs of backslashes across their edges, from every start', { skip: scan ? false : 'no byte scan' }, async (t) => {
  // Runs of backslashes of every length, so that a block may end inside one, escaped or not; the escapes
  // a block must leave to the one-by-one scan (\u, broken ones, raw control bytes) and quotes, now and then.
  const common = ['\\n', '\\"', '\\\\', '\\/', '\\t', '\\b', '\\f', '\\r', '\\\\\\\\', '\\\\\\"', 'é', '😀'];
  const rare = ['\\u00e9', '\\u0000', '\\x', '\\', '"', '\x01', '\\\x1f', '\\u12'];
  const rng = Rng.fromInt(11);
  let checked = 0;
  let long = 0;
  for (let round = 0; round < 60; round++) {
    let text = '';
    const length = rng.int(64, 700);
    while (text.length < length) {
      const r = rng.int(0, 99);
      text += r < 12 ? rng.pick(common) : r < 13 ? rng.pick(rare) : String.fromCharCode(0x61 + rng.int(0, 25));
    }
    const raw = Buffer.from(text, 'utf8');
    scan!.load(raw);
    const ends = [raw.length, raw.length - 1, raw.length - 6, raw.length - 7, rng.int(0, raw.length), rng.int(0, raw.length)];
    for (let from = 0; from <= raw.length; from++) {
      for (const end of ends) {
        if (end < from) continue;
        const got = scan!.string(from, end);
        const want = stringReference(raw, from, end);
        if (got !== want) return t.fail(`[${from}, ${end}) of ${JSON.stringify(text)}: ${got}, not ${want}`);
        checked++;
        if (want - from > 140) long++;
      }
    }
  }
  t.ok(checked > 50000, `${checked} ranges`);
  t.ok(long > checked / 20, `${long} of them read past two blocks`);
});

t.test('a long string: every byte after a backslash, at every place of a block', { skip: scan ? false : 'no byte scan' }, async (t) => {
  let checked = 0;
  for (let c = 0; c < 256; c++) {
    for (let at = 70; at < 70 + 64; at++) {
      const raw = Buffer.alloc(at + 80, 0x61);
      raw[at] = 0x5c;
      raw[at + 1] = c;
      raw[raw.length - 1] = 0x22;
      scan!.load(raw);
      const got = scan!.string(0, raw.length);
      const want = stringReference(raw, 0, raw.length);
      if (got !== want) return t.fail(`\\ then byte ${c} at ${at}: ${got}, not ${want}`);
      checked++;
    }
  }
  t.equal(checked, 256 * 64);
});

t.test('a string across windows: an escape across the edge of a window is left to the caller, the scan goes on after it', { skip: scan ? false : 'no byte scan' }, async (t) => {
  const big = Buffer.alloc(2 * WINDOW + 100, 0x61);
  // \n escapes far from the edge and across it, then the closing quote in the second window.
  big.write('\\n', 10, 'latin1');
  big.write('\\u00e9', WINDOW - 3, 'latin1');
  big[WINDOW + 50] = 0x22;
  scan!.load(big);
  t.equal(scan!.string(0, big.length), WINDOW - 3, 'the escape across the edge is left to the caller');
  t.equal(scan!.string(WINDOW + 3, big.length), WINDOW + 50, 'after it, the closing quote');
  big[WINDOW + 50] = 0x61;
  big.write('\\t', 2 * WINDOW - 8, 'latin1');
  big[2 * WINDOW + 20] = 0x22;
  scan!.load(big);
  t.equal(scan!.string(WINDOW + 3, big.length), 2 * WINDOW + 20, 'an escape well inside a window is stepped over');
});

/** Every place placeAt sees in `[from, end)`. */
function placesReference(raw: Buffer, from: number, end: number): number[] {
  const found: number[] = [];
  for (let at = from; at < end; at++) if (placeAt(raw, at)) found.push(at);
  return found;
}

t.test('places: what may make a first key not the type, from every start to every end', { skip: scan ? false : 'no byte scan' }, async (t) => {
  // (Read as latin1: `\u00ef` is the byte 0xEF, a byte-order mark's first, which after a `}` is a place too.)
  const pieces = ['"type"', '{"type"', '["ty', ':"ty', ',"ty', '"xy', '\\u0074', '\\u00', '\\u4e2d', '\\"', '}{', '} {', '}\t', '}\r', '}\n', '},', '}}', '}\u00ef', '\u00ef', '"', 'y', 'u', '0', '\\', '}', '{', ' ', '{"t', '2{"t', ':{"t', ',{"t', '[{"t', '\n{"t', '{"t"', ' {"t', 'a{"b', '"{"ty'];
  const rng = Rng.fromInt(11);
  let checked = 0;
  let found = 0;
  for (let round = 0; round < 150; round++) {
    const text = textOf(rng, pieces, 70, 0.3);
    // A byte before every start and two after every end asked about: the scan reads them.
    const raw = Buffer.from(`.${text}..`, 'latin1');
    scan!.load(raw);
    const agree = everyRange(1, raw.length - 2, (from, end) => {
      const got: number[] = [];
      scan!.places(from, end, got);
      const want = placesReference(raw, from, end);
      if (got.join() !== want.join()) return t.fail(`[${from}, ${end}) of ${JSON.stringify(text)}: ${got.join()}, not ${want.join()}`);
      checked++;
      found += want.length;
      return true;
    });
    if (!agree) return;
  }
  t.ok(checked > 10000, `${checked} ranges`);
  t.ok(found > checked / 5, `${found} places found in them`);
});

t.test('places across windows, and more than a call writes', { skip: scan ? false : 'no byte scan' }, async (t) => {
  const big = Buffer.alloc(2 * WINDOW + 100, 0x61);
  const marks = [7, WINDOW - 4, WINDOW - 1, WINDOW + 2, WINDOW + 30, 2 * WINDOW - 2, 2 * WINDOW + 90];
  const patterns = ['"ty', '\\u0', '}{', '"ty', '} ', '"ty', '\\u0'];
  marks.forEach((at, i) => big.write(patterns[i]!, at, 'latin1'));
  scan!.load(big);
  const found: number[] = [];
  scan!.places(1, big.length - 2, found);
  t.same(found, marks, 'every place, once, in order, across the windows');
  t.same(found, placesReference(big, 1, big.length - 2), 'as placeAt sees them');
  // More places than one call of the module writes.
  const many = Buffer.from(`.${'} '.repeat(40000)}..`, 'latin1');
  scan!.load(many);
  const all: number[] = [];
  scan!.places(1, many.length - 2, all);
  t.equal(all.length, 40000, 'every one of 40,000 places');
  t.same(all, placesReference(many, 1, many.length - 2), 'in order');
  // After a longer line, a short one reads its own bytes.
  const small = Buffer.from('ab} {..', 'latin1');
  scan!.load(small);
  const few: number[] = [];
  scan!.places(1, 5, few);
  t.same(few, [2]);
  t.equal(scan!.string(0, 5), 5, 'and `string` still scans the same bytes');
});

t.test('walk: the structure followed as walkBytes follows it, from every start to every end and state', { skip: scan ? false : 'no byte scan' }, async (t) => {
  const { walkBytes } = await import('../src/io/byte-scan.js');
  const pieces = ['{', '}', '[', ']', '"', '\\"', '\\\\', '\\n', '\\u0000', '\\u12', '\\', '\x01', 'é', ':', ','];
  const rng = Rng.fromInt(13);
  let checked = 0;
  const seen = new Set<number>();
  for (let round = 0; round < 100; round++) {
    const text = textOf(rng, pieces, 50, 0.5);
    const raw = Buffer.from(text, 'utf8');
    scan!.load(raw);
    const agree = everyRange(0, raw.length, (from, to) => {
      for (const state of [0, 1, 2, 3, 4, 6, 9, 14]) {
        const got = scan!.walk(from, to, state);
        const want = walkBytes(raw, from, to, state);
        if (got !== want) return t.fail(`[${from}, ${to}) from state ${state} of ${JSON.stringify(text)}: ${got}, not ${want}`);
        seen.add(want & 3);
        checked++;
      }
      return true;
    });
    if (!agree) return;
  }
  t.ok(checked > 10000, `${checked} walks`);
  t.same([...seen].sort(), [0, 1, 2, 3], 'ending outside and inside strings, after an escape and not');
});

t.test('walk across windows: the state goes on from one window to the next', { skip: scan ? false : 'no byte scan' }, async (t) => {
  const { walkBytes, walkDepth, walkInString, walkEscaped } = await import('../src/io/byte-scan.js');
  const big = Buffer.alloc(2 * WINDOW + 100, 0x61);
  // An escape across the first edge, a string open across the second, brackets on both sides.
  big.write('{"a":[{"b":"', 0, 'latin1');
  big.write('\\"', WINDOW - 1, 'latin1');
  big.write('"},[', WINDOW + 10, 'latin1');
  big.write('"', 2 * WINDOW - 5, 'latin1');
  scan!.load(big);
  for (const [from, to] of [
    [0, big.length],
    [0, WINDOW],
    [0, WINDOW + 20],
    [5, 2 * WINDOW + 50],
  ] as const) {
    const got = scan!.walk(from, to, 0);
    t.equal(got, walkBytes(big, from, to, 0), `[${from}, ${to})`);
  }
  const end = scan!.walk(0, big.length, 0);
  t.same([walkDepth(end), walkInString(end), walkEscaped(end)], [3, true, false], 'three open, in a string');
  t.ok(walkEscaped(scan!.walk(0, WINDOW, 0)), 'the escape across the edge is carried to the next walk');
});

t.test('the build wrote the module as its code assembles it, and the commands load those bytes', async (t) => {
  const fs = await import('node:fs');
  const path = await import('node:path');
  const { pathToFileURL } = await import('node:url');
  const { moduleBytes } = await import('../src/io/byte-scan-code.js');
  const { ROOT } = await import('./fixtures/lib/run.js');
  const built = path.join(ROOT, 'dist/io/byte-scan-module.js');
  const { MODULE } = (await import(pathToFileURL(built).href)) as { MODULE: Uint8Array };
  t.ok(Buffer.from(MODULE).equals(Buffer.from(moduleBytes())), `the same ${MODULE.length} bytes`);
  t.notMatch(fs.readFileSync(built, 'utf8'), /import|from ['"]/, 'the built file holds the bytes, and imports nothing');
  // 0x30303030 (`\u0000`'s four digits, which the module's string scans compare with) is in the code, not in the bytes.
  t.notMatch(fs.readFileSync(path.join(ROOT, 'dist/bundle/ndjson-agent.cjs'), 'utf8'), /808464432|0x30303030/, 'nor does the bundle hold the code');
});

// Twice: every type passing as such, then `assistant` and `user` passing only when their lines are plain.
for (const plain of [[], ['assistant', 'user']]) {
const marked = plain.length > 0 ? `, ${plain.join(' and ')} only when plain` : '';
t.test(`run: only lines the reader would let by, and nearly all of them${marked}`, { skip: scan ? false : 'no byte scan' }, async (t) => {
  const { holdsRunStart, plainLine, peekSession, peekType, typeIsCertain } = await import('../src/io/input.js');
  const { PREFIX_PLAIN } = await import('../src/io/byte-scan.js');
  const { generate } = await import('../bench/generate.mjs');
  const { damage } = await import('./fixtures/lib/json-text.js');
  const names = ['thinking', 'assistant', 'user', 'tool_call'];
  const prefixes = Buffer.concat(
    names.map((n) => {
      const b = Buffer.from(`{"type":"${n}",`);
      return Buffer.concat([Buffer.of(b.length | (plain.includes(n) ? PREFIX_PLAIN : 0)), b]);
    }),
  );
  /**
   * What the reader judges by the line's bytes (see EventReader.passOver): the type, the session, that the type is
   * certain, that no run's first event is glued on it (see holdsRunStart), and for a type passing only when plain, that
   * the line is (see plainLine).
   */
  const lets = (line: Buffer, session: string): boolean => {
    const type = peekType(line);
    return (
      type !== undefined &&
      names.includes(type) &&
      peekSession(line) === session &&
      typeIsCertain(line, false) &&
      !holdsRunStart(line) &&
      !(plain.includes(type) && !plainLine(line))
    );
  };
  const rng = new Rng('run');
  /** Values that hold a tool block, or may spell one (`\\u`), or a run's first event, or their bytes but for one. */
  const TOOLISH = [
    '{"type":"tool_use","id":"toolu_1"}',
    '{"type":"tool_result","tool_use_id":"toolu_1"}',
    '{"type":"tool\\u005fuse"}',
    '"\\u0041"',
    '"\\\\u"',
    '"\\"tool_"',
    '{"tool_":1}',
    '"tool_"',
    '"tool"',
    '"x_tool_"',
    '"a_b\\n_c\\\\"',
    '{"type":"system","subtype":"init"}',
    '[{"type":"system"}]',
    '{"type":"systems"}',
    '{"type": "system"}',
    '{"type":"sys"}',
  ];
  const parts: string[] = [];
  generate({ seed: 'run', size: 300_000, maxPayload: 3000, hugeEvery: 0, write: (text: string) => parts.push(text) });
  const corpus = parts.join('').split('\n').slice(0, -1);
  const s = 'e8a5c1f0-2b1d-4c6e-9f1a-0d3b7c2e4a61';
  const e = (type: string, tail = `,"timestamp_ms":17}`, session = s, body = ',"text":"x"'): string => `{"type":"${type}"${body},"session_id":"${session}"${tail}`;
  const crafted = [
    e('thinking'),
    e('thinking', '}'),
    e('user', ',"a":true}'),
    e('user', ',"":-1.5e+3}'),
    e('thinking', ',"a":1,"b":2}'), // two members after the session: left to the reader
    e('thinking', ',"a":"x"}'), // a string after it: left to the reader
    e('thinking', ',"timestamp_ms":17}\r'),
    e('result'),
    e('thinking', undefined, s.slice(1)),
    e('thinking', undefined, `x${s}`),
    e('thinking', undefined, s, ',"text":"a} {b"'),
    e('thinking', undefined, s, ',"text":"a}{b"}{"x":1'),
    e('thinking', undefined, s, ',"text":"a} \\t{b"'),
    e('thinking', undefined, s, ',"x":{"a":1} {"b":2}'),
    // A value glued before an object (`42{"…`, `"x" {"…`), and an object after white space that may come before it.
    e('thinking', undefined, s, ',"x":1}42{"type":"t"'),
    e('thinking', undefined, s, ',"x":"a"{"type":2}'),
    e('thinking', undefined, s, ',"x":"a" \t{"text":2}'),
    e('thinking', undefined, s, ',"x":[1]{"t":2}'),
    e('thinking', undefined, s, ',"x":null {"type":"t"}'),
    e('thinking', undefined, s, ',"x": {"type":"t"}'),
    e('thinking', undefined, s, ',"x":[ \r{"type":"t"}]'),
    e('thinking', undefined, s, ',"x":[1, {"t":2}]'),
    e('thinking', undefined, s, ',"x":"a"{"b":2,"type":"t"}'),
    e('thinking', undefined, s, ',"text":"ends in {"'),
    e('thinking', undefined, s, ',"text":"ends in ({"'),
    e('thinking', undefined, s, ',"text":"\\u0074ype"'),
    e('thinking', undefined, s, ',"text":"\\u0041"'),
    e('thinking', undefined, s, ',"x":{"type":"y"}'),
    e('thinking', undefined, s, ',"x":{"a":1,"type":"y"}'),
    e('thinking', undefined, s, ',"type":"result"'),
    e('thinking', undefined, s, ',"text":"\\"type\\" is a word"'),
    e('thinking', undefined, s, ',"text":"mystery"'),
    `{"type":"thinking" ,"session_id":"${s}"}`,
    `{"type": "thinking","session_id":"${s}"}`,
    `{"type":"thinking","session_id":"${s}"}`,
    `{"type":"thinking","session_id" :"${s}"}`,
    `{"type":"thinking","session_id":"${s}" }`,
    `{"type":"thinking","session_id":"${s}",}`,
    `{"type":"thinking","session_id":["${s}"]}`,
    // Tool blocks and what may spell one, and runs' first events (and what is none of these), at every offset from the
    // line's start and end (the scan reads 16 bytes at a time), in the types that pass only without them and in one that
    // passes whatever it holds.
    ...['assistant', 'user', 'thinking'].flatMap((type) =>
      Array.from({ length: 32 }, (_, k) => [
        ...TOOLISH.map((v) => e(type, undefined, s, `,"x":"${'y'.repeat(k)}","v":${v}`)),
        e(type, `,"tool_":${k}}`, s, `,"x":"${'y'.repeat(k)}"`),
        e(type, `,"a":1,"tool_x":true}`, s, `,"x":"${'y'.repeat(k)}"`),
        // A run's first event glued on a message cut short, as an agent killed mid-write leaves it.
        `${e(type, undefined, s, `,"x":"${'y'.repeat(k)}`).slice(0, -40)}{"type":"system","subtype":"init","session_id":"${s}"}`,
      ]).flat(),
    ),
    // Such an event as far from the line's end as the reader looks for it, a byte either side, and at every offset
    // near there (what the scan reads 16 bytes at a time).
    ...Array.from({ length: 40 }, (_, k) => {
      const line = (pad: number): string => e('thinking', undefined, s, `,"v":{"type":"system","x":1},"x":"${'y'.repeat(pad)}"`);
      // Its `{` 64 KiB from the line's end, less 20 bytes to more 19.
      const bare = line(0);
      return line(64 * 1024 - 20 + k - (bare.length - bare.indexOf('{"type":"system"')));
    }),
  ];
  let letBy = 0;
  let could = 0;
  let missed = 0;
  let unsound = 0;
  const check = (lines: string[], label: string): void => {
    // Each line from both sessions, the scan asked from every line start, as the reader asks it.
    const session = lines.map((l) => /"session_id":"([^"]*)"/.exec(l)?.[1] ?? '').find((x) => x !== '') ?? s;
    const raw = Buffer.from(`${lines.join('\n')}\n`, 'latin1');
    const starts = [0];
    for (let i = 0; i < raw.length; i++) if (raw[i] === 0x0a && i + 1 < raw.length) starts.push(i + 1);
    scan!.load(raw);
    const tail = Buffer.from(`,"session_id":"${session}"`, 'latin1');
    for (let k = 0; k < starts.length; k++) {
      const count = scan!.run(starts[k]!, prefixes, tail);
      const want: number[] = [];
      for (let j = k; j < starts.length; j++) {
        const line = raw.subarray(starts[j]!, (starts[j + 1] ?? raw.length) - 1);
        if (!lets(line, session)) break;
        want.push(j);
      }
      could += want.length > 0 ? 1 : 0;
      if (count > want.length) {
        unsound++;
        t.fail(`${label}: from line ${k}, ${count} lines let by, the reader would let ${want.length}: ${JSON.stringify(raw.toString('latin1', starts[k]!, starts[k]! + 300))}`);
        return;
      }
      if (count > 0) {
        letBy++;
        const last = starts[k + count - 1]!;
        const next = starts[k + count] ?? raw.length;
        if (scan!.lastRun !== last || scan!.nextRun !== next) t.fail(`${label}: from line ${k}: last ${scan!.lastRun}, next ${scan!.nextRun}, not ${last}, ${next}`);
      }
      if (count < want.length) {
        missed++;
        if (process.env.RUN_DEBUG) console.error('missed', count, want.length, JSON.stringify(raw.toString('latin1', starts[k + count]!, starts[k + count]! + 400)));
      }
    }
  };
  for (const line of crafted) check([line, e('thinking'), line], JSON.stringify(line));
  for (let round = 0; round < 40; round++) {
    const at = rng.int(0, corpus.length - 60);
    const lines = corpus.slice(at, at + 60).map((l) => (rng.chance(0.1) ? damage(rng, Buffer.from(l, 'latin1')).toString('latin1').replace(/\n/g, '') : l));
    check(lines, `corpus lines ${at}…`);
  }
  t.equal(unsound, 0, 'never a line the reader would not let by');
  t.ok(letBy > 400, `${letBy} runs of lines let by`);
  t.ok(missed < could / 10, `${missed} of ${could} runs stopped short of the reader's (a "type" key after a comma, which the reader follows)`);
  // Across windows: a run in a chunk longer than one.
  const line = `${e('thinking', undefined, s, `,"text":"${'x'.repeat(1000)}"`)}\n`;
  const big = Buffer.from(line.repeat(Math.ceil((WINDOW * 1.5) / line.length)), 'latin1');
  scan!.load(big);
  const tail = Buffer.from(`,"session_id":"${s}"`, 'latin1');
  let from = 0;
  let lines = 0;
  while (from < big.length) {
    const count = scan!.run(from, prefixes, tail);
    if (count === 0) break;
    lines += count;
    from = scan!.nextRun;
  }
  t.equal(lines, big.length / line.length, 'every line of a chunk of 1.5 windows, a window at a time');
});
}

t.test('deltas: only lines the reader would join, read as it reads them, and nearly all of them', { skip: scan ? false : 'no byte scan' }, async (t) => {
  const { compileShapes, matchShape, slotEnd, slotStart, slotValue, stringValue } = await import('../src/io/shapes.js');
  const { FREQUENT_SHAPES } = await import('../src/events.js');
  const { damage } = await import('./fixtures/lib/json-text.js');
  const shape = compileShapes(FREQUENT_SHAPES).get('assistant')!.find((s) => s.delta)!;
  const head = Buffer.concat([shape.pieces[0]!, Buffer.from('"')]);
  const s = 'e8a5c1f0-2b1d-4c6e-9f1a-0d3b7c2e4a61';
  const middleOf = (session: string): Buffer => Buffer.concat([shape.pieces[1]!, Buffer.from(JSON.stringify(session)), shape.pieces[2]!]);
  /** The text the reader reads of a line it would join to deltas of `session` (see EventReader.joinDelta); undefined when it would not. */
  const joins = (line: Buffer, session: string): string | undefined => {
    if (matchShape([shape], line) === undefined) return undefined;
    if (line.toString('utf8', slotStart(1), slotEnd(1)) !== JSON.stringify(session)) return undefined;
    return slotValue(shape, line, 0) as string;
  };
  const d = (text: string, time = '1770000529190', session = s): string =>
    `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":${text}}]},"session_id":"${session}","timestamp_ms":${time}}`;
  const pieces = ['\\n', '\\"', '\\\\', '\\/', '\\t', '\\u00e9', '\\uD83D', '\\u0000', '\\u00G0', '\\x', 'é', '日本', '\x01', '"', ' ', 'abc'];
  const rng = new Rng('deltas');
  const text = (): string => `"${textOf(rng, pieces, 40, 0.2)}"`;
  const crafted = [
    d('"plain"'),
    d('""'),
    d('"a\\"b"'),
    d('"é"'),
    d('"\\u0000"'), // \u0000: left to the reader
    d('"x"', '0'),
    d('"x"', '01'),
    d('"x"', '-1'),
    d('"x"', '1.5'),
    d('"x"', '1e5'),
    d('"x"', '123456789012345'),
    d('"x"', '1234567890123456'),
    d('"x"', ''),
    d('"x"', '1', 'another'),
    d('"x"', '1', s.slice(1)),
    `${d('"x"')}\r`,
    `${d('"x"')} `,
    `${d('"x"')}{"a":1}`,
    d('"x"').replace('"text":"x"', '"text": "x"'),
    d('"x"').replace('}]}', '}] }'),
    `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"x"}]},"session_id":"${s}","model_call_id":"m","timestamp_ms":1}`,
    `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"x"}]},"session_id":"${s}"}`,
    `{"type":"thinking","subtype":"delta","text":"x","session_id":"${s}","timestamp_ms":1}`,
  ];
  let read = 0;
  let could = 0;
  let short = 0;
  const check = (lines: string[], label: string, newline = true): boolean => {
    const raw = Buffer.from(lines.join('\n') + (newline ? '\n' : ''), 'utf8');
    const starts = [0];
    for (let i = 0; i < raw.length; i++) if (raw[i] === 0x0a && i + 1 < raw.length) starts.push(i + 1);
    /** Line `j` without its newline; undefined for a last line without one. */
    const lineAt = (j: number): Buffer | undefined => {
      const end = starts[j + 1] !== undefined ? starts[j + 1]! - 1 : newline ? raw.length - 1 : -1;
      return end === -1 ? undefined : raw.subarray(starts[j]!, end);
    };
    scan!.load(raw);
    for (let k = 0; k < starts.length; k++) {
      const texts: number[] = [];
      const count = scan!.deltas(starts[k]!, head, middleOf(s), texts);
      let want = 0;
      for (let j = k; j < starts.length; j++) {
        const line = lineAt(j);
        if (line === undefined || joins(line, s) === undefined) break;
        want++;
      }
      if (count > want) return t.fail(`${label}: from line ${k}, ${count} deltas read, the reader would join ${want}: ${JSON.stringify(raw.toString('utf8', starts[k]!, starts[k]! + 300))}`);
      for (let i = 0; i < count; i++) {
        const line = lineAt(k + i)!;
        const got = stringValue(raw, texts[3 * i]! - 1, texts[3 * i + 1]! + 1, texts[3 * i + 2]!);
        if (got !== joins(line, s)) return t.fail(`${label}: line ${k + i}: text ${JSON.stringify(got)}, not ${JSON.stringify(joins(line, s))}`);
      }
      if (count > 0) {
        read++;
        const last = lineAt(k + count - 1)!;
        const time = Number(raw.toString('latin1', scan!.timeStart, scan!.timeEnd));
        if (time !== (JSON.parse(last.toString('utf8')) as { timestamp_ms: number }).timestamp_ms) return t.fail(`${label}: from line ${k}: the last time is ${time}`);
        if (scan!.nextDelta !== (starts[k + count] ?? raw.length)) return t.fail(`${label}: from line ${k}: next ${scan!.nextDelta}`);
        if (scan!.lastDelta !== starts[k + count - 1]) return t.fail(`${label}: from line ${k}: last ${scan!.lastDelta}`);
      }
      if (want > 0) could++;
      if (count < want) {
        // The module reads a time of plain digits and leaves \u0000 to the reader; anything else it must read.
        const line = lineAt(k + count)!.toString('utf8');
        if (line.includes('\\u0000') || !/"timestamp_ms":(0|[1-9][0-9]{0,14})}$/.test(line)) short++;
        else return t.fail(`${label}: from line ${k}, ${count} deltas read, not ${want}: ${JSON.stringify(line)}`);
      }
    }
    return true;
  };
  for (const line of crafted) if (!check([line, d('"y"'), line, line], JSON.stringify(line))) return;
  if (!check([d('"y"'), d('"z"')], 'no newline at the end', false)) return;
  for (let round = 0; round < 300; round++) {
    const lines = Array.from({ length: rng.int(1, 12) }, () => (rng.chance(0.1) ? rng.pick(crafted) : d(text(), String(rng.int(0, 1e9)))));
    const damaged = lines.map((l) => (rng.chance(0.1) ? damage(rng, Buffer.from(l)).toString('utf8').replace(/\n/g, '') : l));
    if (!check(damaged, `round ${round}`)) return;
  }
  t.ok(read > 1000, `${read} stretches of deltas read`);
  t.ok(short < could / 3, `${short} of ${could} stopped short of the reader's, each at a \\u0000 or a time not of plain digits`);
  // Across windows: deltas in a chunk longer than one.
  const line = `${d(`"${'x'.repeat(1000)}"`)}\n`;
  const big = Buffer.from(line.repeat(Math.ceil((WINDOW * 1.5) / line.length)));
  scan!.load(big);
  let from = 0;
  let lines = 0;
  while (from < big.length) {
    const texts: number[] = [];
    const count = scan!.deltas(from, head, middleOf(s), texts);
    if (count === 0) break;
    if (texts.length !== 3 * count) return t.fail(`${texts.length} numbers for ${count} texts`);
    lines += count;
    from = scan!.nextDelta;
  }
  t.equal(lines, big.length / line.length, 'every line of a chunk of 1.5 windows, a window at a time');
});
