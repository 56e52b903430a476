import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { main } from '../src/cli/result.js';
import { result } from '../src/result/stream.js';
import { ResultCore, formatVerdict } from '../src/result/core.js';
import { EXIT } from '../src/cli/common.js';
import { memoryIo, ROOT, TEST_ENV } from './fixtures/lib/run.js';
import { Rng } from '../bench/generate.mjs';

const ok = (s: string, text = 'done') => JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: text, session_id: s });
const init = (s: string) => JSON.stringify({ type: 'system', subtype: 'init', session_id: s, cwd: '/p' });

t.test('--all: a run that died and was resumed counts, as a failed one does; an init twice is one run', async (t) => {
  const user = (s: string) => JSON.stringify({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'go' }] }, session_id: s });
  const call = (s: string) => JSON.stringify({ type: 'tool_call', subtype: 'started', call_id: 'c', tool_call: { shellToolCall: { args: { command: 'make' } } }, session_id: s });
  const died = [init('s'), user('s'), call('s'), init('s'), ok('s', 'fixed')].join('\n') + '\n';
  const all = memoryIo(died);
  t.equal(await main(['--all'], all.io), EXIT.NO_RESULT, '--all: the run that died has no result');
  t.equal(all.stdout(), 'fixed\n');
  t.equal(all.stderr(), 'ndjson-result: no result event: the agent stopped before finishing (session s, last event at stdin:3)\n');
  const last = memoryIo(died);
  t.equal(await main([], last.io), EXIT.OK, 'the default verdict is the last run\'s');
  const twice = memoryIo([init('s'), init('s'), user('s'), ok('s', 'once')].join('\n') + '\n');
  t.equal(await main(['--all'], twice.io), EXIT.OK, 'an init twice before the agent is at work: one run');
  t.equal(twice.stderr(), '');
  // After a run that died, an init twice before the agent is at work again is still one run: one note.
  const again = memoryIo([init('s'), user('s'), init('s'), init('s'), user('s'), ok('s', 'x')].join('\n') + '\n');
  t.equal(await main(['--all'], again.io), EXIT.NO_RESULT);
  t.equal(again.stderr(), 'ndjson-result: no result event: the agent stopped before finishing (session s, last event at stdin:2)\n');
  // An empty subtype is named as written.
  const empty = memoryIo(`${JSON.stringify({ type: 'result', subtype: '', result: 'x', session_id: 's' })}\n`);
  t.equal(await main([], empty.io), EXIT.FAILED);
  t.equal(empty.stderr(), 'ndjson-result: the run failed: subtype "": x (session s, result at stdin:1)\n');
  // --strict: an array that is not of objects is reported once, as not an object.
  const strict = memoryIo('[1]\n');
  t.equal(await main(['--strict'], strict.io), EXIT.INPUT);
  t.equal(strict.stderr(), 'ndjson-result: stdin:1: not an object: [1]\n');
});

t.test('exit status follows the last session', async (t) => {
  const cases: Array<[string, number, string]> = [
    [`${init('a')}\n${ok('a', 'hello')}\n`, EXIT.OK, 'hello\n'],
    [`${init('a')}\n`, EXIT.NO_RESULT, ''],
    ['', EXIT.NO_RESULT, ''],
    [`${init('a')}\n${ok('a')}\n${init('b')}\n`, EXIT.NO_RESULT, ''],
    [`${init('a')}\n${JSON.stringify({ type: 'result', is_error: true, result: 'x', session_id: 'a' })}\n`, EXIT.FAILED, ''],
    [`${init('a')}\n${JSON.stringify({ type: 'result', subtype: 'error_during_execution', session_id: 'a' })}\n`, EXIT.FAILED, ''],
    // a result without session id belongs to the session being read
    [`${init('a')}\n{"type":"result","result":"r"}\n`, EXIT.OK, 'r\n'],
  ];
  for (const [input, code, stdout] of cases) {
    const m = memoryIo(input);
    t.equal(await main([], m.io), code, JSON.stringify(input));
    t.equal(m.stdout(), stdout);
  }
});

