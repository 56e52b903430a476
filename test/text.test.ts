// ndjson-text in process: the core's layout and text rules, colour and escaping,
// exit statuses, chunk boundaries, the live path of the stream, and `| head`.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { main, useColor } from '../src/cli/text.js';
import { main as resultMain } from '../src/cli/result.js';
import type { Io } from '../src/cli/common.js';
import { EXIT } from '../src/cli/common.js';
import { text } from '../src/text/stream.js';
import { EventReader } from '../src/io/input.js';
import type { TextOptions } from '../src/text/core.js';
import { TextCore, formatToolLine, startedCall, toolCallLine } from '../src/text/core.js';
import { memoryIo, ROOT, TEST_ENV } from './fixtures/lib/run.js';

const STREAMS = path.join(ROOT, 'test/fixtures/streams');
const S = 'sess-1';
const J = JSON.stringify;
const init = (s = S) => J({ type: 'system', subtype: 'init', session_id: s, cwd: '/p', model: 'Auto' });
const user = (textValue: string, s = S) => J({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: textValue }] }, session_id: s });
const asst = (textValue: string, extra: Record<string, unknown> = {}, s = S) =>
  J({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: textValue }] }, session_id: s, ...extra });
const delta = (textValue: string, s = S) => asst(textValue, { timestamp_ms: 1 }, s);
const think = (textValue: string, s = S) => J({ type: 'thinking', subtype: 'delta', text: textValue, session_id: s });
const thought = (s = S) => J({ type: 'thinking', subtype: 'completed', session_id: s });
const shell = (id: string, command: string, exitCode?: number, s = S) =>
  J({
    type: 'tool_call',
    subtype: exitCode === undefined ? 'started' : 'completed',
    call_id: id,
    tool_call: { shellToolCall: exitCode === undefined ? { args: { command } } : { args: { command }, result: { success: { exitCode } } } },
    session_id: s,
  });
const ok = (textValue: string, s = S) => J({ type: 'result', subtype: 'success', is_error: false, result: textValue, session_id: s });
const lines = (...events: string[]) => events.join('\n') + '\n';

/** Runs the core over `input` fed in pieces of `size` bytes (0: whole); returns what it wrote. */
async function through(input: Buffer | string, options: TextOptions = {}, size = 0): Promise<string> {
  const stream = text(options);
  const out: Buffer[] = [];
  stream.on('data', (d: Buffer) => out.push(d));
  const done = new Promise<void>((resolve, reject) => {
    stream.on('end', resolve);
    stream.on('error', reject);
  });
  const buf = Buffer.isBuffer(input) ? input : Buffer.from(input);
  if (size <= 0) stream.write(buf);
  else for (let i = 0; i < buf.length; i += size) stream.write(buf.subarray(i, i + size));
  stream.end();
  await done;
  return Buffer.concat(out).toString('utf8');
}

async function run(argv: string[], input: string, env?: NodeJS.ProcessEnv, tty = false) {
  const m = memoryIo(input, env);
  if (tty) (m.io.stdout as { isTTY?: boolean }).isTTY = true;
  const code = await main(argv, m.io);
  return { code, stdout: m.stdout(), stderr: m.stderr() };
}

const exampleStreams = fs
  .readdirSync(STREAMS)
  .filter((f) => f.startsWith('text-') || f === 'basic.ndjson' || f === 'failed.ndjson')
  .sort();

t.test('the default output is the text after the last tool call', async (t) => {
  // partial output: deltas, the flush before the tool call, deltas, the final flush
  const partial = lines(
    init(),
    delta('Look'),
    delta('ing.'),
    asst('Looking.', { timestamp_ms: 2, model_call_id: 'm0' }),
    shell('c1', 'ls'),
    shell('c1', 'ls', 0),
    delta('ha'),
    delta('ha'),
    delta(' '),
    delta('done'),
    asst('haha done'),
    ok('Looking.haha done'),
  );
  t.equal(await through(partial), 'haha done\n', 'repeated and whitespace-only deltas are text; flushes are not');
  // complete messages that look like flushes are the only copy of their text
  const complete = lines(init(), asst('First.', { timestamp_ms: 5, model_call_id: 'm' }), shell('c', 'x'), shell('c', 'x', 0), asst('Last.'), ok('First.Last.'));
  t.equal(await through(complete), 'Last.\n');
  // no tool call: all of the text is the final message
  t.equal(await through(lines(init(), asst('One.', { timestamp_ms: 5, model_call_id: 'm' }), asst('Two.'), ok('One.Two.'))), 'One.Two.\n');
  // json output: the result is all there is
  t.equal(await through(ok('the answer') + '\n'), 'the answer\n');
  // a session that ends on a tool call prints nothing
  t.equal(await through(lines(init(), asst('Deleting.'), shell('c', 'rm x'), shell('c', 'rm x', 0), ok('Deleting.'))), '');
});

