import t from 'tap';
import { EventReader, LineTooLongError, MAX_LINE, formatProblem, recordSession, retainRecord } from '../src/io/input.js';
import { text } from '../src/text/stream.js';
import { dedupe } from '../src/dedupe/stream.js';
import { TOKEN_SLICE } from '../src/io/json-tokens.js';
import type { EventRecord, InputProblem } from '../src/io/input.js';

interface Seen {
  events: Array<{ line: number; event: unknown; raw: string }>;
  problems: string[];
}

/** Reads `input` through an EventReader in chunks of `size` bytes (0: one chunk). */
function read(input: Buffer | string, size = 0, source = 'in.ndjson'): Seen {
  const seen: Seen = { events: [], problems: [] };
  const reader = new EventReader({
    record: (r: EventRecord) => seen.events.push({ line: r.line, event: r.event, raw: r.raw.toString('utf8') }),
    problem: (p: InputProblem) => seen.problems.push(formatProblem(p)),
  });
  reader.startSource(source);
  const buf = Buffer.isBuffer(input) ? input : Buffer.from(input);
  if (size <= 0) reader.write(buf);
  else for (let i = 0; i < buf.length; i += size) reader.write(buf.subarray(i, i + size));
  reader.endSource();
  return seen;
}

const tricky = Buffer.concat([
  Buffer.from([0xef, 0xbb, 0xbf]),
  Buffer.from(
    [
      '{"type":"system","subtype":"init","session_id":"s"}\r',
      '',
      '   ',
      'Update available: 1.2.3 → 1.2.4',
      '{"type":"assistant","message":{"content":[{"type":"text","text":"héllo ✓ 😀"}]}}',
      '{"a":1}{"b":2}',
      '{',
      '  "type": "result",',
      '  "result": "ok"',
      '}',
      '42',
      '[]',
      '{"type":"assistant","text":"two',
      'lines"}',
      '{"type":"cut","text":"never end',
      '{"type":"after"}',
      '{"type":"last","partial":',
    ].join('\n'),
  ),
]);

t.test('reads every quirk of real input', async (t) => {
  const seen = read(tricky);
  t.same(
    seen.events.map((e) => [e.line, e.event]),
    [
      [1, { type: 'system', subtype: 'init', session_id: 's' }],
      [5, { type: 'assistant', message: { content: [{ type: 'text', text: 'héllo ✓ 😀' }] } }],
      [6, { a: 1 }],
      [6, { b: 2 }],
      [7, { type: 'result', result: 'ok' }],
      [13, { type: 'assistant', text: 'two\nlines' }],
      [16, { type: 'after' }],
    ],
  );
  t.equal(seen.events[0]!.raw, '{"type":"system","subtype":"init","session_id":"s"}', 'raw bytes without BOM or CR');
  t.equal(seen.events[2]!.raw, '{"a":1}', 'glued values become compact lines');
  // Files joined with cat: each may start with a byte-order mark.
  const joined = read(Buffer.from('\ufeff{"type":"result","result":"one"}\r\n\ufeff{"type":"result","result":"two"}\r\n'));
  t.same(joined.events.map((e) => e.raw), ['{"type":"result","result":"one"}', '{"type":"result","result":"two"}'], 'a byte-order mark at the start of any line');
  t.same(joined.problems, []);
  // And the first without its last newline: the mark between two values glued together.
  const bare = read(Buffer.from('{"type":"result","result":"one"}\ufeff{"type":"result","result":"two"}\n{"type":"thinking","text":"x"} \ufeff {"type":"result","result":"three"}\n'));
  t.same(bare.events.map((e) => [e.line, e.raw]), [[1, '{"type":"result","result":"one"}'], [1, '{"type":"result","result":"two"}'], [2, '{"type":"thinking","text":"x"}'], [2, '{"type":"result","result":"three"}']], 'a byte-order mark between two values');
  t.same(bare.problems, []);
  // Anywhere else (in a value, after a number), it is no JSON, as JSON.parse has it.
  t.same(read(Buffer.from('{"type":"x","a":\ufeff1}\n{"type":"x","a":"\ufeff"}\n')).problems, ['in.ndjson:1: not JSON: {"type":"x","a":\\ufeff1}']);
  // In a number after an object: the line is no JSON, as `{…} 4x2` is (not two numbers); the object before is read.
  const inNumber = read(Buffer.from('{"type":"x"}\ufeff4\ufeff2\n'));
  t.same(inNumber.events.map((e) => e.raw), ['{"type":"x"}']);
  t.same(inNumber.problems, ['in.ndjson:1: not JSON: {"type":"x"}\\ufeff4\\ufeff2']);
  // A value that is no object before an object: each is read, as where an object comes first.
  const first = read(Buffer.from('42 {"type":"result","result":"one"}\n"x"{"type":"result","result":"two"}\n0 errors {"type":"result"}\n'));
  t.same(first.events.map((e) => [e.line, e.raw]), [[1, '{"type":"result","result":"one"}'], [2, '{"type":"result","result":"two"}']]);
  t.same(first.problems, ['in.ndjson:1: not an object: 42', 'in.ndjson:2: not an object: "x"', 'in.ndjson:3: not JSON: 0 errors {"type":"result"}']);
  const glued = read(Buffer.from('{"type":"result","result":"ok","session_id":"s"} [1,\n 2] "x"\n'));
  t.same(glued.problems, ['in.ndjson:1: not an object: [1,2]', 'in.ndjson:2: not an object: "x"'], 'a value glued after an object: the excerpt is of the value');
  // A word after an object, whatever letter it starts with (the tokenizer waits on one that may start `true`, `false`,
  // `null`): reported, at every chunk size, the object read; the line not JSON, or cut short where the word may still be
  // one of those; so where the tokenizer finds the word broken at once (`xote`). A string cut by the line's end goes on to
  // the next line.
  const result = '{"type":"result","result":"ok","session_id":"s"}';
  const words = `${result} note\n${result} xote\n${result}\tn\n${result} fals\n{"a":1} "abc\n${result}\n{"b":1,\n"c":2} nul\n`;
  for (let size = 0; size <= words.length; size += size < 8 ? 1 : 7) {
    const seen = read(Buffer.from(words), size);
    t.same(
      seen.events.map((e) => [e.line, e.raw]),
      [[1, result], [2, result], [3, result], [4, result], [5, '{"a":1}'], [6, result], [7, '{"b":1,"c":2}']],
      `the events, chunks of ${size}`,
    );
    t.same(
      seen.problems,
      [
        `in.ndjson:1: not JSON: ${result} note`,
        `in.ndjson:2: not JSON: ${result} xote`,
        `in.ndjson:3: truncated: ${result}\\x09n`,
        `in.ndjson:4: truncated: ${result} fals`,
        'in.ndjson:5: truncated: {"a":1} "abc',
        'in.ndjson:8: not JSON: "c":2} nul',
      ],
      `the problems, chunks of ${size}`,
    );
  }
  // A value glued after one spread over lines, cut by the end of the input (in a key, in a string, after a colon): cut
  // short, as on one line.
  for (const tail of ['{"type":"assistant","mess', '{"type":"assistant","message":"wor', '{"type":"assistant","message":', ' ["a",']) {
    const spread = `{"type":"result",\n"result":"ok"}${tail}`;
    for (let size = 0; size <= spread.length; size += size < 8 ? 1 : 5) {
      const seen = read(Buffer.from(spread), size);
      t.same(seen.events.map((e) => e.raw), ['{"type":"result","result":"ok"}'], `${tail}: the result, chunks of ${size}`);
      t.same(seen.problems, [`in.ndjson:2: truncated: "result":"ok"}${tail}`], `${tail}: line 2 cut short, chunks of ${size}`);
    }
  }
  // Whatever follows values that read, on a line on which none was open when it began: those values are read, in order,
  // and the rest of the line reported, at every chunk size; a run's first event glued on the end read after the report.
  const r = '{"type":"result","result":"ok"}';
  const system = '{"type":"system","subtype":"init"}';
  const junk: Array<[string, string[], string[]]> = [
    [`${r}}`, [r], []],
    [`${r} {"a":1} [2] "x" 3 {"b":1}x`, [r, '{"a":1}', '{"b":1}'], ['not an object: [2]', 'not an object: "x"', 'not an object: 3']],
    [`${r},{"a":1}`, [r], []],
    [`${r}Update{"type":"user"}`, [r], []],
    [`  ${r}\t]`, [r], []],
    ['{"s":"}]\\"}"}xx', ['{"s":"}]\\"}"}'], []],
    ['{"a":[{"b":"{"}]} @', ['{"a":[{"b":"{"}]}'], []],
  ];
  const junkInput = [...junk.map(([line]) => line), `${r} x${system}`].join('\n') + '\n';
  const excerpt = (line: string): string => line.trim().replace(/\t/g, '\\x09');
  for (let size = 0; size <= junkInput.length; size += size < 8 ? 1 : 11) {
    const seen = read(Buffer.from(junkInput), size);
    t.same(
      seen.events.map((e) => [e.line, e.raw]),
      [...junk.flatMap(([, values], i) => values.map((v) => [i + 1, v])), [8, r], [8, system]],
      `values before a break, chunks of ${size}`,
    );
    t.same(
      seen.problems,
      [...junk.flatMap(([line, , others], i) => [...others, `not JSON: ${excerpt(line)}`].map((p) => `in.ndjson:${i + 1}: ${p}`)), `in.ndjson:8: not JSON: ${r} x`],
      `the lines reported, chunks of ${size}`,
    );
  }
  // Broken before any value closes: the whole line, as before (and a value that is no object before the break).
  // A word the tokenizer judges only once more comes (`tru}`) is broken in the object too.
  const x20 = 'x'.repeat(20);
  const before = read(Buffer.from(`{"a":x}${r}\n[1,2}${r}\n42 x\n{"a":tru} ${x20}\n[tr] ${x20}\n`));
  t.same(before.events, []);
  t.same(before.problems, [
    `in.ndjson:1: not JSON: {"a":x}${r}`,
    `in.ndjson:2: not JSON: [1,2}${r}`,
    'in.ndjson:3: not JSON: 42 x',
    `in.ndjson:4: not JSON: {"a":tru} ${x20}`,
    `in.ndjson:5: not JSON: [tr] ${x20}`,
  ]);
  // One broken there, where the tokenizer finds it at once, breaks the value spread over lines with it, as `xote` does a line.
  const broken = read(Buffer.from('{"type":"result",\n"result":"ok"}{"type":"assistant","message":wor'));
  t.same(broken.events, [], 'broken after a value spread over lines: no event');
  t.same(broken.problems, ['in.ndjson:1: truncated: {"type":"result",', 'in.ndjson:2: not JSON: "result":"ok"}{"type":"assistant","message":wor']);
  // A value spread over lines, then one glued on its last line cut inside a word, at the end of the input.
  const cutWord = read(Buffer.from('{\n"type":"assistant",\n"session_id":"s1"\n} {"type":"result","is_error":f'));
  t.same(cutWord.events.map((e) => e.raw), ['{"type":"assistant","session_id":"s1"}'], 'cut in a word: the value before it read');
  t.same(cutWord.problems, ['in.ndjson:4: truncated: } {"type":"result","is_error":f']);
  t.same(seen.problems, [
    'in.ndjson:4: not JSON: Update available: 1.2.3 → 1.2.4',
    'in.ndjson:11: not an object: 42',
    'in.ndjson:12: not an object: []',
    // Cut short, and followed by a line that cannot go on with it: as cut as a last line.
    'in.ndjson:15: truncated: {"type":"cut","text":"never end',
    'in.ndjson:17: truncated: {"type":"last","partial":',
  ]);
});

t.test('the same at every chunk size', async (t) => {
  const whole = read(tricky);
  for (let size = 1; size <= tricky.length; size++) {
    const seen = read(tricky, size);
    if (JSON.stringify(seen) !== JSON.stringify(whole)) {
      t.same(seen, whole, `chunk size ${size}`);
      return;
    }
  }
  t.pass(`all ${tricky.length} chunk sizes agree`);
});