t.test('a failure\'s long message is cut before a character, not between its halves', async (t) => {
  const m = memoryIo(`${init('a')}\n${JSON.stringify({ type: 'result', is_error: true, result: `${'x'.repeat(199)}😀 and the rest`, session_id: 'a' })}\n`);
  t.equal(await main([], m.io), EXIT.FAILED);
  t.match(m.stderr(), `the run failed: error: ${'x'.repeat(199)}… (session a`);
  t.notMatch(m.stderr(), '\ufffd', 'no half of the emoji is left, to be written as U+FFFD');
});

t.test('--all reports every session, worst status wins', async (t) => {
  const m = memoryIo(`${ok('a', 'one')}\n${init('b')}\n${ok('c', 'three')}\n`);
  t.equal(await main(['--all'], m.io), EXIT.NO_RESULT);
  t.equal(m.stdout(), 'one\nthree\n');
  t.match(m.stderr(), /no result event: the agent stopped before finishing \(session b, last event at stdin:2\)/);
});

t.test('control characters are made visible on a terminal, unless --raw', async (t) => {
  const input = `${ok('a', 'x\u001b]52;c;aGk=\u0007y')}\n`;
  const m = memoryIo(input);
  (m.io.stdout as { isTTY?: boolean }).isTTY = true;
  await main([], m.io);
  t.equal(m.stdout(), 'x\\x1b]52;c;aGk=\\x07y\n');
  const raw = memoryIo(input);
  (raw.io.stdout as { isTTY?: boolean }).isTTY = true;
  await main(['--raw'], raw.io);
  t.equal(raw.stdout(), 'x\u001b]52;c;aGk=\u0007y\n');
});

t.test('formatVerdict: fields and TSV escaping', async (t) => {
  const event = { type: 'result', result: 'a\tb\nc\\', n: 3, o: { k: [1] } };
  const verdict = { session: '', source: 'stdin', line: 1, events: 1, failed: false, result: { event, raw: Buffer.from(JSON.stringify(event)), source: 'stdin', line: 1 } };
  t.equal(formatVerdict(verdict, { fields: ['result', 'n', 'o', 'missing'] }), 'a\tb\nc\\\n3\n{"k":[1]}\n\n');
  t.equal(formatVerdict(verdict, { fields: ['result', 'n'], tsv: true }), 'a\\tb\\nc\\\\\t3\n');
  t.equal(formatVerdict(verdict, { fields: ['.n', '.o.k.0', '.'] }), '3\n1\n\n', 'a leading dot, as jq writes a path; a lone dot names no field');
  t.equal(formatVerdict({ ...verdict, result: undefined }, {}), undefined);
  // Made visible (a terminal): a string's controls as `\x9b`; a value of JSON's as JSON still reads them, `\u009b`.
  const odd = { type: 'result', result: { k: '\u009b\u007f"\\' }, s: 'x\u009by', n: null };
  const shown = { ...verdict, result: { event: odd, raw: Buffer.from(JSON.stringify(odd)), source: 'stdin', line: 1 } };
  t.equal(formatVerdict(shown, { escape: true }), '{"k":"\\u009b\\u007f\\"\\\\"}\n', 'a result of JSON, made visible as JSON');
  t.equal(formatVerdict(shown, { escape: true, fields: ['result', 's', 'n'] }), '{"k":"\\u009b\\u007f\\"\\\\"}\nx\\x9by\nnull\n', 'fields');
  t.equal(formatVerdict(shown, { escape: true, fields: ['result', 's'], tsv: true }), '{"k":"\\u009b\\u007f\\\\"\\\\\\\\"}\tx\\x9by\n', 'cells');
  t.equal(formatVerdict(shown, { fields: ['result'] }), `${JSON.stringify(odd.result)}\n`, 'not made visible: as it is');
  t.same(JSON.parse((formatVerdict(shown, { escape: true }) as string).trim()), odd.result, 'made visible, still the same JSON');
});

t.test('the stream, as a library user pipes it', async (t) => {
  const stream = result({ json: true });
  const out: Buffer[] = [];
  stream.on('data', (d: Buffer) => out.push(d));
  const done = new Promise((resolve) => stream.on('end', resolve));
  stream.write(`${init('s')}\n${ok('s').slice(0, 20)}`);
  stream.end(`${ok('s').slice(20)}\n`);
  await done;
  t.equal(Buffer.concat(out).toString(), `${ok('s')}\n`);
  t.equal(stream.core.verdicts.length, 1);
  t.equal(stream.core instanceof ResultCore, true);
});

