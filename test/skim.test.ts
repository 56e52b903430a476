// The skim parse (src/io/skim.ts) against JSON.parse: on generated lines (escapes,
// unicode, surrogates, backslash runs, strings at the threshold, nesting, arrays of
// big strings), on the same lines damaged byte by byte, through the reader at every
// chunk size, and through ndjson-tools and ndjson-text on a generated stream.
import t from 'tap';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { Rng } from '../bench/generate.mjs';
import { NUMBERS, damage, fullParse, judgeAgainstFullParse, same, stringOf } from './fixtures/lib/json-text.js';
import { WINDOW } from '../src/io/byte-scan.js';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './fixtures/lib/run.js';
import { SKIM_THRESHOLD, isJsonObject, largeValues, skimParse } from '../src/io/skim.js';
import { EventReader, formatProblem, retainRecord } from '../src/io/input.js';
import type { EventRecord, InputProblem } from '../src/io/input.js';
import type { ToolCore } from '../src/io/tool-stream.js';
import { ToolsCore } from '../src/tools/core.js';
import type { ToolsOptions } from '../src/tools/core.js';
import { TextCore } from '../src/text/core.js';
import type { TextOptions } from '../src/text/core.js';

/** A JSON string of exactly `size` bytes, quotes included (plain ASCII, escapes of 2 bytes). */
function stringExactly(rng: Rng, size: number): string {
  let body = '';
  while (body.length < size - 2) body += size - 2 - body.length >= 2 && rng.float() < 0.3 ? rng.pick(['\\n', '\\"', '\\\\']) : 'y';
  return `"${body}"`;
}

const KEYS = ['type', 'content', 'stdout', 'path', 'args', 'result', 'success', 'matches', 'files', '__proto__', 'a b', 'é', '\\u0041', 'k\\"q'];

/** A JSON value of about `budget` bytes, with strings around `threshold` bytes. */
function valueOf(rng: Rng, depth: number, threshold: number): string {
  const roll = rng.float();
  if (depth > 4 || roll < 0.35) {
    const r = rng.float();
    if (r < 0.15) return stringExactly(rng, threshold + rng.int(-2, 2));
    if (r < 0.45) return stringOf(rng, rng.int(1, threshold * 2));
    if (r < 0.55) return stringOf(rng, rng.int(1, 12));
    if (r < 0.8) return rng.pick(NUMBERS);
    return rng.pick(['true', 'false', 'null']);
  }
  const sp = rng.float() < 0.2 ? ' ' : '';
  if (roll < 0.6) {
    const n = rng.int(0, 6);
    const items: string[] = [];
    for (let i = 0; i < n; i++) items.push(valueOf(rng, depth + 1, threshold));
    return `[${sp}${items.join(`${sp},${sp}`)}${sp}]`;
  }
  const n = rng.int(0, 6);
  const members: string[] = [];
  for (let i = 0; i < n; i++) members.push(`"${rng.pick(KEYS)}"${sp}:${sp}${valueOf(rng, depth + 1, threshold)}`);
  return `{${sp}${members.join(`${sp},${sp}`)}${sp}}`;
}

/** A line holding one JSON object, with at least one string value of `threshold` bytes or more. */
function lineOf(rng: Rng, threshold: number): Buffer {
  const members = [`"type":"tool_call"`, `"big":${stringOf(rng, threshold + rng.int(0, threshold))}`];
  const n = rng.int(1, 6);
  for (let i = 0; i < n; i++) members.push(`"${rng.pick(KEYS)}":${valueOf(rng, 1, threshold)}`);
  // An array of big strings, now and then.
  if (rng.float() < 0.3) members.push(`"many":[${[1, 2, 3].map(() => stringOf(rng, threshold + 1)).join(',')}]`);
  for (let i = members.length - 1; i > 1; i--) {
    const j = rng.int(1, i);
    [members[i], members[j]] = [members[j]!, members[i]!];
  }
  return Buffer.from(`{${members.join(',')}}`);
}

/** Deep equality that sees key order, -0 and the kind of every value. */
const THRESHOLDS = [8, 33, 256, SKIM_THRESHOLD];

