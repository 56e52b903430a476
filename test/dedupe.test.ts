// ndjson-dedupe: the core's rules, its helpers, the Transform, and main() in process.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { spawnSync } from 'node:child_process';
import { pipeline } from 'node:stream/promises';
import { ROOT, memoryIo, runBin } from './fixtures/lib/run.js';
import { dedupeSync } from './fixtures/ndjson-dedupe/drive.js';
import { canonicalJson, eventKey, firstDifference } from '../src/dedupe/core.js';
import { isClaudeCodeEvent } from '../src/events.js';
import { dedupe } from '../src/dedupe/stream.js';
import { main, dedupeOptions, dedupeSpec, excerptAt } from '../src/cli/dedupe.js';
import { visibleOneLine } from '../src/safe-text.js';
import { main as resultMain } from '../src/cli/result.js';
import { Rng } from '../bench/generate.mjs';

const STREAMS = path.join(ROOT, 'test/fixtures/streams');
const basic = fs.readFileSync(path.join(STREAMS, 'basic.ndjson'), 'utf8');
const partial = fs.readFileSync(path.join(STREAMS, 'dedupe-partial.ndjson'), 'utf8');

const ev = (o: Record<string, unknown>): string => JSON.stringify(o);
const text = (s: string) => ({ role: 'assistant', content: [{ type: 'text', text: s }] });
const delta = (s: string, session = 's', ts = 1) => ev({ type: 'assistant', message: text(s), session_id: session, timestamp_ms: ts });
const flush = (s: string, session = 's') => ev({ type: 'assistant', message: text(s), session_id: session, model_call_id: 'm', timestamp_ms: 2 });
const final = (s: string, session = 's') => ev({ type: 'assistant', message: text(s), session_id: session });
const tool = (session = 's') => ev({ type: 'tool_call', subtype: 'started', call_id: 'c', tool_call: { lsToolCall: { args: {} } }, session_id: session });
const result = (s: string, session = 's') => ev({ type: 'result', subtype: 'success', is_error: false, result: s, session_id: session });
const lines = (...ls: string[]): string => ls.map((l) => `${l}\n`).join('');
const init = (session = 's') => ev({ type: 'system', subtype: 'init', cwd: '/p', session_id: session });

t.test('firstDifference counts characters, not UTF-16 units', async (t) => {
  t.equal(firstDifference('abc', 'abc'), 3);
  t.equal(firstDifference('abc', 'abd'), 2);
  t.equal(firstDifference('ab', 'abc'), 2);
  t.equal(firstDifference('', 'x'), 0);
  t.equal(firstDifference('😀a', '😀b'), 1, 'an astral character is one');
  t.equal(firstDifference('x😀', 'x😁'), 1, 'never inside a surrogate pair');
  t.equal(firstDifference('é中x', 'é中y'), 2);
});