t.test('| head -1 ends quietly with status 0', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-result-'));
  const file = path.join(dir, 'many.ndjson');
  fs.writeFileSync(file, Array.from({ length: 50000 }, (_, i) => ok(`s${i}`, `answer ${i}`)).join('\n') + '\n');
  const r = spawnSync('bash', ['-c', `node "${ROOT}/bin/ndjson-result.js" --all "${file}" | head -1; echo "status \${PIPESTATUS[0]}"`], {
    encoding: 'utf8',
    env: TEST_ENV,
  });
  t.equal(r.stdout, 'answer 0\nstatus 0\n');
  t.equal(r.stderr, '');
  fs.rmSync(dir, { recursive: true, force: true });
});

t.test('a write error is reported once, without a stack trace', { skip: fs.existsSync('/dev/full') ? false : 'no /dev/full here' }, async (t) => {
  const example = path.join(ROOT, 'test/fixtures/streams/basic.ndjson');
  for (const [tool, args] of [['ndjson-result', []], ['ndjson-result', ['--all']], ['ndjson-text', ['-a']], ['ndjson-dedupe', []], ['ndjson-tools', []]] as const) {
    const r = spawnSync('bash', ['-c', `node "${ROOT}/bin/${tool}.js" ${args.join(' ')} "${example}" > /dev/full`], { encoding: 'utf8', env: TEST_ENV });
    t.equal(r.status, 2, `${tool} ${args.join(' ')}: status 2`);
    t.equal(r.stderr, `${tool}: write error: No space left on device\n`, `${tool}: one line`);
  }
});

t.test('nothing to write to a device that takes no bytes: no write error, the verdict stands', { skip: fs.existsSync('/dev/full') ? false : 'no /dev/full here' }, async (t) => {
  const streams = path.join(ROOT, 'test/fixtures/streams');
  for (const [tool, args, status] of [
    ['ndjson-dedupe', ['/dev/null'], 0],
    ['ndjson-result', [`${streams}/failed.ndjson`], 3],
    ['ndjson-text', [`${streams}/died.ndjson`], 4],
    ['ndjson-tools', ['--paths=written', `${streams}/failed.ndjson`], 0],
  ] as const) {
    const r = spawnSync('bash', ['-c', `env -u NODE_OPTIONS node "${ROOT}/bin/${tool}.js" ${args.join(' ')} > /dev/full; echo "status $?"`], { encoding: 'utf8', env: TEST_ENV });
    t.equal(r.stdout, `status ${status}\n`, `${tool}: status ${status}`);
    t.notMatch(r.stderr, /write error/, `${tool}: no write error`);
  }
});

t.test('--help, --version and --completion that cannot be written: 2 and a write error, not 0', { skip: fs.existsSync('/dev/full') ? false : 'no /dev/full here' }, async (t) => {
  for (const tool of ['ndjson-result', 'ndjson-tools']) {
    for (const option of ['--version', '--help', '--completion=bash']) {
      const r = spawnSync('bash', ['-c', `env -u NODE_OPTIONS node "${ROOT}/bin/${tool}.js" ${option} > /dev/full; echo "status $?"`], { encoding: 'utf8', env: TEST_ENV });
      t.same([r.stdout, r.stderr], ['status 2\n', `${tool}: write error: No space left on device\n`], `${tool} ${option}`);
      const closed = spawnSync('bash', ['-c', `env -u NODE_OPTIONS node "${ROOT}/bin/${tool}.js" ${option} | head -c 0; echo "status \${PIPESTATUS[0]}"`], { encoding: 'utf8', env: TEST_ENV });
      t.same([closed.stdout, closed.stderr], ['status 0\n', ''], `${tool} ${option} into a pipe closed early: 0, quietly`);
    }
  }
});