t.test('a skimmed line reads exactly as JSON.parse reads it', async (t) => {
  let lines = 0;
  let skimmed = 0;
  for (const threshold of THRESHOLDS) {
    const rng = Rng.fromInt(threshold);
    for (let n = 0; n < 400; n++) {
      const raw = lineOf(rng, threshold);
      const full = fullParse(raw);
      if (!full.ok) {
        t.fail(`generated a line JSON.parse rejects: ${raw.toString().slice(0, 200)}`);
        continue;
      }
      lines++;
      const value = skimParse(raw, threshold);
      // Every generated line has a large value and no \u0000: the skim must take it.
      if (value === undefined) {
        t.fail(`not skimmed (threshold ${threshold}): ${raw.toString().slice(0, 300)}`);
        continue;
      }
      skimmed++;
      if (!same(value, full.value)) t.fail(`differs (threshold ${threshold}): ${raw.toString().slice(0, 300)}`);
      if (JSON.stringify(value) !== JSON.stringify(full.value)) t.fail(`serialises differently: ${raw.toString().slice(0, 300)}`);
    }
  }
  t.equal(skimmed, lines, `all ${lines} lines skimmed, and read as JSON.parse reads them`);
});

t.test('large values wait until read, then stay', async (t) => {
  const content = 'line one\nline "two"\t😀 é\n'.repeat(300);
  const raw = Buffer.from(
    JSON.stringify({
      type: 'tool_call',
      tool_call: { readToolCall: { args: { path: 'a.ts' }, result: { success: { content, totalLines: 600 } } } },
      matches: Array.from({ length: 200 }, (_, i) => ({ file: `f${i}`, line: i })),
    }),
  );
  const value = skimParse(raw) as Record<string, any>;
  t.ok(value, 'skimmed');
  const success = value.tool_call.readToolCall.result.success;
  t.equal(typeof Object.getOwnPropertyDescriptor(success, 'content')!.get, 'function', 'the big string is not decoded yet');
  t.equal(typeof Object.getOwnPropertyDescriptor(value, 'matches')!.get, 'function', 'the big array of small objects is not parsed yet');
  t.equal(success.totalLines, 600, 'small values are read at once');
  t.same(Object.keys(success), ['content', 'totalLines'], 'keys in order');
  t.equal(success.content, content, 'read on demand');
  t.equal(Object.getOwnPropertyDescriptor(success, 'content')!.value, content, 'then kept as a plain value');
  t.equal(value.matches.length, 200);
  t.same(value.matches[199], { file: 'f199', line: 199 });
  // Writes replace the value, read or not.
  const again = skimParse(raw) as Record<string, any>;
  again.matches = 'replaced';
  t.equal(again.matches, 'replaced');
  delete again.tool_call.readToolCall.result.success.content;
  t.notOk('content' in again.tool_call.readToolCall.result.success, 'deleted');
  t.same({ ...(skimParse(raw) as object) }, JSON.parse(raw.toString()), 'spread reads every value');
});

