// The reader's runs (ReaderOptions.passes, and passDeltas): of a run of lines a core reads only for
// their session, after the first only the last is handed over; and its joined deltas
// (ReaderOptions.joinDeltas): text deltas of one session in a row handed over as one. Every core must end exactly as when it
// is handed every line: the same output, the same verdicts, at every chunk size, on every stream
// we have.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { EventReader, formatProblem, recordSession } from '../src/io/input.js';
import type { EventRecord, ReaderOptions } from '../src/io/input.js';
import type { ToolCore } from '../src/io/tool-stream.js';
import { ResultCore } from '../src/result/core.js';
import { TextCore } from '../src/text/core.js';
import { ToolsCore } from '../src/tools/core.js';
import { ROOT } from './fixtures/lib/run.js';
import { damage } from './fixtures/lib/json-text.js';
import { generate, Rng } from '../bench/generate.mjs';

/** Runs `core` over `input` in chunks of `chunk` bytes (0: at once), as toolStream does; `passes` false: every line handed over, no deltas joined. */
function drive(core: ToolCore, input: Buffer, chunk: number, passes: boolean): { out: string; problems: string[]; handed: number } {
  const parts: Buffer[] = [];
  const problems: string[] = [];
  let handed = 0;
  const emit = (data: string | Buffer): void => {
    parts.push(Buffer.from(data));
  };
  const options: ReaderOptions = {
    needs: core.needs ? (type) => core.needs!(type) : undefined,
    skim: core.skim ? (type) => core.skim!(type) : undefined,
    passes: passes && core.passes ? (type) => core.passes!(type) : undefined,
    joinDeltas: passes && core.joinsDeltas === true,
    passDeltas: passes && core.passesDeltas === true,
    passesPlain: passes && core.passesPlain ? (type) => core.passesPlain!(type) : undefined,
    reuseLines: true,
  };
  const reader = new EventReader(
    {
      record: (rec) => {
        handed++;
        core.record(rec, emit);
      },
      problem: (p) => {
        problems.push(formatProblem(p));
        core.problem?.(p, emit);
      },
    },
    options,
  );
  reader.startSource('in.ndjson');
  if (chunk <= 0) reader.write(input);
  else for (let i = 0; i < input.length; i += chunk) reader.write(Buffer.from(input.subarray(i, i + chunk)));
  reader.endSource();
  core.end(emit);
  return { out: Buffer.concat(parts).toString('utf8'), problems, handed };
}

type Made = { core: ToolCore; state: () => unknown };

const place = (r: EventRecord | undefined): unknown => (r === undefined ? undefined : { line: r.line, raw: r.raw.toString('utf8') });

/** What a text core keeps for its verdict: `texts` counts records (joined deltas count once), so only whether there were any. */
const textState = (core: TextCore): unknown => core.sessions.map((s) => ({ ...s, texts: s.texts > 0, result: place(s.result) }));

/** The cores, as the commands make them, with what each keeps for its verdict. */
const CORES: Record<string, () => Made> = {
  'result --all': () => {
    const core = new ResultCore({ all: true, keepResults: false });
    return { core, state: () => core.verdicts.map((v) => ({ ...v, result: place(v.result) })) };
  },
  result: () => {
    const core = new ResultCore({ heldResults: 2 });
    return { core, state: () => core.verdicts.map((v) => ({ ...v, result: place(v.result) })) };
  },
  text: () => {
    const core = new TextCore({});
    return { core, state: () => textState(core) };
  },
  'text --all': () => {
    const core = new TextCore({ all: true, tools: true, user: true });
    return { core, state: () => textState(core) };
  },
  'text --all --thinking --no-tools': () => {
    const core = new TextCore({ all: true, tools: false, user: false, thinking: true });
    return { core, state: () => textState(core) };
  },
  'tools --summary --deny-read': () => {
    const seen: unknown[] = [];
    const core = new ToolsCore({ summary: true, denyRead: ['**/.env'], onViolation: (v) => seen.push(v) });
    // What the command makes of an input of results alone (see sawStream) too.
    return { core, state: () => ({ seen, sawEvents: core.sawEvents, sawStream: core.sawStream }) };
  },
};

