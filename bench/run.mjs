#!/usr/bin/env node
/**
 * The benchmark: each tool against the jq one-liner doing the same job, on a
 * generated corpus, side by side. See bench/README.md.
 *
 * usage: npm run bench -- [--size 100M] [--seed 1] [--runs 5] [--jobs a,b,…]
 *                         [--corpus FILE] [--scale-check] [--no-long-line]
 *                         [--startup-runs 20] [--json FILE]
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { longLineStream, parseSize, GENERATOR_VERSION } from './generate.mjs';
import { CORPUS_DIR, HAVE_TIME, RSS_METHOD, ROOT, TMP, corpusFor, measure } from './measure.mjs';
import { median } from './median.mjs';

const MB = 1e6;
const MIB = 1024 * 1024;

// ---------------------------------------------------------------------------
// The jobs. `jq` is the one-liner the issue names for the job; `compare` says
// whether the tool and jq gave the same answer, or how they legitimately differ.

const JQ = {
  dedupe: ['-c', 'select(.type != "assistant" or (.timestamp_ms != null and .model_call_id == null))'],
  result: ['-r', 'select(.type=="result") | .result'],
  text: ['-j', 'select(.type=="assistant" and .timestamp_ms != null and .model_call_id == null) | .message.content[].text'],
  tools: ['-c', 'select(.type=="tool_call" and .subtype=="completed") | {call_id, tool: (.tool_call|keys[0])}'],
};

/** Tool exit statuses that are answers, not breakdowns: 3 a failed result, 4 a session without one. */
const ANSWER_CODES = new Set([0, 3, 4]);

const JOBS = [
  { id: 'dedupe', label: 'ndjson-dedupe', tool: 'ndjson-dedupe', args: [], jq: JQ.dedupe, target: 5, compare: compareDedupe },
  { id: 'result-all', label: 'ndjson-result --all', tool: 'ndjson-result', args: ['--all'], jq: JQ.result, target: 6, compare: compareResultAll },
  { id: 'result-file', label: 'ndjson-result FILE', tool: 'ndjson-result', args: [], jq: JQ.result, target: 10, compare: compareResultLast },
  { id: 'result-stdin', label: 'ndjson-result < FILE', tool: 'ndjson-result', args: [], input: 'stdin', jq: JQ.result, target: 10, compare: compareResultLast },
  { id: 'result-pipe', label: 'cat FILE | ndjson-result', tool: 'ndjson-result', args: [], input: 'pipe', jq: JQ.result, compare: compareResultLast },
  { id: 'text', label: 'ndjson-text --all', tool: 'ndjson-text', args: ['--all'], jq: JQ.text, target: 3, compare: compareText },
  { id: 'tools', label: 'ndjson-tools', tool: 'ndjson-tools', args: [], jq: JQ.tools, target: 4, compare: compareTools },
];
const EXTRA_JOBS = ['floor', 'startup', 'long-line', 'live', 'array'];

/** The size of the `array` job's input: the corpus's first events, as one array on one line. */
const ARRAY_BYTES = 20 * 1000 * 1000;

// ---------------------------------------------------------------------------
// Options.

function usage(message) {
  if (message) process.stderr.write(`bench: ${message}\n`);
  process.stderr.write(
    [
      'usage: npm run bench -- [options]',
      '  --size SIZE        corpus size (default 100M; k/M/G = 10^3/10^6/10^9, KiB/MiB/GiB)',
      '  --seed SEED        generator seed (default 1)',
      '  --runs N           timed runs of each side, alternating (default 5)',
      `  --jobs LIST        comma-separated, of: ${[...JOBS.map((j) => j.id), ...EXTRA_JOBS].join(', ')} (default all; "result" = every result job)`,
      '  --corpus FILE      measure this stream instead of a generated one',
      '  --scale-check      also peak RSS on a corpus 4x larger (slow)',
      '  --no-long-line     skip the single 64 MiB line',
      '  --startup-runs N   runs of the start-up comparison (default 20)',
      '  --json FILE        also write every measurement as JSON',
      '',
    ].join('\n'),
  );
  process.exit(message ? 1 : 0);
}

function parseOptions(argv) {
  const o = { size: '100M', seed: '1', runs: '5', jobs: '', corpus: '', scaleCheck: false, longLine: true, startupRuns: '20', json: '' };
  for (let i = 0; i < argv.length; i++) {
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(argv[i]);
    if (!m) usage(`unexpected argument: ${argv[i]}`);
    const name = m[1];
    if (name === 'help') usage();
    if (name === 'scale-check') o.scaleCheck = true;
    else if (name === 'no-long-line') o.longLine = false;
    else {
      const key = name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
      if (!(key in o) || typeof o[key] !== 'string') usage(`unknown option: --${name}`);
      o[key] = m[2] ?? argv[++i];
      if (o[key] === undefined) usage(`--${name} needs a value`);
    }
  }
  const opts = { ...o, runs: Number(o.runs), startupRuns: Number(o.startupRuns), jobsOption: o.jobs };
  if (!(opts.runs >= 1)) usage('--runs must be at least 1');
  try {
    opts.bytes = parseSize(o.size);
  } catch (e) {
    usage(e.message);
  }
  const all = [...JOBS.map((j) => j.id), ...EXTRA_JOBS];
  const wanted = o.jobs ? o.jobs.split(',').map((s) => s.trim()).filter(Boolean) : all;
  opts.jobs = new Set();
  for (const w of wanted) {
    const hits = all.filter((id) => id === w || id.startsWith(`${w}-`));
    if (hits.length === 0) usage(`unknown job: ${w}`);
    for (const h of hits) opts.jobs.add(h);
  }
  return opts;
}

/**
 * The command lines of a job's two sides, for a corpus. jq reads the file as
 * an argument in every job: it reads every byte the same way from a file, a
 * redirection or a pipe, so jobs with the same filter share jq's output (its
 * runs are timed beside each job's).
 */
function commands(job, corpus) {
  const bin = path.join('bin', `${job.tool}.js`);
  const jq = { argv: ['jq', ...job.jq, corpus], shown: `jq ${job.jq.map(shellQuote).join(' ')} FILE`, key: job.jq.join(' ') };
  const args = job.args.length ? ` ${job.args.join(' ')}` : '';
  switch (job.input) {
    case 'stdin':
      return { tool: { argv: ['node', bin, ...job.args], stdin: corpus, shown: `node ${bin}${args} < FILE` }, jq };
    case 'pipe':
      return { tool: { argv: ['sh', '-c', `cat "$1" | node ${bin}${args}`, 'sh', corpus], shown: `cat FILE | node ${bin}${args}` }, jq };
    default:
      return { tool: { argv: ['node', bin, ...job.args, corpus], shown: `node ${bin}${args} FILE` }, jq };
  }
}

