// JSON conformance: every document of JSONTestSuite's test_parsing (y_ must be
// accepted, n_ rejected, i_ either; some span lines, some hold invalid UTF-8) goes
// through the input layer and through each tool without a crash, and the input layer
// agrees with JSON.parse on what is a value and what is an error.
//
// "Agree" means, with the document's bytes decoded as UTF-8 (invalid sequences as
// U+FFFD, as the input layer reads them) and given to JSON.parse:
//   - JSON.parse gives an object: the reader gives exactly that event, and no problem;
//   - JSON.parse gives any other value (a top-level scalar or array, which is no
//     event): the reader gives no event and exactly one problem, `not an object`;
//   - JSON.parse throws: the reader reports at least one problem: nothing bad passes
//     silently.
// Deliberate differences, each documented in the README and checked below:
//   - a UTF-8 byte-order mark at the start is dropped before reading (JSON.parse
//     rejects it): the document after the mark is compared;
//   - an empty or whitespace-only document is an empty stream: no event, no problem;
//   - the reader reads a sequence of values, not one document: values glued together
//     (`{"a":true} "x"`, `{…}{…}`) are each an event or a problem, so a document
//     JSON.parse rejects as "trailing garbage" may also give events;
//   - values spanning lines are read as one value (pretty-printing), and a line end
//     inside a string of a value that spans lines is read as `\n`.
//
// The suite is not the project's: it is read from ../shared/jsontestsuite when that
// folder exists next to the repository, and this test says it skipped otherwise.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { ROOT } from './fixtures/lib/run.js';
import { EventReader } from '../src/io/input.js';
import type { EventRecord, InputProblem } from '../src/io/input.js';
import { INPUT_STATUSES, describeRun, runInProcess, runProblems, tapSafe } from './fixtures/hostile/check.js';
import type { ToolRun } from './fixtures/hostile/check.js';

const SUITE = path.resolve(ROOT, '../shared/jsontestsuite/test_parsing');
const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

interface Read {
  records: EventRecord[];
  problems: InputProblem[];
}

/** Reads bytes through the input layer in chunks of `size` bytes (0: one chunk). */
function read(bytes: Buffer, size = 0): Read {
  const records: EventRecord[] = [];
  const problems: InputProblem[] = [];
  const reader = new EventReader({ record: (r) => records.push(r), problem: (p) => problems.push(p) });
  reader.startSource('doc');
  if (size <= 0) reader.write(bytes);
  else for (let i = 0; i < bytes.length; i += size) reader.write(bytes.subarray(i, i + size));
  reader.endSource();
  return { records, problems };
}

type Reference = { ok: true; value: unknown } | { ok: false; error: string };

