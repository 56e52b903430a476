// Reading files into reused buffers: no tool keeps a pointer into a buffer it has released.
//
// Each fixture stream is read from its file through a pool whose buffers are
// overwritten (poisoned) as soon as they are released and read into again at
// once, in chunks of a few bytes (so lines span many of them) and of a few KiB,
// and every tool's core must write and report exactly what it does when the
// file is handed over as one buffer of its own.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { Readable, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { spawnSync } from 'node:child_process';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { ROOT } from './fixtures/lib/run.js';
import { ReadPool, dataChunk, describeError, endChunk, openSources } from '../src/io/sources.js';
import type { SourceChunk } from '../src/io/sources.js';
import { formatProblem, scanReadBuffers } from '../src/io/input.js';
import { toolStream } from '../src/io/tool-stream.js';
import type { ToolCore } from '../src/io/tool-stream.js';
import { ResultCore } from '../src/result/core.js';
import { TextCore } from '../src/text/core.js';
import { ToolsCore } from '../src/tools/core.js';
import { DedupeCore } from '../src/dedupe/core.js';

const inputs = [
  ...fs.readdirSync(path.join(ROOT, 'test/fixtures/streams')).map((f) => path.join(ROOT, 'test/fixtures/streams', f)),
  ...['ndjson-result', 'ndjson-text', 'ndjson-tools', 'ndjson-dedupe'].flatMap((tool) => {
    const dir = path.join(ROOT, 'test/fixtures', tool);
    return fs
      .readdirSync(dir)
      .map((c) => path.join(dir, c, 'input'))
      .filter((f) => fs.existsSync(f) && fs.statSync(f).isFile());
  }),
];

// A generated stream with payloads of up to 40 KB: its tool calls are skim-parsed, their large values read later from the line's bytes.
const generated = spawnSync(process.execPath, [path.join(ROOT, 'bench/generate.mjs'), '--size', '600k', '--seed', 'pool', '--max-payload', '40k', '--huge-every', '0'], {
  maxBuffer: 64 * 1024 * 1024,
});
if (generated.status !== 0) throw new Error(`bench/generate.mjs failed: ${generated.stderr}`);
const generatedFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-pool-')), 'generated.ndjson');
fs.writeFileSync(generatedFile, generated.stdout);
inputs.push(generatedFile);
t.teardown(() => fs.rmSync(path.dirname(generatedFile), { recursive: true, force: true }));

const cores: Record<string, () => ToolCore> = {
  'result --all': () => new ResultCore({ all: true, keepResults: false }),
  'result --all --json': () => new ResultCore({ all: true, json: true }),
  result: () => new ResultCore({ fields: ['session_id', 'usage'] }),
  text: () => new TextCore({}),
  'text --all': () => new TextCore({ all: true, tools: true, user: true, thinking: true }),
  tools: () => new ToolsCore({}),
  'tools --full': () => new ToolsCore({ full: true }),
  'tools --summary': () => new ToolsCore({ summary: true }),
  'tools --paths': () => new ToolsCore({ paths: 'all' }),
  'dedupe --verify': () => new DedupeCore({ verify: true }),
  'dedupe --key': () => new DedupeCore({ keys: ['call_id'] }),
};

async function run(core: ToolCore, source: Readable): Promise<{ out: string; problems: string[] }> {
  const parts: Buffer[] = [];
  const problems: string[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _enc, cb) {
      parts.push(Buffer.from(chunk));
      cb();
    },
  });
  await pipeline(source, toolStream(core, { onProblem: (p) => problems.push(formatProblem(p)) }), sink);
  return { out: Buffer.concat(parts).toString('latin1'), problems };
}