function streams(): Array<[string, Buffer]> {
  const dir = path.join(ROOT, 'test/fixtures/streams');
  const out: Array<[string, Buffer]> = fs.readdirSync(dir).map((f) => [f, fs.readFileSync(path.join(dir, f))]);
  const parts: string[] = [];
  generate({ seed: 'passes', size: 400_000, maxPayload: 2000, hugeEvery: 0, write: (text: string) => parts.push(text) });
  const generated = { stdout: Buffer.from(parts.join('')) };
  out.push(['generated', generated.stdout]);
  // Its lines shuffled in blocks (sessions interleaved, runs broken), and some of them damaged.
  const rng = new Rng('passes: shuffled and damaged');
  const lines = generated.stdout.toString('utf8').split('\n').slice(0, -1);
  const shuffled: string[] = [];
  for (let i = 0; i < lines.length; i += 20) {
    const block = lines.slice(i, i + 20);
    if (rng.chance(0.3)) block.reverse();
    shuffled.push(...block);
  }
  out.push(['generated, shuffled in blocks', Buffer.from(`${shuffled.join('\n')}\n`)]);
  const damaged = lines.map((l) => (rng.chance(0.05) ? damage(rng, Buffer.from(l)).toString('latin1') : l));
  out.push(['generated, damaged', Buffer.from(`${damaged.join('\n')}\n`, 'latin1')]);
  // Lines of a wrapper's type (not the agent at work) among those of the session they follow: after a result, the
  // activity between two of them is the run going on.
  const wrapped: string[] = [];
  for (const l of lines) {
    wrapped.push(l);
    const session = /"session_id":("[^"\\]*")\}$/.exec(l)?.[1];
    if (session !== undefined && rng.chance(0.2)) wrapped.push(`{"type":"log","level":"info","session_id":${session}}`);
  }
  out.push(['generated, with lines of a wrapper', Buffer.from(`${wrapped.join('\n')}\n`)]);
  const log = (s: string): string => `{"type":"log","session_id":"${s}"}`;
  const ended = '{"type":"result","subtype":"success","is_error":false,"result":"ok","session_id":"T"}';
  const thinking = '{"type":"thinking","subtype":"delta","text":"hm","session_id":"T","timestamp_ms":1}';
  out.push(['a prompt between two lines of a wrapper, after a result', Buffer.from(`${[ended, log('T'), '{"type":"user","session_id":"T"}', log('T')].join('\n')}\n`)]);
  out.push(['thinking between two lines of a wrapper, after a result', Buffer.from(`${[ended, log('T'), thinking, log('T')].join('\n')}\n`)]);
  // The agent at work between lines that are not (results, a wrapper's): the run that holds them must not hide it.
  const prompt = '{"type":"user","message":{"content":"hi"},"session_id":"T"}';
  const said = '{"type":"assistant","message":{"content":[{"type":"text","text":"done"}]},"session_id":"T"}';
  const result = '{"type":"result","session_id":"T"}';
  for (const middle of [prompt, said, thinking]) {
    out.push([`${JSON.parse(middle).type} between results`, Buffer.from(`${[result, result, middle, result].join('\n')}\n`)]);
    out.push([`${JSON.parse(middle).type} between lines of a wrapper`, Buffer.from(`${[log('T'), log('T'), middle, log('T')].join('\n')}\n`)]);
  }
  // Claude Code's tool blocks (which ndjson-tools reports, not audits) first seen in the middle of a run, in a message
  // or an answer, as they are or spelt with an escape; and messages that only look like them.
  const message = (role: string, content: string): string => `{"type":"${role}","message":{"role":"${role}","content":[${content}]},"session_id":"T"}`;
  const blocks = [
    message('assistant', '{"type":"tool_use","id":"toolu_1","name":"Read","input":{"file_path":"a"}}'),
    message('assistant', '{"type":"tool\\u005fuse","id":"toolu_1","name":"Read","input":{}}'),
    message('user', '{"type":"tool_result","tool_use_id":"toolu_1","content":"x"}'),
    message('user', '{"type":"tool\\u005fresult","tool_use_id":"toolu_1","content":"x"}'),
  ];
  const lookalikes = [message('assistant', '{"type":"text","text":"a \\"tool_use\\" block, \\\\u and tool_result"}'), message('user', '{"type":"text","text":"\\u0041"}')];
  blocks.forEach((block, k) => {
    const run = [thinking, ...lookalikes, thinking, message('assistant', '{"type":"text","text":"hm"}'), thinking, block, thinking, block, thinking];
    out.push([`a tool block (${k}) in the middle of a run`, Buffer.from(`${run.join('\n')}\n`)]);
  });
  return out;
}