function reference(bytes: Buffer): Reference {
  const body = bytes.subarray(0, 3).equals(BOM) ? bytes.subarray(3) : bytes;
  try {
    return { ok: true, value: JSON.parse(body.toString('utf8')) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

const isObject = (v: unknown): boolean => typeof v === 'object' && v !== null && !Array.isArray(v);
const isBlank = (bytes: Buffer): boolean => /^[ \t\r\n]*$/.test((bytes.subarray(0, 3).equals(BOM) ? bytes.subarray(3) : bytes).toString('latin1'));

/** Where the reader and JSON.parse disagree on a document, by the rules above; undefined when they agree. */
function disagreement(bytes: Buffer, got: Read): string | undefined {
  const ref = reference(bytes);
  const summary = `${got.records.length} events, problems [${got.problems.map((p) => `${p.line}: ${p.reason}`).join('; ')}]`;
  if (ref.ok && isObject(ref.value)) {
    if (got.records.length !== 1 || got.problems.length !== 0) return `JSON.parse gives an object; the reader gives ${summary}`;
    if (!isDeepStrictEqual(got.records[0]!.event, ref.value)) return 'the event differs from JSON.parse\'s object';
    if (!isDeepStrictEqual(JSON.parse(got.records[0]!.raw.toString('utf8')), ref.value)) return 'the event\'s raw bytes do not parse to the object';
    return undefined;
  }
  if (ref.ok) {
    if (got.records.length !== 0 || got.problems.length !== 1 || got.problems[0]!.reason !== 'not an object') return `JSON.parse gives a value that is not an object; the reader gives ${summary}`;
    return undefined;
  }
  if (isBlank(bytes)) return got.records.length === 0 && got.problems.length === 0 ? undefined : `an empty document is an empty stream; the reader gives ${summary}`;
  return got.problems.length > 0 ? undefined : `JSON.parse rejects it (${ref.error}); the reader reports no problem (${summary})`;
}

const same = (a: Read, b: Read): boolean =>
  a.records.length === b.records.length &&
  a.problems.length === b.problems.length &&
  a.records.every((r, i) => r.line === b.records[i]!.line && r.raw.equals(b.records[i]!.raw)) &&
  a.problems.every((p, i) => p.line === b.problems[i]!.line && p.reason === b.problems[i]!.reason);

/** The runs each document goes through: every tool, from stdin and (ndjson-result, which reads a file from its end) from the file. */
const DOC_RUNS: readonly ToolRun[] = [
  { tool: 'ndjson-result', args: [] },
  { tool: 'ndjson-result', args: [], file: true },
  { tool: 'ndjson-result', args: ['--all', '--json'], tty: true },
  { tool: 'ndjson-dedupe', args: ['--stats', '--verify'] },
  { tool: 'ndjson-dedupe', args: ['--stats', '--key', 'a'] },
  { tool: 'ndjson-text', args: ['-a', '--thinking'] },
  { tool: 'ndjson-tools', args: [] },
  { tool: 'ndjson-tools', args: ['--summary', '--json'], file: true },
];

const docs = fs.existsSync(SUITE) ? fs.readdirSync(SUITE).filter((f) => f.endsWith('.json')).sort() : [];

t.test('JSONTestSuite test_parsing: the input layer agrees with JSON.parse', { skip: docs.length === 0 ? `no JSONTestSuite at ${SUITE} (it sits beside the repository, in ../shared/jsontestsuite)` : false }, async (t) => {
  const counts = { y: 0, n: 0, i: 0 };
  let disagreements = 0;
  for (const name of docs) {
    counts[name[0] as 'y' | 'n' | 'i']++;
    const bytes = fs.readFileSync(path.join(SUITE, name));
    let got: Read;
    try {
      got = read(bytes);
    } catch (error) {
      t.fail(`${name}: the reader threw ${(error as Error).stack}`);
      continue;
    }
    const why = disagreement(bytes, got);
    if (why) {
      disagreements++;
      t.fail(`${name}: ${why}`);
    }
    if (name.startsWith('y_') && got.problems.length > 0 && !got.problems.every((p) => p.reason === 'not an object')) t.fail(`${name}: a document every parser must accept is reported: ${got.problems[0]!.reason}`);
    if (name.startsWith('n_') && got.problems.length === 0 && !isBlank(bytes)) t.fail(`${name}: a document every parser must reject passes without a problem`);
    // Chunk boundaries anywhere (inside characters, inside tokens) change nothing.
    for (const size of [1, 7]) if (!same(read(bytes, size), got)) t.fail(`${name}: read in ${size}-byte chunks, the reader gives something else`);
  }
  t.equal(disagreements, 0, `${docs.length} documents (${counts.y} y_, ${counts.n} n_, ${counts.i} i_): the input layer agrees with JSON.parse`);
});

t.test('JSONTestSuite test_parsing: every tool reads every document without a crash', { skip: docs.length === 0 ? `no JSONTestSuite at ${SUITE}` : false }, async (t) => {
  let runs = 0;
  for (const name of docs) {
    const file = path.join(SUITE, name);
    const bytes = fs.readFileSync(file);
    for (const run of DOC_RUNS) {
      const ran = await runInProcess(run, [bytes], file);
      runs++;
      for (const p of runProblems(run, bytes, ran, run.file ? file : 'stdin')) t.fail(tapSafe(`${name}: ${describeRun(run)}: ${p}`));
    }
  }
  t.pass(`${runs} runs over ${docs.length} documents, each status in ${INPUT_STATUSES.join(', ')}`);
});

// The agreement on what JSON.parse cannot judge: values over several lines, glued values, line ends.
t.test('values spanning lines, glued values, line ends: the same values JSON.parse gives for each', async (t) => {
  const objects = [
    {},
    { type: 'assistant', message: { content: [{ type: 'text', text: 'a "quoted" }{ brace' }] } },
    { a: [1, 2.5, 0, -1e-300, 1e300, null, true, false, '\u2028', '\ud800'], b: { c: { d: [] } } },
    { k: 'x'.repeat(70000) },
  ];
  for (const [n, value] of objects.entries()) {
    const line = JSON.stringify(value);
    const cases: Array<[string, string, unknown[], number]> = [
      ['one line', `${line}\n`, [value], 0],
      ['pretty-printed', `${JSON.stringify(value, null, 2)}\n`, [value], 0],
      ['pretty-printed with tabs and CRLF', `${JSON.stringify(value, null, '\t').replace(/\n/g, '\r\n')}\r\n`, [value], 0],
      ['glued', `${line}${line}\n`, [value, value], 0],
      ['glued with a space', `${line} ${line}\n`, [value, value], 0],
      ['glued, the second pretty-printed', `${line}${JSON.stringify(value, null, 1)}\n`, [value, value], 0],
      ['a scalar glued after it', `${line} 42\n`, [value], 1],
      ['no final newline', line, [value], 0],
    ];
    for (const [label, text, want, problems] of cases) {
      const got = read(Buffer.from(text));
      const events = got.records.map((r) => r.event);
      const ok = isDeepStrictEqual(events, want) && got.problems.length === problems && got.records.every((r) => isDeepStrictEqual(JSON.parse(r.raw.toString('utf8')), r.event));
      t.ok(ok, `object ${n + 1}, ${label}: ${events.length} events, ${got.problems.length} problems`);
    }
  }
  // Top-level scalars are values, not events: one problem per line, whatever the line holds.
  const scalars = read(Buffer.from('42\n"a"\nnull\n[1,\n2]\n{"a":1}\n'));
  t.same(scalars.problems.map((p) => [p.line, p.reason]), [[1, 'not an object'], [2, 'not an object'], [3, 'not an object'], [4, 'not an object']]);
  t.same(scalars.records.map((r) => r.line), [6]);
  // A line end inside a string of a value that spans lines is read as \n (events with literal newlines have been seen).
  const literal = read(Buffer.from('{"type":"assistant","text":"one\ntwo"}\n'));
  t.same(literal.records.map((r) => r.event), [{ type: 'assistant', text: 'one\ntwo' }]);
});

t.test('deep nesting: a value JSON.parse reads is an event, on one line or over several', async (t) => {
  for (const depth of [1000, 10000, 100000]) {
    const deep = '['.repeat(depth) + ']'.repeat(depth);
    const deepObject = '{"a":'.repeat(depth) + '0' + '}'.repeat(depth);
    for (const [label, text] of [
      ['one line', `{"type":"x","deep":${deep}}\n`],
      ['over two lines', `{"type":"x",\n"deep":${deep}}\n`],
      ['glued', `{"type":"x","deep":${deep}}{"type":"y"}\n`],
      ['objects, over two lines', `{"type":"x",\n"deep":${deepObject}}\n`],
    ] as const) {
      let got: Read;
      try {
        got = read(Buffer.from(text));
      } catch (error) {
        t.fail(`${label}, depth ${depth}: the reader threw ${(error as Error).message}`);
        continue;
      }
      t.same(
        { events: got.records.map((r) => (r.event as { type?: unknown }).type), problems: got.problems.map((p) => p.reason) },
        { events: label === 'glued' ? ['x', 'y'] : ['x'], problems: [] },
        `${label}, depth ${depth}`,
      );
    }
  }
  // Unclosed: a problem, never a hang or a crash.
  const open = read(Buffer.from(`{"a":${'['.repeat(100000)}\n`));
  t.same(open.problems.map((p) => p.reason), ['truncated']);
});