t.test('a last line without a newline is an event when it is whole', async (t) => {
  const seen = read('{"a":1}\n{"b":2}');
  t.same(seen.events.map((e) => e.event), [{ a: 1 }, { b: 2 }]);
  t.same(seen.problems, []);
});

t.test('the documentation example, glued without newlines', async (t) => {
  const glued = '{"type":"system","session_id":"x"}{"type":"user","session_id":"x"}{"type":"result","result":"r","session_id":"x"}';
  for (const size of [0, 1, 5, 17]) {
    const seen = read(glued, size);
    t.same(seen.events.map((e) => (e.event as { type: string }).type), ['system', 'user', 'result'], `chunk ${size}`);
    t.same(seen.problems, []);
  }
});

t.test('invalid UTF-8 never crashes the reader', async (t) => {
  const bad = Buffer.concat([Buffer.from('{"text":"a'), Buffer.from([0xff, 0xc3]), Buffer.from('b"}\n'), Buffer.from([0x80, 0x81, 0x0a])]);
  const seen = read(bad, 1);
  t.equal(seen.events.length, 1);
  t.equal((seen.events[0]!.event as { text: string }).text, 'a\ufffd\ufffdb');
  t.same(seen.problems, ['in.ndjson:2: not JSON: \ufffd\ufffd']);
});

/** A reader that notes each record as `source:line`, and each problem as it is reported. */
function notingReader(): { reader: EventReader; seen: string[] } {
  const seen: string[] = [];
  const reader = new EventReader({
    record: (r) => seen.push(`${r.source}:${r.line}`),
    problem: (p) => seen.push(formatProblem(p)),
  });
  return { reader, seen };
}

t.test('several sources keep their own line numbers', async (t) => {
  const { reader, seen } = notingReader();
  reader.startSource('a');
  reader.write(Buffer.from('{}\n{"x":'));
  reader.startSource('b');
  reader.write(Buffer.from('\n{}\n'));
  reader.endSource();
  t.same(seen, ['a:1', 'a:2: truncated: {"x":', 'b:2']);
});

t.test('a source whose reading was stopped: what it ends in is interrupted, not truncated', async (t) => {
  const { reader, seen } = notingReader();
  reader.startSource('a');
  // A line cut by the stop, and a value over several lines left open by it.
  reader.write(Buffer.from('{}\n{"type":"assistant","message":'));
  reader.endSource(true);
  reader.startSource('b');
  reader.write(Buffer.from('{"type":"x",\n"deep":[1,\n'));
  reader.endSource(true);
  // A complete object without its newline is an event, stopped or not.
  reader.startSource('c');
  reader.write(Buffer.from('{"type":"y"}'));
  reader.endSource(true);
  // The value is reported at the line it starts on, and the lines after it read again, as at any end.
  t.same(seen, ['a:1', 'a:2: interrupted: {"type":"assistant","message":', 'b:1: interrupted: {"type":"x",', 'b:2: not JSON: "deep":[1,', 'c:1']);
  // Not stopped: truncated, as before.
  seen.length = 0;
  reader.startSource('d');
  reader.write(Buffer.from('{"type":"z",'));
  reader.endSource();
  t.same(seen, ['d:1: truncated: {"type":"z",']);
});

t.test('a 64 MiB line', async (t) => {
  const big = 'x'.repeat(64 * 1024 * 1024);
  const line = Buffer.from(`{"type":"tool_call","content":"${big}"}\n{"type":"result"}\n`);
  const seen: EventRecord[] = [];
  const reader = new EventReader({ record: (r) => seen.push(r), problem: () => t.fail('no problem expected') });
  for (let i = 0; i < line.length; i += 65536) reader.write(line.subarray(i, i + 65536));
  reader.endSource();
  t.equal(seen.length, 2);
  t.equal((seen[0]!.event as { content: string }).content.length, big.length);
  t.equal(seen[1]!.line, 2);
});

// Readers for the tests of maxLine: one of every event, one that lets thinking lines by in runs.
const READERS_OF_LENGTHS = {
  'every event': {},
  'lines let by': { needs: (type: string) => type === 'result', passes: (type: string) => type === 'thinking' },
  'deltas joined': { needs: (type: string) => type === 'assistant' || type === 'result', joinDeltas: true },
};

t.test('a line longer than maxLine: the write that makes it so fails, whatever the chunks', async (t) => {
  t.equal(MAX_LINE, 2 ** 32, '4 GiB by default');
  const head = '{"type":"thinking","text":"';
  for (const size of [1, 7, 60, 100, 101, 1000]) {
    const seen: EventRecord[] = [];
    const reader = new EventReader({ record: (r) => seen.push(r), problem: () => t.fail('no problem expected') }, { maxLine: 100 });
    reader.startSource('in.ndjson');
    // A line of exactly 100 bytes is read; the next, never ended, fails once it passes 100.
    const ok = `${head}${'a'.repeat(100 - head.length - 2)}"}\n`;
    const input = Buffer.from(`${ok}{"type":"result"}\n${head}${'z'.repeat(200)}`);
    let failure: unknown;
    let at = 0;
    try {
      for (; at < input.length; at += size) reader.write(input.subarray(at, at + size));
    } catch (error) {
      failure = error;
    }
    t.ok(failure instanceof LineTooLongError, `chunks of ${size}: a LineTooLongError`);
    t.equal((failure as Error).message, `in.ndjson:3: line too long: ${head}${'z'.repeat(60 - head.length)}… (more than 100 bytes: the rest of the input is not read)`, `chunks of ${size}: its message`);
    t.ok(at + size > ok.length + 18 + 100, `chunks of ${size}: at the write that passes the limit`);
    t.same(
      seen.map((r) => r.line),
      [1, 2],
      `chunks of ${size}: the lines before it are read`,
    );
  }
});

t.test('a line longer than maxLine, ended in the chunk it came in: it fails the write as well, whatever the reader lets by', async (t) => {
  const head = '{"type":"thinking","text":"';
  const ok = `${head}${'a'.repeat(100 - head.length - 2)}"}\n`;
  const delta = (text: string) => `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"${text}"}]},"session_id":"s","timestamp_ms":1}\n`;
  const inputs = [
    Buffer.from(`${ok}{"type":"result"}\n{"type":"thinking","text":"b"}\n${head}${'z'.repeat(200)}"}\n{"type":"result"}\n`),
    // Deltas after the first read as a joiner reads them (see ReaderOptions.joinDeltas): measured too.
    Buffer.from(`${ok}{"type":"result"}\n${delta('hi')}${delta('z'.repeat(200))}${delta('bye')}`),
  ];
  for (const [name, options] of Object.entries(READERS_OF_LENGTHS)) for (const input of inputs) {
    for (const size of [0, 7, 100, 101, 1000]) {
      const seen: number[] = [];
      const reader = new EventReader({ record: (r) => seen.push(r.line), problem: () => t.fail('no problem expected') }, { ...options, maxLine: 150 });
      reader.startSource('in.ndjson');
      let failure: unknown;
      try {
        if (size === 0) reader.write(input);
        else for (let at = 0; at < input.length; at += size) reader.write(input.subarray(at, at + size));
      } catch (error) {
        failure = error;
      }
      t.ok(failure instanceof LineTooLongError, `${name}, chunks of ${size || 'all'}: a LineTooLongError`);
      t.match((failure as Error).message, /^in\.ndjson:4: line too long: /, `${name}, chunks of ${size || 'all'}: at its line`);
      t.same(seen, [1, 2, 3].slice(0, seen.length), `${name}, chunks of ${size || 'all'}: only lines before it read`);
      t.equal(seen.at(-1) ?? 3, 3, `${name}, chunks of ${size || 'all'}: the lines before it handed over (the last of a run at least)`);
    }
  }
});

t.test('a line longer than maxLine stops a tool stream: its output so far, a line of text ended, then the error', async (t) => {
  const delta = (s: string): string => JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: s }] }, session_id: 's', timestamp_ms: 1 });
  const input = `${delta('Hello')}\n${delta(' world')}\n{"type":"assistant","x":"${'x'.repeat(5000)}`;
  const run = async (stream: NodeJS.ReadWriteStream): Promise<{ out: string; error: unknown }> => {
    let out = '';
    stream.on('data', (d: Buffer) => (out += d.toString()));
    const error = await new Promise<unknown>((resolve) => {
      stream.on('error', resolve);
      stream.on('end', () => resolve(undefined));
      stream.end(input);
    });
    return { out, error };
  };
  const live = await run(text({ all: true, maxLine: 1000 }));
  t.equal(live.out, 'Hello world\n', 'ndjson-text --all: the text so far, its line ended');
  t.match(String((live.error as Error).message), /^stdin:3: line too long: .* \(more than 1000 bytes: the rest of the input is not read\)$/);
  const copied = await run(dedupe({ maxLine: 1000 }));
  t.equal(copied.out, `${delta('Hello')}\n${delta(' world')}\n`, 'ndjson-dedupe: the lines before it');
  t.ok(copied.error instanceof LineTooLongError);
});

t.test('control characters in excerpts are made visible', async (t) => {
  const seen = read('\x1b]52;c;aGVsbG8=\x07 not json\n');
  t.same(seen.problems, ['in.ndjson:1: not JSON: \\x1b]52;c;aGVsbG8=\\x07 not json']);
  // The white space JSON allows around a value is left out; any other, which may be what makes the line no JSON, is shown.
  const spaces = read('{"type":"x"}\x0c\n\u00a0\n \ufeff\n \t{"a":1}\u2028\n\u2003{"b":2}\n{"c":"\u200d"} x\n{"type":"result",\u3000"x":1}\n');
  t.same(spaces.problems, [
    'in.ndjson:1: not JSON: {"type":"x"}\\x0c',
    'in.ndjson:2: not JSON: \\u00a0',
    'in.ndjson:3: not JSON: \\ufeff',
    'in.ndjson:4: not JSON: {"a":1}\\u2028',
    'in.ndjson:5: not JSON: \\u2003{"b":2}',
    // Joiners belong to the text of many scripts: left as written.
    'in.ndjson:6: not JSON: {"c":"\u200d"} x',
    // The ideographic space, between two tokens, is what makes the line no JSON: shown.
    'in.ndjson:7: not JSON: {"type":"result",\\u3000"x":1}',
  ]);
});