t.test('excerptAt quotes a safe piece around the offset', async (t) => {
  t.equal(excerptAt('short', 0), '"short"');
  t.equal(excerptAt('a\u001b[2Jb', 0), '"a\\x1b[2Jb"', 'escape sequences made visible');
  t.equal(excerptAt('line\nbreak', 0), '"line\\nbreak"');
  t.equal(excerptAt('a\\nb', 0), '"a\\\\nb"', 'a backslash and an n are not a line end');
  t.equal(excerptAt('say "hi"', 0), '"say \\"hi\\""', 'quotes inside escaped');
  const long = 'x'.repeat(100);
  t.equal(excerptAt(long, 50), `"…${'x'.repeat(40)}…"`);
  // Offsets count code points (an emoji is one, a lone surrogate one), up to the length of the text (where two texts
  // part, or where the shorter ends): the piece is taken as from a list of code points.
  const byList = (text: string, at: number): string => {
    const chars = Array.from(text);
    const start = Math.max(0, at - 10);
    const end = Math.min(chars.length, at + 30);
    const piece = chars.slice(start, end).join('').replace(/[\\"]/g, '\\$&');
    return `"${start > 0 ? '…' : ''}${visibleOneLine(piece)}${end < chars.length ? '…' : ''}"`;
  };
  const parts = ['a', 'é', '中', '😀', '\ud800', '\udc00', '\\', '"', '\n'];
  const rng = new Rng('excerpt');
  const random = (n: number): number => rng.int(0, n - 1);
  for (let i = 0; i < 300; i++) {
    const text = Array.from({ length: random(80) }, () => parts[random(parts.length)]).join('');
    const points = Array.from(text).length;
    for (const at of [0, random(points + 1), points]) t.equal(excerptAt(text, at), byList(text, at), `${JSON.stringify(text)} at ${at}`);
  }
});

t.test("a session's new run starts a new stretch: its flush is not compared with the deltas of the run that stopped", async (t) => {
  const input = lines(init(), delta('Let me look'), init(), final('All done.'), result('All done.'));
  const m = memoryIo(input);
  t.equal(await main([], m.io), 0);
  t.equal(m.stdout(), input, 'every line kept, the flush of the new run too');
  t.equal(m.stderr(), '', 'no mismatch reported');
  const same = memoryIo(lines(init(), delta('a'), init('t'), final('a', 's')));
  await main([], same.io);
  t.notMatch(same.stdout(), /"session_id":"s"}\n$/, "the flush of the session's own run, after another's init, is still its deltas' duplicate");
});

t.test('output read again: a message after a dropped flush, with no deltas of its own, is reported as documented, not lost silently', async (t) => {
  const input = lines(init(), delta('Hello '), delta('there.'), flush('Hello there.'), final('Second message.'), result('Hello there.Second message.'));
  const once = dedupeSync(input, { verify: true });
  t.equal(once.out, lines(init(), delta('Hello '), delta('there.'), final('Second message.'), result('Hello there.Second message.')), 'read once: the repeat dropped, the message kept');
  t.same([once.mismatches.length, once.failures.length], [0, 0], 'no mismatch, --verify passes');
  const twice = dedupeSync(once.out);
  t.equal(twice.out, lines(init(), delta('Hello '), delta('there.'), result('Hello there.Second message.')), 'read again: the message follows the deltas, and is taken for a flush that differs from them');
  t.same(
    twice.mismatches.map((m) => [m.flushText, m.deltaText, m.offset]),
    [['Second message.', 'Hello there.', 0]],
    'and it is reported, with both texts',
  );
});

t.test('keys for --key', async (t) => {
  t.equal(canonicalJson({ b: 1, a: [2, { d: null, c: 'x' }] }), '{"a":[2,{"c":"x","d":null}],"b":1}');
  t.equal(eventKey({ a: 1 }, ['b']), undefined, 'no path present: no key');
  t.not(eventKey({ a: null }, ['a']), eventKey({}, ['a', 'b']) ?? 'none', 'null is a value');
  t.not(eventKey({ a: 1 }, ['a', 'b']), eventKey({ b: 1 }, ['a', 'b']), 'which path holds the value matters');
  t.equal(eventKey({ a: { x: 1, y: 2 } }, ['a']), eventKey({ a: { y: 2, x: 1 } }, ['a']), 'object key order does not matter');
  t.not(eventKey({ a: 2 }, ['a']), eventKey({ a: '2' }, ['a']), 'a number is not a string');
  // `1e400` and `-1e400` are Infinity and -Infinity to JSON.parse, which JSON.stringify writes `null`.
  const [big, minus, nul] = ['{"a":1e400}', '{"a":-1e400}', '{"a":null}'].map((line) => eventKey(JSON.parse(line), ['a']));
  t.same([big, minus, nul], ['1e999', '-1e999', 'null'], 'a number too large for a double is no null, whatever its sign');
  t.equal(eventKey(JSON.parse('{"a":[{"x":1e500}]}'), ['a']), '[{"x":1e999}]', 'at any depth, as JSON.parse reads it (1e500 is 1e400)');
  const long1 = eventKey({ a: 'y'.repeat(1000) }, ['a'])!;
  const long2 = eventKey({ a: `${'y'.repeat(999)}z` }, ['a'])!;
  t.ok(long1.length < 64, 'a long key is stored as a digest');
  t.not(long1, long2, 'different long keys stay different');
  t.equal(eventKey({ a: 'y'.repeat(1000) }, ['a']), long1, 'the digest is stable');
  t.equal(eventKey({ m: { c: [{ t: 'x' }] } }, ['m.c.0.t']), '"x"', 'dot paths reach into arrays');
  t.equal(eventKey({ m: { c: [{ t: 'x' }] } }, ['.m.c.0.t']), '"x"', 'a leading dot, as jq writes a path');
  t.equal(eventKey({ uuid: 'u' }, ['.uuid']), eventKey({ uuid: 'u' }, ['uuid']), '.uuid is uuid');
});

t.test('Claude Code events are recognised', async (t) => {
  t.ok(isClaudeCodeEvent({ type: 'assistant', message: { content: [] }, parent_tool_use_id: null }, 'assistant'));
  t.ok(isClaudeCodeEvent({ type: 'assistant', message: { content: [{ type: 'tool_use', id: 'x' }] } }, 'assistant'));
  t.ok(isClaudeCodeEvent({ type: 'result', total_cost_usd: 0.1 }, 'result'));
  t.ok(isClaudeCodeEvent({ type: 'result', num_turns: 3 }, 'result'));
  t.notOk(isClaudeCodeEvent(JSON.parse(final('x')), 'assistant'));
  t.notOk(isClaudeCodeEvent(JSON.parse(result('x')), 'result'));
});

t.test('the partial-output rule', async (t) => {
  t.test('a flush repeating its deltas is dropped; the deltas stay', async (t) => {
    const r = dedupeSync(lines(delta('a'), delta('b'), flush('ab'), tool(), delta('c'), final('c'), result('abc')), { verify: true });
    t.equal(r.out, lines(delta('a'), delta('b'), tool(), delta('c'), result('abc')));
    t.equal(r.core.stats.verified, 1);
    t.equal(r.core.stats.differed, 0);
  });
  t.test('a flush with no deltas before it is the only copy', async (t) => {
    const input = lines(flush('ab'), tool(), final('c'), result('abc'));
    t.equal(dedupeSync(input).out, input);
    const afterTool = lines(delta('a'), tool(), flush('b'), tool(), final('c'), result('abc'));
    t.equal(dedupeSync(afterTool).out, afterTool, 'a tool call ends the stretch of deltas');
    const afterFlush = lines(delta('a'), flush('a'), final('b'));
    t.equal(dedupeSync(afterFlush).out, lines(delta('a'), final('b')), 'so does a flush');
  });
  t.test('repeated and whitespace deltas are text', async (t) => {
    const input = lines(delta('ha'), delta('ha'), delta(' '), delta('\n'), delta(''), delta('ha'));
    t.equal(dedupeSync(input + lines(final('haha \nha'))).out, input);
  });
  t.test('sessions are independent', async (t) => {
    const input = lines(delta('a', 'x'), delta('b', 'y'), tool('y'), flush('a', 'x'), flush('c', 'y'), result('a', 'x'), result('bc', 'y'));
    const r = dedupeSync(input, { verify: true });
    t.equal(r.out, lines(delta('a', 'x'), delta('b', 'y'), tool('y'), flush('c', 'y'), result('a', 'x'), result('bc', 'y')));
    t.equal(r.core.stats.verified, 2);
    t.equal(r.core.stats.differed, 0);
  });
  t.test('a flush that differs from its deltas is dropped and reported', async (t) => {
    const r = dedupeSync(lines(delta('ab'), delta('c'), flush('abX'), result('abc')), { verify: true });
    t.equal(r.out, lines(delta('ab'), delta('c'), result('abc')));
    t.same(
      r.mismatches.map(({ session, line, deltas, offset, deltaText, flushText }) => ({ session, line, deltas, offset, deltaText, flushText })),
      [{ session: 's', line: 3, deltas: 2, offset: 2, deltaText: 'abc', flushText: 'abX' }],
    );
    t.equal(r.core.stats.kinds['assistant mismatch'].dropped, 1);
    t.equal(r.failures.length, 0, 'the kept text still equals the result');
  });
  t.test('a flush that also holds content other than text is kept whole', async (t) => {
    const withImage = (s: string) =>
      ev({
        type: 'assistant',
        message: { role: 'assistant', content: [{ type: 'text', text: s }, { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'iVBO' } }] },
        session_id: 's',
        model_call_id: 'm',
        timestamp_ms: 2,
      });
    const input = lines(delta('a'), delta('b'), withImage('ab'), result('ab'));
    const r = dedupeSync(input, { verify: true });
    t.equal(r.out, input, 'the image is nowhere else: dropping the flush would lose it');
    t.equal(r.core.stats.kinds['assistant flush'].kept, 1);
    t.equal(r.core.stats.differed, 0, 'its text, a repeat, is not counted twice by --verify');
    const differs = lines(delta('a'), delta('b'), withImage('aX'), result('ab'));
    const m = dedupeSync(differs, { verify: true });
    t.equal(m.out, differs, 'nor when its text differs from the deltas');
    t.same(
      m.mismatches.map(({ offset, kept }) => ({ offset, kept })),
      [{ offset: 1, kept: true }],
      'which is reported all the same (--verify fails on it), as kept',
    );
    t.equal(m.core.stats.kinds['assistant mismatch'].kept, 1);
    t.equal(dedupeSync(lines(delta('a'), withImage('a'), final('a'))).out, lines(delta('a'), withImage('a'), final('a')), 'it still ends the stretch');
  });
  t.test('--verify reports where the kept text and the result part', async (t) => {
    const r = dedupeSync(lines(delta('hello '), delta('wörld'), final('hello wörld'), result('hello wörld!')), { verify: true });
    t.same(
      r.failures.map(({ session, line, offset, keptText, resultText }) => ({ session, line, offset, keptText, resultText })),
      [{ session: 's', line: 4, offset: 11, keptText: 'hello wörld', resultText: 'hello wörld!' }],
    );
  });
  t.test('--verify checks neither failed runs nor Claude Code sessions, and reports runs without a result', async (t) => {
    const failed = ev({ type: 'result', subtype: 'error_during_execution', is_error: true, result: 'boom', session_id: 's' });
    const claude = ev({ type: 'result', subtype: 'success', is_error: false, result: 'last only', num_turns: 2, total_cost_usd: 0.01, session_id: 'c' });
    const r = dedupeSync(
      lines(delta('a'), failed, final('first', 'c'), final('last only', 'c'), claude, delta('z', 'gone'), ev({ type: 'result', result: 'x', session_id: 'json' })),
      { verify: true },
    );
    t.same(r.failures, []);
    t.match(r.core.stats, { verified: 0, uncheckedFailed: 1, uncheckedClaude: 1, uncheckedNoText: 1, noResult: 1 });
  });
});