t.test('Claude Code: a tool_use block ends the text before it', async (t) => {
  const claude = (content: unknown[]) => J({ type: 'assistant', message: { role: 'assistant', content }, parent_tool_use_id: null, session_id: S });
  const input = lines(
    claude([{ type: 'text', text: 'Reading.' }, { type: 'tool_use', id: 'tu1', name: 'Read', input: {} }]),
    J({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'x' }] }, session_id: S }),
    claude([{ type: 'text', text: 'It says x.' }]),
    ok('It says x.'),
  );
  t.equal(await through(input), 'It says x.\n');
  t.equal(await through(input, { all: true, user: true }), 'Reading.\n→ Read\n\nIt says x.\n', 'tool results are not prompts: each is its call\'s line');
  t.equal(await through(input, { all: true, user: true, tools: false }), 'Reading.\n\nIt says x.\n', 'no line with tools: false');
  // Its tool calls: each a line once answered, in the order of the answers; those never answered at the end of the run.
  const calls = lines(
    claude([{ type: 'text', text: 'Reading.' }, { type: 'tool_use', id: 'tu1', name: 'Read', input: { file_path: 'a.ts' } }, { type: 'tool_use', id: 'tu2', name: 'Bash', input: { command: 'npm test' } }]),
    J({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu2', content: [{ type: 'text', text: 'Exit code 1' }], is_error: true }, { type: 'tool_result', tool_use_id: 'tu1', content: 'x' }] }, session_id: S }),
    claude([{ type: 'tool_use', id: 'tu3', name: 'mcp__github__create_issue', input: { title: 't' } }]),
    J({ type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu9', content: 'y' }] }, session_id: S }),
    claude([{ type: 'text', text: 'Done.' }]),
    ok('Done.'),
  );
  let r = await run(['--all'], calls);
  t.same(
    [r.code, r.stdout, r.stderr],
    [EXIT.OK, 'Reading.\n✗ Bash npm test error: Exit code 1\n→ Read a.ts\n→ tool\n\nDone.\n→ mcp__github__create_issue github/create_issue (not completed)\n', ''],
  );
  r = await run(['--all', '--no-tools'], calls);
  t.same([r.stdout, r.stderr], ['Reading.\n\nDone.\n', ''], 'none with --no-tools');
  r = await run([], calls);
  t.same([r.stdout, r.stderr], ['Done.\n', ''], 'nor by default: the final message is the text after them');
});

t.test("Claude Code: a sub-agent's calls indented, a task by its description, an error by its first line", async (t) => {
  const msg = (type: string, content: unknown[], parent: string | null = null) => J({ type, message: { role: type, content }, parent_tool_use_id: parent, session_id: S });
  const input = lines(
    msg('assistant', [{ type: 'text', text: "I'll hand this to a sub-agent." }, { type: 'tool_use', id: 'T', name: 'Task', input: { subagent_type: 'Explore', description: 'Find the links', prompt: 'Find broken links' } }]),
    msg('assistant', [{ type: 'tool_use', id: 'g', name: 'Grep', input: { pattern: 'http', path: 'docs' } }, { type: 'tool_use', id: 'r', name: 'Read', input: { file_path: 'docs/gone.md' } }], 'T'),
    msg('user', [{ type: 'tool_result', tool_use_id: 'g', content: 'docs/a.md' }], 'T'),
    msg('user', [{ type: 'tool_result', tool_use_id: 'r', content: '<tool_use_error>File does not exist.</tool_use_error>', is_error: true }], 'T'),
    msg('assistant', [{ type: 'tool_use', id: 'b', name: 'Bash', input: { command: 'npm test' } }], 'T'),
    msg('assistant', [{ type: 'text', text: 'One broken link.' }], 'T'),
    msg('user', [{ type: 'tool_result', tool_use_id: 'T', content: 'One broken link.' }]),
    msg('assistant', [{ type: 'tool_use', id: 'b2', name: 'Bash', input: { command: 'npm test' } }]),
    msg('user', [{ type: 'tool_result', tool_use_id: 'b2', content: '\n  \nExit code 1\n> vitest run\n\nFAIL src/cart.test.ts', is_error: true }]),
    msg('assistant', [{ type: 'text', text: 'Done.' }]),
    ok('Done.'),
  );
  const r = await run(['--all', '--no-user'], input);
  t.same(
    [r.code, r.stdout, r.stderr],
    [
      EXIT.OK,
      [
        "I'll hand this to a sub-agent.",
        '  → Grep http',
        '  ✗ Read docs/gone.md error: File does not exist.',
        '',
        'One broken link.',
        '→ Task Find the links',
        '✗ Bash npm test error: Exit code 1 …',
        '',
        'Done.',
        '  → Bash npm test (not completed)',
        '',
      ].join('\n'),
      '',
    ],
  );
});

t.test('every example stream reads the same whatever the chunk boundaries', async (t) => {
  for (const file of exampleStreams) {
    const input = fs.readFileSync(path.join(STREAMS, file));
    for (const options of [{}, { all: true, tools: true, user: true, thinking: true }] as TextOptions[]) {
      const whole = await through(input, options);
      for (const size of [1, 3, 7, 64]) {
        t.equal(await through(input, options, size), whole, `${file} ${options.all ? '--all' : 'default'} in ${size}-byte chunks`);
      }
    }
  }
});

t.test('lines read by type and session alone give the output of lines parsed in full', async (t) => {
  t.same(
    ['assistant', 'result', 'tool_call', 'user', 'thinking', 'system'].map((type) => new TextCore({}).needs(type)),
    [true, true, false, false, false, true],
    'default: only text, results and system events (an init starts a run again) are parsed',
  );
  t.same(
    ['tool_call', 'user', 'thinking'].map((type) => new TextCore({ all: true, tools: true, user: false, thinking: true }).needs(type)),
    [true, true, true],
    "--all: what the transcript shows (prompts for the tool_result blocks that answer Claude Code's calls)",
  );
  t.same(
    ['tool_call', 'user', 'thinking'].map((type) => new TextCore({ all: true, tools: false, user: false, thinking: false }).needs(type)),
    [false, false, false],
    '--all --no-tools --no-user: neither calls nor prompts',
  );
  for (const file of exampleStreams) {
    const input = fs.readFileSync(path.join(STREAMS, file), 'utf8');
    for (const argv of [[], ['-a', '--thinking'], ['-a', '--no-tools', '--no-user']]) {
      const lazy = await run(argv, input);
      const full = await run([...argv, '--strict'], input);
      if (full.code === EXIT.INPUT) continue; // --strict stops at a bad line: nothing to compare
      t.same(lazy, full, `${file} ${argv.join(' ')}`);
    }
  }
});

t.test('--all writes every piece of text once: without its line ends, it is the result text', async (t) => {
  let checked = 0;
  for (const file of exampleStreams) {
    const input = fs.readFileSync(path.join(STREAMS, file), 'utf8');
    const results: Array<{ result?: string; is_error?: boolean }> = [];
    const reader = new EventReader({
      record: (rec) => {
        if (rec.event.type === 'result') results.push(rec.event as { result?: string; is_error?: boolean });
      },
      problem: () => {},
    });
    reader.write(Buffer.from(input));
    reader.endSource();
    if (results.length !== 1 || results[0]!.is_error) continue;
    const out = await through(input, { all: true, tools: false, user: false, raw: true });
    t.equal(out.replace(/\n/g, ''), results[0]!.result!.replace(/\n/g, ''), file);
    t.ok(out.endsWith('\n'), `${file}: ends with a newline`);
    checked++;
  }
  t.ok(checked >= 6, `${checked} streams checked`);
});

t.test('layout of the transcript', async (t) => {
  const input = lines(
    init(),
    user('Fix it\n\nplease'),
    think('First\n'),
    think('\nthen'),
    thought(),
    delta('\n\nOK'),
    delta(', running.'),
    asst('OK, running.', { timestamp_ms: 3, model_call_id: 'm' }),
    shell('c1', 'npm test'),
    shell('c1', 'npm test', 1),
    delta('Fixed.\n'),
    ok('OK, running.Fixed.\n'),
  );
  t.equal(
    await through(input, { all: true, tools: true, user: true, thinking: true }),
    '> Fix it\n>\n> please\n\n│ First\n│\n│ then\n\nOK, running.\n→ shell npm test (exit 1)\n\nFixed.\n',
    'prompt and thinking quoted line by line across deltas; leading newlines of a block dropped; tool line under its text',
  );
  t.equal(await through(input, { all: true, tools: false, user: false }), 'OK, running.\n\nFixed.\n', 'segments between tool calls are separated by a blank line');
});

t.test('--all: calls that never complete are listed when the session ends', async (t) => {
  const out = await through(lines(init(), asst('Waiting.'), shell('c1', 'sleep 99')), { all: true, tools: true });
  t.equal(out, 'Waiting.\n→ shell sleep 99 (not completed)\n');
});

t.test('--all: numeric call ids a double does not hold pair as written', async (t) => {
  const call = (phase: string, id: string, file: string, result = '') =>
    `{"type":"tool_call","subtype":"${phase}","call_id":${id},"tool_call":{"readToolCall":{"args":{"path":"${file}"}${result}}},"session_id":"${S}"}`;
  const input = lines(init(), call('started', '12345678901234567890', 'a'), call('started', '12345678901234567891', 'b'), call('completed', '12345678901234567891', 'b', ',"result":{"success":{}}'));
  for (const size of [0, 1, 7, 64]) t.equal(await through(input, { all: true, tools: true }, size), '→ read b\n→ read a (not completed)\n', `size ${size}`);
  // Two spellings of one number are one id.
  t.equal(await through(lines(init(), call('started', '1.5', 'a'), call('completed', '1.50', 'a', ',"result":{"success":{}}')), { all: true, tools: true }), '→ read a\n');
  // Claude Code's ids.
  const use = (id: string, file: string) => `{"type":"tool_use","id":${id},"name":"Read","input":{"file_path":"/r/${file}"}}`;
  const claude = lines(
    init(),
    `{"type":"assistant","message":{"role":"assistant","content":[${use('12345678901234567890', 'a')},${use('12345678901234567891', 'b')}]},"session_id":"${S}"}`,
    `{"type":"user","message":{"role":"user","content":[{"tool_use_id":12345678901234567891,"type":"tool_result","content":"ok"}]},"session_id":"${S}"}`,
  );
  t.equal(await through(claude, { all: true, tools: true }), '→ Read /r/b\n→ Read /r/a (not completed)\n');
});

t.test('several sessions: labelled when there is more than one', async (t) => {
  const input = lines(init('a'), asst('A1.', {}, 'a'), ok('A1.', 'a'), init('b'), asst('B1.', {}, 'b'), ok('B1.', 'b'));
  t.equal(await through(input), '── session a ──\nA1.\n\n── session b ──\nB1.\n');
  t.equal(await through(input, { all: true }), 'A1.\n\n── session b ──\nB1.\n', 'live: a label at each change of session');
  t.equal(await through(lines(init('a'), asst('A1.', {}, 'a'), ok('A1.', 'a'))), 'A1.\n', 'one session: no label');
  const evil = lines(init('x\u001b[2Jy'), ok('1', 'x\u001b[2Jy'), init('b'), ok('2', 'b'));
  t.match(await through(evil), /── session x\\x1b\[2Jy ──/, 'a session id is printed safely');
});

t.test('several sessions: each final message is printed when its run ends, not kept to the end', async (t) => {
  const stream = text();
  const seen: string[] = [];
  stream.on('data', (d: Buffer) => seen.push(d.toString()));
  const write = (s: string) => new Promise<void>((resolve) => stream.write(s, () => setImmediate(resolve)));
  await write(lines(init('a'), delta('A', 'a'), delta('1.', 'a'), asst('A1.', {}, 'a'), ok('A1.', 'a')));
  t.same(seen, [], 'a lone session waits: it is printed bare if no other comes');
  await write(lines(init('b'), delta('B1.', 'b')));
  t.equal(seen.join(''), '── session a ──\nA1.\n', 'a second session: the first is printed, labelled');
  await write(lines(ok('B1.', 'b'), init('c'), delta('C, never ended.', 'c')));
  t.equal(seen.join(''), '── session a ──\nA1.\n\n── session b ──\nB1.\n', 'printed as its result is read');
  await write(lines(init('a'), delta('A2.', 'a'), ok('A2.', 'a')));
  stream.end();
  await new Promise((resolve) => stream.on('end', resolve));
  t.equal(
    seen.join(''),
    '── session a ──\nA1.\n\n── session b ──\nB1.\n\n── session a ──\nA2.\n\n── session c ──\nC, never ended.\n',
    'a run of a session seen before is printed when it ends; a run that never ends, when the input does',
  );
  const a = stream.core.sessions.find((s) => s.session === 'a');
  t.equal(a?.written, 'A2.'.length, 'the text written for a session counts that of its last run (each run is judged on its own)');
  const interleaved = lines(init('a'), init('b'), delta('B.', 'b'), delta('A.', 'a'), ok('B.', 'b'), ok('A.', 'a'));
  t.equal(await through(interleaved), '── session b ──\nB.\n\n── session a ──\nA.\n', 'interleaved runs: in the order they end');
  const unended = lines(init('a'), delta('A.', 'a'), init('b'), delta('B.', 'b'), ok('B.', 'b'));
  t.equal(await through(unended), '── session b ──\nB.\n\n── session a ──\nA.\n', 'a run with no result comes after those that ended');
});

t.test('a session that ended well and goes on is read as if all its state had been kept', async (t) => {
  const failed = (textValue: string, s: string) => J({ type: 'result', subtype: 'error_during_execution', is_error: true, result: textValue, session_id: s });
  const input = lines(
    init('a'),
    asst('A.', {}, 'a'),
    ok('A.', 'a'),
    init('b'),
    shell('c1', 'make', undefined, 'b'),
    shell('c1', 'make', 0, 'b'),
    ok('done', 'b'),
    J({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: 'No id: still b.' }] } }),
    ok('b again, no text of its own', 'b'),
    init('a'),
    asst('A again.', {}, 'a'),
    failed('A broke.', 'a'),
    failed('B broke.', 'b'),
  );
  let r = await run(['--all'], input);
  t.equal(
    r.stdout,
    'A.\n\n── session b ──\n→ shell make (exit 0)\n\n── session b ──\nNo id: still b.\n\n── session a ──\nA again.\n',
    "a result after text and tool calls of the session's earlier run is no lone result: its text is not printed",
  );
  t.equal(r.code, EXIT.FAILED);
  t.equal(
    r.stderr,
    'ndjson-text: the run failed: error_during_execution: A broke. (session a, result at stdin:12)\n' +
      'ndjson-text: the run failed: error_during_execution: B broke. (session b, result at stdin:13)\n',
    'the notes keep the order sessions were first seen in',
  );
  r = await run([], input);
  t.equal(r.stdout, '── session a ──\nA.\n\n── session b ──\nNo id: still b.\n\n── session a ──\nA again.\n', 'the default output: a run without a final message is not printed, nor is its label');

  const stream = text({ all: true });
  stream.resume();
  stream.end(lines(init('a'), asst('A.', {}, 'a'), ok('A.', 'a'), init('b'), shell('c1', 'make', undefined, 'b'), shell('c1', 'make', 0, 'b'), ok('done', 'b')));
  await new Promise((resolve) => stream.on('end', resolve));
  const sessions = stream.core.sessions.map((s) => ({ ...s, result: s.result && { event: s.result.event, raw: s.result.raw.length, source: s.result.source, line: s.result.line } }));
  const place = (line: number) => ({ event: { type: 'result' }, raw: 0, source: 'stdin', line });
  t.same(
    sessions,
    [
      { session: 'a', source: 'stdin', line: 3, failed: false, texts: 1, toolCalls: 0, final: '', written: 2, printed: false, ran: true, said: true, result: place(3) },
      { session: 'b', source: 'stdin', line: 7, failed: false, texts: 0, toolCalls: 2, final: '', written: 0, printed: false, ran: true, said: true, result: place(7) },
    ],
    'what the core reports of sessions that ended well: counts, and their result by its place',
  );
});