t.test('noise: a line no JSON value starts, of any length, is excerpted as any line is', async (t) => {
  // Every byte a line may start with but those of a value, white space, a byte-order mark's and a line's end.
  const starts = Array.from({ length: 256 }, (_, b) => b).filter((b) => !'{["-0123456789tfn \t\r\n\xef'.includes(String.fromCharCode(b)));
  for (const b of starts) {
    const seen = read(Buffer.concat([Buffer.from([b]), Buffer.from(' not json {"type":"result"}\n')]));
    t.equal(seen.problems.length, 1, `byte ${b}`);
    t.match(seen.problems[0], /^in\.ndjson:1: not JSON: .* not json \{"type":"result"\}$/, `byte ${b}: ${seen.problems[0]}`);
    t.equal(seen.events.length, 0);
  }
  // Printable ASCII around 60 characters and 240 bytes, with spaces around: the first 60 characters but those spaces,
  // and `…` when there are more, or more than 240 bytes.
  for (const length of [1, 59, 60, 61, 120, 238, 239, 240, 241, 300]) {
    for (const [before, after] of [['', ''], ['  ', ''], ['', ' \t '], ['\t', '  ']]) {
      const body = Array.from({ length }, (_, i) => 'Update available, run npm i'[i % 27]).join('').replace(/^ | $/g, 'x');
      const line = `${before}${body}${after}`;
      const head = Buffer.from(line).subarray(0, 240).toString('latin1').trim();
      const more = head.length > 60 || line.length > 240;
      const [problem] = read(`${line}\n`).problems;
      t.equal(problem, `in.ndjson:1: not JSON: ${head.slice(0, 60)}${more ? '…' : ''}`, `${JSON.stringify(before)} ${length} ${JSON.stringify(after)}`);
    }
  }
  // Not ASCII, or a control character among the first 240 bytes: made visible as before.
  t.same(read('Update → 2.0\x1b[0m\n').problems, ['in.ndjson:1: not JSON: Update → 2.0\\x1b[0m']);
  t.same(read(`${'x'.repeat(239)}\u00a0 and more\n`).problems, [`in.ndjson:1: not JSON: ${'x'.repeat(60)}…`]);
  // The excerpt's bytes end between two characters: a character cut there would be shown as U+FFFD, which the line
  // does not hold (here, after the white space left out, nothing but the mark that the line goes on).
  t.same(read(`${' '.repeat(239)}\u00e9 not json\n`).problems, ['in.ndjson:1: not JSON: …']);
  t.same(read(`${' '.repeat(238)}\u{1f600} not json\n`).problems, ['in.ndjson:1: not JSON: …']);
  // Bytes that are no UTF-8 are not backed over past a character's length: what is shown is what is there.
  t.match(read(Buffer.concat([Buffer.from('{'), Buffer.alloc(300, 0x80), Buffer.from('\n')])).problems[0], /^in\.ndjson:1: not JSON: \{\ufffd+…$/);
  for (const lead of ['', 'a', 'ab', 'abc']) {
    for (const c of ['\u00e9', '\u20ac', '\u{1f600}']) {
      const line = `${lead}${c.repeat(150)} x`;
      const [problem] = read(`${line}\n`).problems;
      t.notMatch(problem, /\ufffd/, `${JSON.stringify(lead)} then ${JSON.stringify(c)}: no character cut`);
      t.equal(problem, `in.ndjson:1: not JSON: ${Array.from(line).slice(0, 60).join('')}…`);
    }
  }
});

t.test('lines that each leave a value open: read again one after another, each reported once, in order', async (t) => {
  const n = 3000;
  const opens = '[\n'.repeat(n);
  // Broken by a last line: each value begun on a line fails there (it took a call inside another for each, and the stack
  // ran out); at the end of the input, each is cut short.
  for (const [input, last] of [
    [`${opens}x\n`, ['in.ndjson:3001: not JSON: x']],
    [opens, []],
  ] as const) {
    for (const size of [0, 4096]) {
      const seen = read(input, size);
      t.equal(seen.events.length, 0);
      t.equal(seen.problems.length, n + last.length, `${last.length ? 'broken' : 'at the end'}, chunks of ${size}: every line once`);
      t.same(seen.problems.slice(0, 3), ['in.ndjson:1: truncated: [', 'in.ndjson:2: truncated: [', 'in.ndjson:3: truncated: [']);
      t.ok(seen.problems.every((p, i) => p.startsWith(`in.ndjson:${i + 1}: `)), 'in the order of the lines');
      t.same(seen.problems.slice(n), last);
    }
  }
  // A value begun on a line read again is read as it is (the lines after it, an event), until 64 values have failed in a
  // row: then it fails at its line's end, reported there, and so do the lines after it.
  const event = '{"type":"user",\n"n":1}\n';
  for (const [before, read_] of [[1, true], [63, true], [64, false]] as const) {
    const seen = read(`${'{"a":\n'.repeat(before)}${event}x\n`);
    t.same(seen.events.map((e) => e.line), read_ ? [before + 1] : [], `${before} lines of [ before it: the event ${read_ ? 'read' : 'reported'}`);
    t.same(seen.problems.slice(before), read_ ? [`in.ndjson:${before + 3}: not JSON: x`] : [`in.ndjson:${before + 1}: truncated: {"type":"user",`, `in.ndjson:${before + 2}: not JSON: "n":1}`, `in.ndjson:${before + 3}: not JSON: x`]);
  }
});

t.test("an array of events that fails: the lines of an element read as an event are not read again", async (t) => {
  for (const [input, events, problems] of [
    // The element's line goes on in the array (`,`): the next line cuts it, as it cuts one without the comma.
    ['[\n{"type":"user","n":1},\nx\n', [2], ['in.ndjson:2: truncated: {"type":"user","n":1},', 'in.ndjson:3: not JSON: x']],
    ['[\n{"type":"user","n":1}\nx\n', [2], ['in.ndjson:2: truncated: {"type":"user","n":1}', 'in.ndjson:3: not JSON: x']],
    // Broken on the element's own line: the line is not JSON, as an array on one line broken so is.
    ['[\n{"type":"user","n":1}, x\n', [2], ['in.ndjson:2: not JSON: {"type":"user","n":1}, x']],
    // An element over lines: its first line reported with the cut, the others read with it (not read again as lines).
    ['[\n{"type":"user",\n"n":1}\nx\n', [2], ['in.ndjson:2: truncated: {"type":"user",', 'in.ndjson:4: not JSON: x']],
    // Broken on its last line: that line and its first are not JSON, and an object inside it is no event.
    ['[\n{"type":"user","a":\n[{"type":"text"}]}, x\n', [2], ['in.ndjson:2: not JSON: {"type":"user","a":', 'in.ndjson:3: not JSON: [{"type":"text"}]}, x']],
    // As where a second element has begun.
    ['[\n{"type":"user","n":1},\n{"type":"user","n":2},\nx\n', [2, 3], ['in.ndjson:3: truncated: {"type":"user","n":2},', 'in.ndjson:4: not JSON: x']],
    ['[\n{"type":"user","n":1},\n{"type":"user","n":2}, x\n', [2, 3], ['in.ndjson:3: not JSON: {"type":"user","n":2}, x']],
  ] as const) {
    for (const size of [0, 1, 5]) {
      const seen = read(input, size);
      t.same(seen.events.map((e) => e.line), events, `${JSON.stringify(input)}, chunks of ${size}: each event once`);
      t.same(seen.problems, problems);
    }
  }
});

t.test('ElementBounds finds where the elements of an array end on a line, not inside strings', async (t) => {
  const { ElementBounds } = await import('../src/io/input.js');
  const all = (text: string, depth: number, inString: boolean, limit = text.length + 1): number[] => {
    const ends = new ElementBounds(text, depth, inString);
    const found: number[] = [];
    for (let at = ends.next(limit); at < limit; at = ends.next(limit)) found.push(at);
    return found;
  };
  t.same(all('{"a":1}, x', 1, false), [1, 7], 'one element, then what breaks the array');
  t.same(all('{"a":[1,{"b":2}]},{"c":"}"},', 1, false), [1, 17, 19, 27], 'nested values and a brace in a string');
  t.same(all('"n":1}, {"a":"\\\\"}', 2, false), [6, 9, 18], 'the end of an element begun on a line before, an escaped backslash');
  t.same(all('x"}, {}', 2, true), [3, 6, 7], 'a line that begins inside a string');
  t.same(all('"a":1', 2, false), [], 'none starts or ends');
  t.same(all('{"a":1}] x', 1, false), [1, 7, 8], "the array's own end too");
  // Asked for piece by piece, as the slow path asks (a slice at most each time): each place once, the limit where none is
  // before it (a place at the limit is the same cut).
  const ends = new ElementBounds('{},{},{}', 1, false);
  t.same([ends.next(1), ends.next(4), ends.next(4), ends.next(4), ends.next(8), ends.next(8), ends.next(8)], [1, 2, 4, 4, 5, 7, 8]);
});

t.test('peekType reads the first key only when it is certain', async (t) => {
  const { peekType } = await import('../src/io/input.js');
  t.equal(peekType(Buffer.from('{"type":"tool_call","subtype":"started"}')), 'tool_call');
  t.equal(peekType(Buffer.from('{"type":"result"}')), 'result');
  t.equal(peekType(Buffer.from('{ "type":"result"}')), undefined, 'not exactly the prefix');
  t.equal(peekType(Buffer.from('{"type":"res\\"ult"}')), undefined, 'an escape');
  t.equal(peekType(Buffer.from('{"type":"résumé","x":1}')), undefined, 'not ASCII');
  t.equal(peekType(Buffer.from('{"type":"a"x}')), undefined, 'not followed by , or }');
  t.equal(peekType(Buffer.from('{"subtype":"x","type":"a"}')), undefined, 'type not first');
});

t.test('peekSession reads only a top-level session_id among the last scalar members', async (t) => {
  const { peekSession } = await import('../src/io/input.js');
  const p = (s: string) => peekSession(Buffer.from(s));
  t.equal(p('{"type":"x","session_id":"abc","timestamp_ms":17,"ok":true,"n":null}'), 'abc');
  t.equal(p('{"type":"x","message":{"a":[1]},"session_id":"abc"}'), 'abc');
  t.equal(p('{"session_id":"abc"}'), 'abc');
  t.equal(p('{"type":"x","nested":{"session_id":"abc"}}'), undefined, 'nested: not top-level');
  t.equal(p('{"type":"x","session_id":"abc","more":{"k":1}}'), undefined, 'an object after it: not certain');
  t.equal(p('{"type":"x","text":"he said \\"session_id\\":\\"abc\\"","z":1}'), undefined, 'inside a string');
  t.equal(p('{"type":"x","session_id":"a\\u0062c"}'), undefined, 'an escape: parse instead');
  t.equal(p('{"type":"x"}'), undefined);
  t.equal(p('{"type":"x","session_id":"s1","t":-1.5E+3,"u":false,"v":"","w":null}'), 's1', 'numbers, literals, empty strings after it');
  t.equal(p('{"type":"x","session_id":"s1","list":[1]}'), undefined, 'an array after it');
  t.equal(p('{"type":"x","session_id":"sé"}'), undefined, 'not ASCII: parse instead');
  t.equal(p('{"type":"x","session_id":17}'), undefined, 'not a string');
  t.equal(p('{"type":"x","session_id":"a"} '), undefined, 'not ending with }');
  t.equal(p('{"type":"x","session_id":"a"}'), 'a');
  t.equal(p('{"type":"x","session_id":"b"}'), 'b', 'a new id after another');
  // The last id found is compared in place first: a value equal to it under another key, or a longer value ending like it, is not it.
  t.equal(p('{"type":"x","session_id":"c","other":"b"}'), 'c', 'the last id as the value of another key');
  t.equal(p('{"type":"x","session_id":"ab"}'), 'ab', 'a value ending with the last id');
  t.equal(p('{"type":"x","text":"\\"session_id\\":\\"ab"}'), undefined, 'the last id after an escaped quote, in a string');
  t.equal(p('{"type":"x","session_id":"ab"}'), 'ab', 'the same id again');
  // A key given twice: JSON.parse keeps the last, here no string, and the event has no session.
  t.equal(p('{"type":"x","session_id":"ab","session_id":null}'), undefined, 'a later session_id of null');
  t.equal(p('{"type":"x","session_id":"ab","session_id":1,"n":2}'), undefined, 'a later session_id of a number, members after it');
  t.equal(p('{"type":"x","session_id":null,"session_id":"ab"}'), 'ab', 'a later string session_id is the one kept');
});

t.test('tornSession reads the session a line cut short names at its top level, when it got that far', async (t) => {
  const { tornSession } = await import('../src/io/input.js');
  const p = (s: string) => tornSession(Buffer.from(s));
  t.equal(p('{"type":"system","subtype":"init","session_id":"s2","model":"Au'), 's2');
  t.equal(p('{"type":"system", "session_id" : "s2"'), 's2', 'spaces around the colon');
  t.equal(p('{"type":"system","subtype":"init","session_id":"s2'), undefined, 'the id itself cut');
  t.equal(p('{"type":"assistant","message":{"session_id":"nested"},"text":"mo'), undefined, 'one nested in a value is not the line\'s');
  t.equal(p('{"type":"assistant","text":"\\"session_id\\":\\"in a string\\"","session_id":"s3","x":"cu'), 's3', 'one in a string is not a key');
  t.equal(p('{"type":"assistant","message":{"a":[{"b":1}]},"session_id":"s4","z'), 's4', 'after nested values, the line\'s own');
  t.equal(p('{"type":"x","session_id":"s\\u0035","more'), undefined, 'an escape in the id: not read');
  t.equal(p('{"type":"x","session_id":7,"more'), undefined, 'not a string');
  t.equal(p('{"type":"assistant","message":{"content":[{"type":"text","text":"mo'), undefined, 'none yet');
});

t.test('with needs, unneeded lines are handed over unparsed and give the same events', async (t) => {
  const { recordType, recordSession } = await import('../src/io/input.js');
  const input = [
    '{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]},"session_id":"s","timestamp_ms":1}',
    '{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"readToolCall":{"args":{"path":"a"}}},"session_id":"s"}',
    '{"type":"tool_call","a":1}{"type":"tool_call","b":2}',
    '{"type":"tool_call","broken":,"session_id":"s"}',
    '{"type":"result","result":"hi","session_id":"s"}',
  ].join('\n');
  const lazy: string[] = [];
  const problems: string[] = [];
  const records: Array<{ type: string; session: string; parsedEarly: boolean }> = [];
  const reader = new EventReader(
    {
      record: (r) => {
        records.push({ type: recordType(r), session: recordSession(r), parsedEarly: r.type === undefined });
        lazy.push(JSON.stringify(r.event));
      },
      problem: (p) => problems.push(formatProblem(p)),
    },
    { needs: (type) => type === 'result' },
  );
  reader.startSource('x');
  reader.write(Buffer.from(input));
  reader.endSource();
  t.same(
    records.map((r) => [r.type, r.session, r.parsedEarly]),
    [
      ['assistant', 's', false],
      ['tool_call', 's', false],
      ['tool_call', '', true],
      ['tool_call', '', true],
      ['tool_call', 's', false],
      ['result', 's', true],
    ],
  );
  const full = read(input, 0, 'x');
  t.same(
    lazy.filter((_, i) => i !== 4),
    full.events.map((e) => JSON.stringify(e.event)),
    'the events parsed on use are those of the full parse',
  );
  t.same(problems, ['x:4: not JSON: {"type":"tool_call","broken":,"session_id":"s"}'], 'a broken line is reported when it is read');
});

t.test('a line read only for its session, found broken, is named as the full parse names it: truncated only when cut short', async (t) => {
  const { recordSession } = await import('../src/io/input.js');
  // The lines that end in `}`, so that their type is taken from their first key: cut short after a `}` inside them, or
  // broken in their last bytes, where stream-json's tokenizer waits for more before it judges them.
  const whole = '{"type":"status","a":{"b":"x\\u00e9y\\\\","c":[1,{"d":true}],"e":{"f":-1.5e+3}},"g":{"h":null},"i":{"j":"k"}}';
  const lines: string[] = [];
  for (let i = 16; i < whole.length - 1; i++) if (whole[i] === '}') lines.push(whole.slice(0, i + 1));
  for (const bad of ['\\q', '\t', '\\u12G4', '\\', 'tru', '1.', '-', '01', '\\ud83d', '\u0001']) {
    lines.push(`{"type":"status","message":"a${bad}"}`, `{"type":"status","x":{"y":${bad}}`, `{"type":"status","x":{"y":"${bad}"}`);
  }
  const after = '{"type":"system","subtype":"status","session_id":"A"}';
  const problems = (line: string, needs: ((type: string) => boolean) | undefined): string[] => {
    const found: string[] = [];
    const reader = new EventReader({ record: (r) => void recordSession(r), problem: (p) => found.push(formatProblem(p)) }, { needs });
    reader.startSource('x');
    reader.write(Buffer.from(`${line}\n${after}\n`));
    reader.endSource();
    return found;
  };
  let truncated = 0;
  let broken = 0;
  for (const line of lines) {
    const lazy = problems(line, (type) => type === 'result');
    const full = problems(line, undefined);
    t.same(lazy, full, line);
    if (full.some((p) => p.includes(': truncated: '))) truncated++;
    else if (full.some((p) => p.includes(': not JSON: '))) broken++;
  }
  t.ok(truncated >= 8 && broken >= 10, `${truncated} lines cut short, ${broken} broken, each named alike`);
});

t.test('a line broken after its object, of a type not read: the object, as the full path reads it, the line reported', async (t) => {
  const read = (line: string, needs: ((type: string) => boolean) | undefined): { events: unknown[]; raws: string[]; problems: string[] } => {
    const seen = { events: [] as unknown[], raws: [] as string[], problems: [] as string[] };
    const reader = new EventReader(
      {
        record: (r) => {
          // Read as a tool reads a line it judged by its first key: its session, then the rest.
          recordSession(r);
          seen.events.push(r.event);
          seen.raws.push(r.raw.toString('utf8'));
        },
        problem: (p) => seen.problems.push(formatProblem(p)),
      },
      { needs },
    );
    reader.startSource('x');
    reader.write(Buffer.from(`${line}\n`));
    reader.endSource();
    return seen;
  };
  const object = '{"type":"status","session_id":"t","x":"}]"}';
  for (const line of [`${object}}`, `${object}]`, `${object} xote}`, `${object}  @}`, `{"type":"status","x":tru}}`, `{"type":"status","x":nul} xxxxxxxxxxxxxxxxxxxxxxx}`]) {
    const lazy = read(line, (type) => type === 'result');
    const full = read(line, undefined);
    t.equal(lazy.problems.length, 1, `${line}: reported once`);
    if (line.startsWith(object)) {
      t.same(lazy, full, `${line}: as the full path`);
      t.same(lazy.events, [JSON.parse(object)], `${line}: the object read`);
      t.same(lazy.raws, [object], `${line}: its bytes those of the object`);
    } else {
      // Broken in the object: no event, as before (the record handed over unparsed is marked broken, see recordBroken).
      t.same(lazy.problems, full.problems, `${line}: reported as the full path reports it`);
      t.same(full.events, [], `${line}: no event`);
    }
  }
});

t.test('with needs, a line glued with or without spaces between is read in full', async (t) => {
  for (const glue of ['}{', '} {', '}  {', '}\t{', '} \t\r {']) {
    const input = `{"type":"assistant","text":"a}"${glue}"type":"result","result":"r"}\n{"type":"assistant","text":"} x {"}`;
    const seen: unknown[] = [];
    const reader = new EventReader({ record: (r) => seen.push(r.event), problem: () => {} }, { needs: (type) => type === 'result' });
    reader.write(Buffer.from(input));
    reader.endSource();
    t.same(seen, [{ type: 'assistant', text: 'a}' }, { type: 'result', result: 'r' }, { type: 'assistant', text: '} x {' }], `glued with ${glue}`);
  }
});

t.test('with needs, glued lines among others are found in every chunking', async (t) => {
  // The places of a chunk (`}{`, `} {` among them) are found in one search: each line must be judged by its own bytes.
  const lines = [
    '{"type":"assistant","text":"x"}',
    '{"type":"assistant","text":"y"}{"type":"result","result":"1"}',
    '{"type":"assistant","text":"z"}',
    '{"type":"assistant","text":"} {"}',
    '{"type":"assistant","text":"w"} {"type":"result","result":"2"}',
    '{"type":"assistant","text":"}"}',
    '{"type":"assistant","text":"v"}\t {"type":"result","result":"3"}',
    '{"type":"assistant","text":"} \\t"}',
    '{"type":"assistant","text":"u"} 7 {"type":"result","result":"5"}',
    '{"type":"result","result":"4"}',
  ];
  const input = Buffer.from(lines.join('\n'));
  const expected = read(input.toString(), 0, 'x').events.map((e) => e.event);
  t.equal(expected.length, 14);
  for (let size = 1; size <= input.length; size++) {
    const seen: unknown[] = [];
    const reader = new EventReader({ record: (r) => seen.push(r.event), problem: () => {} }, { needs: (type) => type === 'result', reuseLines: true });
    reader.startSource('x');
    for (let at = 0; at < input.length; at += size) reader.write(input.subarray(at, at + size));
    reader.endSource();
    if (!t.same(seen, expected, `chunks of ${size}`)) break;
  }
});

t.test('typeIsCertain: the first key is the type unless a later top-level key may be one, or the line may be glued', async (t) => {
  const { typeIsCertain } = await import('../src/io/input.js');
  // With the byte scan and without it: both must agree.
  const certain = (s: string) => {
    const withScan = typeIsCertain(Buffer.from(s));
    t.equal(typeIsCertain(Buffer.from(s), false), withScan, `byte by byte as with the byte scan: ${s.slice(0, 60)}`);
    return withScan;
  };
  const long = 'x'.repeat(300);
  const cases: Array<[string, boolean, string]> = [
    ['{"type":"assistant","session_id":"s"}', true, 'one type key'],
    ['{"type":"assistant","message":{"content":[{"type":"text","text":"hi"}]},"session_id":"s"}', true, 'a nested type, in a message'],
    ['{"type":"tool_call","tool_call":{"shellToolCall":{"args":{"parsingResult":{"executableCommands":[{"args":[{"type":"word"}]}]}}}}}', true, 'nested deep'],
    ['{"type":"assistant","session_id":"s","type":"result","result":"r"}', false, 'a later type key'],
    ['{"type":"assistant" , "type" : "result"}', false, 'a later type key, with spaces'],
    ['{"type":"assistant","m":{"a":[1,{}]},"type":"result"}', false, 'a later type key after a nested object'],
    ['{"type":"assistant","typ\\u0065":"result"}', false, 'a later key with an escape that spells a letter of type'],
    ['{"type":"assistant","\\u0074ype":"result"}', false, 'another letter spelled with an escape'],
    ['{"type":"assistant","text":"caf\\u00e9 \\u4e2d"}', true, 'escapes of other letters'],
    ['{"type":"assistant","text":"say \\"type\\" twice"}', true, '"type" quoted inside a string'],
    ['{"type":"assistant","text":"ends with \\"type"}', true, 'a string that ends with "type'],
    [`{"type":"assistant","text":"${long} \\"type","more":{"type":"x"}}`, true, 'the same after a long string'],
    [`{"type":"assistant","text":"${long}\\\\","type":"result"}`, false, 'a later type key after a long string ending with a backslash'],
    ['{"type":"assistant","kind":"type"}', true, '"type" as a value'],
    ['{"type":"assistant","list":["type", "type"]}', true, '"type" in an array'],
    ['{"type":"assistant","o":{ "type":"x"}}', true, 'the first key of a nested object, after a space'],
    ['{"type":"assistant","o":{"k":1,"type":"x"},"p":[{"q":{}},"type"]}', true, 'after a comma, nested: followed back to its depth'],
    ['{"type":"assistant","k":{"a":[1]}, "type":"x"}', false, 'after a comma and a space, at the top level'],
    ['{"type":"assistant"}{"type":"result"}', false, 'glued'],
    ['{"type":"assistant"} \t{"type":"result"}', false, 'glued with spaces'],
    ['{"type":"assistant","text":"} {"}', false, 'what looks glued inside a string: not certain'],
    ['{"type":"assistant","text":"} else","n":{}}', true, 'a brace and a space, not glued'],
    ['{"type":"assistant"} 42 {"type":"result"}', false, 'a number glued between, with spaces'],
    ['{"type":"assistant"}\t"x" {"type":"result"}', false, 'a string glued between'],
    ['{"type":"assistant"} [1] {"type":"result"}', false, 'an array glued between'],
    ['{"type":"assistant"}  true{"type":"result"}', false, 'a literal glued between'],
    ['{"type":"assistant","text":"} 42"}', false, 'what looks like a value glued, inside a string: not certain'],
    ['{"type":"assistant","text":"} nothing } false"}', false, 'a literal after a brace and a space, inside a string: not certain'],
    ['{"type":"assistant","text":"} nothing } tr"}', true, 'words that start like literals: not glued'],
  ];
  for (const [line, want, why] of cases) {
    t.equal(certain(line), want, why);
    // Wherever the answer is certain, it is JSON.parse's.
    if (want) t.equal((JSON.parse(line) as { type: string }).type, line.slice(9, line.indexOf('"', 9)), `${why}: the first key is the type`);
  }
});

t.test('with needs, a line with a later type key is read in full, in every chunking', async (t) => {
  const lines = [
    '{"type":"system","subtype":"init","session_id":"s"}',
    '{"type":"assistant","message":{"content":[{"type":"text","text":"x"}]},"session_id":"s"}',
    '{"type":"assistant","session_id":"s","type":"result","result":"1"}',
    '{"type":"thinking","text":"a","typ\\u0065":"result","result":"2"}',
    '{"type":"tool_call","tool_call":{"args":{"type":"word"}},"session_id":"s"}',
    '{"type":"result","result":"3","type":"assistant"}',
  ];
  const input = Buffer.from(lines.join('\n'));
  const truth = lines.map((l) => (JSON.parse(l) as { type: string }).type);
  t.same(truth, ['system', 'assistant', 'result', 'result', 'tool_call', 'assistant']);
  const { recordType } = await import('../src/io/input.js');
  for (let size = 1; size <= input.length; size++) {
    const types: string[] = [];
    const results: unknown[] = [];
    const reader = new EventReader(
      {
        record: (r) => {
          const type = recordType(r);
          types.push(type);
          if (type === 'result') results.push(r.event.result);
        },
        problem: () => {},
      },
      { needs: (type) => type === 'result' || type === 'system', reuseLines: true },
    );
    reader.startSource('x');
    for (let at = 0; at < input.length; at += size) reader.write(input.subarray(at, at + size));
    reader.endSource();
    if (!t.same(types, truth, `chunks of ${size}: each line's type is JSON.parse's`)) break;
    if (!t.same(results, ['1', '2'], `chunks of ${size}: the results hidden behind another first key are read`)) break;
  }
});

t.test('holdsBytes finds what Buffer#includes finds', async (t) => {
  const { holdsBytes } = await import('../src/io/input.js');
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  const alphabet = Buffer.from('"tool_use_x"');
  let found = 0;
  for (let n = 0; n < 4000; n++) {
    const hay = Buffer.from(Array.from({ length: random(40) }, () => alphabet[random(alphabet.length)]!));
    const needle = Buffer.from(Array.from({ length: 1 + random(6) }, () => alphabet[random(alphabet.length)]!));
    const pivot = random(needle.length);
    const expected = hay.includes(needle);
    if (expected) found++;
    if (holdsBytes(hay, needle, pivot) !== expected) t.fail(`${hay} / ${needle} at ${pivot}`);
  }
  t.ok(found > 500, `${found} of 4000 random cases hold the needle, the others not, both told apart`);
  t.ok(holdsBytes(Buffer.from('{"type":"tool_use"}'), Buffer.from('"tool_use"'), 5));
  t.notOk(holdsBytes(Buffer.from('{"type":"tool_us"}'), Buffer.from('"tool_use"'), 5));
});

t.test('with needs, lines given a second type key anywhere read as the full parse reads them', async (t) => {
  const { spawnSync } = await import('node:child_process');
  const path = await import('node:path');
  const { Rng } = await import('../bench/generate.mjs');
  const { recordType } = await import('../src/io/input.js');
  const { ROOT } = await import('./fixtures/lib/run.js');
  const generated = spawnSync(process.execPath, [path.join(ROOT, 'bench/generate.mjs'), '--size', '64k', '--seed', 'second-type', '--max-payload', '2k', '--huge-every', '0']);
  t.equal(generated.status, 0, 'a stream is generated');
  const rng = Rng.fromInt(17);
  // A second `type` key: at the end or just after the first (the one JSON.parse keeps), spelled with an
  // escape, or nested in an object of the line (not the event's); its value a type a tool reads or not.
  const second = (value: string): string => rng.pick([`"type":"${value}"`, `"typ\\u0065":"${value}"`, `"type" : "${value}"`]);
  let changed = 0;
  const lines = generated.stdout
    .toString()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      if (!rng.chance(0.3)) return line;
      changed++;
      const value = rng.pick(['result', 'system', 'assistant', 'text']);
      const where = rng.int(0, 2);
      if (where === 0) return `${line.slice(0, -1)},${second(value)}}`;
      if (where === 1) return line.replace(/^(\{"type":"[a-z_]+")/, `$1,${second(value)}`);
      return line.replace(/^(\{"type":"[a-z_]+",.*?":)\{/, `$1{${second(value)},`);
    });
  const input = Buffer.from(`${lines.join('\n')}\n`);
  const read = (needs: ((type: string) => boolean) | undefined, size: number): string[] => {
    const out: string[] = [];
    const reader = new EventReader(
      { record: (r) => out.push(`${r.line} ${recordType(r)} ${JSON.stringify(r.event)}`), problem: (p) => out.push(`${p.line} ${p.reason}`) },
      { needs, reuseLines: true },
    );
    reader.startSource('x');
    for (let at = 0; at < input.length; at += size) reader.write(input.subarray(at, at + size));
    reader.endSource();
    return out;
  };
  const full = read(undefined, input.length);
  t.ok(changed > 50, `${changed} of ${lines.length} lines given a second type key`);
  const hidden = lines.filter((l) => !l.startsWith('{"type":"result"') && (JSON.parse(l) as { type: string }).type === 'result').length;
  t.ok(hidden > 10, `${hidden} lines that start as another type are results`);
  for (const size of [input.length, 65536, 4096, 997]) {
    t.same(read((type) => type === 'result' || type === 'system', size), full, `a result tool's needs, chunks of ${size}: the same records`);
    t.same(read((type) => type === 'tool_call', size), full, `a tool audit's needs, chunks of ${size}: the same records`);
  }
});

t.test('reuseLines: one long buffer assembles the long lines, not one for each of the two the reader swaps between', async (t) => {
  const long = (c: string) => JSON.stringify({ type: 'tool_call', data: c.repeat(40_000) });
  const short = JSON.stringify({ type: 'result', result: 'r' });
  const buffers: ArrayBufferLike[] = [];
  const texts: string[] = [];
  const reader = new EventReader(
    { record: (r) => (buffers.push(r.raw.buffer), texts.push(r.raw.toString())), problem: () => {} },
    { reuseLines: true },
  );
  reader.startSource('x');
  // A long line read across writes; the next write ends it and starts another, which the one after makes long.
  const a = long('a');
  const b = long('b');
  reader.write(Buffer.from(a.slice(0, 30_000)));
  reader.write(Buffer.from(`${a.slice(30_000)}\n${short}\n${b.slice(0, 100)}`));
  reader.write(Buffer.from(b.slice(100, 30_000)));
  reader.write(Buffer.from(`${b.slice(30_000)}\n`));
  reader.endSource();
  t.same(texts, [a, short, b], 'every line read whole');
  t.equal(buffers[2], buffers[0], 'the second long line is assembled in the buffer of the first');
});

t.test('retainRecord: a kept record owns its bytes, not a slab of the pool shared by short buffers', async (t) => {
  const lines = ['{"type":"result","subtype":"success","result":"ok","session_id":"s"}', '{"type":"result","result":"x"}'];
  const seen: EventRecord[] = [];
  const reader = new EventReader({ record: (r) => seen.push(r), problem: () => {} });
  reader.startSource('x');
  reader.write(Buffer.from(`${lines.join('\n')}\n`));
  const kept = seen.map(retainRecord);
  reader.endSource();
  t.same(
    kept.map((r) => r.raw.toString()),
    lines,
    'the same bytes',
  );
  for (const r of kept) t.equal(r.raw.buffer.byteLength, r.raw.length, `${r.raw.length} bytes kept in memory of their own`);
  t.equal(kept[0]!.event.result, 'ok', 'read again when asked');
});

t.test('with checkUnread, a line handed over unparsed is checked first: glued values are split, a broken line reported, in every chunking', async (t) => {
  const lines = [
    '{"type":"user","text":"a"}42{"type":"tool_call","text":"b"}',
    '{"type":"user","text":"c"}',
    '{"type":"user","broken":,"text":"d"}',
    '{"type":"thinking","subtype":"delta","text":"e","session_id":"s","timestamp_ms":1}',
    '{"type":"user","text":"f"}"x"{"type":"user","text":"g"}',
  ];
  const input = Buffer.from(lines.join('\n'));
  const run = (checkUnread: boolean, size: number) => {
    const seen: string[] = [];
    const reader = new EventReader(
      { record: (r) => seen.push(`${r.line}: ${JSON.stringify(r.event)}`), problem: (p) => seen.push(formatProblem(p)) },
      { needs: () => false, checkUnread, reuseLines: true },
    );
    reader.startSource('x');
    for (let at = 0; at < input.length; at += size) reader.write(input.subarray(at, at + size));
    reader.endSource();
    return seen;
  };
  const expected = [
    '1: {"type":"user","text":"a"}',
    'x:1: not an object: 42',
    '1: {"type":"tool_call","text":"b"}',
    '2: {"type":"user","text":"c"}',
    'x:3: not JSON: {"type":"user","broken":,"text":"d"}',
    '4: {"type":"thinking","subtype":"delta","text":"e","session_id":"s","timestamp_ms":1}',
    '5: {"type":"user","text":"f"}',
    'x:5: not an object: "x"',
    '5: {"type":"user","text":"g"}',
  ];
  let same = 0;
  for (let size = 1; size <= input.length; size++) {
    const seen = run(true, size);
    if (JSON.stringify(seen) === JSON.stringify(expected)) same++;
    else t.same(seen, expected, `${size}-byte chunks`);
  }
  t.equal(same, input.length, 'every chunking reads the same');
  // Without the check, too, a value glued between two objects (`}42{`, `}"x"{`) is found by its bytes: those lines are
  // read as their values, not judged by their first key.
  for (const size of [1, 7, input.length]) {
    const seen = run(false, size);
    t.same(seen.filter((s) => /^(x:)?[15]:/.test(s)), [expected[0], expected[1], expected[2], ...expected.slice(6)], `${size}-byte chunks`);
  }
});

t.test('an array of objects is read as its events (Claude Code\'s --output-format json, verbose); any other array is not an object', async (t) => {
  const events = ['{"type":"system","subtype":"init","session_id":"s"}', '{"type":"result","subtype":"success","n":1.50,"result":"done","session_id":"s"}'];
  const expected = events.map((raw) => ({ event: JSON.parse(raw), raw }));
  for (const size of [0, 1, 7]) {
    // On one line: each event where the array is, its text as written (1.50).
    const one = read(`[${events.join(',')}]\nnoise\n`, size);
    t.same(one.events, expected.map((e) => ({ line: 1, ...e })), `one line, chunks of ${size}`);
    t.same(one.problems, ['in.ndjson:2: not JSON: noise']);
    // Pretty-printed: each event where it starts.
    const pretty = read(`[\n  ${events.map((e) => e.replace('"subtype"', '\n    "subtype"')).join(',\n  ')}\n]\n`, size);
    t.same(pretty.events, expected.map((e, k) => ({ line: k === 0 ? 2 : 4, ...e })), `pretty-printed, chunks of ${size}`);
    t.same(pretty.problems, []);
  }
  for (const array of ['[]', '[1,2]', '[[{"type":"x"}]]', `[3,${events[0]}]`]) {
    const seen = read(`${array}\n`);
    t.same(seen.events, [], `${array}: no event`);
    t.same(seen.problems, [`in.ndjson:1: not an object: ${array}`], `${array}: not an object, as before`);
  }
  // Of objects first: each element is judged as it closes, an object an event, anything else not one, where it starts.
  for (const size of [0, 1, 7]) {
    const mixed = read(`[\n  ${events[0]},\n  3,\n  "x",\n  ${events[1]}\n]\n`, size);
    t.same(mixed.events, [{ line: 2, ...expected[0] }, { line: 5, ...expected[1] }], `mixed, chunks of ${size}: the objects`);
    t.same(mixed.problems, ['in.ndjson:3: not an object: 3', 'in.ndjson:4: not an object: "x"'], `mixed, chunks of ${size}: the others`);
    // Cut short (the agent killed as it wrote it): the elements before the cut are read; the cut is reported where its element starts.
    const cut = read(`[\n  ${events[0]},\n  {"type": "result",\n    "subtype": "succ`, size);
    t.same(cut.events, [{ line: 2, ...expected[0] }], `cut, chunks of ${size}: the elements before it`);
    // (Its lines after that one are read again as lines, as those of any value cut short.)
    t.same(cut.problems, ['in.ndjson:3: truncated: {"type": "result",', 'in.ndjson:4: not JSON: "subtype": "succ'], `cut, chunks of ${size}: where its element starts`);
  }
});

t.test('an array of events is read as it comes: each element handed over when it closes, not when the array does', async (t) => {
  const seen: number[] = [];
  const reader = new EventReader({ record: (r: EventRecord) => seen.push(r.line), problem: () => t.fail('no problem') });
  reader.startSource('in.ndjson');
  const element = (k: number) => JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: `part ${k} ${'x'.repeat(1000)}` }] }, session_id: 's' });
  reader.write(Buffer.from('[\n'));
  for (let k = 0; k < 1000; k++) {
    reader.write(Buffer.from(`${element(k)},\n`));
    if (seen.length !== k + 1) return t.fail(`element ${k} not handed over when it closed (${seen.length} events)`);
  }
  reader.write(Buffer.from(`${element(1000)}\n]\n`));
  reader.endSource();
  t.equal(seen.length, 1001, 'every element, once');
  t.same(seen.slice(0, 3), [2, 3, 4], 'each where it starts');
});