t.test('a stream without partial output passes unchanged, at every chunk size', async (t) => {
  const whole = dedupeSync(basic, { verify: true });
  t.equal(whole.out, basic);
  t.equal(whole.core.stats.verified, 1);
  for (let size = 1; size <= 64; size++) {
    if (dedupeSync(basic, {}, size).out !== basic) {
      t.fail(`chunk size ${size}`);
      return;
    }
  }
  t.pass('chunk sizes 1 to 64 agree');
});

t.test('the partial version of the same run keeps its deltas only, at every chunk size', async (t) => {
  const expected = lines(...partial.split('\n').filter((l) => l !== '' && !(l.includes('"type":"assistant"') && (l.includes('"model_call_id"') || !l.includes('"timestamp_ms"')))));
  t.equal(expected.split('\n').length - 1, 15, 'three flushes fewer than the 18 events');
  const whole = dedupeSync(partial, { verify: true });
  t.equal(whole.out, expected);
  t.equal(whole.core.stats.differed, 0);
  for (let size = 1; size <= 64; size++) {
    if (dedupeSync(partial, {}, size).out !== expected) {
      t.fail(`chunk size ${size}`);
      return;
    }
  }
  t.pass('chunk sizes 1 to 64 agree');
});

t.test('output is the input lines as read: no CR, no BOM, glued values split', async (t) => {
  const input = `\ufeff${delta('a')}\r\n\r\n${delta('b')}${final('ab')}\r\n${result('ab')}`;
  t.equal(dedupeSync(input).out, lines(delta('a'), delta('b'), result('ab')));
});