function shellQuote(s) {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

function progress(text) {
  if (process.stderr.isTTY) process.stderr.write(`\r\x1b[K${text}`);
  else process.stderr.write(`${text}\n`);
}

function progressDone() {
  if (process.stderr.isTTY) process.stderr.write('\r\x1b[K');
}

const TOOL_ENV = { ...process.env, NO_COLOR: '1', TERM: 'dumb' };

// ---------------------------------------------------------------------------
// Comparing answers. Each returns { verdict: 'same' | 'equivalent' | 'differs' | 'unchecked', note }.

/** Reads a file line by line, in bounded memory. */
class LineReader {
  constructor(file) {
    this.fd = fs.openSync(file, 'r');
    this.buf = Buffer.allocUnsafe(1 << 20);
    this.data = Buffer.alloc(0);
    this.pos = 0;
    this.eof = false;
  }

  next() {
    const parts = [];
    for (;;) {
      const nl = this.data.indexOf(10, this.pos);
      if (nl !== -1) {
        parts.push(this.data.subarray(this.pos, nl));
        this.pos = nl + 1;
        return parts.length === 1 ? parts[0] : Buffer.concat(parts);
      }
      if (this.pos < this.data.length) parts.push(Buffer.from(this.data.subarray(this.pos)));
      if (this.eof) {
        this.data = Buffer.alloc(0);
        this.pos = 0;
        return parts.length === 0 ? null : Buffer.concat(parts);
      }
      const n = fs.readSync(this.fd, this.buf, 0, this.buf.length, null);
      if (n === 0) this.eof = true;
      this.data = this.buf.subarray(0, n);
      this.pos = 0;
    }
  }

  close() {
    fs.closeSync(this.fd);
  }
}

function excerpt(buf, max = 80) {
  const s = (Buffer.isBuffer(buf) ? buf.toString('utf8', 0, max * 4) : String(buf)).slice(0, max);
  return JSON.stringify(s) + (Buffer.isBuffer(buf) ? (buf.length > max ? '…' : '') : String(buf).length > max ? '…' : '');
}

/** True when the line `buf` starts with `text`. */
function startsWith(buf, text) {
  return buf.length >= text.length && buf.toString('latin1', 0, text.length) === text;
}

/** The session of a generated line: its last `session_id`, written last. */
function sessionOf(buf) {
  const at = buf.lastIndexOf('"session_id":"');
  return at === -1 ? '' : buf.toString('utf8', at + 14, buf.indexOf('"', at + 14));
}

/** The JSON value of a line, or undefined where it is not JSON. */
function parsed(buf) {
  try {
    return JSON.parse(buf.toString('utf8'));
  } catch {
    return undefined;
  }
}

/**
 * The tool's output against jq's filter of a partial stream: jq's lines, in
 * order, and besides them only messages jq's filter drops (an `assistant`
 * event with `model_call_id`, or without `timestamp_ms`) that the tool keeps
 * as the only copy of their text: those of the corpus's runs made without
 * partial output. Each must be one: no delta of its session since that
 * session's last tool call or message so kept (a flush repeating deltas is
 * dropped by both). For a generated corpus, as many as the generator wrote.
 */
function compareDedupe(toolFile, jqFile, ctx) {
  const a = new LineReader(toolFile);
  const b = new LineReader(jqFile);
  let line = 0;
  let same = 0;
  let identical = 0;
  let onlyCopies = 0;
  // The sessions with deltas since their last tool call or only copy.
  const streaming = new Set();
  try {
    let y = b.next();
    for (let x = a.next(); x !== null; x = a.next()) {
      line++;
      const equal = y !== null && x.equals(y);
      // Read once where the bytes differ: a line jq re-serialised, or one it dropped.
      const event = equal ? undefined : parsed(x);
      if (equal || (y !== null && event !== undefined && JSON.stringify(event) === JSON.stringify(parsed(y)))) {
        if (equal) identical++;
        same++;
        y = b.next();
        if (startsWith(x, '{"type":"assistant"')) streaming.add(sessionOf(x));
        else if (startsWith(x, '{"type":"tool_call"')) streaming.delete(sessionOf(x));
        continue;
      }
      if (event?.type === 'assistant' && (event.timestamp_ms == null || event.model_call_id != null)) {
        if (streaming.delete(String(event.session_id))) {
          return { verdict: 'differs', note: `line ${line}: the tool keeps a flush that repeats deltas before it (${excerpt(x)})` };
        }
        onlyCopies++;
        continue;
      }
      return { verdict: 'differs', note: `line ${line}: tool ${excerpt(x)}, jq ${y === null ? 'has no more lines' : excerpt(y)}` };
    }
    if (y !== null) return { verdict: 'differs', note: `the tool stops at line ${line}; jq goes on (${excerpt(y)})` };
  } finally {
    a.close();
    b.close();
  }
  // A filter: every line it writes is a line of its input, as written, in the input's order (a message it keeps that
  // jq drops is checked so, its text and its place).
  if (!ctx.jqPrefix) {
    const stray = notInInput(toolFile, ctx.corpus);
    if (stray !== undefined) return { verdict: 'differs', note: stray };
  }
  const expected = ctx.stats.onlyCopies;
  if (expected !== undefined && onlyCopies !== expected) {
    return { verdict: 'differs', note: `the tool keeps ${onlyCopies} messages jq's filter drops, where the corpus has ${expected} only copies` };
  }
  const lines = `${same.toLocaleString('en')} lines as jq's, ${same === identical ? 'byte for byte' : `equal as JSON (${(same - identical).toLocaleString('en')} re-serialised by jq differently)`}`;
  if (onlyCopies === 0) return { verdict: 'same', note: lines };
  return {
    verdict: 'equivalent',
    note: `${lines}; and ${onlyCopies.toLocaleString('en')} messages jq's filter drops, each the only copy of its text (runs made without partial output, where the filter loses every word)`,
  };
}

/**
 * Where the lines of `output` are not lines of `input` in order (each the same
 * bytes as a line of the input after the one the line before it was): a note
 * of the first that is not; undefined when all are.
 */
function notInInput(output, input) {
  const a = new LineReader(output);
  const c = new LineReader(input);
  let n = 0;
  try {
    for (let x = a.next(); x !== null; x = a.next()) {
      n++;
      let y = c.next();
      while (y !== null && !y.equals(x)) y = c.next();
      if (y === null) return `line ${n} of the tool's output is not a line of the input after the one before it: ${excerpt(x)}`;
    }
  } finally {
    a.close();
    c.close();
  }
  return undefined;
}

/** Every result event of the corpus, as `{ text, failed }`, read once by jq (untimed). */
async function resultsOf(ctx) {
  if (ctx.results) return ctx.results;
  const file = path.join(TMP, `results-${process.pid}.ndjson`);
  const filter = 'select(.type=="result") | [.result, (.is_error == true or ((.subtype // "success") != "success"))]';
  const run = await measure(['jq', '-c', `${ctx.jqPrefix ?? ''}${filter}`, ctx.corpus], { stdout: file });
  if (run.code !== 0) throw new Error(`jq failed on the corpus: ${run.stderr}`);
  const r = new LineReader(file);
  ctx.results = [];
  for (let line = r.next(); line !== null; line = r.next()) {
    const [text, failed] = JSON.parse(line.toString('utf8'));
    ctx.results.push({ text, failed });
  }
  r.close();
  fs.rmSync(file, { force: true });
  return ctx.results;
}

function firstDifference(a, b) {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a[i] === b[i]) i++;
  return i;
}