t.test('an object holding a large value keeps fast properties, one hidden class for objects of one shape', async (t) => {
  // Asked of V8 itself, in a process of its own: an accessor set on a parsed object's member moves the object to slow
  // (dictionary) properties, and every read of it is then slower.
  const skim = pathToFileURL(path.join(ROOT, 'dist/io/skim.js')).href;
  const script = `
    import { skimParse } from ${JSON.stringify(skim)};
    const line = (n) => Buffer.from(JSON.stringify({ type: 'tool_call', call_id: 'c' + n,
      tool_call: { readToolCall: { args: { path: 'f' + n }, result: { success: { content: 'x\\n'.repeat(3000), totalLines: 3000, path: 'f' + n } } } } }));
    const [a, b] = [skimParse(line(1)), skimParse(line(2))];
    const [sa, sb] = [a.tool_call.readToolCall.result.success, b.tool_call.readToolCall.result.success];
    const described = Object.getOwnPropertyDescriptor(sa, 'content');
    process.stdout.write(JSON.stringify({ lazy: typeof described.get, fast: %HasFastProperties(sa), shared: %HaveSameMap(sa, sb),
      eventFast: %HasFastProperties(a), content: sa.content.length, keys: Object.keys(sa) }));`;
  const run = spawnSync(process.execPath, ['--allow-natives-syntax', '--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
  t.equal(run.status, 0, run.stderr);
  t.same(JSON.parse(run.stdout), { lazy: 'function', fast: true, shared: true, eventFast: true, content: 6000, keys: ['content', 'totalLines', 'path'] });
});

t.test('a skimmed object has nothing on it but its members, and its large values are read through it', async (t) => {
  const big = 'y'.repeat(40);
  const raw = Buffer.from(JSON.stringify({ a: big, n: 1, inner: { b: big, c: [big, 2] } }));
  const full = JSON.parse(raw.toString()) as Record<string, unknown>;
  const value = skimParse(raw, 8) as Record<string, any>;
  t.same(Reflect.ownKeys(value), Reflect.ownKeys(full), 'its own keys, symbols too, are those JSON.parse makes');
  t.same(Reflect.ownKeys(value.inner), Reflect.ownKeys(full.inner as object));
  t.same(Object.getOwnPropertySymbols(value), [], 'no symbol');
  // Read through an object that inherits from it: the value settles on the object that holds it.
  const child = Object.create(value) as Record<string, unknown>;
  t.equal(child.a, big, 'read through an heir');
  t.notOk(Object.hasOwn(child, 'a'), 'the heir gets no member of its own');
  t.equal(Object.getOwnPropertyDescriptor(value, 'a')!.value, big, 'the holder keeps it as a plain value');
  // A receiver that is not the object nor an heir of it cannot find the value: a clear error, not a wrong value.
  const other = skimParse(raw, 8) as Record<string, unknown>;
  t.throws(() => Reflect.get(other, 'a', {}), { name: 'TypeError', message: /large value "a" of a skimmed object is read through that object/ });
  t.equal(other.a, big, 'still read as it should through the object');
  // Many keys and many large values in one object: each key is looked up once.
  const members = Array.from({ length: 3000 }, (_, i) => `"L${i}":"${'z'.repeat(12)}${i}","k${i}":${i}`).join(',');
  const many = Buffer.from(`{${members}}`);
  t.same(skimParse(many, 8), JSON.parse(many.toString()), 'an object of 6,000 keys, half of them large values');
});

t.test('a kept record reads its values from its own copy of the bytes', async (t) => {
  const content = 'x'.repeat(5000);
  const line = Buffer.from(`${JSON.stringify({ type: 'tool_call', content, n: 1 })}\n`);
  const chunk = Buffer.from(line);
  const records: EventRecord[] = [];
  const reader = new EventReader({ record: (r) => records.push(r), problem: () => {} }, { skim: () => true });
  reader.write(chunk);
  reader.endSource();
  const kept = retainRecord(records[0]!);
  chunk.fill(0x20); // the reader's buffer is reused for other bytes
  t.equal((kept.event as Record<string, unknown>).content, content, 'the value comes from the copy');
});

t.test('a damaged line is never read as a different value', async (t) => {
  const count = { rejected: 0, taken: 0, left: 0 };
  for (const threshold of [8, 64]) {
    const rng = Rng.fromInt(1000 + threshold);
    for (let n = 0; n < 3000; n++) {
      const raw = damage(rng, lineOf(rng, threshold));
      count[judgeAgainstFullParse(t, raw, skimParse(raw, threshold), 'the skim')]++;
    }
  }
  t.ok(count.rejected > 1000, `${count.rejected} broken lines, all left to the full parse`);
  const stillJson = count.taken + count.left;
  t.ok(stillJson > 100, `${stillJson} lines still JSON after the damage, read the same`);
});

t.test('with the byte scan or with Buffer#indexOf alone, the large values are the same', async (t) => {
  // The byte scan also refuses a raw control character in a small string, which JSON.parse refuses too.
  let agreed = 0;
  let refusedEarlier = 0;
  for (const threshold of [8, 64]) {
    const rng = Rng.fromInt(2000 + threshold);
    for (let n = 0; n < 3000; n++) {
      const raw = n % 2 === 0 ? lineOf(rng, threshold) : damage(rng, lineOf(rng, threshold));
      const scanned = largeValues(raw, threshold, 'module');
      const searched = largeValues(raw, threshold, 'search');
      if (scanned !== undefined) {
        if (!same(scanned, searched)) t.fail(`spans differ: ${JSON.stringify(raw.toString('latin1').slice(0, 300))}`);
        else agreed++;
      } else if (searched !== undefined) {
        if (fullParse(raw).ok) t.fail(`the byte scan refused a valid line: ${JSON.stringify(raw.toString('latin1').slice(0, 300))}`);
        else refusedEarlier++;
      } else {
        agreed++;
      }
    }
  }
  t.ok(agreed > 5000, `${agreed} lines read alike`);
  t.ok(refusedEarlier > 10, `${refusedEarlier} broken lines refused by the byte scan, left by the search to JSON.parse`);
});

t.test('isJsonObject takes no line JSON.parse refuses, whichever scan searches its strings', async (t) => {
  // ndjson-dedupe copies out the lines it vouches for this way, unparsed: with Buffer#indexOf alone (node --jitless), a
  // raw control character in a small string was taken (the binary run so is tested in dedupe.test.ts).
  const isObject = (raw: Buffer) => {
    const parsed = fullParse(raw);
    return parsed.ok && parsed.value !== null && typeof parsed.value === 'object' && !Array.isArray(parsed.value);
  };
  const hand = ['{"type":"user","x":"a\u0001b","session_id":"s"}', '{"type":"user","x":"a\tb"}', '{"a\u001fb":1}', '{"type":"user","x":"ok"}', '{"a":"\\t"}'];
  let taken = 0;
  for (const scan of ['module', 'strings', 'search'] as const) {
    for (const text of hand) {
      const raw = Buffer.from(text, 'latin1');
      t.equal(isJsonObject(raw, scan), isObject(raw), `${scan}: ${JSON.stringify(raw.toString('latin1'))}`);
    }
    const rng = Rng.fromInt(3000);
    for (let n = 0; n < 2000; n++) {
      const raw = n % 2 === 0 ? lineOf(rng, 64) : damage(rng, lineOf(rng, 64));
      if (!isJsonObject(raw, scan)) continue;
      taken++;
      if (!isObject(raw)) t.fail(`${scan} took a line JSON.parse refuses: ${JSON.stringify(raw.toString('latin1').slice(0, 300))}`);
    }
  }
  t.ok(taken > 1000, `${taken} lines taken, each one JSON.parse reads`);
});

t.test('the module\'s scan of a line gives what the JavaScript scan gives, on every line, across windows', async (t) => {
  // The JavaScript scan with the byte scan's string search is the reference: they must agree span for span.
  const codes = { spans: 0, refused: 0 };
  const agree = (raw: Buffer, threshold: number, what: string): void => {
    const module = largeValues(raw, threshold, 'module');
    const strings = largeValues(raw, threshold, 'strings');
    if (!same(module, strings)) t.fail(`${what} (threshold ${threshold}): ${JSON.stringify(module)?.slice(0, 80)} vs ${JSON.stringify(strings)?.slice(0, 80)}: ${JSON.stringify(raw.toString('latin1').slice(0, 200))}`);
    codes[module === undefined ? 'refused' : 'spans']++;
  };
  for (const threshold of [1, 8, 64]) {
    const rng = Rng.fromInt(3000 + threshold);
    for (let n = 0; n < 2000; n++) {
      const raw = n % 2 === 0 ? lineOf(rng, threshold) : damage(rng, lineOf(rng, threshold));
      agree(raw, threshold, 'generated');
    }
  }
  // Tokens of every kind at the edges of the windows of a long line (the module's scan moves its window there).
  const rng = Rng.fromInt(4000);
  const atoms = ['0', '-12', '3.25e-7', 'true', 'false', 'null', '"ab"', '"a\\"b"', '"\\u00e9x"', '"\\\\"', '"\\n\\t"', '"é"', '01', '"\\u0000"', '"\\q"', 'tru', '1.', '"\u0001"', '{"k":[1,{}]}', '[]'];
  for (let n = 0; n < 60; n++) {
    const edge = rng.int(1, 2) * WINDOW - 80 + rng.int(0, 160);
    const items: string[] = [];
    for (let length = 6; length < edge + 400; ) {
      const atom = n % 3 === 0 ? `"${'x'.repeat(rng.int(0, 3000))}"` : rng.pick(atoms);
      items.push(atom);
      length += atom.length + 1;
    }
    const raw = Buffer.from(n % 2 === 0 ? `{"a":[${items.join(',')}]}` : `{${items.map((v, k) => `"k${k}":${v}`).join(',')}}`);
    for (const threshold of [1, 7, SKIM_THRESHOLD]) agree(raw, threshold, `tokens at ${edge}`);
  }
  // Strings longer than a window, an escape or a number cut by its end; what the module leaves to the JavaScript scan.
  for (const piece of ['\\n', '\\u0041', '\\"', '\\\\', '\\u0000', '\\x', 'é']) {
    for (const edge of [WINDOW - 7, WINDOW - 3, WINDOW - 1, WINDOW]) {
      const body = 'x'.repeat(edge - 6);
      agree(Buffer.from(`{"a":"${body}${piece}${'y'.repeat(100)}","b":[1,"s"]}`), 8, `${JSON.stringify(piece)} at ${edge}`);
    }
  }
  for (const number of ['1'.repeat(100), '-0.5e+10', '1'.repeat(WINDOW + 10)]) agree(Buffer.from(`{"s":"${'z'.repeat(WINDOW - 40)}","n":${number},"t":[1]}`), 8, 'a number at the edge');
  agree(Buffer.from(`{"a":${'['.repeat(5000)}${']'.repeat(5000)}}`), 1, 'deeper than the module follows');
  agree(Buffer.from(`{"a":[${'"ss",'.repeat(20000)}1]}`), 1, 'more large values than the module writes');
  agree(Buffer.from(`{"a":"${'x'.repeat(3 * WINDOW)}","b":[${'"s",'.repeat(300000)}1]}`), 8, 'a string of three windows, then many small ones');
  t.ok(codes.spans > 3000 && codes.refused > 1000, `${codes.spans} lines with their spans, ${codes.refused} refused, alike`);
});

t.test('a line longer than the byte scan\'s window: escapes and control bytes at its edges', async (t) => {
  const prefix = '{"type":"tool_call","content":"';
  const line = (at: number, piece: string): Buffer => {
    const body = Buffer.alloc(2 * WINDOW + 5000, 0x61);
    const raw = Buffer.concat([Buffer.from(prefix), body, Buffer.from('"}')]);
    raw.write(piece, at, 'latin1');
    return raw;
  };
  for (const edge of [WINDOW - 1, WINDOW, WINDOW + 1, 2 * WINDOW - 1, 2 * WINDOW]) {
    for (const piece of ['\\"', '\\n', '\\u00e9', '\\\\']) {
      const raw = line(edge, piece);
      const full = JSON.parse(raw.toString('utf8'));
      const skimmed = skimParse(raw);
      t.ok(skimmed !== undefined && same({ ...skimmed }, full), `${JSON.stringify(piece)} at ${edge}: read as JSON.parse reads it`);
    }
    for (const bad of ['\x01', '\\x', '"']) {
      const raw = line(edge, bad);
      t.notOk(fullParse(raw).ok, 'JSON.parse refuses it');
      t.equal(skimParse(raw), undefined, `${JSON.stringify(bad)} at ${edge}: left to the full parse`);
    }
  }
});

t.test('the lines the skim leaves to the full parse', async (t) => {
  const big = 'z'.repeat(5000);
  const valid = (s: string) => t.ok(fullParse(Buffer.from(s)).ok, `JSON: ${s.slice(0, 60)}`);
  const left = (s: string | Buffer, why: string) => t.equal(skimParse(Buffer.isBuffer(s) ? s : Buffer.from(s)), undefined, why);
  // Broken inside a large value, where only the scan looks: never taken.
  left(`{"a":"${big}\u0001"}`, 'a raw control character in a large string');
  left(`{"a":"${big}\t"}`, 'a raw tab in a large string');
  left(`{"a":"${big}\\x"}`, 'an unknown escape in a large string');
  left(`{"a":"${big}\\u12G4"}`, 'a bad \\u escape');
  left(`{"a":"${big}\\u12"}`, 'a short \\u escape');
  left(`{"a":["${big}" "${big}"]}`, 'a missing comma in a large array');
  left(`{"a":["${big}",]}`, 'a trailing comma');
  left(`{"a":[01,"${big}"]}`, 'a number with a leading zero');
  left(`{"a":[1.,"${big}"]}`, 'a number without digits after the point');
  left(`{"a":[tru,"${big}"]}`, 'a broken literal');
  left(`{"a":"${big}"}x`, 'something after the object');
  left(`{"a":"${big}"}{"b":1}`, 'glued objects');
  left(`{"a":"${big}"`, 'an unclosed object');
  left(`{"a":"${big}}`, 'an unclosed string');
  left(`{"a":"${big}\\"}`, 'a closing quote escaped');
  left(`["${big}"]`, 'not an object');
  // Valid, and still left: the full parse reads them as well.
  const nul = `{"a":"${big}\\u0000"}`;
  valid(nul);
  left(nul, 'a \\u0000 escape (the stand-ins could be mistaken for it)');
  const tab = `{"a":\t"${big}"}`;
  valid(tab);
  left(tab, 'whitespace other than spaces between tokens');
  const small = `{"a":"${'z'.repeat(100)}"}`;
  left(small, 'no large value');
  t.same(largeValues(Buffer.from(`{"a":"${big}\\\\"}`)), [5, 5 + big.length + 4], 'a final escaped backslash closes the string');
  t.same(skimParse(Buffer.from(`{"a" : "${big}" , "b" : [ 1 , 2 ] }`)), { a: big, b: [1, 2] }, 'spaces between tokens');
  // Invalid UTF-8 inside a string is no error: it reads as U+FFFD either way.
  const torn = Buffer.concat([Buffer.from(`{"a":"${big}`), Buffer.from([0xe6, 0x97]), Buffer.from('","b":"'), Buffer.from([0xff]), Buffer.from('"}')]);
  t.same(skimParse(torn), JSON.parse(torn.toString('utf8')), 'invalid UTF-8 reads as the full parse reads it');
});

// JSONTestSuite is not the project's: it is read from ../shared/jsontestsuite when that
// folder exists next to the repository, and the test says it skipped otherwise.
const SUITE = path.resolve(ROOT, '../shared/jsontestsuite/test_parsing');
const SUITE_DOCS = fs.existsSync(SUITE) ? fs.readdirSync(SUITE).filter((name) => name.endsWith('.json')) : [];

t.test('JSONTestSuite documents inside large lines: the skim takes only what JSON.parse takes', { skip: SUITE_DOCS.length === 0 ? `no JSONTestSuite at ${SUITE}` : false }, async (t) => {
  const pad = `"${'x'.repeat(SKIM_THRESHOLD)}"`;
  let rejected = 0;
  let skimmed = 0;
  for (const name of SUITE_DOCS) {
    const doc = fs.readFileSync(path.join(SUITE, name));
    // In the part that JSON.parse reads (a large string beside it), and inside a large array left unparsed.
    for (const [before, after] of [
      ['{"type":"tool_call","pad":' + pad + ',"v":', '}'],
      ['{"type":"tool_call","v":[', ',' + pad + ']}'],
      ['{"type":"tool_call","v":[' + pad + ',', ']}'],
    ]) {
      const raw = Buffer.concat([Buffer.from(before!), doc, Buffer.from(after!)]);
      const full = fullParse(raw);
      const value = skimParse(raw);
      if (!full.ok) {
        rejected++;
        if (value !== undefined) t.fail(`${name} in ${before!.slice(0, 30)}…: JSON.parse rejects it, the skim took it`);
      } else if (value !== undefined) {
        skimmed++;
        if (!same(value, full.value)) t.fail(`${name}: read differently`);
      }
    }
  }
  t.ok(rejected > 300, `${rejected} lines JSON.parse rejects, none taken by the skim`);
  t.ok(skimmed > 300, `${skimmed} lines skimmed, each read as JSON.parse reads it`);
});

/** Reads `input` through a reader in chunks of `size` bytes; returns what it saw. */
function readAll(input: Buffer, size: number, skim: boolean): { events: unknown[]; problems: string[] } {
  const events: unknown[] = [];
  const problems: string[] = [];
  const reader = new EventReader(
    { record: (r: EventRecord) => events.push([r.line, r.raw.toString('latin1'), r.event]), problem: (p: InputProblem) => problems.push(formatProblem(p)) },
    skim ? { skim: () => true } : {},
  );
  reader.startSource('in');
  for (let i = 0; i < input.length; i += size) reader.write(input.subarray(i, i + size));
  reader.endSource();
  return { events, problems };
}

t.test('through the reader, whatever the chunks, as without the skim', async (t) => {
  const big = 'é"\\'.repeat(1400);
  const bigJson = JSON.stringify(big);
  const input = Buffer.from(
    [
      `{"type":"tool_call","call_id":"1","tool_call":{"shellToolCall":{"args":{"command":"ls"},"result":{"success":{"stdout":${bigJson},"exitCode":0}}}}}`,
      `{"type":"tool_call","broken":"${'q'.repeat(4200)}\u0002"}`,
      `{"type":"tool_call","a":${bigJson}}{"type":"tool_call","b":1}`,
      `{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]}}\r`,
      `{"type":"tool_call","list":[${bigJson},${bigJson}],"n":-1.5e3}`,
      `{"type":"tool_call","cut":${bigJson}`,
    ].join('\n'),
  );
  const whole = readAll(input, input.length, false);
  t.equal(whole.events.length, 5, 'the events of the stream');
  t.equal(whole.problems.length, 2, 'and its problems');
  // A line is skimmed once it is whole, so what matters is where chunks end around
  // lines: every size up to 64, the sizes that end the first chunk on each side of
  // every line end and of the CR, and a spread of the others up to the whole input.
  const sizes = new Set<number>();
  for (let size = 1; size <= 64; size++) sizes.add(size);
  for (let i = 0; i < input.length; i++) {
    if (input[i] === 0x0a || input[i] === 0x0d) for (const d of [-1, 0, 1, 2]) sizes.add(i + d);
  }
  for (let size = 65; size <= input.length; size += 251) sizes.add(size);
  sizes.add(input.length);
  let differ = 0;
  for (const size of sizes) {
    const seen = readAll(input, size, true);
    if (seen.problems.join('\n') !== whole.problems.join('\n') || !same(seen.events, whole.events)) {
      differ++;
      if (differ < 3) t.fail(`chunk size ${size} reads differently`);
    }
  }
  t.equal(differ, 0, `${sizes.size} chunk sizes read the same`);
});

function generate(seed: string): Buffer {
  const ran = spawnSync(process.execPath, [path.join(ROOT, 'bench/generate.mjs'), '--size', '3M', '--seed', seed, '--max-payload', '40k', '--huge-every', '0'], {
    maxBuffer: 64 * 1024 * 1024,
  });
  if (ran.status !== 0) throw new Error(`generate.mjs failed: ${ran.stderr}`);
  return ran.stdout;
}

/** Runs a core over `input` as the tool does (skimming what it asks), or with every line it needs parsed in full. */
function runCore(core: ToolCore, input: Buffer, skim: boolean, size = 64 * 1024): string {
  let out = '';
  const emit = (d: string | Buffer) => (out += d.toString());
  const reader = new EventReader(
    { record: (r) => core.record(r, emit), problem: (p) => core.problem?.(p, emit) },
    { needs: (type) => core.needs!(type), skim: skim ? (type) => core.skim!(type) : undefined },
  );
  reader.startSource('in');
  for (let i = 0; i < input.length; i += size) reader.write(input.subarray(i, i + size));
  reader.endSource();
  core.endSource?.('in', emit);
  core.end(emit);
  return out;
}

t.test('ndjson-tools and ndjson-text give the same output with and without the skim', async (t) => {
  const input = generate('skim');
  let skimmed = 0;
  for (let i = 0, start = 0; i <= input.length; i++) {
    if (i === input.length || input[i] === 0x0a) {
      const line = input.subarray(start, i);
      if (line.includes('"type":"tool_call"') && skimParse(line) !== undefined) skimmed++;
      start = i + 1;
    }
  }
  t.ok(skimmed > 50, `${skimmed} tool_call lines of the stream are skimmed`);
  const toolsRuns: ToolsOptions[] = [{}, { summary: true }, { summary: true, json: true }, { paths: 'all', absolute: true }, { denyRead: ['**/.env'], denyWrite: ['**'], noWrites: true }];
  for (const options of toolsRuns) {
    const a = runCore(new ToolsCore(options), input, true);
    const b = runCore(new ToolsCore(options), input, false);
    t.ok(a.length > 0, `tools ${JSON.stringify(options)} writes something`);
    t.equal(a, b, `tools ${JSON.stringify(options)}`);
  }
  const textRuns: TextOptions[] = [{}, { all: true, tools: true }, { all: true, tools: true, thinking: true, user: true, color: true }];
  for (const options of textRuns) {
    const a = runCore(new TextCore(options), input, true, 4096);
    const b = runCore(new TextCore(options), input, false, 4096);
    t.ok(a.length > 0, `text ${JSON.stringify(options)} writes something`);
    t.equal(a, b, `text ${JSON.stringify(options)}`);
  }
});