/** Reads `input` with the reader's `options` in writes of `size` bytes (0: one): each record's line, value and bytes, each problem's line, reason and excerpt. */
function readWith(input: Buffer, size: number, options: ConstructorParameters<typeof EventReader>[1] = {}): unknown[] {
  const out: unknown[] = [];
  const reader = new EventReader(
    {
      record: (r) => out.push([r.line, JSON.parse(JSON.stringify(r.event)), r.raw.toString('utf8')]),
      problem: (p) => out.push([p.line, p.reason, formatProblem(p), p.raw.toString('utf8')]),
    },
    options,
  );
  reader.startSource('in.ndjson');
  if (size <= 0) reader.write(input);
  else for (let at = 0; at < input.length; at += size) reader.write(input.subarray(at, at + size));
  reader.endSource();
  return out;
}

// As the tools ask: every event; ndjson-tools' (tool calls skimmed, others let by); ndjson-result's; with unread lines checked.
const READERS = {
  'every event': {},
  'as ndjson-tools reads': {
    needs: (type: string) => type === 'tool_call' || type === 'system',
    skim: (type: string) => type === 'tool_call',
    passes: (type: string) => type !== 'tool_call' && type !== 'system' && type !== 'assistant' && type !== 'user',
    passDeltas: true,
  },
  'as ndjson-result reads': { needs: (type: string) => type === 'result' || type === 'system', passes: (type: string) => type !== 'result' && type !== 'system' },
  'unread lines checked': { needs: (type: string) => type === 'result', checkUnread: true },
};