t.test('a session run again (--resume, or a log appended twice): each run printed apart, and judged as ndjson-result --all judges it', async (t) => {
  const failed = (textValue: string, s = S) => J({ type: 'result', subtype: 'error_during_execution', is_error: true, result: textValue, session_id: s });
  const label = `── session ${S} ──`;
  const cases: Array<{ name: string; input: string; stdout: string; code: number; stderr: RegExp | '' }> = [
    {
      name: 'ended well, then a run that stopped without a result',
      input: lines(init(), asst('First.'), ok('First.'), init(), asst('More.')),
      stdout: `${label}\nFirst.\n\n${label}\nMore.\n`,
      code: EXIT.NO_RESULT,
      stderr: /^ndjson-text: no result event: the agent stopped before finishing \(session sess-1, last event at stdin:5\)\n$/,
    },
    {
      name: 'failed, then run again to success',
      input: lines(init(), asst('First.'), failed('it broke'), init(), asst('Second.'), ok('Second.')),
      stdout: `${label}\nFirst.\n\n${label}\nSecond.\n`,
      code: EXIT.FAILED,
      stderr: /^ndjson-text: the run failed: error_during_execution: it broke \(session sess-1, result at stdin:3\)\n$/,
    },
    {
      name: 'two results with no init between, the first failed',
      input: lines(asst('First.'), failed('it broke'), asst('Second.'), ok('Second.')),
      stdout: `${label}\nFirst.\n\n${label}\nSecond.\n`,
      code: EXIT.FAILED,
      stderr: /the run failed: error_during_execution: it broke \(session sess-1, result at stdin:2\)/,
    },
    {
      name: 'two results with no init between, both well',
      input: lines(asst('First.'), ok('First.'), asst('Second.'), ok('Second.')),
      stdout: `${label}\nFirst.\n\n${label}\nSecond.\n`,
      code: EXIT.OK,
      stderr: '',
    },
    {
      // A log of `--output-format json` runs of a resumed session: each result is a run, its text the answer.
      name: 'results alone, one after another',
      input: lines(ok('Monday.'), ok('Tuesday.'), ok('Wednesday.')),
      stdout: `${label}\nMonday.\n\n${label}\nTuesday.\n\n${label}\nWednesday.\n`,
      code: EXIT.OK,
      stderr: '',
    },
    {
      name: 'a result alone, then a failed one',
      input: lines(ok('One.'), failed('two')),
      stdout: `${label}\nOne.\n`,
      code: EXIT.FAILED,
      stderr: /^ndjson-text: the run failed: error_during_execution: two \(session sess-1, result at stdin:2\)\n$/,
    },
    {
      name: 'a streamed run, then a result alone',
      input: lines(init(), asst('Hello.'), ok('Hello.'), ok('Second.')),
      stdout: `${label}\nHello.\n\n${label}\nSecond.\n`,
      code: EXIT.OK,
      stderr: '',
    },
    {
      // The agent at work after its result, with no init: a run of its own, which no result answers for.
      // The second run, judged on its own, ended on a tool call: as a run of the call alone, both notes.
      name: 'a tool call after the result (a lone session): the final message is kept',
      input: lines(init(), asst('First.'), ok('First.'), shell('c9', 'ls')),
      stdout: `${label}\nFirst.\n`,
      code: EXIT.NO_RESULT,
      stderr:
        /^ndjson-text: no result event: the agent stopped before finishing \(session sess-1, last event at stdin:4\)\nndjson-text: no assistant text after the last tool call; ndjson-text --all shows the whole transcript \(session sess-1, last event at stdin:4\)\n$/,
    },
    {
      name: 'text after the result, with no init',
      input: lines(init(), asst('First.'), ok('First.'), asst('Extra.')),
      stdout: `${label}\nFirst.\n\n${label}\nExtra.\n`,
      code: EXIT.NO_RESULT,
      stderr: /^ndjson-text: no result event: the agent stopped before finishing \(session sess-1, last event at stdin:4\)\n$/,
    },
    {
      // A session that died and was resumed: every run counts, as a failed one does.
      name: 'a run that stopped without a result, then run again to success',
      input: lines(init(), asst('Half.'), init(), asst('Whole.'), ok('Whole.')),
      stdout: `${label}\nHalf.\n\n${label}\nWhole.\n`,
      code: EXIT.NO_RESULT,
      stderr: /^ndjson-text: no result event: the agent stopped before finishing \(session sess-1, last event at stdin:2\)\n$/,
    },
    {
      name: 'a lone session run twice, both failed, then a second session',
      input: lines(init(), asst('A.'), failed('a'), init(), asst('B.'), failed('b'), init('z'), asst('Z.', {}, 'z'), ok('Z.', 'z')),
      stdout: `${label}\nA.\n\n${label}\nB.\n\n── session z ──\nZ.\n`,
      code: EXIT.FAILED,
      stderr: /execution: a \(session sess-1, result at stdin:3\)\n.*execution: b \(session sess-1, result at stdin:6\)\n$/,
    },
    {
      name: 'a second session, then the first runs again and stops',
      input: lines(init('z'), ok('Z.', 'z'), init(), asst('First.'), ok('First.'), init(), asst('More.')),
      stdout: `── session z ──\nZ.\n\n${label}\nFirst.\n\n${label}\nMore.\n`,
      code: EXIT.NO_RESULT,
      stderr: /no result event: the agent stopped before finishing \(session sess-1, last event at stdin:7\)/,
    },
  ];
  for (const c of cases) {
    const r = await run([], c.input);
    t.equal(r.stdout, c.stdout, `${c.name}: each run's final message, apart`);
    t.equal(r.code, c.code, `${c.name}: the status`);
    if (c.stderr === '') t.equal(r.stderr, '', `${c.name}: nothing to say`);
    else t.match(r.stderr, c.stderr, `${c.name}: the note`);
    const all = await run(['--all'], c.input);
    t.equal(all.code, c.code, `${c.name}: the status with --all`);
    // The same notes, but the one that points to --all.
    t.equal(all.stderr, r.stderr.replace(/^ndjson-text: no assistant text after the last tool call.*\n/gm, ''), `${c.name}: the notes with --all`);
    const m = memoryIo(c.input);
    t.equal(await resultMain(['--all'], m.io), c.code, `${c.name}: the status ndjson-result --all gives`);
  }
  // An init after a result starts a run, even one that says nothing more: the agent stopped right after it started.
  const bare = lines(init(), asst('Once.'), ok('Once.'), init());
  const again = await run([], bare);
  t.equal(again.stdout, `${label}\nOnce.\n`, 'an init after a result starts a run (it prints nothing: it has no final message)');
  t.equal(again.code, EXIT.NO_RESULT, 'a run that stopped at its init');
  t.equal(await resultMain(['--all'], memoryIo(bare).io), EXIT.NO_RESULT, 'as ndjson-result --all judges it');
  t.equal((await run([], lines(init(), init(), asst('Once.'), ok('Once.')))).stdout, 'Once.\n', 'an init twice before anything else is one run');
  // --all: the calls of a run that stopped are shown as not completed when the session starts again.
  const stopped = await run(['--all'], lines(init(), shell('c1', 'make'), init(), asst('Again.'), ok('Again.')));
  t.equal(stopped.stdout, `→ shell make (not completed)\n\n${label}\nAgain.\n`, 'a call the run never completed, when the next run starts, under its label');
  t.equal(stopped.code, EXIT.NO_RESULT, 'and the run it was part of has no result');
  // --all: a session's next run is written under its label, as another session's text would be.
  const twice = await run(['--all'], lines(init(), asst('First.'), ok('First.'), init(), asst('More.'), ok('More.')));
  t.equal(twice.stdout, `First.\n\n${label}\nMore.\n`, '--all: the second run under a label');
  const third = await run(['--all'], lines(init(), asst('A.'), ok('A.'), init('z'), asst('Z.', {}, 'z'), ok('Z.', 'z'), init(), asst('B.'), ok('B.')));
  t.equal(third.stdout, `A.\n\n── session z ──\nZ.\n\n${label}\nB.\n`, '--all: after another session, one label');
  t.equal((await run(['--all'], lines(init(), init(), asst('Once.'), ok('Once.')))).stdout, 'Once.\n', '--all: an init twice before anything else is one run, no label');
  const results = await run(['--all'], lines(ok('Monday.'), ok('Tuesday.'), init(), asst('Hello.'), ok('Hello.'), ok('Again.')));
  t.equal(results.stdout, `Monday.\n\n${label}\nTuesday.\n\n${label}\nHello.\n\n${label}\nAgain.\n`, '--all: each result alone is a run, under a label');
});