function readSmall(file, limit = 256 * MIB) {
  const size = fs.statSync(file).size;
  if (size > limit) throw new Error(`${path.basename(file)} is ${size} bytes`);
  return fs.readFileSync(file);
}

/** jq -r prints each result's text and a newline: `null` where there is none. */
function jqResultText(r) {
  return r.text === null || r.text === undefined ? 'null\n' : typeof r.text === 'string' ? `${r.text}\n` : `${JSON.stringify(r.text)}\n`;
}

async function compareResultAll(toolFile, jqFile, ctx) {
  const results = await resultsOf(ctx);
  const jqOut = readSmall(jqFile);
  if (!jqOut.equals(Buffer.from(results.map(jqResultText).join('')))) return { verdict: 'unchecked', note: 'jq -r output is not what jq -c says the results are' };
  const failed = results.filter((r) => r.failed).length;
  const expected = Buffer.from(results.filter((r) => !r.failed).map(jqResultText).join(''));
  const got = readSmall(toolFile);
  if (got.equals(expected)) {
    if (failed === 0) return { verdict: 'same', note: `${results.length} results` };
    return { verdict: 'equivalent', note: `the tool prints ${results.length - failed} of jq's ${results.length} results: the ${failed} failed ones go to stderr, by design` };
  }
  const at = firstDifference(got, expected);
  return { verdict: 'differs', note: `from byte ${at}: tool ${excerpt(got.subarray(at))}, expected ${excerpt(expected.subarray(at))}` };
}

async function compareResultLast(toolFile, jqFile, ctx) {
  const results = await resultsOf(ctx);
  const last = results[results.length - 1];
  const jqOut = readSmall(jqFile);
  const got = readSmall(toolFile);
  if (!last) return { verdict: got.length === 0 ? 'same' : 'differs', note: 'the stream has no result' };
  const expected = Buffer.from(last.failed ? '' : jqResultText(last));
  if (!jqOut.subarray(jqOut.length - Buffer.byteLength(jqResultText(last))).equals(Buffer.from(jqResultText(last)))) {
    return { verdict: 'unchecked', note: "jq's output does not end with the last result" };
  }
  if (got.equals(expected)) {
    return { verdict: results.length === 1 ? 'same' : 'equivalent', note: `the tool prints the last session's result; jq prints all ${results.length}, of which the last is the same` };
  }
  const at = firstDifference(got, expected);
  return { verdict: 'differs', note: `not jq's last result, from byte ${at}: tool ${excerpt(got.subarray(at))}, expected ${excerpt(expected.subarray(at))}` };
}

/**
 * The text of a corpus's runs, read from its events: `deltas`, what jq's
 * filter prints (the deltas, end to end), and `all`, the same with, in the
 * stream's order, each message jq's filter drops that is the only copy of its
 * text (no delta of its session since that session's last tool call or such
 * message: see compareDedupe); `onlyCopies`, how many.
 */
function corpusText(corpus) {
  const r = new LineReader(corpus);
  const streaming = new Set();
  const deltas = [];
  const all = [];
  let onlyCopies = 0;
  try {
    for (let x = r.next(); x !== null; x = r.next()) {
      if (startsWith(x, '{"type":"tool_call"')) streaming.delete(sessionOf(x));
      if (!startsWith(x, '{"type":"assistant"')) continue;
      const event = parsed(x);
      if (event === undefined) continue;
      // As jq's `.message.content[].text` prints it (a corpus of `--corpus` may hold other shapes: then jq's text and
      // the deltas read here differ, and the answer is unchecked).
      const content = Array.isArray(event?.message?.content) ? event.message.content : [];
      const text = content.map((c) => (typeof c?.text === 'string' ? c.text : JSON.stringify(c?.text ?? null))).join('');
      const session = String(event.session_id);
      if (event.timestamp_ms != null && event.model_call_id == null) {
        streaming.add(session);
        deltas.push(text);
        all.push(text);
      } else if (!streaming.delete(session)) {
        onlyCopies++;
        all.push(text);
      }
    }
  } finally {
    r.close();
  }
  return { deltas: deltas.join(''), all: all.join(''), onlyCopies };
}

/** The lines `ndjson-text --all` writes beside the text: tool lines (a sub-agent's indented), prompts, session labels, thinking. */
const TEXT_DECORATION = /^(?:(?: {2})*[→✗] |>(?: |$)|── session .* ──$|│ )/;

/**
 * jq -j prints the deltas end to end; the tool also writes the messages
 * jq's filter drops that are the only copy of their text, ends paragraphs,
 * and writes tool lines, prompts and labels on lines of their own. Its
 * output, those lines left out, must be the corpus's text as its events
 * give it (see corpusText), line ends aside: no piece of text lost, added,
 * repeated or moved. (A line of text that looks like one of the tool's own,
 * `→ …`, is taken as text where it is the text that comes next.)
 */
async function compareText(toolFile, jqFile, ctx) {
  const want = readSmall(jqFile);
  const got = readSmall(toolFile);
  if (got.equals(want)) return { verdict: 'same', note: `${want.length.toLocaleString('en')} bytes of text` };
  if (ctx.jqPrefix) return textInOrder(want, got);
  const corpus = corpusText(ctx.corpus);
  if (!want.equals(Buffer.from(corpus.deltas))) return { verdict: 'unchecked', note: "jq's text is not the corpus's deltas as the bench reads them" };
  // Each line the tool writes is the corpus's text that comes next (its line ends aside), or else one of its own lines.
  const expected = corpus.all.replace(/\n/g, '');
  let k = 0;
  let decorations = 0;
  let n = 0;
  for (const line of got.toString('utf8').split('\n')) {
    n++;
    if (expected.startsWith(line, k)) k += line.length;
    else if (TEXT_DECORATION.test(line)) decorations++;
    else {
      const at = firstDifference(line, expected.slice(k, k + line.length));
      return { verdict: 'differs', note: `line ${n} of the tool's output is neither the corpus's text that comes next nor a line of its own, from character ${at}: tool ${excerpt(line.slice(at))}, corpus ${excerpt(expected.slice(k + at))}` };
    }
  }
  if (k < expected.length) return { verdict: 'differs', note: `the tool's output ends before the corpus's text does: ${excerpt(expected.slice(k))}` };
  const added = got.length - want.length;
  return {
    verdict: 'equivalent',
    note: `the tool's text, its ${decorations.toLocaleString('en')} tool lines, prompts and labels left out, is jq's ${want.length.toLocaleString('en')} bytes of text with, in their places, the ${corpus.onlyCopies.toLocaleString('en')} messages jq's filter drops (each the only copy of its text), line ends aside; ${added.toLocaleString('en')} bytes more in all`,
  };
}