t.test('a tool reads a file through a reused buffer exactly as from a buffer of its own', async (t) => {
  t.ok(inputs.length > 50, `${inputs.length} fixture streams`);
  // Buffers of a few bytes (a line spans many), of about a line (a chunk may hold one line whole) and of several lines.
  const sizesOf = (file: string): number[] => (file === generatedFile ? [250, 65536] : [7, 97, 4096]);
  for (const [name, make] of Object.entries(cores)) {
    let same = 0;
    let runs = 0;
    for (const file of inputs) {
      const whole = await run(make(), Readable.from([dataChunk(file, fs.readFileSync(file)), endChunk(file)], { objectMode: true }));
      for (const size of sizesOf(file)) {
        // Buffers of the heap, and the byte scan's read buffers, where a chunk is scanned without being copied.
        for (const own of size === 7 ? [false] : [false, true]) {
          runs++;
          const pool = new ReadPool({ size, keep: 1, poison: true, own: own ? scanReadBuffers() : [] });
          const pooled = await run(make(), openSources([file], process.stdin, 'stdin', undefined, { pool }));
          if (pooled.out === whole.out && pooled.problems.join('\n') === whole.problems.join('\n')) same++;
          else t.same(pooled, whole, `${name}, ${size}-byte buffers${own ? ' of the byte scan' : ''}: ${path.relative(ROOT, file)}`);
        }
      }
    }
    t.equal(same, runs, `${name}: every stream reads the same`);
  }
});

t.test('a pool gives back the buffers released, and makes new ones when none is free', async (t) => {
  const pool = new ReadPool({ size: 16, keep: 2 });
  const a = pool.take();
  const b = pool.take();
  t.not(a, b);
  pool.give(a);
  t.equal(pool.take(), a, 'a released buffer is read into again');
  pool.give(a);
  pool.give(b);
  pool.give(Buffer.alloc(16));
  t.equal(pool.take(), b);
  t.equal(pool.take(), a);
  t.not(pool.take(), a, 'no more than `keep` are kept');

  const own = [Buffer.alloc(20), Buffer.alloc(16), Buffer.alloc(8)];
  const withOwn = new ReadPool({ size: 16, keep: 0, own });
  const first = withOwn.take();
  const second = withOwn.take();
  t.same([first.length, second.length], [16, 16], 'buffers of its own too short for a read are left aside; longer ones are cut to its size');
  const long = new Set([own[0]!.buffer, own[1]!.buffer]);
  t.ok(long.has(first.buffer) && long.has(second.buffer) && first.buffer !== second.buffer, 'its own buffers are taken first, each once');
  const made = withOwn.take();
  t.notOk(own.some((b) => b.buffer === made.buffer), 'then new ones are made');
  withOwn.give(made);
  withOwn.give(first);
  t.equal(withOwn.take(), first, 'its own are always kept (none of the others: keep 0), and taken before any other');
});

t.test('a file read with a pool ends with its source end, and a missing one ends with its error', async (t) => {
  const errors: string[] = [];
  const chunks: unknown[] = [];
  const file = path.join(ROOT, 'test/fixtures/streams/basic.ndjson');
  const pool = new ReadPool({ size: 1024, keep: 1 });
  for await (const c of openSources([file, '/nonexistent/x.ndjson'], process.stdin, 'stdin', undefined, { pool })) {
    const chunk = c as SourceChunk;
    if ('end' in chunk) {
      chunks.push(`end ${path.basename(chunk.source)}`);
      if (chunk.error) errors.push(`${chunk.source}: ${chunk.error.code}`);
    } else {
      chunks.push(chunk.data.length);
      chunk.release?.();
    }
  }
  const size = fs.statSync(file).size;
  const reads = chunks.filter((c) => typeof c === 'number') as number[];
  t.equal(reads.reduce((a, b) => a + b, 0), size, 'every byte read');
  t.ok(reads.every((n) => n <= 1024));
  t.same(chunks.filter((c) => typeof c === 'string'), ['end basic.ndjson', 'end x.ndjson']);
  t.same(errors, ['/nonexistent/x.ndjson: ENOENT']);
});