t.test('a flush that differs from the deltas before it: the deltas are shown, the flush reported as ndjson-dedupe reports it', async (t) => {
  const flush = (textValue: string) => asst(textValue, { timestamp_ms: 2, model_call_id: 'm' });
  const input = lines(init(), delta('Hel'), flush('Hello there'), ok('Hello there'));
  for (const argv of [[], ['-a', '--no-user']]) {
    const r = await run(argv, input);
    t.equal(r.stdout, 'Hel\n', `${argv.join(' ')}: the deltas are the text`);
    t.equal(
      r.stderr,
      'ndjson-text: stdin:3: session sess-1: flush differs from the deltas before it at offset 3, not shown: flush "Hello there", deltas "Hel"\n',
      `${argv.join(' ')}: and the flush that says otherwise is reported`,
    );
    t.equal(r.code, EXIT.OK);
  }
  t.equal((await run([], lines(init(), delta('Hel'), delta('lo'), flush('Hello'), ok('Hello')))).stderr, '', 'a flush that repeats them is no news');
});

t.test('--all: another session ending leaves the line of the text still going as it is', async (t) => {
  // Session a's text goes on after session b's run ends: no line end in the middle of it, no label.
  const input = lines(init('a'), delta('Hello ', 'a'), init('b'), ok('', 'b'), delta('world', 'a'), ok('Hello world', 'a'));
  t.equal(await through(input, { all: true }), 'Hello world\n');
  // The same when b's run failed, and when b's run ends while b has text of its own: a's text is labelled where it switches.
  const failed = J({ type: 'result', subtype: 'error_during_execution', is_error: true, result: 'x', session_id: 'b' });
  t.equal(await through(lines(init('a'), delta('Hello ', 'a'), init('b'), failed, delta('world', 'a'), ok('Hello world', 'a')), { all: true }), 'Hello world\n');
  const both = lines(init('a'), init('b'), delta('Hello ', 'a'), delta('Bonjour ', 'b'), delta('world', 'a'), asst('Hello world', {}, 'a'), delta('le ', 'b'), ok('Hello world', 'a'), delta('monde', 'b'), ok('Bonjour le monde', 'b'));
  t.equal(await through(both, { all: true }), 'Hello \n\n── session b ──\nBonjour \n\n── session a ──\nworld\n\n── session b ──\nle monde\n');
  // Its own run's end still ends the line at once (a live reader sees it whole).
  t.equal(await through(lines(init('a'), delta('Done', 'a'), ok('Done', 'a')), { all: true }), 'Done\n');
});

t.test('--all: a character or CRLF split between two deltas is written whole, whatever block comes between them', async (t) => {
  // Another session's text between the halves: the rest of the emoji (the line end) comes with the session's next delta.
  t.equal(await through(lines(delta('hi \ud83d', 'A'), delta('yo', 'B'), delta('\ude00 bye', 'A')), { all: true }), 'hi \n\n── session B ──\nyo\n\n── session A ──\n😀 bye\n');
  t.equal(await through(lines(delta('one\r', 'A'), delta('yo', 'B'), delta('\ntwo', 'A')), { all: true }), 'one\n\n── session B ──\nyo\n\n── session A ──\ntwo\n');
  t.equal(await through(lines(delta('one\r', 'A'), delta('yo', 'B'), delta('\n', 'A'), delta('two', 'B')), { all: true }), 'one\n\n── session B ──\nyotwo\n', "the CRLF alone: no block, B's text goes on");
  // The session's own thinking between them.
  const thinking = J({ type: 'thinking', subtype: 'delta', text: 'hmm', session_id: 'A', timestamp_ms: 2 });
  t.equal(await through(lines(delta('hi \ud83d', 'A'), thinking, delta('\ude00 bye', 'A')), { all: true, thinking: true }), 'hi \n\n│ hmm\n\n😀 bye\n');
  // Never completed: written as it is, a lone CR before the session's tool line, half a character at the end under its label.
  t.equal(await through(lines(delta('one\r', 'A'), delta('yo', 'B'), shell('c1', 'ls', undefined, 'A')), { all: true }), 'one\n\n── session B ──\nyo\n\n── session A ──\n\\x0d\n→ shell ls (not completed)\n');
  t.equal(await through(lines(delta('x \ud83d', 'A'), delta('yo', 'B')), { all: true }), 'x \n\n── session B ──\nyo\n\n── session A ──\n\ufffd\n');
  // What two sessions hold at the end of the input: each written, the block written last first.
  t.equal(await through(lines(delta('one\r', 'A'), delta('two\ud83d', 'B')), { all: true }), 'one\n\n── session B ──\ntwo\ufffd\n\n── session A ──\n\\x0d\n');
  // At the end of a session's run: before another session's text, not after it.
  const held = lines(J({ type: 'thinking', subtype: 'delta', text: 'hmm\ud83d', session_id: 'A', timestamp_ms: 1 }), delta('ab\ud83d', 'A'), ok('ab', 'A'), delta('yo', 'B'), ok('yo', 'B'));
  t.equal(await through(held, { all: true, thinking: true }), '│ hmm\n\nab\ufffd\n\n│ \ufffd\n\n── session B ──\nyo\n');
  // A lone CR at the end of a thought, the session's text next: it ends the thought, as a tool line would write it.
  const cr = lines(J({ type: 'thinking', subtype: 'delta', text: 'hmm\r', session_id: 'A', timestamp_ms: 1 }), delta('ab', 'A'), ok('ab', 'A'));
  t.equal(await through(cr, { all: true, thinking: true }), '│ hmm\\x0d\n\nab\n', 'a CR ending a thought, text next');
  const completed = J({ type: 'thinking', subtype: 'completed', session_id: 'A', timestamp_ms: 2 });
  const crDone = lines(J({ type: 'thinking', subtype: 'delta', text: 'hmm\r', session_id: 'A', timestamp_ms: 1 }), completed, delta('ab', 'A'), ok('ab', 'A'));
  t.equal(await through(crDone, { all: true, thinking: true }), '│ hmm\\x0d\n\nab\n', 'a CR ending a completed thought, text next');
  // And of text, the session's thinking next, a call not shown between.
  const crText = lines(delta('ab\r', 'A'), shell('c1', 'ls', 0, 'A'), J({ type: 'thinking', subtype: 'delta', text: 'hmm', session_id: 'A', timestamp_ms: 3 }), ok('ab', 'A'));
  t.equal(await through(crText, { all: true, thinking: true, tools: false }), 'ab\\x0d\n\n│ hmm\n', 'a CR ending text, thinking next');
  // A delta of nothing but line ends, CRLF ones too, starts no block: no label over nothing, another session's text goes on.
  t.equal(await through(lines(delta('x', 'A'), delta('y', 'B'), delta('\r\n', 'A'), delta('z', 'B')), { all: true }), 'x\n\n── session B ──\nyz\n');
  t.equal(await through(lines(delta('x', 'A'), delta('y', 'B'), delta('\r\n\r\n\ud83d', 'A'), delta('z', 'B'), delta('\ude00', 'A')), { all: true }), 'x\n\n── session B ──\nyz\n\n── session A ──\n😀\n');
  // Half a character alone: held, no block (nor label) until the rest comes.
  t.equal(await through(lines(delta('x', 'A'), delta('\ud83d', 'B'), delta('y', 'A'), delta('\ude00', 'B')), { all: true }), 'xy\n\n── session B ──\n😀\n');
  // The session's own call between them (its line written later, or not at all): the same as another session's text.
  const call = shell('c1', 'ls', undefined, 'A');
  t.equal(await through(lines(delta('ab\r', 'A'), call, delta('\ncd', 'A')), { all: true, tools: false }), 'ab\n\ncd\n');
  t.equal(await through(lines(delta('ab\r', 'A'), call, delta('yo', 'B'), delta('\ncd', 'A')), { all: true, tools: false }), 'ab\n\n── session B ──\nyo\n\n── session A ──\ncd\n');
  // A lone CR (the next delta does not start with `\n`) ends the paragraph it was held back from, as before a tool line.
  t.equal(await through(lines(delta('ab\r', 'A'), call, delta('cd', 'A')), { all: true, tools: false }), 'ab\\x0d\n\ncd\n', 'a lone CR, the call not shown');
  t.equal(await through(lines(delta('ab\r', 'A'), call, delta('cd', 'A')), { all: true, tools: false, raw: true }), 'ab\r\n\ncd\n', 'a lone CR, the call not shown, raw');
  t.equal(await through(lines(delta('ab\r', 'A'), call, delta('yo', 'B'), delta('cd', 'A')), { all: true, tools: false }), 'ab\n\n── session B ──\nyo\n\n── session A ──\n\\x0dcd\n', 'another session between: where it goes on');
  // A tool line of the session comes after what its text held, at the end of that text.
  t.equal(await through(lines(delta('ab\r', 'A'), shell('c1', 'ls', 0, 'A')), { all: true }), 'ab\\x0d\n→ shell ls (exit 0)\n');
});