const STREAMS = streams();

t.test('every core ends as when it is handed every line, at every chunk size', async (t) => {
  for (const [name, make] of Object.entries(CORES)) {
    for (const [file, input] of STREAMS) {
      for (const chunk of [0, 1, 7, 100, 4096]) {
        // The byte-by-byte reading of the larger streams adds nothing the smaller sizes do not show.
        if (chunk === 1 && input.length > 20_000) continue;
        const all = make();
        const every = drive(all.core, input, chunk, false);
        const some = make();
        const runs = drive(some.core, input, chunk, true);
        const same = runs.out === every.out && JSON.stringify(some.state()) === JSON.stringify(all.state()) && runs.problems.join('\n') === every.problems.join('\n');
        if (!same) {
          t.same({ out: runs.out, state: some.state(), problems: runs.problems }, { out: every.out, state: all.state(), problems: every.problems }, `${name}, ${file}, chunks of ${chunk}`);
          return;
        }
      }
    }
    t.pass(`${name}: the same on ${STREAMS.length} streams`);
  }
});

t.test('the runs are let by: on a long stream, few records are handed over', async (t) => {
  const input = STREAMS.find(([name]) => name === 'generated')![1];
  const lines = input.toString('utf8').split('\n').length - 1;
  const result = drive(new ResultCore({ all: true }), input, 0, true);
  const every = drive(new ResultCore({ all: true }), input, 0, false);
  t.equal(every.handed, lines, 'without runs, every line');
  t.ok(result.handed < lines / 10, `ndjson-result: ${result.handed} of ${lines} lines handed over`);
  // ndjson-text --all: its deltas are joined too; the runs let by as many again.
  const text = drive(new TextCore({ all: true }), input, 0, true);
  const joined = new TextCore({ all: true });
  Object.assign(joined, { passes: undefined });
  const deltasOnly = drive(joined, input, 0, true);
  t.equal(text.out, deltasOnly.out, 'ndjson-text --all: the same text');
  t.ok(text.handed < deltasOnly.handed / 2, `ndjson-text --all: ${text.handed} of ${lines} lines handed over, ${deltasOnly.handed} with deltas joined but no runs`);
  // ndjson-tools: messages without tool blocks pass too.
  const tools = drive(new ToolsCore({}), input, 0, true);
  const searched = new ToolsCore({});
  Object.assign(searched, { passesPlain: undefined });
  const withMessages = drive(searched, input, 0, true);
  t.equal(tools.out, withMessages.out, 'ndjson-tools: the same records');
  t.ok(tools.handed < withMessages.handed * 0.9, `ndjson-tools: ${tools.handed} lines handed over, ${withMessages.handed} with every message searched`);
});

t.test("ndjson-tools: a run's first event glued on a message cut short is read, in a run as out of one", async (t) => {
  // ndjson-result and ndjson-text let such a message by in a run, unread (see the README's table of input); ndjson-tools
  // lets by only the messages that hold no such event, nor a tool block.
  const thinking = '{"type":"thinking","subtype":"delta","text":"hm","session_id":"T","timestamp_ms":1}';
  const message = (text: string): string => `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"${text}"}]},"session_id":"T"}`;
  const init = '{"type":"system","subtype":"init","session_id":"U","cwd":"/work/app"}';
  const read = (subtype: string): string =>
    `{"type":"tool_call","subtype":"${subtype}","call_id":"c1","tool_call":{"readToolCall":{"args":{"path":"config/.env"}${subtype === 'completed' ? ',"result":{"success":{}}' : ''}}},"session_id":"U"}`;
  const lines = [thinking, message('hm'), thinking, `${message('The tests pass').slice(0, -40)}${init}`, thinking, read('started'), read('completed'), thinking];
  const input = Buffer.from(`${lines.join('\n')}\n`);
  for (const chunk of [0, 1, 7, 100]) {
    const seen: unknown[] = [];
    const every = drive(new ToolsCore({ absolute: true, denyRead: ['/work/app/config/**'], onViolation: (v) => seen.push(v) }), input, chunk, false);
    const found = seen.length;
    const runs = drive(new ToolsCore({ absolute: true, denyRead: ['/work/app/config/**'], onViolation: (v) => seen.push(v) }), input, chunk, true);
    t.same(runs.problems, ['in.ndjson:4: truncated: {"type":"assistant","message":{"role":"assistant","content":…'], `chunks of ${chunk}: the cut message reported`);
    t.same(every.problems, runs.problems, `chunks of ${chunk}: as without runs`);
    t.equal(runs.out, every.out, `chunks of ${chunk}: the same records`);
    t.match(runs.out, /"cwd":"\/work\/app"/, `chunks of ${chunk}: the glued event's cwd read`);
    t.same([found, seen.length], [1, 2], `chunks of ${chunk}: the check broken either way`);
  }
});