/**
 * jq's text in the tool's output, in order, found piece by piece: the check of
 * an input that is a JSON array, whose events {@link corpusText} does not read.
 */
function textInOrder(want, got) {
  // Align: take the common prefix; at a gap, search for jq's next bytes (a long
  // piece first, so inserted labels are not mistaken for text).
  let i = 0;
  let j = 0;
  let gaps = 0;
  const samples = new Set();
  while (i < want.length) {
    const start = j;
    while (i < want.length && j < got.length && want[i] === got[j]) {
      i++;
      j++;
    }
    if (i === want.length) break;
    let found = -1;
    for (let k = Math.min(64, want.length - i); k >= 1 && found === -1; k >>= 1) found = got.indexOf(want.subarray(i, i + k), j);
    if (found === -1) {
      return { verdict: 'differs', note: `jq's text is not in the tool's output in order: lost from byte ${i} of jq's (${excerpt(want.subarray(i))}) after ${start} bytes of the tool's` };
    }
    gaps++;
    if (samples.size < 3) samples.add(got.subarray(j, found).toString('utf8'));
    j = found;
  }
  if (j < got.length) gaps++;
  const added = got.length - want.length;
  const share = want.length > 0 ? ((100 * added) / want.length).toFixed(1) : '∞';
  return {
    verdict: 'equivalent',
    note: `all of jq's ${want.length.toLocaleString('en')} bytes of text are in the tool's output, in order; the tool adds ${added.toLocaleString('en')} bytes (${share}%) in ${gaps.toLocaleString('en')} places, e.g. ${[...samples].map((s) => excerpt(s, 40)).join(', ')}`,
  };
}

/** The tool's audit records against jq's `{call_id, tool}`: same calls, same order, same tool where jq can tell. */
async function compareTools(toolFile, jqFile, ctx) {
  const jqRecs = [];
  const r1 = new LineReader(jqFile);
  for (let l = r1.next(); l !== null; l = r1.next()) jqRecs.push(JSON.parse(l.toString('utf8')));
  r1.close();
  const toolRecs = [];
  const r2 = new LineReader(toolFile);
  try {
    for (let l = r2.next(); l !== null; l = r2.next()) {
      if (l.length === 0) continue;
      let rec;
      try {
        rec = JSON.parse(l.toString('utf8'));
      } catch {
        return { verdict: 'unchecked', note: `the tool's output is not NDJSON (${excerpt(l)})` };
      }
      toolRecs.push(rec);
    }
  } finally {
    r2.close();
  }
  const field = (rec, names) => {
    for (const n of names) if (rec && typeof rec[n] === 'string') return rec[n];
    return undefined;
  };
  const callOf = (rec) => field(rec, ['call_id', 'callId', 'id', 'call']);
  const toolOf = (rec) => field(rec, ['tool', 'name', 'kind', 'toolName']);
  const pending = toolRecs.filter((rec) => field(rec, ['status']) === 'pending');
  const done = toolRecs.filter((rec) => field(rec, ['status']) !== 'pending');
  if (done.length > 0 && callOf(done[0]) === undefined) return { verdict: 'unchecked', note: `no call id field found in the tool's records (${excerpt(JSON.stringify(done[0]))})` };
  const notes = [];
  const jqCalls = jqRecs.map((r) => r.call_id);
  const toolCalls = done.map(callOf);
  let inOrder = jqCalls.length === toolCalls.length && jqCalls.every((c, i) => c === toolCalls[i]);
  if (!inOrder) {
    const a = [...jqCalls].sort();
    const b = [...toolCalls].sort();
    if (a.length !== b.length || a.some((c, i) => c !== b[i])) {
      return { verdict: 'differs', note: `jq lists ${jqCalls.length} completed calls, the tool ${toolCalls.length} (+${pending.length} pending)` };
    }
    notes.push('same calls, in another order');
  }
  const norm = (name) => String(name).replace(/ToolCall$/, '').toLowerCase();
  const byCall = new Map(done.map((rec) => [callOf(rec), rec]));
  let agree = 0;
  let metadataKey = 0;
  let functionStyle = 0;
  const disagree = [];
  // The calls jq cannot name: named from the corpus's events below.
  const unnamed = new Set();
  for (const j of jqRecs) {
    const mine = toolOf(byCall.get(j.call_id));
    if (j.tool === 'function' || !String(j.tool).endsWith('ToolCall')) {
      if (j.tool === 'function') functionStyle++;
      else metadataKey++;
      unnamed.add(j.call_id);
    } else if (mine !== undefined && norm(mine) === norm(j.tool)) agree++;
    else disagree.push(`${j.tool} vs ${mine}`);
  }
  if (disagree.length > 0) return { verdict: 'differs', note: `the tool names ${disagree.length} calls otherwise than jq, e.g. ${disagree.slice(0, 3).join(', ')}` };
  // The calls jq cannot name, named from the corpus's events: the key that ends in `ToolCall`, or a function's name.
  let named = 0;
  if (unnamed.size > 0 && !ctx.jqPrefix) {
    const r = new LineReader(ctx.corpus);
    try {
      for (let x = r.next(); x !== null; x = r.next()) {
        // Parsed only when it may be a completion (its bytes say so).
        if (!startsWith(x, '{"type":"tool_call"') || !x.includes('"completed"')) continue;
        const event = parsed(x);
        if (event?.subtype !== 'completed' || !unnamed.has(event.call_id)) continue;
        const keys = Object.keys(event.tool_call ?? {});
        const key = keys.find((k) => k.endsWith('ToolCall'));
        const name = key ?? (keys.includes('function') ? event.tool_call.function.name : undefined);
        const mine = toolOf(byCall.get(event.call_id));
        if (name === undefined || mine === undefined || norm(name) !== norm(mine)) {
          return { verdict: 'differs', note: `the tool names call ${event.call_id} ${JSON.stringify(mine)}, its event ${JSON.stringify(name)}` };
        }
        named++;
      }
    } finally {
      r.close();
    }
  }
  notes.unshift(`${jqCalls.length.toLocaleString('en')} completed calls${inOrder ? ', same order' : ''}, tool agreed on ${agree.toLocaleString('en')}`);
  if (metadataKey) notes.push(`on ${metadataKey.toLocaleString('en')} jq's keys[0] names a metadata key (sorted first), not the tool`);
  if (functionStyle) notes.push(`${functionStyle.toLocaleString('en')} function-style calls, which jq names "function"`);
  if (named) notes.push(`those ${named.toLocaleString('en')} named as their events name them (the key ending in "ToolCall", or the function's name)`);
  if (pending.length) notes.push(`the tool also lists ${pending.length} pending calls`);
  return { verdict: metadataKey || functionStyle || pending.length || !inOrder ? 'equivalent' : 'same', note: notes.join('; ') };
}