t.test('--all: text of nothing but newlines starts no block, so no label stands over nothing', async (t) => {
  const input = lines(init('a'), init('b'), delta('A1.', 'a'), delta('\n\n', 'b'), delta('A2.', 'a'), think('\n', 'b'), delta('B.', 'b'), ok('x', 'a'), ok('y', 'b'));
  t.equal(await through(input, { all: true, thinking: true }), 'A1.A2.\n\n── session b ──\nB.\n');
});

t.test('a tool call line found not to be JSON is skipped: it ends no stretch of text, in any mode', async (t) => {
  const broken = '{"type":"tool_call","subtype":"started","call_id":"c1","tool_call":{"readToolCall":{"args":{"path":"a"}}},"session_id":"s"x}';
  const input = lines(init(), asst('Hello there.'), broken, ok('Hello there.'));
  t.equal(await through(input), 'Hello there.\n', 'default');
  t.equal(await through(input, { all: true }), 'Hello there.\n', '--all');
  t.equal(await through(input, { all: true, tools: true }), 'Hello there.\n', '--all with tools');
});

t.test('control characters are visible unless raw; newline and tab stay', async (t) => {
  const input = lines(init(), asst('a\u001b]52;c;ZXZpbA==\u0007b\tc\nd\re\u009b'), ok('x'));
  t.equal(await through(input), 'a\\x1b]52;c;ZXZpbA==\\x07b\tc\nd\\x0de\\x9b\n');
  t.equal(await through(input, { raw: true }), 'a\u001b]52;c;ZXZpbA==\u0007b\tc\nd\re\u009b\n');
  // A carriage return just before a newline hides nothing: Windows text keeps its line ends.
  t.equal(await through(lines(init(), asst('one\r\ntwo\r\r\nthree\r'), ok('x'))), 'one\r\ntwo\\x0d\r\nthree\\x0d\n');
  const tool = toolCallLine('shell', { command: 'echo \u001b[31mred\nnext' }, { status: 'success', body: { exitCode: 0 }, result: {} });
  t.equal(formatToolLine(tool, (s) => s.replace(/[\u0000-\u001f]/g, (c) => `<${c.charCodeAt(0)}>`)), '→ shell echo <27>[31mred<10>next (exit 0)');
});

t.test('tool lines', async (t) => {
  const line = (name: string, args: Record<string, unknown> | undefined, status?: string, body?: unknown) =>
    formatToolLine(toolCallLine(name, args, status ? ({ status, body, result: {} } as never) : undefined), (s) => s);
  t.equal(line('read', { path: 'src/app.ts' }, 'success', { totalLines: 54 }), '→ read src/app.ts (54 lines)');
  t.equal(line('read', { path: 'one.txt' }, 'success', { totalLines: 1 }), '→ read one.txt (1 line)');
  t.equal(line('shell', { command: 'npm test' }, 'success', { exitCode: 1 }), '→ shell npm test (exit 1)');
  t.equal(line('write', { path: '.env' }, 'rejected', {}), '✗ write .env rejected');
  t.equal(line('write', { path: 'a' }, 'success', { linesCreated: 19 }), '→ write a (19 lines)');
  t.equal(line('edit', { path: 'a' }, 'success', { linesAdded: 3, linesRemoved: 1 }), '→ edit a (+3 -1)');
  t.equal(line('delete', { path: 'a' }, 'error', { error: 'No such file' }), '✗ delete a error: No such file');
  t.equal(line('shell', { command: 'nope' }, 'spawnError', { error: 'ENOENT' }), '✗ shell nope spawn error: ENOENT');
  t.equal(line('mcp', { providerIdentifier: 'gh', toolName: 'create_issue' }, 'rejected', { reason: 'denied' }), '✗ mcp gh/create_issue rejected: denied');
  t.equal(line('shell', { command: 'npm run lint' }, 'failure', { exitCode: 2, stderr: 'x' }), '✗ shell npm run lint failed: exit 2', 'a failure gives its exit code');
  t.equal(line('shell', { command: 'make' }, 'failure', { reason: 'out of memory', signal: 'SIGKILL' }), '✗ shell make failed: out of memory, killed by SIGKILL');
  t.equal(line('shell', { command: 'make' }, 'error', { error: 'timed out', exitCode: 124 }), '✗ shell make error: timed out, exit 124');
  t.equal(line('web_search', { query: 'x y' }), '→ web_search x y');
  t.equal(line('grep', { pattern: 'TODO', path: 'src' }, 'success', {}), '→ grep TODO');
  t.match(line('shell', { command: 'x'.repeat(500) }), /^→ shell x{200}…$/, 'long targets are clipped');
  t.equal(line('shell', { command: `${'x'.repeat(199)}😀 and more` }), `→ shell ${'x'.repeat(199)}…`, 'not between the halves of a character');
});

t.test('a completed call without args: the line from what its start kept is the line from its args', async (t) => {
  const calls: Array<[string, Record<string, unknown> | undefined, string | undefined, unknown]> = [
    ['read', { path: 'src/app.ts' }, 'success', { totalLines: 54, path: '/w/src/app.ts' }],
    ['shell', { command: 'npm test', workingDirectory: '/w' }, 'success', { exitCode: 1, command: 'other' }],
    ['shell', { cwd: '/w' }, 'success', { exitCode: 0, command: 'from the result' }],
    ['shell', { other: 'first string' }, 'failure', { reason: 'boom' }],
    ['write', { contents: 'x'.repeat(300), path: 'a' }, 'success', { linesCreated: 2 }],
    ['delete', { targets: ['a', 'b'] }, 'error', { error: 'No such file', path: 'c' }],
    ['mcp', { providerIdentifier: 'gh', toolName: 'create_issue', args: { a: 1 } }, 'rejected', { reason: 'denied' }],
    ['mcp', { name: 'only-server' }, 'success', {}],
    ['web_search', { toolCallId: 'x', query: 'x y' }, 'success', {}],
    ['glob', { globPattern: '**/*.ts' }, 'success', { files: ['a.ts'] }],
    ['unknown_tool', { n: 1, text: 'the first string' }, 'success', { path: 'from/result' }],
    ['unknown_tool', { n: 1 }, 'success', { path: 'from/result' }],
    ['unknown_tool', undefined, undefined, undefined],
    ['edit', { path: 'a' }, undefined, undefined],
  ];
  for (const [name, args, status, body] of calls) {
    const result = status === undefined ? undefined : ({ status, body, result: {} } as never);
    const started = startedCall(name, args as never);
    t.same(toolCallLine(name, undefined, result, started), toolCallLine(name, args as never, result), `${name} ${J(args)} ${status}`);
  }
});

t.test('--all: calls without an id are paired as ndjson-tools pairs them', async (t) => {
  const call = (phase: string, args?: Record<string, unknown>, result?: Record<string, unknown>) =>
    J({ type: 'tool_call', subtype: phase, tool_call: { readToolCall: { ...(args ? { args } : {}), ...(result ? { result: { success: result } } : {}) } }, session_id: S });
  const done = J({ type: 'result', subtype: 'success', result: 'ok', session_id: S });
  const run = async (lines: string[]) => {
    const m = memoryIo(`${[init(), ...lines, done].join('\n')}\n`);
    t.equal(await main(['-a', '--no-user'], m.io), EXIT.OK);
    return m.stdout();
  };
  // In order, when the completions name no arguments.
  t.equal(
    await run([call('started', { path: 'one.txt' }), call('started', { path: 'two.txt' }), call('completed', undefined, { totalLines: 3 }), call('completed', undefined, { totalLines: 5 })]),
    '→ read one.txt (3 lines)\n→ read two.txt (5 lines)\n',
  );
  // By their arguments, when the completions name them.
  t.equal(
    await run([call('started', { path: 'one.txt' }), call('started', { path: 'two.txt' }), call('completed', { path: 'two.txt' }, { totalLines: 5 }), call('completed', { path: 'one.txt' }, { totalLines: 3 })]),
    '→ read two.txt (5 lines)\n→ read one.txt (3 lines)\n',
  );
  // An id spelt like a key a call without one could be given is another call.
  for (const callId of ['\u00010', 'a0', '0']) {
    const withId = J({ type: 'tool_call', subtype: 'started', call_id: callId, tool_call: { readToolCall: { args: { path: 'two.txt' } } }, session_id: S });
    t.equal(
      await run([call('started', { path: 'one.txt' }), withId, call('completed', undefined, { totalLines: 3 })]),
      '→ read one.txt (3 lines)\n→ read two.txt (not completed)\n',
      `call_id ${J(callId)}`,
    );
  }
});

t.test('a started call keeps nothing of the bytes its line was read from', async (t) => {
  // A command long enough to be read from the line's bytes only when asked for (see skim.ts).
  const command = `echo ${'x'.repeat(6000)}`;
  const started = J({ type: 'tool_call', subtype: 'started', call_id: 'c', tool_call: { shellToolCall: { args: { command } } }, session_id: S });
  const completed = J({ type: 'tool_call', subtype: 'completed', call_id: 'c', tool_call: { shellToolCall: { result: { success: { exitCode: 0 } } } }, session_id: S });
  const out: string[] = [];
  const core = new TextCore({ all: true, tools: true });
  const emit = (data: string | Buffer) => out.push(data.toString());
  const reader = new EventReader({ record: (rec) => core.record(rec, emit), problem: () => {} }, { needs: (type) => core.needs(type), skim: (type) => core.skim(type) });
  reader.startSource('x');
  const chunk = Buffer.from(`${init()}\n${started}\n`);
  reader.write(chunk);
  // The reader's buffer is read into again before the call completes.
  chunk.fill(0x20);
  reader.write(Buffer.from(`${completed}\n${ok('done')}\n`));
  reader.endSource();
  core.end(emit);
  t.match(out.join(''), /→ shell echo x{195}… \(exit 0\)/);
});

