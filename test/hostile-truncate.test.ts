// The agent died mid-write: a real-shaped run (partial output, tool calls, a result;
// 4 KB) cut at every byte offset, through every tool. Each ends cleanly (a status
// from the table, no exception, stderr lines naming file:line) and:
//   - ndjson-result reports the missing result (status 4, nothing on stdout) unless
//     the cut keeps the whole result line, and then prints its text (status 0),
//     reading standard input or the file from its end alike;
//   - ndjson-text prints the text there was: the final message the complete lines
//     hold, and with --all the text so far (a prefix of the whole run's);
//   - ndjson-dedupe's output is a prefix of its output on the whole run: every
//     output line is an input line, in order;
//   - ndjson-tools accounts for every tool_call event, and --no-pending fails (3)
//     exactly when a call started and did not complete.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from './fixtures/lib/run.js';
import { describeRun, runInProcess, runProblems, tapSafe } from './fixtures/hostile/check.js';
import { text } from '../src/text/stream.js';
import type { RunOutput, ToolRun } from './fixtures/hostile/check.js';

const STREAM = fs.readFileSync(path.join(ROOT, 'test/fixtures/streams/dedupe-partial.ndjson'));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-truncate-'));
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));

interface Line {
  /** Offset just past the line's last byte (where its newline is). */
  end: number;
  raw: string;
  event: Record<string, unknown>;
}

const LINES: Line[] = [];
for (let start = 0; start < STREAM.length; ) {
  const nl = STREAM.indexOf(10, start);
  const raw = STREAM.toString('utf8', start, nl);
  LINES.push({ end: nl, raw, event: JSON.parse(raw) as Record<string, unknown> });
  start = nl + 1;
}
const RESULT = LINES.find((l) => l.event.type === 'result')!;

/** The lines a cut at `k` keeps whole (a line is whole once its last byte is in; its newline need not be). */
const wholeLines = (k: number): Line[] => LINES.filter((l) => l.end <= k);

const textOf = (e: Record<string, unknown>): string =>
  ((e.message as { content?: Array<{ text?: string }> })?.content ?? []).map((c) => c.text ?? '').join('');

/** The final message the whole lines hold: the deltas since the last tool call (the flushes repeat them). */
function finalMessage(lines: Line[]): string {
  let text = '';
  for (const { event } of lines) {
    if (event.type === 'tool_call') text = '';
    else if (event.type === 'assistant' && event.timestamp_ms !== undefined && event.model_call_id === undefined) text += textOf(event);
  }
  return text;
}

// Each tool as a user runs it (main() in process), at every offset.
const RUN = {
  result: { tool: 'ndjson-result', args: [] },
  resultFile: { tool: 'ndjson-result', args: [], file: true },
  text: { tool: 'ndjson-text', args: [] },
  dedupe: { tool: 'ndjson-dedupe', args: ['--stats'] },
  tools: { tool: 'ndjson-tools', args: ['--no-pending'] },
} satisfies Record<string, ToolRun>;

/** ndjson-text --all --no-tools --no-user on the input, through its stream (the text alone). */
async function allText(input: Buffer): Promise<string> {
  const s = text({ all: true, tools: false, user: false });
  const out: Buffer[] = [];
  s.on('data', (d: Buffer) => out.push(d));
  const done = new Promise((resolve, reject) => s.on('end', resolve).on('error', reject));
  s.end(input);
  await done;
  return Buffer.concat(out).toString('utf8');
}

const lines = (b: Buffer): string[] => b.toString('utf8').split('\n').slice(0, -1);