// ---------------------------------------------------------------------------
// The corpus.

/** The generated corpus of a seed and size, `{ file, stats }`. */
function generated(seed, bytes) {
  const corpus = corpusFor(seed, bytes, progress);
  progressDone();
  return corpus;
}

function longLineCorpus(seed) {
  const file = path.join(CORPUS_DIR, `long-line-64MiB-seed${seed}-v${GENERATOR_VERSION}.ndjson`);
  if (!fs.existsSync(file)) {
    const { data } = longLineStream({ seed, bytes: 64 * MIB });
    fs.writeFileSync(`${file}.partial`, data);
    fs.renameSync(`${file}.partial`, file);
  }
  return file;
}

/**
 * The corpus's events up to its first ARRAY_BYTES, as one array on one line,
 * as Claude Code's `--output-format json --verbose` writes a run's events;
 * cut after the last `result` in them, so that its last session is whole.
 */
function arrayCorpus(corpus, seed, size) {
  const file = path.join(CORPUS_DIR, `array-20MB-of-${size}-seed${seed}-v${GENERATOR_VERSION}-whole-sessions.json`);
  if (!fs.existsSync(file)) {
    const r = new LineReader(corpus);
    const lines = [];
    let bytes = 2;
    for (let l = r.next(); l !== null && bytes + l.length + 1 <= ARRAY_BYTES; l = r.next()) {
      lines.push(Buffer.from(l));
      bytes += l.length + 1;
    }
    r.close();
    const result = Buffer.from('{"type":"result"');
    while (lines.length > 0 && !lines[lines.length - 1].subarray(0, result.length).equals(result)) lines.pop();
    const comma = Buffer.from(',');
    const parts = [Buffer.from('['), ...lines.flatMap((l, k) => (k === 0 ? [l] : [comma, l])), Buffer.from(']\n')];
    fs.writeFileSync(`${file}.partial`, Buffer.concat(parts));
    fs.renameSync(`${file}.partial`, file);
  }
  return file;
}

/** Counts lines and sessions of a stream not made by the generator. */
function statsOf(file) {
  const r = new LineReader(file);
  const stats = { bytes: fs.statSync(file).size, lines: 0, longestLine: 0 };
  for (let l = r.next(); l !== null; l = r.next()) {
    stats.lines++;
    if (l.length > stats.longestLine) stats.longestLine = l.length;
  }
  r.close();
  return stats;
}

// ---------------------------------------------------------------------------
// Measuring a job.

function toolBuilt(tool) {
  return fs.existsSync(path.join(ROOT, 'bin', `${tool}.js`));
}

function describeFailure(run) {
  const lines = run.stderr.split('\n').filter((l) => l.trim() !== '');
  const first = lines.find((l) => /^\w*Error\b|^ndjson-|^jq: /.test(l)) ?? lines[0] ?? '';
  const hint = /ERR_MODULE_NOT_FOUND|Cannot find module/.test(run.stderr) ? ' (run `npm run build` first)' : '';
  return `exit ${run.code ?? run.signal}: ${first.slice(0, 160)}${hint}`;
}

let jqOutputs = 0;

/**
 * Times one job on one corpus: a check pass (outputs kept and compared, not
 * timed), then `runs` timed runs of each side, alternating, outputs to
 * /dev/null. jq's output of the check run is shared between jobs with the
 * same jq command; its timed runs are each job's own, alternating with the
 * tool's, so that each ratio is of runs side by side.
 */
async function runJob(job, ctx, { runs, withJq = true, check = true }) {
  const row = { id: job.id, label: job.label, tool: job.tool, target: job.target ?? null };
  if (!toolBuilt(job.tool)) return { ...row, status: 'not built yet' };
  const cmd = commands(job, ctx.corpus);
  row.commands = { tool: cmd.tool.shown, jq: cmd.jq.shown };
  const jqCache = ctx.jqCache;
  const jqShared = jqCache.has(cmd.jq.key);
  const jqSide = { samples: [], rss: [], out: jqShared ? jqCache.get(cmd.jq.key).out : null };

  if (check) {
    const toolOut = path.join(TMP, `${job.id}.tool.out`);
    progress(`${ctx.name}: ${job.label}: check run`);
    const t = await measure(cmd.tool.argv, { stdin: cmd.tool.stdin, stdout: toolOut, env: TOOL_ENV });
    row.code = t.code;
    row.stderrLines = t.stderrLines;
    if (!ANSWER_CODES.has(t.code)) {
      fs.rmSync(toolOut, { force: true });
      return { ...row, status: `failed: ${describeFailure(t)}` };
    }
    if (withJq && !jqSide.out) {
      jqSide.out = path.join(TMP, `jq-${++jqOutputs}.out`);
      const j = await measure(cmd.jq.argv, { stdout: jqSide.out });
      if (j.code !== 0) return { ...row, status: `jq failed: ${describeFailure(j)}` };
    }
    if (withJq) {
      try {
        row.compare = await job.compare(toolOut, jqSide.out, ctx);
      } catch (e) {
        row.compare = { verdict: 'unchecked', note: `comparison failed: ${e.message}` };
      }
    }
    fs.rmSync(toolOut, { force: true });
  }

  const tool = { samples: [], rss: [] };
  for (let i = 0; i < runs; i++) {
    const order = i % 2 === 0 ? ['tool', 'jq'] : ['jq', 'tool'];
    for (const side of order) {
      if (side === 'jq' && !withJq) continue;
      progress(`${ctx.name}: ${job.label}: run ${i + 1}/${runs} (${side})`);
      const c = side === 'tool' ? cmd.tool : cmd.jq;
      const r = await measure(c.argv, { stdin: c.stdin, env: side === 'tool' ? TOOL_ENV : process.env });
      if (side === 'tool' && !ANSWER_CODES.has(r.code)) return { ...row, status: `failed: ${describeFailure(r)}` };
      if (side === 'jq' && r.code !== 0) return { ...row, status: `jq failed: ${describeFailure(r)}` };
      const into = side === 'tool' ? tool : jqSide;
      into.samples.push(r.ms);
      into.rss.push(r.rssKiB);
    }
  }
  if (withJq && !jqShared) jqCache.set(cmd.jq.key, jqSide);
  row.status = 'ok';
  row.tool = { ms: median(tool.samples), samples: tool.samples, rssKiB: Math.max(...tool.rss) };
  if (withJq) row.jq = { ms: median(jqSide.samples), samples: jqSide.samples, rssKiB: Math.max(...jqSide.rss) };
  return row;
}