t.test('standard error that cannot be written: the verdict stands, no crash', { skip: fs.existsSync('/dev/full') ? false : 'no /dev/full here' }, async (t) => {
  const failed = path.join(ROOT, 'test/fixtures/streams/failed.ndjson');
  for (const [tool, args, status] of [['ndjson-result', [], 3], ['ndjson-text', [], 3], ['ndjson-tools', ['--no-pending'], 0], ['ndjson-dedupe', ['--verify'], 0]] as const) {
    // The warning about the failed run goes nowhere; with a stack trace, 2>&1 into the pipe would show it.
    const r = spawnSync('bash', ['-c', `env -u NODE_OPTIONS node "${ROOT}/bin/${tool}.js" ${args.join(' ')} "${failed}" 2>/dev/full >/dev/null; echo "status $?"`], { encoding: 'utf8', env: TEST_ENV });
    t.equal(r.stdout, `status ${status}\n`, `${tool} ${args.join(' ')}: status ${status}, as with standard error written`);
    const written = spawnSync('node', [`${ROOT}/bin/${tool}.js`, ...args, failed], { encoding: 'utf8', env: TEST_ENV });
    t.equal(written.status, status, `${tool}: the same status when standard error is written`);
  }
  // Standard error closed under the tool as it warns (a reader that has gone): the same.
  const noisy = `noise\n${fs.readFileSync(failed, 'utf8')}`;
  const r = spawnSync('bash', ['-c', `env -u NODE_OPTIONS node "${ROOT}/bin/ndjson-result.js" 2>&1 >/dev/null | head -c 0; echo "status \${PIPESTATUS[0]}"`], { input: noisy, encoding: 'utf8', env: TEST_ENV });
  t.equal(r.stdout, 'status 3\n', 'ndjson-result: 3 with its stderr closed');
});

t.test('keepResults: false keeps where a written result was, not the result', async (t) => {
  const lines = `${ok('a', 'one')}\n${JSON.stringify({ type: 'result', is_error: true, result: 'bad', session_id: 'b' })}\n`;
  const emitted: string[] = [];
  for (const keepResults of [true, false]) {
    const core = new ResultCore({ all: true, keepResults });
    const stream = result({ all: true, keepResults });
    const out: Buffer[] = [];
    stream.on('data', (d: Buffer) => out.push(d));
    await new Promise((resolve) => stream.end(lines, () => resolve(undefined)));
    emitted.push(Buffer.concat(out).toString());
    const [a, b] = stream.core.verdicts;
    t.equal(a!.line, 1, 'the place of the written result');
    t.equal(a!.result?.raw.length === 0, !keepResults, keepResults ? 'the result is kept' : 'the written result is let go');
    t.equal(b!.failed, true);
    t.match(b!.result?.event, { result: 'bad' }, 'a failed result is kept: its message needs it');
    t.ok(core instanceof ResultCore);
  }
  t.equal(emitted[0], emitted[1], 'the same output either way');
});

t.test('keepVerdicts: false keeps the verdicts that report something, and counts them all', async (t) => {
  const failed = JSON.stringify({ type: 'result', is_error: true, result: 'bad', session_id: 'b' });
  const lines = `${ok('a', 'one')}\n${failed}\n${init('c')}\n${ok('d', 'four')}\n`;
  const seen: string[] = [];
  const stream = result({ all: true, keepResults: false, keepVerdicts: false, onVerdict: (v) => seen.push(v.session) });
  const out: Buffer[] = [];
  stream.on('data', (d: Buffer) => out.push(d));
  await new Promise((resolve) => stream.end(lines, () => resolve(undefined)));
  t.equal(Buffer.concat(out).toString(), 'one\nfour\n');
  t.same(seen, ['a', 'b', 'd', 'c'], 'every verdict is handed over, sessions without a result at the end');
  t.same(
    stream.core.verdicts.map((v) => [v.session, v.failed, v.result === undefined]),
    [
      ['b', true, false],
      ['c', false, true],
    ],
  );
  t.equal(stream.core.given, 4);

  // The command counts the sessions that ended well: a log of them all is not a log without events.
  const m = memoryIo(`${ok('a', 'one')}\n${ok('b', 'two')}\n`);
  t.equal(await main(['--all'], m.io), EXIT.OK);
  t.equal(m.stdout(), 'one\ntwo\n');
  t.equal(m.stderr(), '');
});