t.test(`a ${STREAM.length}-byte run cut at every offset`, async (t) => {
  const file = path.join(dir, 'cut.ndjson');
  const whole = {
    dedupe: lines((await runInProcess(RUN.dedupe, [STREAM])).stdout),
    textAll: (await allText(STREAM)).trimEnd(),
  };
  t.ok(whole.dedupe.length > 10 && whole.textAll.length > 50, 'the whole run has output to cut');
  const failures = new Map<string, string>();
  let runs = 0;
  const fail = (k: number, what: string, detail: string): void => {
    if (!failures.has(what)) failures.set(what, `cut at ${k}: ${what}: ${detail}`);
  };
  for (let k = 0; k <= STREAM.length; k++) {
    const input = STREAM.subarray(0, k);
    fs.writeFileSync(file, input);
    const out = {} as Record<keyof typeof RUN, RunOutput>;
    for (const [name, run] of Object.entries(RUN) as Array<[keyof typeof RUN, ToolRun]>) {
      out[name] = await runInProcess(run, [input], file);
      runs++;
      for (const p of runProblems(run, input, out[name], run.file ? file : 'stdin')) fail(k, describeRun(run), p);
    }
    const kept = wholeLines(k);
    const hasResult = k >= RESULT.end;
    // ndjson-result: the result's text, or the missing result reported.
    for (const [name, ran] of [['stdin', out.result], ['file', out.resultFile]] as const) {
      const want = hasResult ? { code: 0, stdout: `${RESULT.event.result as string}\n` } : { code: 4, stdout: '' };
      if (ran.code !== want.code || ran.stdout.toString('utf8') !== want.stdout) fail(k, `ndjson-result (${name})`, `status ${ran.code}, stdout ${JSON.stringify(ran.stdout.toString('utf8'))}; want ${JSON.stringify(want)}`);
      if (!hasResult && !/no result event/.test(ran.stderr)) fail(k, `ndjson-result (${name}) stderr`, `no word of the missing result: ${JSON.stringify(ran.stderr)}`);
    }
    // ndjson-text: the final message there was; --all: the text so far.
    const message = finalMessage(kept);
    const wantText = message === '' ? '' : `${message}\n`;
    if (out.text.stdout.toString('utf8') !== wantText) fail(k, 'ndjson-text', `printed ${JSON.stringify(out.text.stdout.toString('utf8'))}, want ${JSON.stringify(wantText)}`);
    if (out.text.code !== (hasResult ? 0 : 4)) fail(k, 'ndjson-text status', `${out.text.code}`);
    const soFar = (await allText(input)).trimEnd();
    if (!whole.textAll.startsWith(soFar)) fail(k, 'ndjson-text -a', `${JSON.stringify(soFar.slice(-60))} is not a prefix of the whole run's text`);
    // ndjson-dedupe: a prefix of the whole run's output.
    const deduped = lines(out.dedupe.stdout);
    if (deduped.some((l, i) => l !== whole.dedupe[i])) fail(k, 'ndjson-dedupe', 'the output is not a prefix of the whole run\'s output');
    const isDelta = (e: Record<string, unknown>): boolean => e.type === 'assistant' && e.timestamp_ms !== undefined && e.model_call_id === undefined;
    if (kept.some((l) => (isDelta(l.event) || l.event.type !== 'assistant') && !deduped.includes(l.raw))) fail(k, 'ndjson-dedupe', 'a whole line that is no flush is missing from the output');
    // ndjson-tools: a record per call, pending ones too, and --no-pending fails exactly when a call started and did not complete.
    const started = new Set(kept.filter((l) => l.event.subtype === 'started').map((l) => l.event.call_id));
    const calls = new Set(kept.filter((l) => l.event.type === 'tool_call').map((l) => l.event.call_id));
    for (const l of kept) if (l.event.subtype === 'completed') started.delete(l.event.call_id);
    const records = lines(out.tools.stdout).map((l) => JSON.parse(l) as { call_id: string; status: string });
    // It fails too when the cut tears a tool call line (a call it cannot read), or leaves no event at all (nothing audited).
    const torn = input.subarray(input.lastIndexOf(10) + 1).toString('utf8');
    let tornCall = false;
    try {
      JSON.parse(torn);
    } catch {
      tornCall = /"type"\s*:\s*"tool_call"|"tool_call"\s*:\s*\{/.test(torn);
    }
    const mustFail = started.size > 0 || tornCall || kept.length === 0;
    if (out.tools.code !== (mustFail ? 3 : 0)) fail(k, 'ndjson-tools --no-pending', `status ${out.tools.code} with ${started.size} calls pending, a torn call ${tornCall}, ${kept.length} events`);
    if (records.length !== calls.size || records.filter((r) => r.status === 'pending').length !== started.size) {
      fail(k, 'ndjson-tools records', `${records.length} records (${records.filter((r) => r.status === 'pending').length} pending) for ${calls.size} calls (${started.size} pending)`);
    }
  }
  for (const message of failures.values()) t.fail(tapSafe(message));
  t.equal(failures.size, 0, `${STREAM.length + 1} cuts, ${runs} runs`);
});