/** The two floors: `cat | wc -c`, and a Node loop that splits lines and parses each. */
async function runFloor(ctx, runs) {
  const sides = {
    cat: { label: 'cat FILE | wc -c', argv: ['sh', '-c', 'cat "$1" | wc -c', 'sh', ctx.corpus], samples: [], rss: [] },
    parse: { label: 'floor: split lines + JSON.parse each (bench/floor.mjs)', argv: ['node', 'bench/floor.mjs', ctx.corpus], samples: [], rss: [] },
  };
  for (let i = 0; i < runs + 1; i++) {
    for (const side of i % 2 === 0 ? ['cat', 'parse'] : ['parse', 'cat']) {
      progress(`${ctx.name}: floor: run ${i}/${runs} (${side})`);
      const r = await measure(sides[side].argv);
      if (r.code !== 0) throw new Error(`${sides[side].label} failed: ${describeFailure(r)}`);
      // The first run of each only warms the page cache.
      if (i === 0) continue;
      sides[side].samples.push(r.ms);
      sides[side].rss.push(r.rssKiB);
    }
  }
  const out = {};
  for (const [k, s] of Object.entries(sides)) out[k] = { label: s.label, ms: median(s.samples), samples: s.samples, rssKiB: Math.max(...s.rss) };
  return out;
}

/** Start-up: `node bin/<tool>.js --version` against `node -e ''`. */
async function runStartup(runs) {
  const tools = ['ndjson-result', 'ndjson-dedupe', 'ndjson-text', 'ndjson-tools'].filter(toolBuilt);
  const sides = [{ label: "node -e ''", argv: ['node', '-e', ''] }, ...tools.map((t) => ({ label: `${t} --version`, argv: ['node', `bin/${t}.js`, '--version'] }))];
  for (const s of sides) s.samples = [];
  for (let i = 0; i < runs + 1; i++) {
    const order = i % 2 === 0 ? sides : [...sides].reverse();
    for (const s of order) {
      progress(`start-up: run ${i}/${runs}: ${s.label}`);
      const r = await measure(s.argv, { env: TOOL_ENV });
      if (r.code !== 0) {
        s.failed = describeFailure(r);
        continue;
      }
      if (i > 0) s.samples.push(r.ms);
    }
  }
  const base = median(sides[0].samples);
  return sides.map((s) => ({ label: s.label, ms: s.failed ? null : median(s.samples), ratio: s.failed ? null : median(s.samples) / base, failed: s.failed }));
}

/**
 * The live path: deltas written one at a time into a pipe, and the time until
 * each one's text is on the tool's stdout (and, for reference, jq's with
 * --unbuffered). Each delta is written once the previous one has shown.
 */
async function runLive(count = 60) {
  const id = 'live0000-0000-4000-8000-000000000000';
  const head = [
    { type: 'system', subtype: 'init', apiKeySource: 'login', cwd: '/home/user/live', session_id: id, model: 'Auto', permissionMode: 'default' },
    { type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'Go' }] }, session_id: id },
  ];
  const sides = [];
  if (toolBuilt('ndjson-text')) sides.push({ label: 'ndjson-text --all', argv: ['node', 'bin/ndjson-text.js', '--all'] });
  sides.push({ label: 'jq --unbuffered -j (deltas)', argv: ['jq', '--unbuffered', '-j', JQ.text[1]] });
  const out = [];
  for (const side of sides) {
    progress(`live: ${side.label}`);
    out.push(await new Promise((resolve) => {
      const child = spawn(side.argv[0], side.argv.slice(1), { cwd: ROOT, env: TOOL_ENV, stdio: ['pipe', 'pipe', 'ignore'] });
      let seen = '';
      let k = 0;
      let t0 = 0n;
      let timer = null;
      const lat = [];
      const finish = (failed) => {
        clearTimeout(timer);
        child.stdin.end();
        child.kill();
        resolve({ label: side.label, count: lat.length, medianMs: lat.length ? median(lat) : null, maxMs: lat.length ? Math.max(...lat) : null, failed });
      };
      const send = () => {
        if (k === count) return finish(null);
        const text = ` live-${k}-marker`;
        const line = JSON.stringify({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text }] }, session_id: id, timestamp_ms: 1770000000000 + k });
        t0 = process.hrtime.bigint();
        child.stdin.write(`${line}\n`);
        timer = setTimeout(() => finish(`delta ${k} did not show within 2 s`), 2000);
      };
      child.stdout.on('data', (d) => {
        seen += d.toString('utf8');
        if (seen.includes(`live-${k}-marker`)) {
          lat.push(Number(process.hrtime.bigint() - t0) / 1e6);
          clearTimeout(timer);
          seen = '';
          k++;
          setTimeout(send, 5);
        }
      });
      child.on('error', (e) => finish(e.message));
      child.stdin.on('error', () => {});
      child.stdin.write(head.map((e) => `${JSON.stringify(e)}\n`).join(''));
      // Let it start before the clock runs.
      setTimeout(send, 600);
    }));
  }
  return out;
}

// ---------------------------------------------------------------------------
// Reporting.

function machine() {
  const cpus = os.cpus();
  const jq = spawnSync('jq', ['--version'], { encoding: 'utf8' });
  const git = spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' });
  const dirty = spawnSync('git', ['status', '--porcelain', '--untracked-files=no'], { cwd: ROOT, encoding: 'utf8' });
  return {
    date: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
    cpu: cpus[0]?.model?.replace(/\s+/g, ' ').trim() ?? 'unknown',
    cores: cpus.length,
    memGiB: Math.round(os.totalmem() / 1024 ** 3),
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    jq: (jq.stdout || jq.stderr || '').trim(),
    commit: git.status === 0 ? `${git.stdout.trim()}${dirty.stdout.trim() ? ' (with uncommitted changes)' : ''}` : 'unknown',
    loadavg: os.loadavg().map((x) => x.toFixed(2)).join(' '),
  };
}

const fmt = {
  mbps: (bytes, ms) => (bytes / MB / (ms / 1000)).toFixed(bytes / MB / (ms / 1000) >= 100 ? 0 : 1),
  mib: (kib) => (kib / 1024).toFixed(1),
  x: (r) => `${r.toFixed(r >= 10 ? 1 : 2)}×`,
  n: (n) => n.toLocaleString('en'),
};

const cell = (text) => String(text).replace(/\|/g, '\\|');

const VERDICT = { same: 'yes', equivalent: 'equivalent', differs: '**NO**', unchecked: 'not compared' };

/** A row's answer against jq, for a table cell: the verdict, and the note where they differ. */
const verdictCell = (r) => (r.compare ? cell(`${VERDICT[r.compare.verdict]}${r.compare.verdict === 'same' || r.compare.verdict === 'equivalent' ? '' : `: ${r.compare.note}`}`) : '');