const ELEMENTS = [
  '{"type":"system","subtype":"init","session_id":"s","cwd":"/w"}',
  // Escapes as written, which JSON.stringify would not write so.
  '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"h\\u00e9llo \\/ ok"}]},"session_id":"s","timestamp_ms":1}',
  `{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"readToolCall":{"args":{"path":"a.ts"},"result":{"success":{"content":"${'x\\"y'.repeat(2000)}"}}}},"session_id":"s"}`,
  '{"type":"thinking","subtype":"delta","text":"hm [\\"]","session_id":"s"}',
  '{"type":"result","subtype":"success","n":1.50,"result":"done","session_id":"s"}',
];

t.test('an array of compact events on one line is read element by element, each as a line of its own is, in any writes', async (t) => {
  const after = '{"type":"system","subtype":"status","session_id":"s"}';
  const input = Buffer.from(`\ufeff[${ELEMENTS.join(',')}] \n${after}\n`);
  const expected = [...ELEMENTS.map((raw) => [1, JSON.parse(raw), raw]), [2, JSON.parse(after), after]];
  for (const [name, options] of Object.entries(READERS)) {
    for (let size = 0; size <= input.length; size += size < 40 ? 1 : 997) {
      if (!t.same(readWith(input, size, options), expected, `${name}, writes of ${size}: each element, its bytes as written`)) break;
    }
  }
});