t.test('a pipe on standard input is read into the pool: every byte in order, whether the reader keeps up or not', async (t) => {
  const sources = pathToFileURL(path.join(ROOT, 'dist/io/sources.js')).href;
  // The child reads its stdin (a pipe) through poisoned 4 KiB buffers and writes back what it was handed;
  // a slow reader makes the pipe wait (the reads stop and start again), a fast one gets each read as it comes.
  const script = (slow: boolean) => `
    import { openSources, ReadPool } from ${JSON.stringify(sources)};
    const pool = new ReadPool({ size: 4096, keep: 2, poison: true });
    const parts = [];
    let chunks = 0;
    for await (const c of openSources([], process.stdin, 'stdin', undefined, { pool, stdinFd: 0 })) {
      if (c.error) { console.error(c.source, c.error.code); process.exit(3); }
      if (!('data' in c)) continue;
      chunks++;
      parts.push(Buffer.from(c.data));
      if (${slow} && chunks % 16 === 0) await new Promise((resolve) => setTimeout(resolve, 2));
      c.release();
    }
    process.stderr.write(String(chunks));
    process.stdout.write(Buffer.concat(parts));`;
  const input = fs.readFileSync(generatedFile);
  for (const slow of [false, true]) {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script(slow)], { input, maxBuffer: 64 * 1024 * 1024, timeout: 60_000 });
    t.equal(run.status, 0, `${slow ? 'slow' : 'fast'} reader: exit status ${run.stderr.toString()}`);
    t.ok(run.stdout.equals(input), `${slow ? 'slow' : 'fast'} reader: every byte, in order (${run.stdout.length} of ${input.length})`);
    t.ok(Number(run.stderr.toString()) >= input.length / 4096, `${slow ? 'slow' : 'fast'} reader: ${run.stderr.toString()} chunks`);
  }
});

t.test('a pipe on standard input named twice is read once, the file between them in full', async (t) => {
  const sources = pathToFileURL(path.join(ROOT, 'dist/io/sources.js')).href;
  const file = path.join(ROOT, 'test/fixtures/streams/basic.ndjson');
  const script = `
    import { openSources, ReadPool } from ${JSON.stringify(sources)};
    const parts = [];
    for await (const c of openSources(['-', ${JSON.stringify(file)}, '-'], process.stdin, 'stdin', undefined, { pool: new ReadPool(), stdinFd: 0 })) {
      if (c.error) { console.error(c.source, c.error.code); process.exit(3); }
      parts.push('data' in c ? c.source + ':' + c.data.length : c.source + ':end');
      c.release?.();
    }
    process.stdout.write(parts.join(' '));`;
  const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { input: 'x'.repeat(1000), encoding: 'utf8', timeout: 60_000 });
  t.equal(run.status, 0, run.stderr);
  t.equal(run.stdout, `stdin:1000 stdin:end ${file}:${fs.statSync(file).size} ${file}:end stdin:end`);
});

t.test("a system error in the C library's words, never Node's code, call and path", async (t) => {
  const error = (code: string, message: string, syscall?: string): NodeJS.ErrnoException => Object.assign(new Error(message), { code, syscall });
  t.equal(describeError(error('ELOOP', "ELOOP: too many symbolic links encountered, open '/tmp/loop'", 'open')), 'Too many levels of symbolic links');
  t.equal(describeError(error('EFBIG', 'EFBIG: file too large, write', 'write')), 'File too large');
  // A code the table does not have: Node's words for it, without the code, the call or the path.
  t.equal(describeError(error('EHOSTDOWN', "EHOSTDOWN: host is down, open 'x, open'", 'open')), 'Host is down');
  t.equal(describeError(error('ENOSUCH', 'ENOSUCH: odd', undefined)), 'Odd');
  // Not a system error's message: as it is, its first line.
  t.equal(describeError(error('ERR_X', 'something else\nmore')), 'something else');
});