t.test('--all: a session that ended well and goes on is judged as if it had been kept whole', async (t) => {
  const text = (s: string, x: string) => JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: x }] }, session_id: s });
  const bad = (s: string) => JSON.stringify({ type: 'result', subtype: 'error_during_execution', is_error: true, result: `${s} broke`, session_id: s });
  const streams = {
    // Goes on without a new init and never ends again: its run still ended well.
    'goes on': [init('a'), ok('a'), init('b'), text('a', 'more'), ok('b')],
    // Starts again and stops: reported, before b, in the order the sessions were first seen.
    'starts again': [init('a'), ok('a'), init('b'), init('a'), text('a', 'again')],
    'fails later': [init('a'), ok('a'), init('b'), text('a', 'x'), ok('b'), bad('a')],
    'ends again': [init('a'), ok('a'), init('b'), text('a', 'z'), ok('a', 'again')],
    // An event without a session id after a settled session's result belongs to it.
    'no id': [init('a'), ok('a'), JSON.stringify({ type: 'result', subtype: 'success', result: 'no id' }), init('a'), text('a', 'x')],
  };
  const run = async (input: string, flat: boolean) => {
    const verdicts: unknown[] = [];
    const onVerdict = (v: { session: string; source: string; line: number; failed: boolean; dropped?: boolean; result?: { line: number } }) =>
      verdicts.push([v.session, v.line, v.failed, !!v.dropped, v.result?.line]);
    const stream = result({ all: true, keepResults: !flat, keepVerdicts: !flat, onVerdict });
    const out: Buffer[] = [];
    stream.on('data', (d: Buffer) => out.push(d));
    await new Promise((resolve) => stream.end(input, () => resolve(undefined)));
    return { out: Buffer.concat(out).toString(), verdicts };
  };
  for (const [name, lines] of Object.entries(streams)) {
    const input = `${lines.join('\n')}\n`;
    t.same(await run(input, true), await run(input, false), name);
  }
  const m = memoryIo(`${streams['starts again'].join('\n')}\n`);
  t.equal(await main(['--all'], m.io), EXIT.NO_RESULT);
  t.match(m.stderr(), /session a, last event at stdin:5\)\n.*session b, last event at stdin:3\)\n$/);

  // Logs of sessions that start, go on, end well or badly and start again, in any order: the same either way.
  const rng = new Rng('settled sessions');
  const events = [
    (s: string) => init(s),
    (s: string) => text(s, 'x'),
    (s: string) => ok(s, `${s} done`),
    (s: string) => bad(s),
    () => JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'no id' }] } }),
    () => JSON.stringify({ type: 'result', subtype: 'success', result: 'no id' }),
  ];
  let differ = 0;
  for (let k = 0; k < 300; k++) {
    const lines = Array.from({ length: rng.int(1, 24) }, () => rng.pick(events)(rng.pick(['a', 'b', 'c', 'd'])));
    const input = `${lines.join('\n')}\n`;
    const [flat, whole] = [await run(input, true), await run(input, false)];
    if (JSON.stringify(flat) !== JSON.stringify(whole)) {
      differ++;
      t.same(flat, whole, input);
    }
  }
  t.equal(differ, 0, '300 random logs read the same either way');
});

t.test('a file that cannot be read from its end is read from its start, and what fails is said in one line', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-unseekable-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'run.ndjson');
  fs.writeFileSync(file, `${init('a')}\n${ok('a')}\n`);
  // Standard input a regular file opened for writing only: a read of it fails.
  const fd = fs.openSync(file, 'a');
  t.teardown(() => fs.closeSync(fd));
  const ran = spawnSync(process.execPath, [path.join(ROOT, 'bin/ndjson-result.js')], { stdio: [fd, 'pipe', 'pipe'], env: TEST_ENV });
  t.equal(ran.stderr.toString(), 'ndjson-result: stdin: Bad file descriptor\n');
  t.equal(ran.status, EXIT.INPUT);
  t.equal(ran.stdout.toString(), '');
});