t.test('which lines of a run are handed over', async (t) => {
  const e = (type: string, session: string, more = ''): string => `{"type":"${type}"${more},"session_id":"${session}","timestamp_ms":1}`;
  const input = Buffer.from(
    [
      e('system', 'a', ',"subtype":"init"'), // 1: read
      e('thinking', 'a'), // 2: starts a run
      e('thinking', 'a'), // 3
      e('user', 'a'), // 4: last of the run
      e('result', 'a', ',"subtype":"success","result":"x"'), // 5: read
      e('thinking', 'b'), // 6: a run of one
      e('thinking', 'c'), // 7: another session, another run
      e('thinking', 'c'), // 8
      e('thinking', 'c', ',"text":"a \\"type\\": here"'), // 9: still judged by its bytes alone
      `{"type":"thinking","session_id":"c","type":"result"}`, // 10: a second type key: the full path, which ends the run
      e('thinking', 'c'), // 11: a run again
      e('thinking', 'c').replace('}', '}\r'), // 12: no session at its end: the full path
      e('thinking', 'c'), // 13
      e('thinking', 'c'), // 14: the last line
    ].join('\n') + '\n',
  );
  const lines: number[] = [];
  const sessions: string[] = [];
  const reader = new EventReader(
    {
      record: (rec) => {
        lines.push(rec.line);
        sessions.push(recordSession(rec));
      },
      problem: (p) => t.fail(formatProblem(p)),
    },
    { needs: (type) => type === 'result' || type === 'system', passes: (type) => type !== 'result' && type !== 'system' },
  );
  reader.startSource('in');
  reader.write(input);
  reader.endSource();
  t.same(lines, [1, 2, 4, 5, 6, 7, 9, 10, 11, 12, 13, 14]);
  t.same(sessions, ['a', 'a', 'a', 'a', 'b', 'c', 'c', 'c', 'c', 'c', 'c', 'c']);
});

t.test('a run ends at a line with a value glued after it, spaces between: the values after it are read', async (t) => {
  const e = (type: string, more = ''): string => `{"type":"${type}"${more},"session_id":"a","timestamp_ms":1}`;
  const failed = e('result', ',"subtype":"error_during_execution","is_error":true,"result":"boom"');
  for (const between of [' 42 ', ' "x" ', '\t[1] ', ' -1 ', ' true ', ' null\t', ' false ']) {
    const input = Buffer.from([e('system', ',"subtype":"init"'), e('thinking'), e('thinking'), `${e('thinking')}${between}${failed}`, e('thinking'), ''].join('\n'));
    for (const runs of [true, false]) {
      const core = new ResultCore({ all: true, keepResults: false });
      const { problems } = drive(core, input, 0, runs);
      t.same(
        core.verdicts.map((v) => [v.failed, v.line]),
        // The thinking after it is the agent at work again: a run of its own, without a result.
        [
          [true, 4],
          [false, 5],
        ],
        `${JSON.stringify(between)}${runs ? ', in a run' : ''}: the failed result is read`,
      );
      t.equal(problems.length, 1, 'and the value between is reported');
    }
  }
});