function report(m, ctx, rows, floor, startup, longLine, scale, live, opts, array) {
  const out = [];
  const s = ctx.stats;
  out.push(`### ndjson-agent benchmark, ${m.date}`);
  out.push('');
  out.push(`Machine: ${m.cpu}, ${m.cores} cores, ${m.memGiB} GiB, ${m.os}; node ${m.node}, ${m.jq}; commit ${m.commit}; load average at start ${m.loadavg}.`);
  if (floor || rows.length > 0) {
    const kinds = s.sessions !== undefined ? `, ${fmt.n(s.sessions)} sessions (${s.failed} failed, ${s.died} died without a result; ${s.wholeMessageSessions} made without partial output), ${fmt.n(s.toolCalls)} tool calls, ${fmt.n(s.deltas)} deltas` : '';
    out.push(`Corpus: ${ctx.label}, ${(s.bytes / MB).toFixed(1)} MB, ${fmt.n(s.lines)} lines${kinds}, longest line ${(s.longestLine / MIB).toFixed(1)} MiB.`);
    out.push(`Each side run ${opts.runs} time${opts.runs === 1 ? '' : 's'}, alternating with the other, after one untimed check run; medians. MB/s = 10^6 bytes of input per second of wall time, start-up included; × jq = jq's time / the tool's; × floor = the floor's time / the tool's; RSS is the peak of all runs (${HAVE_TIME ? '/usr/bin/time' : '/proc VmHWM polling'}).`);
    out.push('');
    const floorMs = floor?.parse?.ms;
    out.push('| job | tool MB/s | jq MB/s | × jq | target | × floor | tool RSS MiB | jq RSS MiB | same answer as jq |');
    out.push('|---|---:|---:|---:|---|---:|---:|---:|---|');
    if (floor) {
      out.push(`| \`cat FILE \\| wc -c\` | ${fmt.mbps(s.bytes, floor.cat.ms)} | | | | | ${fmt.mib(floor.cat.rssKiB)} | | |`);
      out.push(`| floor: split + \`JSON.parse\` each line | ${fmt.mbps(s.bytes, floor.parse.ms)} | | | | 1.00× | ${fmt.mib(floor.parse.rssKiB)} | | |`);
    }
    // Notes, numbered in order of appearance; jobs with the same note share it.
    const notes = new Map();
    const note = (label, text) => {
      let n = notes.get(text);
      if (!n) {
        n = { n: notes.size + 1, labels: [] };
        notes.set(text, n);
      }
      n.labels.push(`\`${label}\``);
      return n.n;
    };
    for (const r of rows) {
      if (r.status !== 'ok') {
        out.push(`| \`${cell(r.label)}\` | ${cell(r.status)} | | | ${r.target ? `≥ ${r.target}×` : ''} | | | | |`);
        continue;
      }
      const ratio = r.jq.ms / r.tool.ms;
      const target = r.target ? `≥ ${r.target}× ${ratio >= r.target ? '✓' : '✗'}` : '';
      const vsFloor = floorMs ? fmt.x(floorMs / r.tool.ms) : '';
      const refs = [];
      let verdict = '';
      if (r.compare) {
        verdict = VERDICT[r.compare.verdict];
        refs.push(note(r.label, r.compare.note));
      }
      if (r.code) refs.push(note(r.label, `exits ${r.code} on this corpus (${r.code === 3 ? 'some results report failure' : 'some sessions have no result'}), with ${r.stderrLines} lines on stderr`));
      if (refs.length) verdict += ` (${refs.join(', ')})`;
      out.push(`| \`${cell(r.label)}\` | ${fmt.mbps(s.bytes, r.tool.ms)} | ${fmt.mbps(s.bytes, r.jq.ms)} | ${fmt.x(ratio)} | ${target} | ${vsFloor} | ${fmt.mib(r.tool.rssKiB)} | ${fmt.mib(r.jq.rssKiB)} | ${verdict} |`);
    }
    if (notes.size) {
      out.push('');
      out.push('Notes:');
      out.push('');
      for (const [text, n] of notes) out.push(`${n.n}. ${n.labels.join(', ')}: ${text}.`);
    }
    out.push('');
    out.push('The commands (FILE is the corpus):');
    out.push('');
    for (const r of rows) if (r.commands) out.push(`- \`${r.label}\`: \`${r.commands.tool}\` vs \`${r.commands.jq}\``);
  }
  if (startup) {
    out.push('');
    out.push(`Start-up (median of ${opts.startupRuns} runs, alternating; target: under 1.6× \`node -e ''\`):`);
    out.push('');
    out.push('| command | ms | × `node -e \'\'` |');
    out.push('|---|---:|---:|');
    for (const st of startup) out.push(st.failed ? `| \`${st.label}\` | ${st.failed} | |` : `| \`${st.label}\` | ${st.ms.toFixed(1)} | ${st.ratio.toFixed(2)}× |`);
  }
  if (live) {
    out.push('');
    out.push('Live path: one delta at a time into a pipe, the time until its text is on stdout (target: a median under 10 ms):');
    out.push('');
    out.push('| command | deltas | median ms | max ms |');
    out.push('|---|---:|---:|---:|');
    for (const l of live) out.push(l.failed && !l.count ? `| \`${l.label}\` | ${cell(l.failed)} | | |` : `| \`${l.label}\` | ${l.count}${l.failed ? ` (then: ${cell(l.failed)})` : ''} | ${l.medianMs.toFixed(2)} | ${l.maxMs.toFixed(2)} |`);
  }
  if (longLine) {
    out.push('');
    out.push(`A single line of ${(longLine.stats.longestLine / MIB).toFixed(1)} MiB (one run each, in a ${(longLine.stats.bytes / MIB).toFixed(1)} MiB stream of ${longLine.stats.lines} lines):`);
    out.push('');
    out.push('| job | tool s | jq s | tool RSS MiB | jq RSS MiB | same answer as jq |');
    out.push('|---|---:|---:|---:|---:|---|');
    for (const r of longLine.rows) {
      if (r.status !== 'ok') {
        out.push(`| \`${cell(r.label)}\` | ${cell(r.status)} | | | | |`);
        continue;
      }
      const v = verdictCell(r);
      out.push(`| \`${cell(r.label)}\` | ${(r.tool.ms / 1000).toFixed(2)} | ${r.jq ? (r.jq.ms / 1000).toFixed(2) : ''} | ${fmt.mib(r.tool.rssKiB)} | ${r.jq ? fmt.mib(r.jq.rssKiB) : ''} | ${v} |`);
    }
  }
  if (array) {
    out.push('');
    out.push(
      `The corpus's first events as one array on one line, as Claude Code's \`--output-format json --verbose\` writes a run (${(array.stats.bytes / MB).toFixed(1)} MB; medians of ${opts.runs}, alternating; jq's one-liners read \`.[] | …\`):`,
    );
    out.push('');
    out.push('| job | tool MB/s | jq MB/s | × jq | tool RSS MiB | jq RSS MiB | same answer as jq |');
    out.push('|---|---:|---:|---:|---:|---:|---|');
    for (const r of array.rows) {
      if (r.status !== 'ok') {
        out.push(`| \`${cell(r.label)}\` | ${cell(r.status)} | | | | | |`);
        continue;
      }
      const v = verdictCell(r);
      const mbs = (ms) => (array.stats.bytes / MB / (ms / 1000)).toFixed(0);
      out.push(`| \`${cell(r.label)}\` | ${mbs(r.tool.ms)} | ${mbs(r.jq.ms)} | ${(r.jq.ms / r.tool.ms).toFixed(2)}× | ${fmt.mib(r.tool.rssKiB)} | ${fmt.mib(r.jq.rssKiB)} | ${v} |`);
    }
  }
  if (scale) {
    out.push('');
    out.push(`Peak RSS against input size (one run each; target: the same ±10% on a corpus 4× larger; ${(scale.stats.bytes / MB).toFixed(0)} MB):`);
    out.push('');
    out.push('| job | RSS MiB, 1× | RSS MiB, 4× | 4× / 1× | within ±10% |');
    out.push('|---|---:|---:|---:|---|');
    for (const r of scale.rows) {
      const base = rows.find((x) => x.id === r.id);
      if (r.status !== 'ok' || !base || base.status !== 'ok') {
        out.push(`| \`${cell(r.label)}\` | ${base?.status === 'ok' ? fmt.mib(base.tool.rssKiB) : base?.status ?? ''} | ${r.status === 'ok' ? fmt.mib(r.tool.rssKiB) : r.status} | | |`);
        continue;
      }
      const ratio = r.tool.rssKiB / base.tool.rssKiB;
      out.push(`| \`${cell(r.label)}\` | ${fmt.mib(base.tool.rssKiB)} | ${fmt.mib(r.tool.rssKiB)} | ${ratio.toFixed(2)} | ${Math.abs(ratio - 1) <= 0.1 ? '✓' : '✗'} |`);
    }
    if (scale.floor) out.push(`| floor | ${floor ? fmt.mib(floor.parse.rssKiB) : ''} | ${fmt.mib(scale.floor.parse.rssKiB)} | ${floor ? (scale.floor.parse.rssKiB / floor.parse.rssKiB).toFixed(2) : ''} | |`);
  }
  out.push('');
  out.push(`Reproduce: \`npm run build && npm run bench -- --size ${opts.size} --seed ${opts.seed} --runs ${opts.runs}${opts.jobsOption ? ` --jobs ${opts.jobsOption}` : ''}${opts.scaleCheck ? ' --scale-check' : ''}\``);
  return out.join('\n');
}