t.test('the Transform', async (t) => {
  const stream = dedupe({ verify: true });
  const out: Buffer[] = [];
  await pipeline(Readable.from([Buffer.from(partial.slice(0, 700)), Buffer.from(partial.slice(700))]), stream, async function* (source) {
    for await (const chunk of source) out.push(chunk as Buffer);
  });
  t.equal(Buffer.concat(out).toString().split('\n').length - 1, 15);
  t.equal(stream.core.stats.kinds['assistant flush'].dropped, 3);
  t.equal(stream.core.stats.verified, 1);
});

t.test('main()', async (t) => {
  t.test('--help names every option and ends with examples', async (t) => {
    const m = memoryIo();
    t.equal(await main(['--help'], m.io), 0);
    for (const name of Object.keys(dedupeOptions)) t.match(m.stdout(), `--${name}`, `--${name}`);
    // A long command carried on over lines with a backslash (see exampleLines).
    for (const [command] of dedupeSpec.examples) t.ok(m.stdout().replace(/ \\\n/g, ' ').replace(/\s+/g, ' ').includes(command.replace(/\s+/g, ' ')), command);
  });
  t.test('usage errors', async (t) => {
    for (const argv of [['--key'], ['--verify', '--key', 'uuid'], ['--nope'], ['--key', ''], ['--key', '.'], ['--key', ' .uuid'], ['--key', '.a|.b']]) {
      const m = memoryIo();
      t.equal(await main(argv, m.io), 1, argv.join(' '));
      t.match(m.stderr(), /^ndjson-dedupe: .*\nTry 'ndjson-dedupe --help'/);
      t.equal(m.stdout(), '');
    }
  });
  t.test('--key that no event read has: said at the end, as nothing was dropped', async (t) => {
    const lines = '{"type":"log","uuid":"u1"}\n{"type":"log","uuid":"u1"}\n';
    const run = async (argv: string[], input: string): Promise<string> => {
      const m = memoryIo(input);
      t.equal(await main(argv, m.io), 0, argv.join(' '));
      return m.stderr();
    };
    t.equal(await run(['--key', '.uuid.x'], lines), "ndjson-dedupe: --key '.uuid.x': no event read has it, so none was dropped\n");
    t.equal(await run(['-k', 'uid', '-k', 'id'], lines), "ndjson-dedupe: --key 'uid', 'id': no event read has any of them, so none was dropped\n");
    t.equal(await run(['--key', 'uuid'], lines), '', 'found: nothing said');
    t.equal(await run(['-k', 'uid', '-k', 'uuid'], lines), '', 'one of them found: nothing said');
    t.equal(await run(['--key', 'uid'], ''), '', 'no event read: nothing said');
    t.equal(await run(['--key', 'uid', '-q'], 'x\n'), '', 'nor with only lines that are not events');
  });
  t.test('--stats', async (t) => {
    const m = memoryIo(partial);
    t.equal(await main(['--stats'], m.io), 0);
    t.match(m.stderr(), /^ndjson-dedupe: stats\n/);
    t.match(m.stderr(), /\n {2}assistant delta +8 +8 +0\n/);
    t.match(m.stderr(), /\n {2}assistant flush +3 +0 +3\n/);
    t.match(m.stderr(), /\n {2}total +18 +15 +3\n/);
    t.notMatch(m.stderr(), /verify/, 'no verify line without --verify');
  });
  t.test('--verify: 3 on a difference, 4 when a run has no result, 0 otherwise', async (t) => {
    const cases: Array<[string, number, RegExp | null]> = [
      [lines(delta('a'), final('a'), result('a')), 0, null],
      [lines(delta('a'), final('a'), result('b')), 3, /^ndjson-dedupe: stdin:3: verify: session s: kept text differs from the result at offset 0 \(kept 1 chars, result 1\): kept "a", result "b"\n$/],
      [lines(delta('a'), flush('b'), result('a')), 3, /^ndjson-dedupe: stdin:2: session s: flush differs from the 1 delta before it at offset 0, dropped: flush "b", deltas "a"\n$/],
      [lines(delta('a'), final('a')), 4, /^ndjson-dedupe: stdin:2: verify: session s: no result to check the kept text against: the stream ended first\n$/],
      // A run that stopped, then the session resumed: the first run is unchecked, the second checked alone.
      [lines(init(), delta('a'), tool(), init(), delta('b'), final('b'), result('b')), 4, /^ndjson-dedupe: stdin:3: verify: session s: no result to check the kept text against: the session started again first\n$/],
      // A run that died before it said anything owes a result too, as ndjson-result has it: after its prompt, or its init alone.
      [lines(init(), ev({ type: 'user', message: text('fix the tests'), session_id: 's' })), 4, /^ndjson-dedupe: stdin:2: verify: session s: no result to check the kept text against: the stream ended first\n$/],
      [lines(init()), 4, /^ndjson-dedupe: stdin:1: verify: session s: no result to check the kept text against: the stream ended first\n$/],
      // An init twice before the agent is at work is one run, as ndjson-result and ndjson-text read it.
      [lines(init(), init(), delta('a'), final('a'), result('a')), 0, null],
      [lines(delta('a'), final('a'), result('a'), ev({ type: 'thinking', subtype: 'delta', text: 'hm', session_id: 's' })), 4, /^ndjson-dedupe: stdin:4: verify: session s: no result to check the kept text against: the stream ended first\n$/],
      ['', 4, /^ndjson-dedupe: verify: no result to check the kept text against: the input held no events of a run\n$/],
      // Nor an input of events no run is made of, as ndjson-result has it.
      [lines(ev({ type: 'status', ok: true })), 4, /^ndjson-dedupe: verify: no result to check the kept text against: the input held no events of a run\n$/],
      // A session first named by a hook's line before its init (the run killed as its hook ran), or a wrapper's status: its run
      // has begun, and owes a result, as ndjson-result has it.
      [lines(init(), delta('a'), final('a'), result('a'), ev({ type: 'system', subtype: 'hook_started', session_id: 't' })), 4, /^ndjson-dedupe: stdin:5: verify: session t: no result to check the kept text against: the stream ended first\n$/],
      [lines(ev({ type: 'status', session_id: 't' })), 4, /^ndjson-dedupe: stdin:1: verify: session t: no result to check the kept text against: the stream ended first\n$/],
      [lines(ev({ type: 'system', subtype: 'hook_started', session_id: 's' }), init(), delta('a'), final('a'), result('a')), 0, null],
      // After its result, a session's hook line starts no run.
      [lines(init(), delta('a'), final('a'), result('a'), ev({ type: 'system', subtype: 'hook_response', session_id: 's' })), 0, null],
      // An init twice, the run reported at the second, its last event, as ndjson-result names it.
      [lines(init(), init()), 4, /^ndjson-dedupe: stdin:2: verify: session s: no result to check the kept text against: the stream ended first\n$/],
      // A last line cut short after the result: the run went on, and has no result.
      [`${lines(init(), delta('a'), final('a'), result('a'))}{"type":"assistant","message":{"role":"assis`, 4, /^ndjson-dedupe: stdin:5: truncated: [^\n]*\nndjson-dedupe: stdin:5: verify: session s: no result to check the kept text against: the stream ended first\n$/],
      [`${lines(init(), delta('a'), final('a'), result('a'))}{"type":"system","subtype":"init","session_id":"t","cwd":"/`, 4, /\nndjson-dedupe: stdin:5: verify: session t: no result to check the kept text against: the stream ended first\n$/],
    ];
    for (const [input, code, stderr] of cases) {
      const m = memoryIo(input);
      t.equal(await main(['--verify'], m.io), code);
      if (stderr) t.match(m.stderr(), stderr);
      else t.equal(m.stderr(), '');
    }
    const m = memoryIo(lines(delta('a'), flush('b'), result('a')));
    t.equal(await main([], m.io), 0, 'without --verify a mismatched flush is reported, status 0');
    t.match(m.stderr(), /flush differs/);
  });
  t.test('--verify finds the runs without a result that ndjson-result --all finds, at the same lines', async (t) => {
    const make: Record<string, (s: string | undefined) => Record<string, unknown>> = {
      init: () => ({ type: 'system', subtype: 'init', cwd: '/p' }),
      hook: () => ({ type: 'system', subtype: 'hook_started' }),
      status: () => ({ type: 'system', subtype: 'status' }),
      wrapper: () => ({ type: 'status' }),
      user: () => ({ type: 'user', message: text('hi') }),
      delta: () => ({ type: 'assistant', message: text('x'), timestamp_ms: 1 }),
      tool: () => ({ type: 'tool_call', subtype: 'started', call_id: 'c', tool_call: { shellToolCall: { args: { command: 'ls' } } } }),
      ok: () => ({ type: 'result', subtype: 'success', is_error: false, result: '' }),
      failed: () => ({ type: 'result', subtype: 'error_during_execution', is_error: true, result: 'bad' }),
    };
    const kinds = [...Object.keys(make), 'init', 'ok'];
    const rng = Rng.fromInt(11);
    // Each run without a result, by its session (none: events without an id) and the line named; or that no run was read.
    const places = (stderr: string): string[] =>
      [
        ...[...stderr.matchAll(/no result event: [^\n]*\((?:session (\w+), )?last event at stdin:(\d+)\)/g)].map((m) => `${m[1] ?? ''}@${m[2]}`),
        ...[...stderr.matchAll(/stdin:(\d+): verify: (?:session (\w+): )?no result/g)].map((m) => `${m[2] ?? ''}@${m[1]}`),
        ...[...stderr.matchAll(/the input held no events of a run/g)].map(() => 'no run'),
      ].sort();
    let differ = 0;
    for (let i = 0; i < 400; i++) {
      const events = Array.from({ length: rng.int(1, 7) }, () => {
        const session = rng.pick(['a', 'b', 'a', undefined]);
        const event = make[rng.pick(kinds)]!(session);
        return ev(session === undefined ? event : { ...event, session_id: session });
      });
      const input = lines(...events);
      const r = memoryIo(input);
      await resultMain(['--all'], r.io);
      const d = memoryIo(input);
      await main(['--verify'], d.io);
      // (The statuses may differ: --verify gives 3 for kept text that differs from its result, ndjson-result 3 for a failed run.)
      if (places(r.stderr()).join() !== places(d.stderr()).join()) {
        if (differ++ < 3) t.fail(`ndjson-result --all: ${places(r.stderr()).join()}; --verify: ${places(d.stderr()).join()}:\n${input}`);
      }
    }
    t.equal(differ, 0, 'no stream of 400 on which they differ');
  });
  t.test('a broken line shaped like an event of a type dedupe does not read is checked, reported and dropped; --strict stops at it', async (t) => {
    const broken = '{"type":"thinking","subtype":"delta","text":"a" "b"}';
    const m = memoryIo(lines(broken, delta('a')));
    t.equal(await main([], m.io), 0);
    t.equal(m.stdout(), lines(delta('a')));
    t.match(m.stderr(), /^ndjson-dedupe: stdin:1: not JSON: /);
    // Every line copied out is JSON, whatever its size and wherever the flaw: a raw control character in a large value,
    // a byte flipped in a small call; lines the scan cannot vouch for (a \u0000 escape, deep nesting) are parsed.
    const big = 'x'.repeat(10_000);
    const call = (extra: string) => `{"type":"tool_call","subtype":"completed","call_id":"c","tool_call":{"readToolCall":{"args":{"path":"a"},"result":{"success":{"content":"${extra}"}}}},"session_id":"s"}`;
    const good = [call(big), call('\\u0000 nul'), `{"type":"system","deep":${'['.repeat(2000)}${']'.repeat(2000)},"session_id":"s"}`, call('small')];
    const bad = [call(`${big}\u0001${big}`), call('small').replace('"path":', '"path";'), `{"type":"user","message":{"content":[1,]},"session_id":"s"}`];
    const mixed = memoryIo(lines(...good, ...bad, delta('a')));
    t.equal(await main([], mixed.io), 0);
    t.equal(mixed.stdout(), lines(...good, delta('a')), 'the good lines, as read; the broken ones dropped');
    t.same(mixed.stderr().split('\n').filter(Boolean).map((l) => /^ndjson-dedupe: stdin:(\d+): not JSON/.exec(l)?.[1]), ['5', '6', '7'], 'each broken line reported');
    const strict = memoryIo(lines(broken, delta('a')));
    t.equal(await main(['--strict'], strict.io), 2);
    t.match(strict.stderr(), /^ndjson-dedupe: stdin:1: not JSON: /);
    const shapedAssistant = memoryIo(lines('{"type":"assistant","message":oops}', delta('a')));
    t.equal(await main([], shapedAssistant.io), 0);
    t.equal(shapedAssistant.stdout(), lines(delta('a')), 'an assistant line is always parsed: dropped and reported');
    t.match(shapedAssistant.stderr(), /stdin:1: not JSON/);
  });
  t.test('lines that are not events are dropped and reported, so jq can read the output', async (t) => {
    const m = memoryIo(`Update available\n${delta('a')}\n42\n`);
    t.equal(await main([], m.io), 0);
    t.equal(m.stdout(), lines(delta('a')));
    t.equal(m.stderr(), 'ndjson-dedupe: stdin:1: not JSON: Update available\nndjson-dedupe: stdin:3: not an object: 42\n');
  });
});