t.test('a last line cut short is a run without a result, read from a file as from a pipe', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-torn-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const torn = [
    // A new run of another session, cut in its init: its session is read, it has no result.
    ['{"type":"system","subtype":"init","session_id":"b","model":"Au', 'session b'],
    // A line of the session being read, cut before its id: the run goes on after its result.
    ['{"type":"assistant","message":{"content":[{"type":"text","text":"mo', 'session a'],
    // The result itself, cut.
    ['{"type":"result","subtype":"success","is_error":false,"result":"tw', 'session a'],
  ];
  for (const [line, session] of torn) {
    for (const end of ['', '\n']) {
      const input = `${init('a')}\n${ok('a', 'one')}\n${line}${end}`;
      const file = path.join(dir, 'run.ndjson');
      fs.writeFileSync(file, input);
      for (const [how, ran] of [
        ['piped', spawnSync(process.execPath, [path.join(ROOT, 'bin/ndjson-result.js')], { input, env: TEST_ENV })],
        ['named', spawnSync(process.execPath, [path.join(ROOT, 'bin/ndjson-result.js'), file], { env: TEST_ENV })],
      ] as const) {
        const name = `${how}, ${JSON.stringify(line.slice(0, 30))}${end ? ' and a newline' : ''}`;
        t.equal(ran.status, EXIT.NO_RESULT, name);
        t.equal(ran.stdout.toString(), '', name);
        t.match(ran.stderr.toString(), new RegExp(`:3: truncated: [^\\n]*\\n[^\\n]*no result event: the agent stopped before finishing \\(${session}, last event at [^:]+:3\\)\\n$`), name);
      }
    }
  }
});

t.test('an input of lines no agent writes holds no events of a run: no result', async (t) => {
  const ran = spawnSync(process.execPath, [path.join(ROOT, 'bin/ndjson-result.js')], { input: '{"type":"status","ok":true}\n', env: TEST_ENV });
  t.equal(ran.status, EXIT.NO_RESULT);
  t.equal(ran.stderr.toString(), 'ndjson-result: no result event: the input held no events of a run\n');
});

