// The benchmark's corpus generator, kept honest: deterministic for a seed, and
// its output a valid agent stream by the toolkit's own rules. (No timing here:
// the benchmark is the measurement.)
import t from 'tap';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { ROOT } from './fixtures/lib/run.js';
import { EventReader, formatProblem } from '../src/io/input.js';
import type { EventRecord, InputProblem } from '../src/io/input.js';
import { assistantKind, eventSubtype, isAssistant, isObject, isResult, isToolCall, messageText, resultFailed, resultText, sessionId, str } from '../src/events.js';

const GENERATE = path.join(ROOT, 'bench/generate.mjs');

function generate(seed: string): Buffer {
  const ran = spawnSync(process.execPath, [GENERATE, '--size', '1.5M', '--seed', seed, '--max-payload', '4k', '--huge-every', '0'], {
    maxBuffer: 64 * 1024 * 1024,
  });
  if (ran.status !== 0) throw new Error(`generate.mjs failed: ${ran.stderr}`);
  return ran.stdout;
}

interface Session {
  id: string;
  /** The session's text: its deltas, and the messages that are the only copy of theirs. */
  deltas: string;
  sinceFlush: string;
  started: Set<string>;
  completed: Set<string>;
  result?: unknown;
}

// This seed gives, at this size, sessions that fail and sessions that die.
const SEED = 'f';
const stream = generate(SEED);

t.test('the same seed gives the same bytes, another seed other bytes', async (t) => {
  t.ok(stream.length >= 1_500_000, 'at least the size asked for');
  t.ok(generate(SEED).equals(stream), 'same seed, same stream');
  t.notOk(generate('u').equals(stream), 'another seed, another stream');
});

t.test('the stream is valid by the toolkit’s rules', async (t) => {
  const records: EventRecord[] = [];
  const problems: InputProblem[] = [];
  const reader = new EventReader({ record: (r) => records.push(r), problem: (p) => problems.push(p) });
  reader.startSource('corpus');
  reader.write(stream);
  reader.endSource();
  t.same(problems.map(formatProblem), [], 'every line is one JSON object');
  t.equal(records.length, stream.toString('utf8').split('\n').length - 1, 'one event per line');

  const sessions: Session[] = [];
  const byId = new Map<string, Session>();
  const flushMismatches: string[] = [];
  let onlyCopies = 0;
  for (const { event, line } of records) {
    const id = sessionId(event);
    let s = byId.get(id);
    if (!s) {
      s = { id, deltas: '', sinceFlush: '', started: new Set(), completed: new Set() };
      byId.set(id, s);
      sessions.push(s);
    }
    if (isAssistant(event)) {
      const text = messageText(event);
      if (assistantKind(event) === 'delta') {
        s.deltas += text;
        s.sinceFlush += text;
      } else if (s.sinceFlush === '') {
        // No deltas before it: a run made without partial output, whose message is the only copy of its text.
        s.deltas += text;
        onlyCopies++;
      } else {
        // Every flush repeats exactly the deltas since the last one.
        if (text !== s.sinceFlush) flushMismatches.push(`line ${line}`);
        s.sinceFlush = '';
      }
    } else if (isToolCall(event)) {
      const call = str(event, 'call_id') ?? '';
      const tool = isObject(event.tool_call) ? Object.keys(event.tool_call) : [];
      if (!tool.some((k) => k.endsWith('ToolCall') || k === 'function')) flushMismatches.push(`line ${line}: no tool key`);
      if (eventSubtype(event) === 'started') s.started.add(call);
      else if (eventSubtype(event) === 'completed') s.completed.add(call);
    } else if (isResult(event)) {
      s.result = event;
    }
  }
  t.same(flushMismatches, [], 'every flush repeats the deltas since the previous one; every call names its tool');
  t.ok(sessions.length > 10, `many sessions (${sessions.length})`);
  t.ok(onlyCopies > 0, `some runs are made without partial output, their messages the only copies (${onlyCopies})`);

  const withResult = sessions.filter((s) => s.result !== undefined);
  const failed = withResult.filter((s) => resultFailed(s.result));
  const died = sessions.filter((s) => s.result === undefined);
  t.ok(failed.length > 0, `some sessions fail (${failed.length})`);
  t.ok(died.length > 0, `some sessions die without a result (${died.length})`);
  const wrongText = withResult.filter((s) => resultText(s.result) !== s.deltas).map((s) => s.id);
  const unpaired = withResult.filter((s) => [...s.started].some((c) => !s.completed.has(c)) || [...s.completed].some((c) => !s.started.has(c))).map((s) => s.id);
  t.same(wrongText, [], 'in every session with a result, the result is the concatenated text');
  t.same(unpaired, [], 'in every session with a result, every started call completes and every completed call was started');
  t.ok(died.some((s) => [...s.started].some((c) => !s.completed.has(c))), 'a run that dies leaves a call started and never completed');
  const last = sessions[sessions.length - 1]!;
  t.ok(last.result !== undefined && !resultFailed(last.result), 'the last session succeeds');
});