t.test('an array on one line that cannot all be read element by element is read on by the slow path: as that path reads it, in any writes', async (t) => {
  const [first, ...rest] = ELEMENTS;
  // The same first event with white space in it: the whole line is read by the slow path.
  const spaced = first!.replace('"type":', '"type": ');
  // Broken, the slow path, which reads a line's tokens at once, reads none of a one-line array's elements; the elements
  // before the break (`read`) are read, as those before the cut of an array cut short are, but for a result: held until
  // the array goes on or closes, it goes with the array (its run has no result).
  const tails: Array<[string, string, string[]?]> = [
    ['{"type": "x"}]', 'white space in an element'],
    ['3,"x",{"type":"y"}]', 'values not objects'],
    ['{"type":"system","v":tru},{"type":"y"}]', 'an element broken', ELEMENTS.slice(0, -1)],
    ['{"type":"x","v":"cut', 'cut short, at the end of the input'],
    ['{"type":"x"}] {"type":"y"}', 'a value glued after it'],
    ['{"type":"x"},]', 'a comma before its end', [...ELEMENTS, '{"type":"x"}']],
    ['{"type":"x"},\n{"type":"y"}\n]', 'going on over lines'],
  ];
  for (const [tail, what, read] of tails) {
    const line = (head: string) => Buffer.from(`[${head},${rest.join(',')},${tail}\n{"type":"system","subtype":"status","session_id":"s"}\n`);
    const input = line(first!);
    // The slow path's answer: its records' values and lines, its problems' lines and reasons (excerpts show where the line starts).
    const judged = (out: unknown[]) => out.map((x) => (x as unknown[]).slice(0, 2));
    for (const [name, options] of Object.entries(READERS)) {
      const whole = readWith(input, 0, options);
      const before = (read ?? []).map((raw) => [1, JSON.parse(raw)]);
      if (!t.same(judged(whole), [...before, ...judged(readWith(line(spaced), 0, options))], `${what}, ${name}: as the slow path reads it`)) continue;
      for (let size = 1; size <= input.length; size += size < 16 ? 1 : 1999) {
        if (!t.same(readWith(input, size, options), whole, `${what}, ${name}, writes of ${size}: as in one write`)) break;
      }
    }
  }
});

t.test('an array of events never closed is cut short, and its run has no result: a result in it is held until the array goes on or closes', async (t) => {
  const init = '{"type":"system","subtype":"init","session_id":"C"}';
  const result = '{"type":"result","subtype":"success","is_error":false,"result":"hi","session_id":"C"}';
  const said = '{"type":"assistant","message":{"content":[{"type":"text","text":"t"}]},"session_id":"C"}';
  const long = `{"type":"assistant","message":{"content":[{"type":"text","text":"${'x'.repeat(70000)}"}]},"session_id":"C"}`;
  const delta = (text: string) => `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"${text}"}]},"session_id":"C","timestamp_ms":1}`;
  // The input; what is read, by line: an event's type, or a problem's reason.
  const cases: Array<[string, Array<[number, string]>]> = [
    [`[\n${init},\n${result},\n`, [[2, 'system'], [3, 'truncated']]],
    [`[\n${init},\n${result}\n`, [[2, 'system'], [3, 'truncated']]],
    // The cut reported where the element starts, as where one comes before it (the `[` line is the array's opening, read).
    [`[\n${result},\n`, [[2, 'truncated']]],
    // An element over lines: its lines read with it, an object inside it no event.
    [`[\n${init},\n{"type":"user","a":\n{"type":"b"}},\n`, [[2, 'system'], [3, 'user'], [3, 'truncated']]],
    [`[${init},\n${result},\n`, [[1, 'system'], [2, 'truncated']]],
    [`[${init},${result},\n`, [[1, 'system'], [1, 'truncated']]],
    [`[${init},${result},{"type":"x\n`, [[1, 'system'], [1, 'truncated']]],
    [`[${init},${long},${result},{"type":"x\n`, [[1, 'system'], [1, 'assistant'], [1, 'truncated']]],
    [`[\n${init},\n${result},\n{"a":\n`, [[2, 'system'], [3, 'truncated'], [4, 'truncated']]],
    // Closed, or gone on past it: the result is read where it stands.
    [`[\n${init},\n${result}\n]\n`, [[2, 'system'], [3, 'result']]],
    [`[${init},${result}]\n`, [[1, 'system'], [1, 'result']]],
    [`[${init},${long},${result}]\n`, [[1, 'system'], [1, 'assistant'], [1, 'result']]],
    [`[\n${init},\n${result},\n${said},\n`, [[2, 'system'], [3, 'result'], [4, 'assistant'], [4, 'truncated']]],
    [`[${init},${result},${said},{"t\n`, [[1, 'system'], [1, 'result'], [1, 'assistant'], [1, 'truncated']]],
    // Deltas after a result held are not joined to those before it: they come after it.
    [`[${init},${delta('A')},${result},${delta('B')},${delta('C')}]\n`, [[1, 'system'], [1, 'assistant'], [1, 'result'], [1, 'assistant'], [1, 'assistant']]],
  ];
  for (const [text, want] of cases) {
    const input = Buffer.from(text);
    // The commands' readers reuse a line's buffer once its records are done with: a result held is not.
    const readers = { ...READERS, 'buffers reused': { reuseLines: true }, 'deltas joined': { needs: () => true, joinDeltas: true, reuseLines: true } };
    for (const [name, options] of Object.entries(readers)) {
      const whole = readWith(input, 0, options);
      const got = whole.map((x) => {
        const [line, what] = x as [number, unknown];
        return [line, typeof what === 'string' ? what : (what as { type: string }).type];
      });
      if (!t.same(got, want, `${JSON.stringify(text.slice(0, 60))}…, ${name}`)) continue;
      for (let size = 1; size <= input.length; size += size < 16 ? 1 : 997) {
        if (!t.same(readWith(input, size, options), whole, `${JSON.stringify(text.slice(0, 60))}…, ${name}, writes of ${size}: as in one write`)) break;
      }
    }
  }
});

t.test('an element is read as the same event on a line of its own is', async (t) => {
  const lists = [ELEMENTS, [ELEMENTS[0]!, '{"type":"thinking","subtype":"delta","text":"a","session_id":"s"}', ELEMENTS[4]!, ELEMENTS[2]!]];
  for (const elements of lists) {
    for (const [name, options] of Object.entries(READERS)) {
      const lines = readWith(Buffer.from(`${elements.join('\n')}\n`), 0, options);
      const array = readWith(Buffer.from(`[${elements.join(',')}]\n`), 0, options);
      // But for events of the types the reader lets by, of which lines in runs hand over only some (see ReaderOptions.passes).
      const passed = (x: unknown) => 'passes' in options && options.passes(((x as unknown[])[1] as { type: string }).type);
      const same = (out: unknown[]) => out.filter((x) => !passed(x)).map((x) => (x as unknown[]).slice(1));
      t.same(same(array), same(lines), `${name}, ${elements.length} elements: as on lines`);
    }
  }
});