// ---------------------------------------------------------------------------

async function main() {
  const opts = parseOptions(process.argv.slice(2));
  if (spawnSync('jq', ['--version']).error) {
    process.stderr.write('bench: jq is needed (it is what the tools are measured against): install it, e.g. `apt-get install jq`, and run again.\n');
    process.exit(1);
  }
  fs.mkdirSync(TMP, { recursive: true });
  const m = machine();
  const needsCorpus = opts.jobs.has('floor') || opts.jobs.has('array') || JOBS.some((j) => opts.jobs.has(j.id));
  const corpus = opts.corpus
    ? { file: path.resolve(opts.corpus), stats: statsOf(path.resolve(opts.corpus)) }
    : needsCorpus
      ? generated(opts.seed, opts.bytes)
      : { file: null, stats: { bytes: 0, lines: 0, longestLine: 0 } };
  const ctx = { name: 'corpus', corpus: corpus.file, stats: corpus.stats, label: opts.corpus ? path.basename(corpus.file) : `generated (seed ${opts.seed}, size ${opts.size})`, jqCache: new Map() };

  const floor = opts.jobs.has('floor') ? await runFloor(ctx, opts.runs) : null;
  const rows = [];
  for (const job of JOBS) if (opts.jobs.has(job.id)) rows.push(await runJob(job, ctx, { runs: opts.runs }));

  const startup = opts.jobs.has('startup') ? await runStartup(opts.startupRuns) : null;
  const live = opts.jobs.has('live') ? await runLive() : null;

  let longLine = null;
  if (opts.longLine && opts.jobs.has('long-line')) {
    const file = longLineCorpus(opts.seed);
    const lctx = { name: '64 MiB line', corpus: file, stats: statsOf(file), jqCache: new Map() };
    const lrows = [];
    for (const job of JOBS) if (opts.jobs.has(job.id) && !job.input) lrows.push(await runJob(job, lctx, { runs: 1 }));
    longLine = { stats: lctx.stats, rows: lrows };
  }

  let array = null;
  if (opts.jobs.has('array') && corpus.file) {
    const file = arrayCorpus(corpus.file, opts.seed, opts.size);
    const actx = { name: 'array', corpus: file, stats: statsOf(file), jqCache: new Map(), jqPrefix: '.[] | ' };
    const arows = [];
    for (const job of JOBS) {
      if (!opts.jobs.has(job.id) || job.input) continue;
      arows.push(await runJob({ ...job, jq: [job.jq[0], `${actx.jqPrefix}${job.jq[1]}`] }, actx, { runs: opts.runs }));
    }
    array = { stats: actx.stats, rows: arows };
  }

  let scale = null;
  if (opts.scaleCheck) {
    const big = opts.corpus ? null : generated(opts.seed, opts.bytes * 4);
    if (big) {
      const sctx = { name: '4× corpus', corpus: big.file, stats: big.stats, jqCache: new Map() };
      const srows = [];
      for (const job of JOBS) if (opts.jobs.has(job.id)) srows.push(await runJob(job, sctx, { runs: 1, withJq: false, check: false }));
      const sfloor = opts.jobs.has('floor') ? await runFloor(sctx, 1) : null;
      scale = { stats: big.stats, rows: srows, floor: sfloor };
    }
  }
  progressDone();
  for (const side of ctx.jqCache.values()) if (side.out) fs.rmSync(side.out, { force: true });
  for (const f of fs.readdirSync(TMP)) if (/^jq-\d+\.out$/.test(f)) fs.rmSync(path.join(TMP, f), { force: true });

  const text = report(m, ctx, rows, floor, startup, longLine, scale, live, opts, array);
  process.stdout.write(`${text}\n`);
  const all = { machine: m, corpus: { label: ctx.label, ...ctx.stats }, runs: opts.runs, rssMethod: RSS_METHOD, floor, rows, startup, live, longLine, array, scale };
  fs.writeFileSync(path.join(CORPUS_DIR, 'last-run.json'), `${JSON.stringify(all, null, 2)}\n`);
  if (opts.json) fs.writeFileSync(opts.json, `${JSON.stringify(all, null, 2)}\n`);
}

main().catch((e) => {
  progressDone();
  process.stderr.write(`bench: ${e.stack ?? e}\n`);
  process.exit(1);
});