t.test('a line cut short, then a line that cannot go on with it (the agent\'s error, on 2>&1): the run has no result', async (t) => {
  // Cut between two values (cut in a string, the line after would be read as the string going on).
  for (const line of ['{"type":"system","subtype":"init","session_id":"b"', '{"type":"assistant","message":{"content":[']) {
    const input = `${init('a')}\n${ok('a', 'one')}\n${line}\nError: killed\n`;
    const ran = spawnSync(process.execPath, [path.join(ROOT, 'bin/ndjson-result.js')], { input, env: TEST_ENV });
    t.equal(ran.status, EXIT.NO_RESULT, line);
    t.equal(ran.stdout.toString(), '', line);
    t.match(ran.stderr.toString(), /^ndjson-result: stdin:3: truncated: [^\n]*\nndjson-result: stdin:4: not JSON: Error: killed\nndjson-result: no result event: /, line);
  }
  // Cut just after a `}`: shaped like a whole line of a type it does not read, it is read as cut short when read for its session.
  const cut = '{"type":"assistant","message":{"content":[{"type":"text","text":"a"}]}';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-cut-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  for (const after of ['Error: killed\n', '']) {
    const input = `${init('a')}\n${ok('a', 'one')}\n${cut}\n${after}`;
    const file = path.join(dir, 'run.ndjson');
    fs.writeFileSync(file, input);
    for (const [how, args, options] of [
      ['piped', [], { input }],
      ['named', [file], {}],
      ['--all', ['--all', file], {}],
      ['ndjson-text', [file], {}],
    ] as const) {
      const bin = how === 'ndjson-text' ? 'bin/ndjson-text.js' : 'bin/ndjson-result.js';
      const ran = spawnSync(process.execPath, [path.join(ROOT, bin), ...args], { ...options, env: TEST_ENV });
      const name = `${how}, ${after ? 'then an error' : 'at the end'}`;
      t.equal(ran.status, EXIT.NO_RESULT, name);
      t.match(ran.stderr.toString(), /:3: truncated: \{"type":"assistant"[^\n]*\n/, name);
      t.match(ran.stderr.toString(), /no result event: the agent stopped before finishing \(session a, last event at [^:]+:3\)\n$/, name);
    }
  }
  // A line broken within itself is no line cut short: noise, skipped.
  const broken = spawnSync(process.execPath, [path.join(ROOT, 'bin/ndjson-result.js')], { input: `${init('a')}\n${ok('a', 'one')}\n{"type":"tool_call","session_id":"a"x}\nError: killed\n`, env: TEST_ENV });
  t.equal(broken.status, EXIT.OK);
  t.equal(broken.stdout.toString(), 'one\n');
});

t.test('from the start, only the results of the sessions last active are kept', async (t) => {
  const run = async (lines: string[], heldResults: number) => {
    const stream = result({ heldResults });
    const out: Buffer[] = [];
    stream.on('data', (d: Buffer) => out.push(d));
    await new Promise((resolve) => stream.end(`${lines.join('\n')}\n`, () => resolve(undefined)));
    return { out: Buffer.concat(out).toString(), verdict: stream.core.verdicts[0]! };
  };
  // An event of the session after its result that is not the agent at work (which would be a run of its own).
  const event = (s: string) => JSON.stringify({ type: 'stats', tokens: 1, session_id: s });
  // a is active again before c ends: b is the least recently active, and the one let go.
  const kept = await run([ok('a', 'A'), ok('b', 'B'), event('a'), ok('c', 'C'), event('a')], 2);
  t.equal(kept.out, 'A\n', 'a session active again keeps its result');
  t.equal(kept.verdict.dropped, undefined);
  const dropped = await run([ok('a', 'A'), ok('b', 'B'), ok('c', 'C'), event('a')], 2);
  t.equal(dropped.out, '', 'a result let go is not printed');
  t.equal(dropped.verdict.dropped, true);
  t.equal(dropped.verdict.line, 1, 'where it was is kept');
  t.equal(dropped.verdict.result?.raw.length, 0, 'its bytes are not');
  // A new run of the session starts again: nothing of the old one is said.
  const again = await run([ok('a', 'A'), ok('b', 'B'), ok('c', 'C'), init('a'), ok('a', 'A2')], 2);
  t.equal(again.out, 'A2\n');
  t.equal(again.verdict.dropped, undefined);
});

t.test('a result let go is said, with status 2; the file itself is read from its end and has it', async (t) => {
  const lines = [ok('s0', 'first')];
  for (let i = 1; i <= 64; i++) lines.push(init(`s${i}`), ok(`s${i}`, `answer ${i}`));
  lines.push(JSON.stringify({ type: 'stats', tokens: 1, session_id: 's0' }));
  const input = `${lines.join('\n')}\n`;
  const piped = spawnSync(process.execPath, [path.join(ROOT, 'bin/ndjson-result.js')], { input, env: TEST_ENV });
  t.equal(piped.status, EXIT.INPUT);
  t.equal(piped.stdout.toString(), '');
  t.equal(
    piped.stderr.toString(),
    'ndjson-result: the result was not kept: too many sessions ended after it (session s0, result at stdin:1); name the file alone, which is read from its end, or use --all\n',
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-held-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, 'log.ndjson');
  fs.writeFileSync(file, input);
  const named = spawnSync(process.execPath, [path.join(ROOT, 'bin/ndjson-result.js'), file], { env: TEST_ENV });
  t.equal(named.status, EXIT.OK);
  t.equal(named.stdout.toString(), 'first\n');
  // --strict reads the file from its start to check every line: the result let go on the way is read again from its end.
  const stdinFd = fs.openSync(file, 'r');
  t.teardown(() => fs.closeSync(stdinFd));
  for (const [how, spawned] of [
    ['named', spawnSync(process.execPath, [path.join(ROOT, 'bin/ndjson-result.js'), '--strict', file], { env: TEST_ENV })],
    ['on stdin', spawnSync(process.execPath, [path.join(ROOT, 'bin/ndjson-result.js'), '--strict'], { stdio: [stdinFd, 'pipe', 'pipe'], env: TEST_ENV })],
  ] as const) {
    t.equal(spawned.status, EXIT.OK, `--strict, the file ${how}`);
    t.equal(spawned.stdout.toString(), 'first\n', `--strict, the file ${how}`);
    t.equal(spawned.stderr.toString(), '', `--strict, the file ${how}`);
  }
  // Piped, it is not there to read again.
  const strictPiped = spawnSync(process.execPath, [path.join(ROOT, 'bin/ndjson-result.js'), '--strict'], { input, env: TEST_ENV });
  t.equal(strictPiped.status, EXIT.INPUT);
  t.match(strictPiped.stderr.toString(), /the result was not kept/);
  // One session fewer after it: the result is still held.
  const fewer = `${[lines[0], ...lines.slice(3)].join('\n')}\n`;
  const held = spawnSync(process.execPath, [path.join(ROOT, 'bin/ndjson-result.js')], { input: fewer, env: TEST_ENV });
  t.equal(held.status, EXIT.OK);
  t.equal(held.stdout.toString(), 'first\n');
});

t.test('a field path: dots, a leading dot as jq writes it, and jq\'s brackets; anything else is no path', async (t) => {
  const { pathSteps, getPath } = await import('../src/events.js');
  const cases: Array<[string, Array<string | number | { key: string }> | undefined]> = [
    ['usage.outputTokens', ['usage', 'outputTokens']],
    ['.usage.outputTokens', ['usage', 'outputTokens']],
    ['message.content.0.text', ['message', 'content', '0', 'text']],
    ['.content[0].text', ['content', 0, 'text']],
    ['.modelUsage["claude-haiku-4.5"].costUSD', ['modelUsage', { key: 'claude-haiku-4.5' }, 'costUSD']],
    ['.["a.b"]', [{ key: 'a.b' }]],
    ['["a\\"b"][12]', [{ key: 'a"b' }, 12]],
    ['."session_id"', [{ key: 'session_id' }]],
    ['.modelUsage."claude-haiku-4.5".costUSD', ['modelUsage', { key: 'claude-haiku-4.5' }, 'costUSD']],
    ['.content[1]text', undefined],
    ['.content]', undefined],
    ['a"b', undefined],
    ['', undefined],
    ['.', undefined],
    ['..', undefined],
    ['a..b', undefined],
    ['usage.', undefined],
    ['a[x]', undefined],
    ['["a"', undefined],
    ['a[-1]', ['a', -1]],
    ['a[-]', undefined],
    ['a[--1]', undefined],
    // jq's operators and white space, which a jq user may write, are not read as a key's characters: no path.
    ['.a|.b', undefined],
    ['.a?', undefined],
    ['.a,.b', undefined],
    ['.a .b', undefined],
    ['length()', undefined],
    ['.["a b|c?"]', [{ key: 'a b|c?' }]],
    ['.modelUsage.claude-haiku-4', ['modelUsage', 'claude-haiku-4']],
  ];
  for (const [path, steps] of cases) t.same(pathSteps(path), steps, JSON.stringify(path));
  const event = { modelUsage: { 'claude-haiku-4.5': { costUSD: 0.25 } }, content: [{ text: 'first' }], '0': 'zero' };
  t.equal(getPath(event, '.modelUsage["claude-haiku-4.5"].costUSD'), 0.25);
  t.equal(getPath(event, '.content[0].text'), 'first');
  t.equal(getPath(event, 'content.0.text'), 'first');
  // As jq has them: a bracketed index names no key of an object, a key in quotes no element of an array; a name of digits either.
  t.equal(getPath(event, '[0]'), undefined, 'an index names no key of an object');
  t.equal(getPath(event, '["0"]'), 'zero', 'a key in quotes names a key');
  t.equal(getPath(event, '0'), 'zero', 'a name of digits names a key of an object');
  t.equal(getPath(event, '.content["0"].text'), undefined, 'a key in quotes names no element of an array');
  t.equal(getPath(event, '.content."0".text'), undefined, 'nor does a quoted name');
  t.equal(getPath(event, 'a..b'), undefined);
  // A negative index counts from the array's end, as in jq; past its start, nothing.
  const list = { c: ['x', 'y', 'z'] };
  t.equal(getPath(list, '.c[-1]'), 'z', '[-1]: the last');
  t.equal(getPath(list, '.c[-3]'), 'x', '[-3]: the first of three');
  t.equal(getPath(list, '.c[-4]'), undefined, 'past its start: nothing');
  t.equal(getPath({ c: { '-1': 'key' } }, '.c[-1]'), undefined, 'an index names no key of an object');
});