t.test('an element of an array is checked before it is handed over unparsed: a byte flipped in it cannot carry the events after it away', async (t) => {
  const init = '{"type":"system","subtype":"init","cwd":"/p","session_id":"s1"}';
  // One quote of the thinking element flipped: searched by its quotes, it would run on through the tool call, whose
  // `\"` puts the search back in step.
  const thinking = '{"type":"thinking","text":"hm@,"session_id":"s1"}';
  const call = '{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"readToolCall":{"args":{"path":"/secret/key"}}},"session_id":"s1"}';
  const user = '{"type":"user","session_id":"s1","x":"a\\"b"}';
  const input = Buffer.from(`[${init},${thinking},${call},${user}]\n`);
  for (const [name, options] of Object.entries(READERS)) {
    for (const size of [0, 1, 7, 64]) {
      const out = readWith(input, size, options);
      const records = out.filter((x) => typeof (x as unknown[])[1] !== 'string');
      const problems = out.filter((x) => typeof (x as unknown[])[1] === 'string') as unknown[][];
      t.same(
        records.map((x) => (x as unknown[])[2]),
        [init],
        `${name}, writes of ${size}: the elements before the broken one, and none after`,
      );
      t.same(
        problems.map((p) => [p[0], p[1]]),
        [[1, 'not JSON']],
        `${name}, writes of ${size}: the line reported once`,
      );
      t.ok(String(problems[0]?.[3]).includes('/secret/key'), `${name}, writes of ${size}: what was not read, the call among it, is the problem's`);
    }
  }
  // And so with a last byte flipped, `}` to `]`.
  const flipped = '{"type":"user","message":{"content":[1]},"session_id":"s1"]';
  const out = readWith(Buffer.from(`[${init},${flipped},${call}]\n`), 0, READERS['as ndjson-tools reads']);
  t.same(out.map((x) => (x as unknown[]).slice(0, 2)), [[1, JSON.parse(init)], [1, 'not JSON']]);
});

t.test('an array is read as one whatever the writes its byte-order mark and first bytes came in', async (t) => {
  const element = '{"type":"assistant","message":{"content":[{"type":"text","text":"h\\u00e9 \\/"}]},"session_id":"s1"}';
  const result = '{"type":"result","result":"ok","session_id":"s1"}';
  const out: string[] = [];
  const reader = new EventReader({ record: (r) => out.push(`${r.line} ${r.raw.toString()}`), problem: (p) => out.push(formatProblem(p)) }, { reuseLines: true });
  reader.startSource('in.ndjson');
  for (const piece of ['\ufeff', `[${element}`, ']\n', '\ufeff', `[${element}`, ']\n', '\ufeff', result, '\n']) reader.write(Buffer.from(piece));
  reader.endSource();
  t.same(out, [`1 ${element}`, `2 ${element}`, `3 ${result}`], 'each once, as written');
});

t.test('a long element is handed over as soon as its last byte has come', async (t) => {
  let seen = 0;
  const reader = new EventReader({ record: () => seen++, problem: (p) => t.fail(formatProblem(p)) });
  reader.startSource('in.ndjson');
  const element = (n: number) => `{"type":"assistant","message":{"content":[{"type":"text","text":"${'x\\\\'.repeat(n)}"}]},"session_id":"s"}`;
  const line = Buffer.from(`[${element(5)},${element(50000)},${element(5000)}]\n`);
  // Just past the second element's last byte.
  const second = line.indexOf('},{', line.indexOf('},{') + 1) + 1;
  let checked = false;
  for (let at = 0; at < line.length; at += 1000) {
    const come = Math.min(at + 1000, line.length);
    reader.write(line.subarray(at, come));
    if (come >= second && !checked) {
      t.ok(come < line.length - 5000, 'the third element still to come');
      t.equal(seen, 2, `${come} bytes come, the second element's last among them: it has been handed over`);
      checked = true;
    }
  }
  reader.endSource();
  t.equal(seen, 3);
});

t.test('an array on one line cut short: the same problem, whatever the writes it came in', async (t) => {
  const init = '{"type":"system","subtype":"init","cwd":"/p","session_id":"s1"}';
  const call = '{"type":"tool_call","subtype":"completed","call_id":"c1","tool_call":{"readToolCall":{"args":{"path":"a.ts"},"result":{"success":{"content":"x"}}}},"session_id":"s1"}';
  const pad = `{"type":"assistant","message":{"content":[{"type":"text","text":"${'p'.repeat(100000)}"}]},"session_id":"s1"}`;
  const cut = '{"type":"assistant","message":{"content":[{"type":"text","text":"wor';
  const input = Buffer.from(`[${init},${call},${pad},${cut}`);
  const whole = readWith(input, 0, READERS['as ndjson-tools reads']);
  const problem = whole.find((x) => typeof (x as unknown[])[1] === 'string') as unknown[];
  t.same(problem.slice(0, 2), [1, 'truncated']);
  t.notOk(String(problem[3]).includes('"call_id":"c1"'), 'the elements read are not part of the problem (the call was audited)');
  for (const size of [1000, 65536, 1 << 20]) t.same(readWith(input, size, READERS['as ndjson-tools reads']), whole, `writes of ${size}`);
  // Its excerpt shows where the line starts, however short its first elements.
  const short = Buffer.from(`[{"type":"user"},{"type":"user"},${pad},{"type":"x",}]\n`);
  const once = readWith(short, 0);
  t.same(
    once.filter((x) => typeof (x as unknown[])[1] === 'string').map((x) => (x as unknown[])[2]),
    [`in.ndjson:1: not JSON: [{"type":"user"},{"type":"user"},{"type":"assistant","messag…`],
  );
  for (const size of [1000, 65536]) t.same(readWith(short, size), once, `short first elements, writes of ${size}`);
});

t.test('without reuseLines, the records of an array line keep their bytes after the writes that follow', async (t) => {
  const records: EventRecord[] = [];
  const problems: string[] = [];
  const reader = new EventReader({ record: (r) => records.push(r), problem: (p) => problems.push(formatProblem(p)) }, { needs: (type) => type === 'result' });
  reader.startSource('in.ndjson');
  for (const piece of ['[{"type":"user","n":1},{"type":"user","n":2},{"type":"user","n":3},{"ty', 'pe":"assistant","n":4},{"type":"user","n":5}]', '\n']) {
    reader.write(Buffer.from(piece));
  }
  reader.endSource();
  t.same(problems, []);
  t.same(
    records.map((r) => [r.event, JSON.parse(r.raw.toString())]),
    [1, 2, 3, 4, 5].map((n) => [{ type: n === 4 ? 'assistant' : 'user', n }, { type: n === 4 ? 'assistant' : 'user', n }]),
    'each event, parsed when first read, and its bytes, as they came',
  );
});

t.test('an array on one line longer than a read is read as it comes, holding an element rather than the array', async (t) => {
  const element = (k: number) => JSON.stringify({ type: 'assistant', message: { content: [{ type: 'text', text: `part ${k} ${'é'.repeat(5000)}` }] }, session_id: 's' });
  const count = 2000;
  let seen = 0;
  const reader = new EventReader({ record: () => seen++, problem: (p) => t.fail(formatProblem(p)) });
  reader.startSource('in.ndjson');
  const line = Buffer.from(`[${Array.from({ length: count }, (_, k) => element(k)).join(',')}]`);
  let most = 0;
  for (let at = 0; at < line.length; at += 65536) {
    reader.write(line.subarray(at, at + 65536));
    // Every element whole in what came has been handed over: at most the one still coming waits.
    const whole = line.subarray(0, Math.min(line.length, at + 65536)).toString('latin1').split('}]}').length - 1;
    if (seen < whole - 1) return t.fail(`after ${at + 65536} bytes: ${seen} elements handed over of ${whole} come`);
    most = Math.max(most, (reader as unknown as { carry: Buffer }).carry.length);
  }
  t.equal(seen, count, 'every element, before the line ends');
  reader.write(Buffer.from('\n'));
  reader.endSource();
  t.equal(seen, count, 'none again');
  t.ok(most < 1 << 20, `the line's buffer held ${most} bytes at most, of a line of ${line.length}`);
});

t.test('a value cut short is truncated where its first line may go on, however it broke; one broken in that line is not JSON', async (t) => {
  const after = '{"type":"system","subtype":"status","session_id":"s"}';
  const cases: Array<[string, string[]]> = [
    // Its first line may go on; the next cannot go on with it, or its own line end cannot (a number cut after `-`).
    [`{"type":"assistant","session_id":"s",\n"message":tru}\n${after}\n`, ['in.ndjson:1: truncated: {"type":"assistant","session_id":"s",', 'in.ndjson:2: not JSON: "message":tru}']],
    [`{"type":"assistant","session_id":"s","n":-\n${after}\n`, ['in.ndjson:1: truncated: {"type":"assistant","session_id":"s","n":-']],
    [`{"type":"assistant","session_id":"s","t":"\\u00\n${after}\n`, ['in.ndjson:1: truncated: {"type":"assistant","session_id":"s","t":"\\u00']],
    [`{"type":"assistant","session_id":"s","n":1.5e+\n${after}\n`, ['in.ndjson:1: truncated: {"type":"assistant","session_id":"s","n":1.5e+']],
    // Broken in its first line, near its end: not JSON, with a line after it or not.
    [`{"type":"assistant","session_id":"s","t":"a\\q"}\n${after}\n`, ['in.ndjson:1: not JSON: {"type":"assistant","session_id":"s","t":"a\\q"}']],
    [`{"type":"assistant","session_id":"s","t":"a\\q"}`, ['in.ndjson:1: not JSON: {"type":"assistant","session_id":"s","t":"a\\q"}']],
  ];
  for (const [input, problems] of cases) for (const size of [0, 1, 5]) t.same(read(input, size).problems, problems, `${JSON.stringify(input)}, chunks of ${size}`);
  // Judged by its last few bytes, however long the line: a run of 2 MiB of letters before them takes no longer to judge.
  const long = `{"type":"status","a":"${'a'.repeat(1 << 21)}","b":tru}\n${after}\n`;
  t.same(read(long).problems.map((p) => p.slice(0, 30)), ['in.ndjson:1: not JSON: {"type"']);
  t.same(read(`{"type":"status","a":"${'a'.repeat(1 << 21)}","n":\n${after}\n`).problems.map((p) => p.slice(0, 31)), ['in.ndjson:1: truncated: {"type"']);
});

t.test('a key over two lines is read as a string over two lines is: its line end a newline in it, no line reported', async (t) => {
  const after = '{"type":"system","subtype":"status","session_id":"s"}';
  const cases: Array<[string, unknown]> = [
    [`{"type":"result","ab\ncd":1,"result":"x"}\n`, { type: 'result', 'ab\ncd': 1, result: 'x' }],
    [`{"type":"result","ab\r\ncd":1}\n`, { type: 'result', 'ab\ncd': 1 }],
    [`{"type":"result","a\nb\nc":{"d\ne":"f\ng"}}\n`, { type: 'result', 'a\nb\nc': { 'd\ne': 'f\ng' } }],
    // A key that ends in an escaped quote: its line's end still in it.
    [`{"type":"result","a\\"\nb":1}\n`, { type: 'result', 'a"\nb': 1 }],
  ];
  for (const [input, event] of cases) {
    for (const size of [0, 1, 3, 7]) {
      const seen = read(`${input}${after}\n`, size);
      t.same(seen.problems, [], `${JSON.stringify(input)}, chunks of ${size}: no problem`);
      t.same(seen.events.map((e) => e.event), [event, JSON.parse(after)], `${JSON.stringify(input)}, chunks of ${size}: the events`);
    }
  }
});

t.test('a line cut short in a word, a number or an escape: the line after it read the same, however long the cut line', async (t) => {
  for (const end of ['nu', 'tru', 'fa', '12', '1.', '-', '"ab\\u0', '[', '"x"', '"a\u0001b"', '[1,"a\u0001b",1', '{"k', '[1,tru}']) {
    const seen = [20, 5000, 20000].map((n) => {
      const cut = `{"a":"${'z'.repeat(n)}","b":${end}`;
      const got = read(`${cut}\n\ufeff\ufeff{"type":"x"}\n\ufeff\ufeffll}\n{"type":"y"}\n`, 4096);
      return { events: got.events.map((e) => [e.line, e.event]), problems: got.problems.map((p) => (p.startsWith('in.ndjson:1:') ? p.split(': ').slice(0, 2).join(': ') : p)) };
    });
    t.same(seen[1], seen[0], `${end}: a cut line of 5000 reads as one of 20`);
    t.same(seen[2], seen[0], `${end}: a cut line of 20000 reads as one of 20`);
  }
});