t.test('which deltas are joined: one session in a row, within one write', async (t) => {
  const d = (text: string, session = 'a', time = 1): string =>
    `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":${JSON.stringify(text)}}]},"session_id":"${session}","timestamp_ms":${time}}`;
  const lines = [
    d('Hel', 'a', 1), // 1: joined with 2 and 3
    d('lo "', 'a', 2), // 2: an escape, decoded
    d(' wörld', 'a', 3), // 3
    d('x', 'b', 4), // 4: another session
    d('y', 'a', 5), // 5: back to the first, a record of its own
    `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"y"}]},"session_id":"a","model_call_id":"m","timestamp_ms":6}`, // 6: a flush: never joined
    d('z', 'a', 7), // 7
    `{"type":"thinking","subtype":"delta","text":"t","session_id":"a","timestamp_ms":8}`, // 8: another type
    d('1', 'a', 9), // 9: joined with 10
    d('2', 'a', 10), // 10
    d('3', 'a', 11).replace('"text":"3"', '"text": "3"'), // 11: a space: not of the shape, a record of its own
    d('4', 'a', 12), // 12: the second write starts here
    d('5', 'a', 13), // 13
  ];
  const input = Buffer.from(`${lines.join('\n')}\n`);
  const second = input.indexOf(Buffer.from(d('4', 'a', 12)));
  const got: Array<{ line: number; type: string; event: unknown; raw: unknown }> = [];
  const reader = new EventReader(
    {
      record: (rec) => got.push({ line: rec.line, type: rec.type ?? '', event: rec.event, raw: JSON.parse(rec.raw.toString('utf8')) }),
      problem: (p) => t.fail(formatProblem(p)),
    },
    { needs: () => true, joinDeltas: true },
  );
  reader.startSource('in');
  reader.write(input.subarray(0, second));
  t.same(
    got.map((r) => r.line),
    [3, 4, 5, 6, 7, 8, 10, 11],
    'what the first write read is handed over before it returns',
  );
  reader.write(input.subarray(second));
  reader.endSource();
  t.same(
    got.map((r) => r.line),
    [3, 4, 5, 6, 7, 8, 10, 11, 13],
  );
  const delta = (text: string, session: string, time: number): unknown => ({
    type: 'assistant',
    message: { role: 'assistant', content: [{ type: 'text', text }] },
    session_id: session,
    timestamp_ms: time,
  });
  t.same(got[0]!.event, delta('Hello " wörld', 'a', 3), 'the texts joined, the session and time of the last');
  t.same(got[0]!.raw, got[0]!.event, 'its bytes are the JSON of its event');
  t.equal(got[0]!.type, 'assistant');
  t.same(got[1]!.event, delta('x', 'b', 4));
  t.same(got[6]!.event, delta('12', 'a', 10));
  t.same(got[8]!.event, delta('45', 'a', 13), 'a write joins only its own deltas');
});

t.test('where deltas pass, a run goes on through them, and not through other messages', async (t) => {
  const s = 'a';
  const d = (text: string, session = s): string =>
    `{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":${JSON.stringify(text)}}]},"session_id":"${session}","timestamp_ms":1}`;
  const th = (session = s): string => `{"type":"thinking","subtype":"delta","text":"t","session_id":"${session}","timestamp_ms":1}`;
  const lines = [
    `{"type":"system","subtype":"init","session_id":"${s}"}`, // 1: read
    th(), // 2: starts a run
    d('x'), // 3
    d('y'), // 4
    th(), // 5
    d('z'), // 6: the last of the run
    `{"type":"assistant","message":{"role":"assistant","content":[{"type":"tool_use","id":"t","name":"Read","input":{}}]},"session_id":"${s}"}`, // 7: a message of another shape
    d('w'), // 8: a run again
    d('v', 'b'), // 9: another session's
    d('u', 'b'), // 10
    d('t', 'b').replace('"text":"t"', '"text": "t"'), // 11: not of the shape: handed over
    d('s', 'b'), // 12
  ];
  const input = Buffer.from(`${lines.join('\n')}\n`);
  for (const chunk of [0, 7]) {
    const handed: number[] = [];
    const reader = new EventReader(
      { record: (rec) => handed.push(rec.line), problem: (p) => t.fail(formatProblem(p)) },
      { needs: (type) => type === 'system', passes: (type) => type !== 'system' && type !== 'assistant', passDeltas: true },
    );
    reader.startSource('in');
    if (chunk === 0) reader.write(input);
    else for (let i = 0; i < input.length; i += chunk) reader.write(Buffer.from(input.subarray(i, i + chunk)));
    reader.endSource();
    // Read across chunks, a line ends any run: byte by byte, every line is handed over.
    t.same(handed, chunk === 0 ? [1, 2, 6, 7, 8, 9, 10, 11, 12] : lines.map((_, i) => i + 1), `chunks of ${chunk || 'the whole'}`);
  }
});
