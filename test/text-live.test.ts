// The live path of the built binary: deltas written slowly to its stdin through
// a pipe must each be on its stdout before the next is written, though none ends
// a line. A test, not a benchmark: the bound is generous; the delays measured are
// printed as a comment.
import t from 'tap';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { BIN, TEST_ENV } from './fixtures/lib/run.js';

const S = 'live-1';
const event = (o: Record<string, unknown>) => `${JSON.stringify({ ...o, session_id: S })}\n`;
const delta = (text: string) => event({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text }] }, timestamp_ms: 1 });

const DELTAS = 20;
const PAUSE_MS = 25;
const BOUND_MS = 2000;

t.test('each delta reaches stdout before the next is written', async (t) => {
  const child = spawn(process.execPath, [path.join(BIN, 'ndjson-text.js'), '--all'], { env: TEST_ENV, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let waiter: { want: string; resolve: () => void } | null = null;
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d: string) => {
    out += d;
    if (waiter && out.includes(waiter.want)) {
      const w = waiter;
      waiter = null;
      w.resolve();
    }
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));

  /** Writes `data` and resolves with the milliseconds until `want` is on stdout, or rejects after the bound. */
  const feed = (data: string, want: string): Promise<number> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${JSON.stringify(want)} not on stdout after ${BOUND_MS} ms`)), BOUND_MS);
      const start = process.hrtime.bigint();
      waiter = {
        want,
        resolve: () => {
          clearTimeout(timer);
          resolve(Number(process.hrtime.bigint() - start) / 1e6);
        },
      };
      child.stdin.write(data);
    });

  // The prompt line shows the process is up: start-up is not part of the delays.
  await feed(event({ type: 'system', subtype: 'init' }) + event({ type: 'user', message: { content: [{ type: 'text', text: 'go' }] } }), '> go\n');
  const delays: number[] = [];
  for (let i = 0; i < DELTAS; i++) {
    const piece = `<${i}>`;
    try {
      delays.push(await feed(delta(piece), piece));
    } catch (error) {
      t.fail((error as Error).message);
      break;
    }
    t.notOk(out.endsWith('\n'), `delta ${i} is out without a line end`);
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
  }
  child.stdin.end(event({ type: 'result', subtype: 'success', result: 'x' }));
  t.equal(await exited, 0, 'exit status 0');
  t.equal(stderr, '');
  t.equal(delays.length, DELTAS, 'every delta arrived in time');
  const sorted = [...delays].sort((a, b) => a - b);
  const pick = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!.toFixed(2);
  t.comment(`write-to-stdout delay over ${delays.length} deltas: median ${pick(0.5)} ms, min ${pick(0)} ms, p90 ${pick(0.9)} ms, max ${pick(1)} ms`);
  t.equal(out, `> go\n\n${Array.from({ length: DELTAS }, (_, i) => `<${i}>`).join('')}\n`, 'the text, in order, once');
});