t.test("a line cut short with the next run's first event glued on: the cut line, then that event, in every chunking", async (t) => {
  // An agent killed mid-line, the next run appended to the same log: its `init` (or a hook line) glued on the cut line.
  const init = '{"type":"system","subtype":"init","session_id":"b","cwd":"/w/b"}';
  const result = '{"type":"result","subtype":"success","result":"ok","session_id":"b"}';
  const cuts = [
    '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"wor',
    '{"type":"assistant","session_id":"a",',
    '{"type":"tool_call","subtype":"started","call_id":"c","tool_call":{"readToolCall":{"args":{"path":"a.t',
    '{"type":"system","subtype":"init","session_id":"a","cw',
    // Cut where a value may follow: the event reads on as a value of the cut line, which cannot go on past it.
    '{"type":"assistant","message":{"role":"assistant","content":',
    '{"type":"assistant","message":{"role":"assistant","content":[',
    '{"type":',
  ];
  const options = {
    all: {},
    'needs result': { needs: (type: string) => type === 'result' },
    'needs result, passing thinking': { needs: (type: string) => type === 'result', passes: (type: string) => type === 'thinking' },
    // The cut line of a type let by (in a run of such lines, or one at a time): searched all the same.
    'needs result, passing all else': { needs: (type: string) => type === 'result', passes: (type: string) => type !== 'result' },
    'needs result, checkUnread': { needs: (type: string) => type === 'result', checkUnread: true },
  };
  for (const cut of cuts) {
    const input = Buffer.from(`{"type":"system","subtype":"init","session_id":"a"}\n${cut}${init}\n${result}\n`);
    for (const [name, opts] of Object.entries(options)) {
      for (let size = 1; size <= input.length; size += size < 16 ? 1 : 37) {
        const events: Array<[number, unknown]> = [];
        const problems: InputProblem[] = [];
        const reader = new EventReader({ record: (r) => events.push([r.line, r.event]), problem: (p) => problems.push(p) }, opts);
        reader.startSource('in.ndjson');
        for (let at = 0; at < input.length; at += size) reader.write(input.subarray(at, at + size));
        reader.endSource();
        const ok =
          t.same(events, [[1, { type: 'system', subtype: 'init', session_id: 'a' }], [2, JSON.parse(init)], [3, JSON.parse(result)]], `${name}, chunks of ${size}: the events`) &&
          t.same(
            problems.map((p) => [p.line, p.reason, p.raw.toString()]),
            [[2, 'truncated', cut]],
            `${name}, chunks of ${size}: the cut line, as cut`,
          );
        if (!ok) break;
      }
    }
  }
  // Of a type let by in runs: read the same way whatever the writes it came in.
  for (const cut of cuts) {
    const input = Buffer.from(`{"type":"system","subtype":"init","session_id":"a"}\n${cut}${init}\n${result}\n`);
    const seen = (size: number): unknown => {
      const out: unknown[] = [];
      const reader = new EventReader(
        { record: (r) => out.push([r.line, r.type ?? r.event.type]), problem: (p) => out.push([p.line, p.reason]) },
        { needs: (type: string) => type === 'result', passes: (type: string) => type !== 'result' },
      );
      reader.startSource('in.ndjson');
      for (let at = 0; at < input.length; at += size) reader.write(input.subarray(at, at + size));
      reader.endSource();
      return out;
    };
    const whole = seen(input.length);
    for (let size = 1; size < input.length; size += size < 16 ? 1 : 37) if (!t.same(seen(size), whole, `let by in runs, chunks of ${size}: as in one write`)) break;
  }
  // A glued object whose last `type` key makes it another event is not a run's first event: not read.
  t.same(read(`{"type":"user","x":"wo{"type":"system","type":"result","result":"FAKE","session_id":"b"}\n`).events, []);
  // Noise with a run's first event glued on: the noise reported, the event read.
  const noisy = read(`Update available: 1.2${init}\n`);
  t.same([noisy.problems, noisy.events.map((e) => [e.line, e.event])], [['in.ndjson:1: not JSON: Update available: 1.2'], [[1, JSON.parse(init)]]]);
  // Not glued on, nothing to recover: a line holding such an event whole, or a broken line not ending in a whole one.
  const nested = '{"type":"assistant","x":{"type":"system","y":1},"session_id":"a"}';
  for (const [name, opts] of Object.entries(options)) {
    const seen: unknown[] = [];
    const reader = new EventReader({ record: (r) => seen.push(r.event), problem: () => {} }, opts);
    reader.write(Buffer.from(`${nested}\n${nested}\n`));
    reader.endSource();
    t.same(seen, [JSON.parse(nested), JSON.parse(nested)], `${name}: a line holding {"type":"system" reads as JSON.parse reads it`);
  }
  const broken = `{"type":"assistant","text":"wor{"type":"system","subtype":"init","session_id":"b"}x\n${result}\n`;
  t.same(read(broken).problems, [`in.ndjson:1: not JSON: ${broken.split('\n')[0]!.slice(0, 60)}…`]);
  t.same(
    read(broken).events.map((e) => e.line),
    [2],
  );
});

t.test('a long line on which a value starts is tokenized a piece at a time, and read as it was whole', async (t) => {
  const S = TOKEN_SLICE;
  // A line's start padded so that a piece ends at the place wanted.
  const pad = (prefix: string, at: number) => prefix + 'x'.repeat(at - prefix.length);
  const res = '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"s"}';
  const init = '{"type":"system","subtype":"init","session_id":"t"}';
  const cases: [string, string, string[]][] = [
    ['cut after a \\u escape the piece ends in', `${pad('{"type":"assistant","a":["', S - 3)}\\u00e9y", "${'b'.repeat(70000)}", 1\n${res}\n`, ['1 truncated', '2 result']],
    ['values glued, a number split', `${pad('{"type":"a","s":"', S - 5)}","n":123456789}{"type":"b","m":7777777777}\n${res}\n`, ['1 a', '1 b', '2 result']],
    ['broken after a long value', `{"type":"a","s":"${'y'.repeat(S * 2)}"} xote\n${res}\n`, ['1 a', '1 not JSON', '2 result']],
    ['over two lines, a surrogate pair split', `${pad('{"type":"assistant","s":"', S - 1)}\u{1F600}z",\n"t":1}\n${res}\n`, ['1 assistant', '3 result']],
    ['cut after a literal split', `${pad('{"type":"a","s":"', S - 2)}",${'"k":true,'.repeat(10)}"l":[1,\n${res}\n`, ['1 truncated', '2 result']],
    ['cut in a long string', `{"type":"a","s":"${'q'.repeat(S * 3)}\n${res}\n`, ['1 truncated', '2 result']],
    ['broken in the middle', `{"type":"a","s":[${'1,'.repeat(S)}x${'2,'.repeat(S)}3]}\n${res}\n`, ['1 not JSON', '2 result']],
    ['cut, the next run glued on', `{"type":"a","s":[${'1,'.repeat(S)}${init}\n${res}\n`, ['1 truncated', '1 system', '2 result']],
    ['many small values, cut', `{"type":"a","m":[${'{"f":"a","l":1},'.repeat(20000)}\n${res}\n`, ['1 truncated', '2 result']],
    ['long, then closed on the next line, a value glued after it', `{"type":"a","m":[${'{"f":"a","l":1},'.repeat(2000)}1\n]}{"type":"b"}\n${res}\n`, ['1 a', '2 b', '3 result']],
    ['long, then broken on the next line', `{"type":"a","m":[${'1,'.repeat(S)}\nxote\n${res}\n`, ['1 truncated', '2 not JSON', '3 result']],
    ['long, cut, the input ending in it', `${res}\n{"type":"a","m":[${'1,'.repeat(S)}`, ['1 result', '2 truncated']],
    ['an array of events, cut', `[{"type":"a","s":"${'z'.repeat(S * 2)}"},{"type":"b","m":[${'1,'.repeat(S)}\n${res}\n`, ['1 a', '1 truncated', '2 result']],
  ];
  for (const [label, input, expected] of cases) {
    const whole = read(input);
    // Each event by its line and type, each problem by its line and reason.
    const seen = [...whole.events.map((e) => `${e.line} ${(e.event as { type: string }).type}`), ...whole.problems.map((p) => /^in\.ndjson:(\d+): ([^:]+):/.exec(p)!.slice(1).join(' '))];
    t.same(new Set(seen), new Set(expected), label);
    for (const size of [4096, S, 100000]) t.same(read(input, size), whole, `${label}, in reads of ${size} bytes`);
    if (label.startsWith('values glued')) t.same(whole.events.map((e) => e.event), [{ type: 'a', s: 'x'.repeat(S - 5 - 17), n: 123456789 }, { type: 'b', m: 7777777777 }, JSON.parse(res)]);
    if (label.startsWith('over two lines')) t.equal((whole.events[0]!.event as { s: string }).s, `${'x'.repeat(S - 1 - 25)}\u{1F600}z`);
  }
});

t.test('an event written over a spinner line (a carriage return, an erase-line sequence) is read; what it overwrote is reported', async (t) => {
  const event = '{"type":"result","subtype":"success","result":"ok\\r\\n","session_id":"s"}';
  const cases: Array<[string, string, string | undefined]> = [
    ['a spinner, then CR and ESC[K', `\r⠋ Working…\r\x1b[K${event}`, 'in.ndjson:1: not JSON: ⠋ Working…\\x0d\\x1b[K'],
    ['a carriage return alone', `Thinking…\r${event}`, 'in.ndjson:1: not JSON: Thinking…'],
    ['ESC[2K, then the cursor shown again', `⠙ 3s\x1b[2K\x1b[?25h${event}`, 'in.ndjson:1: not JSON: ⠙ 3s\\x1b[2K\\x1b[?25h'],
    ['erased, then ESC[1G and a colour reset', `⠹\x1b[2K\x1b[1G\x1b[0m${event}`, 'in.ndjson:1: not JSON: ⠹\\x1b[2K\\x1b[1G\\x1b[0m'],
    ["tput sgr0's reset after the return", `x\r\x1b[K\x1b(B\x1b[m${event}`, 'in.ndjson:1: not JSON: x\\x0d\\x1b[K\\x1b(B\\x1b[m'],
    ['carriage returns after the event too', `x\r${event}\r\r`, 'in.ndjson:1: not JSON: x'],
  ];
  for (const [name, line, problem] of cases) {
    for (const size of [0, 1, 5, 17]) {
      const seen = read(`${line}\n`, size);
      t.same(seen.events.map((e) => [e.line, e.raw]), [[1, event]], `${name}, in chunks of ${size}: the event, as written`);
      t.same(seen.problems, [problem], `${name}, in chunks of ${size}: what it overwrote`);
    }
  }
  // Not where the terminal would show something else: noise after the event, or no overwrite at all.
  // Nor on a line that starts as an event, broken or cut short: it is judged as one, by every tool alike.
  for (const line of [
    `⠋\r${event} done`,
    `Update available: 1.2.3${event}`,
    `Update available: 1.2.3\x1b[K${event}`,
    `⠋\r{"type":"result"`,
    `⠋\r[${event}]`,
    `⠋\r42`,
    `{"type":"user","x":"abc\r${event}`,
    `{"type":"result","is_error":true,\r${event}`,
  ]) {
    const seen = read(`${line}\n`);
    t.same(seen.events, [], `${JSON.stringify(line)}: no event`);
    t.equal(seen.problems.length, 1, `${JSON.stringify(line)}: one line reported`);
  }
});