t.test('colour: only the parts that are not assistant text', async (t) => {
  const input = lines(init(), user('hi'), think('hmm'), delta('Plain'), shell('c', 'ls'), shell('c', 'ls', 0), asst('text.'), ok('Plaintext.'));
  const out = await through(input, { all: true, tools: true, user: true, thinking: true, color: true });
  t.match(out, /\x1b\[32m> hi\x1b\[0m/, 'prompt');
  t.match(out, /\x1b\[2m│ hmm\x1b\[0m/, 'thinking');
  t.match(out, /\x1b\[36m→ shell ls \(exit 0\)\x1b\[0m/, 'tool line');
  t.match(out, /\nPlain\n/, 'assistant text is never coloured');
  t.match(out, /\ntext\.\n$/);
  const env = (vars: NodeJS.ProcessEnv, tty: boolean): Io => {
    const io = memoryIo('', vars).io;
    (io.stdout as { isTTY?: boolean }).isTTY = tty;
    return io;
  };
  t.equal(useColor('auto', env({}, true)), true, 'a terminal');
  t.equal(useColor('auto', env({}, false)), false, 'a pipe');
  t.equal(useColor('auto', env({ NO_COLOR: '1' }, true)), false, 'NO_COLOR');
  t.equal(useColor('auto', env({ NO_COLOR: '' }, true)), true, 'NO_COLOR empty does not count');
  t.equal(useColor('auto', env({ TERM: 'dumb' }, true)), false, 'TERM=dumb');
  t.equal(useColor('always', env({ NO_COLOR: '1' }, false)), true, '--color=always forces it');
  t.equal(useColor('never', env({}, true)), false, '--color=never');
  // FORCE_COLOR, as Node and chalk read it: set to anything but '', it decides before NO_COLOR, TERM and the terminal.
  t.equal(useColor('auto', env({ FORCE_COLOR: '1' }, false)), true, 'FORCE_COLOR=1 on a pipe');
  t.equal(useColor('auto', env({ FORCE_COLOR: 'true' }, false)), true, 'FORCE_COLOR=true');
  t.equal(useColor('auto', env({ FORCE_COLOR: '3', NO_COLOR: '1', TERM: 'dumb' }, false)), true, 'FORCE_COLOR before NO_COLOR and TERM=dumb');
  t.equal(useColor('auto', env({ FORCE_COLOR: '0' }, true)), false, 'FORCE_COLOR=0 on a terminal');
  t.equal(useColor('auto', env({ FORCE_COLOR: 'false' }, true)), false, 'FORCE_COLOR=false');
  t.equal(useColor('auto', env({ FORCE_COLOR: '' }, false)), false, 'FORCE_COLOR empty does not count (a pipe)');
  t.equal(useColor('auto', env({ FORCE_COLOR: '' }, true)), true, 'FORCE_COLOR empty does not count (a terminal)');
  t.equal(useColor('never', env({ FORCE_COLOR: '1' }, true)), false, '--color=never before FORCE_COLOR');
  t.equal(useColor('always', env({ FORCE_COLOR: '0' }, false)), true, '--color=always before FORCE_COLOR=0');
  const tty = await run(['-a'], input, {}, true);
  t.match(tty.stdout, /\x1b\[36m/, 'main colours on a terminal');
  const noColor = await run(['-a'], input, { NO_COLOR: '1' }, true);
  t.notMatch(noColor.stdout, /\x1b/, 'but not with NO_COLOR');
  const forced = await run(['-a'], input, { FORCE_COLOR: '1', NO_COLOR: '1' }, false);
  t.match(forced.stdout, /\x1b\[36m/, 'and on a pipe with FORCE_COLOR');
});

t.test('exit statuses and notes', async (t) => {
  let r = await run([], lines(init(), asst('Hi.'), ok('Hi.')));
  t.same([r.code, r.stdout, r.stderr], [EXIT.OK, 'Hi.\n', '']);
  r = await run([], lines(init(), asst('Half'), shell('c', 'make')));
  t.equal(r.code, EXIT.NO_RESULT);
  t.equal(r.stdout, '');
  t.match(r.stderr, /no result event: the agent stopped before finishing \(session sess-1, last event at stdin:3\)/);
  t.match(r.stderr, /no assistant text after the last tool call; ndjson-text --all shows the whole transcript/);
  // A run of tool calls and no text at all ends on a tool call too: nothing printed, and the note says why.
  r = await run([], lines(init(), shell('c', 'make'), ok('')));
  t.same([r.code, r.stdout], [EXIT.OK, '']);
  t.match(r.stderr, /^ndjson-text: no assistant text after the last tool call; ndjson-text --all shows the whole transcript \(session sess-1, result at stdin:3\)\n$/);
  // Several sessions, none with a final message: nothing is printed, not even their labels.
  r = await run([], lines(init('a'), shell('c', 'make', undefined, 'a'), shell('c', 'make', 0, 'a'), ok('', 'a'), init('b'), shell('d', 'ls', undefined, 'b'), shell('d', 'ls', 0, 'b'), ok('', 'b')));
  t.same([r.code, r.stdout], [EXIT.OK, '']);
  t.equal(r.stderr.match(/no assistant text after the last tool call/g)?.length, 2, 'a note for each');
  r = await run([], lines(init('a'), asst('A.', {}, 'a'), ok('A.', 'a'), init('b'), shell('d', 'ls', undefined, 'b'), shell('d', 'ls', 0, 'b'), ok('', 'b')));
  t.same([r.code, r.stdout], [EXIT.OK, '── session a ──\nA.\n'], 'only the sessions with a final message, labelled');
  // One session run twice, each run ending on a tool call: a note for each run.
  r = await run([], lines(init(), shell('c', 'make', 0), ok(''), init(), shell('d', 'ls', 0), ok('')));
  t.same([r.code, r.stdout], [EXIT.OK, '']);
  t.same(r.stderr.match(/no assistant text after the last tool call.*/g), [
    'no assistant text after the last tool call; ndjson-text --all shows the whole transcript (session sess-1, result at stdin:3)',
    'no assistant text after the last tool call; ndjson-text --all shows the whole transcript (session sess-1, result at stdin:6)',
  ]);
  // A run with a final message, then a run of the same session that dies on a tool call: that run gets both notes, as alone.
  r = await run([], lines(init(), asst('First.'), ok('First.'), init(), shell('d', 'ls', 0)));
  t.same([r.code, r.stdout], [EXIT.NO_RESULT, '── session sess-1 ──\nFirst.\n']);
  t.match(r.stderr, /no result event: the agent stopped before finishing \(session sess-1, last event at stdin:5\)\n.*no assistant text after the last tool call; ndjson-text --all shows the whole transcript \(session sess-1, last event at stdin:5\)\n$/);
  // A run with a final message after one without: only the first has the note.
  r = await run([], lines(init(), shell('c', 'make', 0), ok(''), init(), asst('Second.'), ok('Second.')));
  t.same([r.code, r.stdout], [EXIT.OK, '── session sess-1 ──\nSecond.\n']);
  t.same(r.stderr.match(/no assistant text after the last tool call.*/g), ['no assistant text after the last tool call; ndjson-text --all shows the whole transcript (session sess-1, result at stdin:3)']);
  r = await run([], lines(init(), asst('Half a sent')));
  t.same([r.code, r.stdout], [EXIT.NO_RESULT, 'Half a sent\n'], 'what text there was');
  r = await run([], lines(init(), asst('Cannot.'), J({ type: 'result', subtype: 'error_during_execution', is_error: true, result: 'Cannot.', session_id: S })));
  t.same([r.code, r.stdout], [EXIT.FAILED, 'Cannot.\n']);
  t.match(r.stderr, /the run failed: error_during_execution: Cannot\./);
  r = await run([], lines(init('a'), ok('x', 'a'), init('b'), J({ type: 'result', is_error: true, session_id: 'b' }), init('c')));
  t.equal(r.code, EXIT.NO_RESULT, 'the worst status among the sessions');
  r = await run([], '');
  t.same([r.code, r.stderr], [EXIT.NO_RESULT, 'ndjson-text: no result event: the input held no events of a run\n']);
  r = await run(['--strict'], `${init()}\nnot json\n${ok('x')}\n`);
  t.same([r.code, r.stdout, r.stderr], [EXIT.INPUT, '', 'ndjson-text: stdin:2: not JSON: not json\n']);
  // --all stopped mid-line: what was written ends with its line end, as the same input without --strict does.
  r = await run(['--all', '--strict'], `${lines(init(), delta('hello wor'))}not json\n${ok('hello world')}\n`);
  t.same([r.code, r.stdout, r.stderr], [EXIT.INPUT, 'hello wor\n', 'ndjson-text: stdin:3: not JSON: not json\n']);
  r = await run(['--all', '--strict'], `${lines(init(), delta('two\r'))}not json\n`);
  t.same([r.code, r.stdout], [EXIT.INPUT, 'two\\x0d\n'], 'a carriage return held back is written before the line end');
  r = await run(['--all', '--strict'], `${lines(init(), delta('done\n'))}not json\n`);
  t.same([r.code, r.stdout], [EXIT.INPUT, 'done\n'], 'a line already ended is not ended again');
  // The stream as a library has it: the bad line is the last, read when the stream ends.
  const lib = text({ all: true, strict: true });
  const made: Buffer[] = [];
  lib.on('data', (d: Buffer) => made.push(d));
  const failure = await new Promise<Error>((resolve) => {
    lib.on('error', resolve);
    lib.end(`${lines(init(), delta('cut'))}{"type":"assis`);
  });
  t.equal(failure.name, 'StrictError');
  t.equal(Buffer.concat(made).toString(), 'cut\n', 'the stream ended by its writer: the line ended too');
  r = await run(['--user'], '');
  t.same([r.code, r.stderr.split('\n')[0]], [EXIT.USAGE, 'ndjson-text: --user needs --all (-a)']);
  r = await run(['--color'], '');
  t.equal(r.code, EXIT.USAGE, '--color needs a value');
  r = await run(['-xyz', '--bogus', '--no-such-thing'], '');
  t.same([r.code, r.stderr.split('\n')[0]], [EXIT.USAGE, 'ndjson-text: unknown options: -x, -y, -z, --bogus, --no-such-thing'], 'options named as typed');
  // A file whose name starts with a dash is read as letters of options (-d and -s are none): the message says how to name it.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-text-dash-'));
  const cwd = process.cwd();
  try {
    process.chdir(dir);
    fs.writeFileSync('-dash.ndjson', lines(init(), asst('Dash.'), ok('Dash.')));
    r = await run(['-dash.ndjson'], '');
    t.same([r.code, r.stderr.split('\n')[0]], [EXIT.USAGE, 'ndjson-text: unknown options: -d, -s (to read the file -dash.ndjson, name it ./-dash.ndjson)']);
    r = await run(['./-dash.ndjson'], '');
    t.same([r.code, r.stdout], [EXIT.OK, 'Dash.\n'], 'named so, it is read');
    // A dot after the first letter: yargs names the whole word, getopt(3) the letter.
    fs.writeFileSync('-x.ndjson', lines(init(), asst('Dot.'), ok('Dot.')));
    r = await run(['-x.ndjson'], '');
    t.same([r.code, r.stderr.split('\n')[0]], [EXIT.USAGE, 'ndjson-text: unknown option: -x (to read the file -x.ndjson, name it ./-x.ndjson)']);
    r = await run(['-x.a=b'], '');
    t.same([r.code, r.stderr.split('\n')[0]], [EXIT.USAGE, 'ndjson-text: unknown option: -x'], 'with a value');
    r = await run(['--x.ndjson'], '');
    t.same([r.code, r.stderr.split('\n')[0]], [EXIT.USAGE, 'ndjson-text: unknown option: --x.ndjson'], 'two dashes, as typed');
  } finally {
    process.chdir(cwd);
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

t.test('the live path: each chunk is pushed before the next is written', async (t) => {
  const stream = text({ all: true });
  const seen: string[] = [];
  stream.on('data', (d: Buffer) => seen.push(d.toString()));
  const write = (s: string) => new Promise<void>((resolve) => stream.write(s, () => setImmediate(resolve)));
  await write(`${init()}\n${delta('Hel')}\n`);
  t.same(seen, ['Hel']);
  await write(`${delta('lo')}\n`);
  t.same(seen, ['Hel', 'lo']);
  await write(delta(' there').slice(0, 30));
  t.same(seen, ['Hel', 'lo'], 'half an event writes nothing');
  await write(`${delta(' there').slice(30)}\n`);
  t.same(seen, ['Hel', 'lo', ' there']);
  stream.end();
  await new Promise((resolve) => stream.on('end', resolve));
  t.same(seen, ['Hel', 'lo', ' there', '\n']);
  t.equal((stream.core as TextCore).sessions[0]?.written, 'Hello there'.length);
});

t.test('| head -1 ends quietly with status 0', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-text-'));
  const file = path.join(dir, 'long.ndjson');
  const events = [init()];
  for (let i = 0; i < 20000; i++) events.push(asst(`message ${i}`), shell(`c${i}`, 'true'), shell(`c${i}`, 'true', 0));
  fs.writeFileSync(file, lines(...events, ok('x')));
  const r = spawnSync('bash', ['-c', `node "${ROOT}/bin/ndjson-text.js" -a "${file}" | head -1; echo "status \${PIPESTATUS[0]}"`], {
    encoding: 'utf8',
    env: TEST_ENV,
  });
  t.equal(r.stdout, 'message 0\nstatus 0\n');
  t.equal(r.stderr, '');
  fs.rmSync(dir, { recursive: true, force: true });
});

t.test('where stdout and stderr are one place, a warning stands where its line was read, on a line of its own', async (t) => {
  const { Readable, Writable } = await import('node:stream');
  const sink = () => {
    let text = '';
    const stream = Object.assign(new Writable({ write: (c: Buffer, _e, cb) => ((text += c.toString()), cb()) }), { isTTY: true });
    return { stream, text: () => text };
  };
  // Two reads: the first ends mid-line; the second starts with a line that is not JSON.
  const input = () => Readable.from([Buffer.from(lines(init(), delta("I'll run"))), Buffer.from(`Update available: 2.0.1\n${lines(delta(' the tests.'), ok("I'll run the tests."))}`)]);
  const env = { NO_COLOR: '1', TERM: 'dumb' };
  const warning = 'ndjson-text: stdin:3: not JSON: Update available: 2.0.1\n';
  // One terminal (or `2>&1`): one place for both.
  const one = sink();
  await main(['--all'], { stdin: input(), stdout: one.stream, stderr: one.stream, sharedOutput: true, env });
  t.equal(one.text(), `I'll run\n${warning} the tests.\n`);
  // Without sharedOutput, two terminals are taken as one.
  const out = sink();
  const err = sink();
  await main(['--all'], { stdin: input(), stdout: out.stream, stderr: err.stream, env });
  t.equal(out.text(), `I'll run\n${warning} the tests.\n`, 'two terminals, taken as one: the warning in its place');
  t.equal(err.text(), '');
  // Two places: the text is left as it is, the warning goes to stderr.
  const piped = sink();
  const errors = sink();
  await main(['--all'], { stdin: input(), stdout: piped.stream, stderr: errors.stream, sharedOutput: false, env });
  t.equal(piped.text(), "I'll run the tests.\n", 'into a pipe, the text is left as it is');
  t.equal(errors.text(), warning);
  // So is a flush that differs from its deltas, reported by the core.
  const mismatch = Readable.from([Buffer.from(lines(init(), delta('Hel'))), Buffer.from(lines(asst('Help', { timestamp_ms: 2, model_call_id: 'm' }), ok('Hel')))]);
  const both = sink();
  await main(['--all'], { stdin: mismatch, stdout: both.stream, stderr: both.stream, sharedOutput: true, env });
  // The line ended for the warning is the line the text ends: it is not ended again, as a blank line.
  t.equal(both.text(), 'Hel\nndjson-text: stdin:3: session sess-1: flush differs from the deltas before it at offset 3, not shown: flush "Help", deltas "Hel"\n');
  // Nor where the input ends in a line cut short: the warning, then the note, each on its line.
  const cut = Readable.from([Buffer.from(`${lines(init(), delta('Hi'))}{"type":"assistant","message":{"role":"assis`)]);
  const shared = sink();
  t.equal(await main(['--all'], { stdin: cut, stdout: shared.stream, stderr: shared.stream, sharedOutput: true, env }), EXIT.NO_RESULT);
  t.equal(
    shared.text(),
    'Hi\nndjson-text: stdin:3: truncated: {"type":"assistant","message":{"role":"assis\nndjson-text: no result event: the agent stopped before finishing (session sess-1, last event at stdin:3)\n',
  );
  // A paragraph break the text writes after the warning keeps its blank line: only the one line end is owed.
  const paragraphs = Readable.from([Buffer.from(lines(init(), delta('One.'))), Buffer.from(`Update available: 2.0.1\n${lines(delta('\n\nTwo.'), ok('One.\n\nTwo.'))}`)]);
  const both2 = sink();
  await main(['--all'], { stdin: paragraphs, stdout: both2.stream, stderr: both2.stream, sharedOutput: true, env });
  t.equal(both2.text(), `One.\n${warning}\nTwo.\n`);
  // Two warnings in a row: the line end is still owed after the second.
  const two = Readable.from([Buffer.from(lines(init(), delta('Hi'))), Buffer.from(`noise 1\nnoise 2\n${lines(delta('\nmore'), ok('Hi\nmore'))}`)]);
  const both3 = sink();
  await main(['--all'], { stdin: two, stdout: both3.stream, stderr: both3.stream, sharedOutput: true, env });
  t.equal(both3.text(), 'Hi\nndjson-text: stdin:3: not JSON: noise 1\nndjson-text: stdin:4: not JSON: noise 2\nmore\n');
  // A line end that comes as \r\n (a \r held back from the delta before), or after a colour sequence.
  const crlf = Readable.from([Buffer.from(lines(init(), delta('a\r'))), Buffer.from(`noise\n${lines(delta('\nb'), ok('a\r\nb'))}`)]);
  const both4 = sink();
  await main(['--all'], { stdin: crlf, stdout: both4.stream, stderr: both4.stream, sharedOutput: true, env });
  t.equal(both4.text(), 'a\nndjson-text: stdin:3: not JSON: noise\nb\n');
  const thinking = (x: string) => J({ type: 'thinking', subtype: 'delta', text: x, session_id: S });
  const dim = Readable.from([Buffer.from(lines(init(), thinking('hmm'))), Buffer.from(`noise\n${lines(thinking('\nyes'), ok('x'))}`)]);
  const both5 = sink();
  await main(['--all', '--thinking', '--color=always', '--no-user'], { stdin: dim, stdout: both5.stream, stderr: both5.stream, sharedOutput: true, env });
  t.notMatch(both5.text(), /not JSON: noise\n(\x1b\[[0-9;]*m)*\n/, 'no blank line after the warning, colour or not');
  // A thought the warning came in the middle of goes on below it as a line of its own, with its bar.
  const bar = Readable.from([Buffer.from(lines(init(), thinking('abc'))), Buffer.from(`noise\n${lines(thinking('def\nghi'), asst('A'), ok('A'))}`)]);
  const both7 = sink();
  await main(['--all', '--thinking', '--no-user'], { stdin: bar, stdout: both7.stream, stderr: both7.stream, sharedOutput: true, env });
  t.equal(both7.text(), '│ abc\nndjson-text: stdin:3: not JSON: noise\n│ def\n│ ghi\n\nA\n');
  const barColour = Readable.from([Buffer.from(lines(init(), thinking('abc'))), Buffer.from(`noise\n${lines(thinking('def'), ok('x'))}`)]);
  const both8 = sink();
  await main(['--all', '--thinking', '--no-user', '--color=always'], { stdin: barColour, stdout: both8.stream, stderr: both8.stream, sharedOutput: true, env });
  t.match(both8.text(), /not JSON: noise\n(\x1b\[[0-9;]*m)*│ def/, 'coloured, the bar too');
  // --strict stopping mid-line: the warning ended the line, and the stop does not end it again.
  const strict = Readable.from([Buffer.from(lines(init(), delta('Hi'))), Buffer.from('noise\n')]);
  const both6 = sink();
  t.equal(await main(['--all', '--strict'], { stdin: strict, stdout: both6.stream, stderr: both6.stream, sharedOutput: true, env }), EXIT.INPUT);
  t.equal(both6.text(), 'Hi\nndjson-text: stdin:3: not JSON: noise\n');
});

t.test('with 2>&1, what the command after -- writes on stderr stands on a line of its own, in its place', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-text-stderr-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  // The agent writes text that ends mid-line, then a line on its stderr, then the rest of the run.
  fs.writeFileSync(path.join(dir, 'before.ndjson'), lines(init(), delta('Look'), delta('ing.')));
  fs.writeFileSync(path.join(dir, 'after.ndjson'), lines(asst('Looking.'), shell('c1', 'ls'), shell('c1', 'ls', 0), delta('Done.'), asst('Done.'), ok('Done.')));
  const agent = 'cat before.ndjson; sleep 0.3; echo "agent: rate limited, retrying" >&2; sleep 0.3; cat after.ndjson';
  const run = (redirect: string) =>
    spawnSync('bash', ['-c', `env -u NODE_OPTIONS node "${ROOT}/bin/ndjson-text.js" -a -- sh -c '${agent}' ${redirect}`], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...TEST_ENV, NO_COLOR: '1' },
    });
  const shared = run('2>&1');
  t.equal(shared.status, 0);
  // Not glued to the text, and no blank line left where the text's line was ended.
  t.equal(shared.stdout, 'Looking.\nagent: rate limited, retrying\n→ shell ls (exit 0)\n\nDone.\n');
  // On stderr of its own, the text is left as it is.
  const apart = run('2>stderr.txt');
  t.equal(apart.stdout, 'Looking.\n→ shell ls (exit 0)\n\nDone.\n');
  t.equal(fs.readFileSync(path.join(dir, 'stderr.txt'), 'utf8'), 'agent: rate limited, retrying\n');
});

t.test('with 2>&1, a line the command leaves open on stderr: its next bytes go on with it, text and warnings start below it', async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-text-open-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'run.ndjson'), lines(init(), delta('Hel'), delta('lo.'), asst('Hello.'), ok('Hello.')));
  const run = (agent: string, redirect: string, args = '-a') =>
    spawnSync('bash', ['-c', `env -u NODE_OPTIONS node "${ROOT}/bin/ndjson-text.js" ${args} -- sh -c '${agent}' ${redirect}`], {
      cwd: dir,
      encoding: 'utf8',
      env: { ...TEST_ENV, NO_COLOR: '1' },
    });
  // A notice with no newline, as an update check prints it, before the run.
  const notice = run('printf "Update available: 2.0" >&2; sleep 0.3; cat run.ndjson', '2>&1');
  t.equal(notice.stdout, 'Update available: 2.0\nHello.\n', 'the text starts below it');
  t.equal(run('printf "Update available: 2.0" >&2; sleep 0.3; cat run.ndjson', '2>&1', '').stdout, 'Update available: 2.0\nHello.\n', 'the final message too');
  // Between two deltas: the text's line is ended before it, and the text goes on below it.
  const between = run('head -2 run.ndjson; sleep 0.3; printf "retrying" >&2; sleep 0.3; tail -n +3 run.ndjson', '2>&1');
  t.equal(between.stdout, 'Hel\nretrying\nlo.\n');
  // Its own line, written in two pieces, stays one line.
  const pieces = run('printf "Connecting..." >&2; sleep 0.3; printf "done\\n" >&2; sleep 0.3; cat run.ndjson', '2>&1');
  t.equal(pieces.stdout, 'Connecting...done\nHello.\n');
  // A warning of the tool's own, after it: on a line of its own, whether stderr is shared or not.
  const noisy = 'printf "Connecting..." >&2; sleep 0.3; echo "not json"; sleep 0.3; cat run.ndjson';
  t.equal(run(noisy, '2>&1').stdout, 'Connecting...\nndjson-text: sh:1: not JSON: not json\nHello.\n');
  const apart = run(noisy, '2>stderr.txt');
  t.equal(apart.stdout, 'Hello.\n');
  t.equal(fs.readFileSync(path.join(dir, 'stderr.txt'), 'utf8'), 'Connecting...\nndjson-text: sh:1: not JSON: not json\n');
});

t.test('--all, live: a CRLF or a character split between two deltas read apart is written whole', async (t) => {
  const { Readable } = await import('node:stream');
  const run = async (chunks: string[]) => {
    const m = memoryIo('');
    m.io.stdin = Readable.from(chunks.map((c) => Buffer.from(c)));
    await main(['--all'], m.io);
    return m.stdout();
  };
  // One delta a read, as an agent writes them live; the same deltas read at once are joined before they are written.
  const deltas = [delta('line1\r'), delta('\nline2 \ud83d'), delta('\ude00 end')];
  const apart = await run([lines(init()), ...deltas.map((d) => lines(d)), lines(ok('x'))]);
  t.equal(apart, 'line1\r\nline2 😀 end\n');
  t.equal(await run([lines(init(), ...deltas, ok('x'))]), apart, 'the same as read at once');
  // Held back, a last \r or half character is still written, at the end, as it would be alone.
  t.equal(await run([lines(init()), lines(delta('end\r')), lines(ok('x'))]), 'end\\x0d\n');
  t.equal(await run([lines(init()), lines(delta('half \ud83d')), lines(ok('x'))]), 'half \ufffd\n');
});

t.test('deltas without a session id are the text of the session being read: its flush does not show them again', async (t) => {
  const J2 = (o: Record<string, unknown>) => JSON.stringify(o);
  const bare = (textValue: string, ts: number) => J2({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: textValue }] }, timestamp_ms: ts });
  const input = lines(init('A'), bare('Hel', 1), bare('lo.', 2), asst('Hello.', { timestamp_ms: 3, model_call_id: 'm1' }, 'A'), ok('Hello.', 'A'));
  for (let size = 0; size <= input.length; size += size < 16 ? 1 : 37) {
    t.equal(await through(input, {}, size), 'Hello.\n', `final message, ${size}-byte chunks`);
    t.equal(await through(input, { all: true }, size), 'Hello.\n', `transcript, ${size}-byte chunks`);
  }
  const r = await run([], input);
  t.same({ code: r.code, stdout: r.stdout, stderr: r.stderr }, { code: 0, stdout: 'Hello.\n', stderr: '' });
});

t.test('--color given more than once: the last one counts, each must be a colour', async (t) => {
  const input = lines(init(), user('Fix it'), ok('Done.'));
  const colored = (out: string) => out.includes('\x1b[');
  t.notOk(colored((await run(['--all', '--color=always', '--no-color'], input)).stdout), '--color=always --no-color: never');
  t.notOk(colored((await run(['--all', '--color=always', '--color=never'], input)).stdout), '--color=always --color=never: never');
  t.ok(colored((await run(['--all', '--no-color', '--color=always'], input)).stdout), '--no-color --color=always: always');
  const bad = await run(['--color=always', '--color=bogus'], input);
  t.equal(bad.code, 1);
  t.match(bad.stderr, /--color must be auto, always or never, not 'bogus'/);
});

t.test('a completed thought ends the thinking, not the text it came between', async (t) => {
  const said = (text: string) => JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text }] }, timestamp_ms: 1, session_id: 'A' });
  const done = JSON.stringify({ type: 'thinking', subtype: 'completed', session_id: 'A' });
  const thought = (text: string) => JSON.stringify({ type: 'thinking', subtype: 'delta', text, session_id: 'A' });
  const input = [said('Hel'), done, said('lo')].join('\n') + '\n';
  t.equal(await through(input, { all: true, thinking: true }), 'Hello\n', 'with --thinking');
  t.equal(await through(input, { all: true }), 'Hello\n', 'without');
  t.equal(await through([thought('hm'), done, thought('again')].join('\n') + '\n', { all: true, thinking: true }), '│ hm\n\n│ again\n', 'a thought after a completed one starts its own paragraph');
});

t.test('a lone result of another value than a string is shown as JSON, made visible as JSON still reads it', async (t) => {
  const input = JSON.stringify({ type: 'result', subtype: 'success', is_error: false, result: { k: '\u009b\u007f\u202e' }, session_id: 's' }) + '\n';
  for (const all of [false, true]) {
    const shown = await through(input, { all });
    t.equal(shown, '{"k":"\\u009b\\u007f\\u202e"}\n', all ? '--all' : 'the final message');
    t.same(JSON.parse(shown), { k: '\u009b\u007f\u202e' }, 'still the same JSON');
  }
  t.equal(await through(input, { raw: true }), '{"k":"\u009b\u007f\u202e"}\n', '--raw: as it is');
});