t.test('the built binary', async (t) => {
  const big = lines(...Array.from({ length: 20000 }, (_, i) => delta(`word ${i} `)));
  t.test('passes a long stream through', async (t) => {
    const ran = await runBin('ndjson-dedupe', ['--stats'], big);
    t.equal(ran.code, 0);
    t.equal(ran.stdout, big);
    t.match(ran.stderr, /assistant delta +20000 +20000 +0/);
  });
  t.test('stops quietly with status 0 when its reader goes away', async (t) => {
    const dir = t.testdir({ 'big.ndjson': big });
    const bin = path.join(ROOT, 'bin/ndjson-dedupe.js');
    const r = spawnSync('bash', ['-c', `"${process.execPath}" "${bin}" big.ndjson | head -1; echo "status \${PIPESTATUS[0]}" >&2`], { cwd: dir, encoding: 'utf8' });
    t.equal(r.stdout, lines(delta('word 0 ')));
    t.equal(r.stderr, 'status 0\n');
  });
});

t.test('deltas without a session id are the text of the session being read: its flush is their duplicate, and --verify checks them', async (t) => {
  const bare = (s: string, ts: number) => ev({ type: 'assistant', message: text(s), timestamp_ms: ts });
  const input = lines(init('A'), bare('Hel', 1), bare('lo.', 2), flush('Hello.', 'A'), result('Hello.', 'A'));
  const m = memoryIo(input);
  t.equal(await main(['--verify'], m.io), 0);
  t.equal(m.stdout(), lines(init('A'), bare('Hel', 1), bare('lo.', 2), result('Hello.', 'A')), 'the flush dropped');
  t.equal(m.stderr(), '');
  // The session being read is the last one any event named, with --verify or without.
  const user = (session: string) => ev({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'go' }] }, session_id: session });
  const mixed = lines(init('A'), init('B'), delta('Hi', 'A'), user('B'), bare('Yo', 3), flush('Yo', 'B'), flush('Hi', 'A'));
  for (const argv of [[], ['--verify']]) {
    const r = memoryIo(mixed);
    await main(argv, r.io);
    t.equal(r.stdout(), lines(init('A'), init('B'), delta('Hi', 'A'), user('B'), bare('Yo', 3)), `both flushes dropped ${argv.join(' ')}`);
    t.notMatch(r.stderr(), 'differs', argv.join(' '));
  }
});

t.test('without WebAssembly (node --jitless), a line it copies with a raw control character is still dropped and reported', async (t) => {
  const input = '{"type":"user","x":"a\u0001b","session_id":"s"}\n{"type":"user","x":"ok","session_id":"s"}\n';
  for (const flags of [[], ['--jitless']]) {
    const r = spawnSync('node', [...flags, path.join(ROOT, 'bin/ndjson-dedupe.js'), '--stats'], { input, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } });
    const how = flags.length > 0 ? 'without WebAssembly' : 'with it';
    t.equal(r.status, 0, how);
    t.equal(r.stdout, '{"type":"user","x":"ok","session_id":"s"}\n', `${how}: only the line that is JSON is copied`);
    // (Node warns of the flag it turns off with --jitless, first.)
    t.match(r.stderr, /^ndjson-dedupe: stdin:1: not JSON: /m, `${how}: the other is reported`);
  }
});
