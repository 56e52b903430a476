#!/usr/bin/env node
/**
 * A seeded generator of realistic agent streams (`stream-json` with
 * `--stream-partial-output`), for the benchmark and its test.
 *
 * Many sessions appended to one stream, each one: `system/init`, `user`,
 * thinking deltas and `thinking/completed`, assistant deltas of a few words
 * (`timestamp_ms`, no `model_call_id`), a flush (`timestamp_ms` and
 * `model_call_id`) before each batch of tool calls repeating the deltas since
 * the last flush, tool calls of many kinds (started/completed pairs, parallel
 * batches completing out of order, payloads from ~100 bytes to ~100 KB, a few
 * multi-MiB lines in the whole stream), a final flush (neither field) at the
 * end of the turn, and a `result` whose `result` is the concatenation of the
 * deltas. Some sessions fail (`is_error: true`), a few die without a result
 * (leaving calls started and never completed); the last session always
 * succeeds. Every line is one JSON object, so jq reads the whole stream.
 *
 * Deterministic: the same seed and options give the same bytes (own PRNG, no
 * clock, no Math.random).
 *
 * CLI: node bench/generate.mjs [--size 100M] [--seed 1] [--max-payload 100k]
 *                              [--long-line 64MiB] [--out FILE]
 * Writes to stdout without --out. --long-line writes one short session whose
 * read tool call is a single line of about that many bytes.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Bumped whenever the output for a given seed and size changes (cached corpora are then remade). */
export const GENERATOR_VERSION = 4;

// ---------------------------------------------------------------------------
// PRNG: sfc32, seeded through splitmix32 from a 32-bit FNV-1a hash of the seed.

function fnv1a(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function splitmix32(state) {
  return () => {
    state = (state + 0x9e3779b9) | 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
    return (z ^ (z >>> 16)) >>> 0;
  };
}

/** A small deterministic random source. */
export class Rng {
  /** Seeded by any value, through its text: `--seed 7` and `--seed hostile` alike. */
  constructor(seed, state = fnv1a(String(seed))) {
    const sm = splitmix32(state);
    this.a = sm();
    this.b = sm();
    this.c = sm();
    this.d = sm();
    for (let i = 0; i < 12; i++) this.u32();
  }

  /** Seeded by a 32-bit integer itself: numbered cases (a fuzzer's) each with their own stream. */
  static fromInt(seed) {
    return new Rng(undefined, seed | 0);
  }

  /** A uniform 32-bit unsigned integer. */
  u32() {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** A float in [0, 1). */
  float() {
    return this.u32() / 4294967296;
  }

  /** An integer in [lo, hi]. */
  int(lo, hi) {
    return lo + Math.floor(this.float() * (hi - lo + 1));
  }

  chance(p) {
    return this.float() < p;
  }

  pick(list) {
    return list[Math.floor(this.float() * list.length)];
  }

  /** An integer between lo and hi, log-uniformly distributed (many small, some big). */
  logInt(lo, hi) {
    return Math.round(Math.exp(Math.log(lo) + this.float() * (Math.log(hi) - Math.log(lo))));
  }

  /** `n` characters of `alphabet`. */
  chars(n, alphabet) {
    let s = '';
    for (let i = 0; i < n; i++) s += alphabet[Math.floor(this.float() * alphabet.length)];
    return s;
  }

  hex(n) {
    return this.chars(n, '0123456789abcdef');
  }

  uuid() {
    return `${this.hex(8)}-${this.hex(4)}-4${this.hex(3)}-${this.pick(['8', '9', 'a', 'b'])}${this.hex(3)}-${this.hex(12)}`;
  }

  shuffle(list) {
    for (let i = list.length - 1; i > 0; i--) {
      const j = Math.floor(this.float() * (i + 1));
      [list[i], list[j]] = [list[j], list[i]];
    }
    return list;
  }
}

// ---------------------------------------------------------------------------
// Vocabulary.

const WORDS = (
  'the a an to of and in that it is for on with as this be at by from or are was will can I we you ' +
  "I'll let's now then first next also just only still again here there which when where because so but if not " +
  'file files test tests function module import export type value error errors result results change changes line lines ' +
  'read write edit run check update add remove fix fixed build config script package command output input stream event ' +
  'events session call calls tool tools path paths directory folder branch commit diff patch case cases option options ' +
  'parser reader writer buffer chunk chunks handler server client request response status code exit failing passing ' +
  'looks like seems should would could need needs want make sure done works working missing found see using use'
).split(' ');
const IDENTS = (
  'parseLine readConfig writeFile handleEvent EventReader TextTracker toolStream openSources main argv options ' +
  'src/index.ts src/app.ts package.json tsconfig.json README.md npm_test useState fetchData retryCount maxBytes ' +
  'session_id call_id timestamp_ms model_call_id isError resultText buildIndex loadUsers UserService apiClient'
).split(' ');
const KEYWORDS = 'const let var function return if else for while import export from async await new class interface type'.split(' ');
const PUNCT = ['.', '.', '.', ',', ',', ':', '!', '?', ';'];
const UNICODE = ['é', '→', '✓', '—', '…', 'ü', '😀', '日本語', 'naïve', '“quoted”'];
const MODELS = ['Auto', 'Claude 4 Sonnet', 'Claude 4.5 Opus', 'GPT-5', 'gpt-5-codex'];
const DIRS = ['src', 'src/lib', 'src/cli', 'test', 'test/fixtures', 'docs', 'scripts', 'packages/core/src', 'packages/web/src', 'lib'];
const EXTS = ['.ts', '.ts', '.js', '.json', '.md', '.py', '.go', '.rs', '.css', '.yml'];
const SENSITIVE = ['.env', 'config/secrets.yml', '/home/user/.ssh/id_rsa', '.npmrc'];
const COMMANDS = [
  'npm test', 'npm run build', 'git status', 'git diff --stat', 'ls -la', 'node --version', 'npx tsc --noEmit',
  'pytest -q', 'go test ./...', 'cargo build', 'grep -rn TODO src', 'cat package.json', 'make', 'sleep 4',
];

// ---------------------------------------------------------------------------

/** Generates one stream; calls `out(line)` for each line (without its newline). */
class StreamGenerator {
  constructor(options) {
    this.rng = new Rng(options.seed);
    this.size = options.size;
    this.maxPayload = options.maxPayload;
    this.hugeEvery = options.hugeEvery;
    this.out = options.out;
    this.bytes = 0;
    this.nextHuge = this.hugeEvery > 0 ? Math.floor(this.hugeEvery / 2) : Infinity;
    this.stats = { bytes: 0, lines: 0, sessions: 0, wholeMessageSessions: 0, failed: 0, died: 0, toolCalls: 0, pending: 0, deltas: 0, flushes: 0, onlyCopies: 0, longestLine: 0, hugeLines: 0 };
    this.codeLines = [];
    for (let i = 0; i < 4096; i++) this.codeLines.push(this.codeLine());
  }

  emit(event) {
    const line = JSON.stringify(event);
    const n = Buffer.byteLength(line, 'utf8') + 1;
    this.bytes += n;
    this.stats.lines++;
    if (n - 1 > this.stats.longestLine) this.stats.longestLine = n - 1;
    this.out(line);
  }

  // --- text -----------------------------------------------------------------

  codeLine() {
    const r = this.rng;
    const indent = '  '.repeat(r.int(0, 4));
    const parts = [];
    const n = r.int(0, 9);
    for (let i = 0; i < n; i++) parts.push(r.chance(0.3) ? r.pick(KEYWORDS) : r.chance(0.5) ? r.pick(IDENTS) : r.pick(WORDS));
    let line = indent + parts.join(' ');
    if (n > 0) line += r.pick([';', ' {', '}', ');', ',', '', '']);
    if (r.chance(0.02)) line += ` // ${r.pick(UNICODE)}`;
    if (r.chance(0.01)) line += '\t"quoted\\path"';
    return line;
  }

  /** About `bytes` characters of code-like text, ending with a newline. */
  code(bytes) {
    const r = this.rng;
    const lines = [];
    let n = 0;
    while (n < bytes) {
      const line = r.pick(this.codeLines);
      lines.push(line);
      n += line.length + 1;
    }
    return `${lines.join('\n')}\n`;
  }

  /** Tokens of prose (each a piece of text with its leading space), as an agent writes it. */
  proseTokens(words) {
    const r = this.rng;
    const tokens = [];
    let sentenceStart = true;
    for (let i = 0; i < words; i++) {
      let w;
      if (r.chance(0.08)) w = `\`${r.pick(IDENTS)}\``;
      else if (r.chance(0.01)) w = r.pick(UNICODE);
      else if (r.chance(0.01)) w = `**${r.pick(WORDS)}**`;
      else w = r.pick(WORDS);
      if (sentenceStart) w = w[0].toUpperCase() + w.slice(1);
      sentenceStart = false;
      const lead = tokens.length === 0 || /\s$/.test(tokens[tokens.length - 1]) ? '' : ' ';
      tokens.push(lead + w);
      // A repeated word, streamed as its own identical delta ("ha", "ha").
      if (r.chance(0.01)) tokens.push(tokens[tokens.length - 1]);
      if (r.chance(0.12)) {
        tokens[tokens.length - 1] += r.pick(PUNCT);
        sentenceStart = true;
        if (r.chance(0.15)) tokens.push(r.pick(['\n\n', '\n\n- ', '\n', ' ']));
      }
    }
    if (!sentenceStart) tokens[tokens.length - 1] += '.';
    return tokens;
  }

  /** Groups tokens into deltas of a few words; whitespace-only tokens and repeated tokens are deltas of their own. */
  deltas(tokens) {
    const r = this.rng;
    const out = [];
    let i = 0;
    while (i < tokens.length) {
      const take = r.int(1, 4);
      let text = '';
      let j = i;
      while (j < tokens.length && j - i < take) {
        if (j > i && (tokens[j].trim() === '' || tokens[j] === tokens[j - 1])) break;
        text += tokens[j];
        j++;
        if (text.trim() === '') break;
      }
      out.push(text);
      i = j;
    }
    return out;
  }

  // --- a session ------------------------------------------------------------

  session(index, fate) {
    const r = this.rng;
    const s = {
      id: r.uuid(),
      requestId: r.uuid(),
      modelCall: 0,
      ts: 1770000000000 + index * 900000 + r.int(0, 600000),
      text: '',
      pendingDeltas: [],
      cwd: `/home/user/${r.pick(['project', 'shop', 'api', 'web', 'cli'])}-${r.int(1, 40)}`,
      newerBuild: r.chance(0.25),
      calls: 0,
      dieAt: -1,
      // Some runs are made without --stream-partial-output: each stretch of text is one message, its only copy (the
      // one before tool calls with timestamp_ms and model_call_id, the last with neither, as real streams write them).
      partial: !r.chance(0.15),
      wholeText: '',
    };
    const t0 = s.ts;
    this.stats.sessions++;
    if (!s.partial) this.stats.wholeMessageSessions++;
    const init = { type: 'system', subtype: 'init', apiKeySource: r.pick(['login', 'env', 'flag']), cwd: s.cwd, session_id: s.id, model: r.pick(MODELS), permissionMode: 'default' };
    if (s.newerBuild) init.tools = ['read', 'write', 'edit', 'shell', 'ls', 'glob', 'grep', 'delete'];
    this.emit(init);
    const prompt = this.proseTokens(r.int(8, 60)).join('');
    this.emit({ type: 'user', message: { role: 'user', content: [{ type: 'text', text: prompt }] }, session_id: s.id });

    const steps = r.int(1, 12);
    if (fate === 'died') s.dieAt = r.int(0, steps);
    for (let step = 0; step < steps; step++) {
      if (r.chance(step === 0 ? 0.6 : 0.25)) this.thinking(s);
      if (s.dieAt === step && r.chance(0.3)) {
        // Dies in the middle of a stretch of text.
        this.text(s, r.int(3, 30));
        this.stats.died++;
        return;
      }
      if (r.chance(0.8)) this.text(s, r.logInt(5, 200));
      const mcid = this.flushBeforeTools(s);
      if (!this.toolBatch(s, mcid, s.dieAt === step)) {
        this.stats.died++;
        return;
      }
    }
    if (s.dieAt === steps) {
      this.text(s, r.int(3, 30));
      this.stats.died++;
      return;
    }
    this.text(s, r.logInt(20, 500));
    // Without partial output, the last message; with it, the final flush: the text since the last flush again.
    if (s.wholeText !== '') {
      this.emit({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: s.wholeText }] }, session_id: s.id });
      this.stats.onlyCopies++;
      s.wholeText = '';
    }
    if (s.pendingDeltas.length > 0) {
      this.emit({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: s.pendingDeltas.join('') }] }, session_id: s.id });
      this.stats.flushes++;
      s.pendingDeltas = [];
    }
    s.ts += r.int(20, 400);
    const result = { type: 'result', subtype: 'success', duration_ms: s.ts - t0, duration_api_ms: s.ts - t0, is_error: false, result: s.text, session_id: s.id, request_id: s.requestId };
    if (fate === 'failed') {
      result.subtype = r.pick(['error_during_execution', 'failed']);
      result.is_error = true;
      this.stats.failed++;
    }
    if (r.chance(0.5)) {
      result.usage = { inputTokens: r.int(1000, 200000), outputTokens: r.int(100, 20000), cacheReadTokens: r.int(0, 500000), cacheWriteTokens: r.int(0, 50000) };
    }
    this.emit(result);
  }

  thinking(s) {
    const r = this.rng;
    const tokens = [`**${r.pick(['Planning', 'Considering', 'Checking', 'Reviewing'])}`, ` ${r.pick(WORDS)}**\n\n`, ...this.proseTokens(r.logInt(10, 400))];
    for (const text of this.deltas(tokens)) {
      s.ts += r.int(0, 30);
      this.emit({ type: 'thinking', subtype: 'delta', text, session_id: s.id, timestamp_ms: s.ts });
    }
    s.ts += r.int(5, 200);
    this.emit({ type: 'thinking', subtype: 'completed', session_id: s.id, timestamp_ms: s.ts });
  }

  text(s, words) {
    const r = this.rng;
    if (!s.partial) {
      // Written whole at the next tool call or the end of the turn (never, when the run dies first).
      const text = this.proseTokens(words).join('');
      s.ts += r.int(50, 2000);
      s.text += text;
      s.wholeText += text;
      return;
    }
    for (const text of this.deltas(this.proseTokens(words))) {
      s.ts += r.int(0, 40);
      this.emit({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text }] }, session_id: s.id, timestamp_ms: s.ts });
      s.text += text;
      s.pendingDeltas.push(text);
      this.stats.deltas++;
    }
  }

  /** The flush before a tool call, when deltas came since the last one (or, without partial output, the message itself); returns the model call id of the batch. */
  flushBeforeTools(s) {
    const r = this.rng;
    const mcid = `${s.requestId}-${s.modelCall++}-${r.chars(4, 'abcdefghijklmnopqrstuvwxyz0123456789')}`;
    if (s.wholeText !== '') {
      s.ts += r.int(1, 50);
      this.emit({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: s.wholeText }] }, session_id: s.id, model_call_id: mcid, timestamp_ms: s.ts });
      this.stats.onlyCopies++;
      s.wholeText = '';
    }
    if (s.pendingDeltas.length > 0) {
      s.ts += r.int(1, 50);
      this.emit({ type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text: s.pendingDeltas.join('') }] }, session_id: s.id, model_call_id: mcid, timestamp_ms: s.ts });
      this.stats.flushes++;
      s.pendingDeltas = [];
    }
    return mcid;
  }

  callId() {
    const r = this.rng;
    const alnum = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
    switch (r.int(0, 3)) {
      case 0:
      case 1:
        // As real Cursor streams write them: two ids joined by a newline.
        return `call_${r.chars(24, alnum)}\nfc_${r.hex(50)}`;
      case 2:
        return `toolu_vrtx_01${r.chars(22, alnum)}`;
      default:
        return `call_${r.chars(24, alnum)}`;
    }
  }

  /** Emits one batch of tool calls; returns false when the session dies inside it. */
  toolBatch(s, mcid, dies) {
    const r = this.rng;
    const n = r.chance(0.25) ? r.int(2, 4) : 1;
    const calls = [];
    for (let i = 0; i < n; i++) {
      let payload = r.logInt(100, this.maxPayload);
      let kind;
      if (this.bytes >= this.nextHuge) {
        // The first is the longest (6 MiB, the others 2 to 4), so corpora of different sizes have
        // the same longest line; of a kind whose payload is in the line once.
        payload = (this.stats.hugeLines === 0 ? 6 : r.int(2, 4)) * 1024 * 1024;
        kind = r.pick(['readToolCall', 'lsToolCall', 'grepToolCall', 'globToolCall']);
        this.nextHuge += this.hugeEvery;
        this.stats.hugeLines++;
      }
      const call = this.toolCall(s, payload, kind);
      call.id = this.callId();
      if ('toolCallId' in call.args) call.args.toolCallId = call.id;
      calls.push(call);
    }
    for (const call of calls) {
      s.ts += r.int(1, 150);
      this.emit(this.toolEvent(s, 'started', call, mcid));
      this.stats.toolCalls++;
    }
    if (dies) {
      // The run dies with its calls started and never completed.
      this.stats.pending += calls.length;
      return false;
    }
    for (const call of n > 1 ? r.shuffle(calls.slice()) : calls) {
      s.ts += r.int(5, 5000);
      this.emit(this.toolEvent(s, 'completed', call, mcid));
    }
    return true;
  }

  toolEvent(s, subtype, call, mcid) {
    const r = this.rng;
    const inner = subtype === 'started' ? { args: call.args } : call.completedWithoutArgs ? { result: call.result } : { args: call.args, result: call.result };
    let toolCall;
    if (call.kind === 'function') {
      toolCall = { function: subtype === 'started' ? { name: call.name, arguments: call.arguments } : { name: call.name, arguments: call.arguments, result: call.result } };
    } else {
      toolCall = { [call.kind]: inner };
    }
    if (s.newerBuild) {
      // Newer builds put metadata beside the tool's key: the first key is not always the tool.
      toolCall = { toolCallId: call.id, ...toolCall, startedAtMs: s.ts - r.int(0, 10) };
      if (subtype === 'completed') toolCall.completedAtMs = s.ts;
    }
    return { type: 'tool_call', subtype, call_id: call.id, tool_call: toolCall, model_call_id: mcid, session_id: s.id, timestamp_ms: s.ts };
  }

  path(s) {
    const r = this.rng;
    if (r.chance(0.02)) return r.pick(SENSITIVE);
    const p = `${r.pick(DIRS)}/${r.pick(IDENTS).replace(/[^A-Za-z]/g, '')}${r.pick(EXTS)}`;
    return r.chance(0.3) ? `${s.cwd}/${p}` : p;
  }

  /** A tool call of `kind` (default: one at random) whose payload is about `size` bytes. */
  toolCall(s, size, kind) {
    const r = this.rng;
    kind ??= r.pick([
      'shellToolCall', 'shellToolCall', 'shellToolCall', 'readToolCall', 'readToolCall', 'readToolCall', 'writeToolCall',
      'editToolCall', 'editToolCall', 'lsToolCall', 'globToolCall', 'grepToolCall', 'grepToolCall', 'deleteToolCall',
      'mcpToolCall', 'function', 'updateTodosToolCall', 'webFetchToolCall',
    ]);
    const outcome = r.float();
    const p = this.path(s);
    const call = { kind, args: {}, result: {} };
    switch (kind) {
      case 'shellToolCall': {
        const command = r.pick(COMMANDS);
        const stdout = this.shellOutput(size);
        const exitCode = r.chance(0.15) ? r.int(1, 2) : 0;
        const stderr = exitCode !== 0 ? this.code(Math.min(2000, size >> 2)) : '';
        call.args = {
          command, workingDirectory: r.chance(0.5) ? '' : s.cwd, timeout: r.pick([10000, 30000, 120000]), toolCallId: '',
          simpleCommands: [command.split(' ')[0]], hasInputRedirect: false, hasOutputRedirect: false,
          parsingResult: { parsingFailed: false, executableCommands: [{ name: command.split(' ')[0], args: command.split(' ').slice(1).map((value) => ({ type: 'word', value })), fullText: command }], hasRedirects: false, hasCommandSubstitution: false },
          fileOutputThresholdBytes: '0', isBackground: false, skipApproval: false, timeoutBehavior: 'TIMEOUT_BEHAVIOR_BACKGROUND',
        };
        if (outcome < 0.03) call.result = { rejected: { command, workingDirectory: s.cwd, reason: 'User rejected the command' } };
        else if (outcome < 0.05) call.result = { spawnError: { command, error: 'spawn /bin/zsh ENOENT' } };
        else if (outcome < 0.06) call.result = { failure: { command, exitCode: 137, signal: 'SIGKILL', stdout, stderr: 'Killed' } };
        else call.result = { success: { command, workingDirectory: call.args.workingDirectory, exitCode, signal: '', stdout, stderr, executionTime: r.int(5, 90000), interleavedOutput: stdout + stderr }, isBackground: false };
        break;
      }
      case 'readToolCall': {
        const content = this.code(size);
        call.args = { path: p };
        if (outcome < 0.05) call.result = { error: { path: p, error: 'File not found' } };
        else if (outcome < 0.07) call.result = { rejected: { path: p, reason: 'Reading this file is not allowed' } };
        else {
          const lines = content.split('\n').length - 1;
          call.result = r.chance(0.5)
            ? { success: { content, isEmpty: false, exceededLimit: size > 50000, totalLines: lines, totalChars: content.length } }
            : { success: { content, isEmpty: false, exceededLimit: false, totalLines: lines, fileSize: Buffer.byteLength(content) } };
        }
        if (r.chance(0.1)) call.completedWithoutArgs = true;
        break;
      }
      case 'writeToolCall': {
        // The file's text is in the started event and again in the completed one.
        const fileText = this.code(size >> 1);
        call.args = { path: p, fileText, toolCallId: '' };
        call.result = outcome < 0.04
          ? { rejected: { path: p, reason: 'Writing outside the workspace is not allowed' } }
          : { success: { path: p.startsWith('/') ? p : `${s.cwd}/${p}`, linesCreated: fileText.split('\n').length - 1, fileSize: Buffer.byteLength(fileText) } };
        break;
      }
      case 'editToolCall': {
        const streamContent = this.code(size >> 1);
        const diff = this.diff(size >> 1);
        call.args = { path: p, streamContent };
        call.result = outcome < 0.05
          ? { error: { path: p, error: 'The string to replace was not found in the file' } }
          : { success: { path: p, linesAdded: diff.added, linesRemoved: diff.removed, diffString: diff.text } };
        break;
      }
      case 'lsToolCall': {
        call.args = { path: r.chance(0.5) ? s.cwd : r.pick(DIRS), ignore: ['node_modules', '.git'] };
        call.result = { success: { directoryTreeRoot: this.tree(s.cwd, size) } };
        break;
      }
      case 'globToolCall': {
        const files = [];
        let n = 0;
        while (n < size) {
          const f = this.path(s);
          files.push(f);
          n += f.length + 3;
        }
        call.args = { globPattern: r.pick(['**/*.ts', 'src/**/*.js', '*.md', '**/*.test.ts']), targetDirectory: s.cwd };
        call.result = { success: { pattern: call.args.globPattern, path: s.cwd, files, totalFiles: files.length, clientTruncated: false } };
        break;
      }
      case 'grepToolCall': {
        const matches = [];
        let n = 0;
        while (n < size) {
          const m = { file: this.path(s), lineNumber: r.int(1, 3000), content: r.pick(this.codeLines) };
          matches.push(m);
          n += m.file.length + m.content.length + 40;
        }
        call.args = { pattern: r.pick(IDENTS), path: r.pick(DIRS), outputMode: 'content', caseInsensitive: r.chance(0.3) };
        call.result = { success: { pattern: call.args.pattern, path: call.args.path, outputMode: 'content', matches, totalMatches: matches.length } };
        break;
      }
      case 'deleteToolCall': {
        call.args = { path: p };
        call.result = outcome < 0.2 ? { error: { path: p, error: 'ENOENT: no such file or directory' } } : outcome < 0.25 ? { rejected: { path: p, reason: 'Deleting files needs approval' } } : { success: { path: p } };
        break;
      }
      case 'mcpToolCall': {
        const toolName = r.pick(['search_issues', 'get_page', 'query', 'list_tables']);
        call.args = { name: `${r.pick(['github', 'linear', 'postgres', 'notion'])}-${toolName}`, args: { query: this.proseTokens(r.int(2, 12)).join('') }, toolName, providerIdentifier: r.pick(['github', 'linear', 'postgres', 'notion']) };
        call.result = outcome < 0.1 ? { rejected: { reason: 'MCP tool calls are not allowed' } } : { success: { content: [{ text: { text: this.code(size) } }], isError: false } };
        break;
      }
      case 'updateTodosToolCall': {
        const todos = [];
        for (let i = r.int(1, 8); i > 0; i--) todos.push({ id: String(i), content: this.proseTokens(r.int(3, 12)).join(''), status: r.pick(['pending', 'in_progress', 'completed']) });
        call.args = { todos, merge: r.chance(0.5) };
        call.result = { success: { todos, totalCount: todos.length } };
        break;
      }
      case 'webFetchToolCall': {
        const url = `https://example.com/${r.pick(IDENTS).replace(/[^A-Za-z]/g, '')}`;
        call.args = { url };
        call.result = outcome < 0.1 ? { error: { url, error: 'HTTP 404' } } : { success: { url, markdown: this.code(size) } };
        break;
      }
      case 'function': {
        call.name = r.pick(['web_search', 'codebase_search', 'fetch_rules', 'run_notebook']);
        // `arguments` is a JSON string, as such tools write it.
        call.arguments = JSON.stringify({ query: this.proseTokens(r.int(3, 15)).join(''), target_directories: [r.pick(DIRS)], explanation: this.proseTokens(r.int(3, 20)).join('') });
        call.result = outcome < 0.05 ? { error: { error: 'tool failed' } } : { success: { output: this.code(size) } };
        break;
      }
    }
    return call;
  }

  shellOutput(size) {
    const r = this.rng;
    let out = this.code(size);
    // Test runners colour their output: escape sequences inside JSON strings.
    if (r.chance(0.2)) out = `\u001b[32m✓\u001b[0m ${r.int(1, 400)} passing\n${out}\u001b[31m✗\u001b[0m ${r.int(0, 3)} failing\n`;
    return out;
  }

  diff(size) {
    const r = this.rng;
    const lines = [];
    let added = 0;
    let removed = 0;
    let n = 0;
    while (n < size) {
      const mark = r.pick([' ', ' ', '+', '-']);
      if (mark === '+') added++;
      if (mark === '-') removed++;
      const line = mark + r.pick(this.codeLines);
      lines.push(line);
      n += line.length + 1;
    }
    return { text: `@@ -1,${lines.length} +1,${lines.length} @@\n${lines.join('\n')}\n`, added, removed };
  }

  tree(root, size) {
    const r = this.rng;
    let n = 0;
    const dir = (absPath, depth) => {
      const node = { absPath, childrenDirs: [], childrenFiles: [], childrenWereProcessed: true };
      const files = r.int(1, 12);
      for (let i = 0; i < files && n < size; i++) {
        const name = `${r.pick(IDENTS).replace(/[^A-Za-z]/g, '')}${r.pick(EXTS)}`;
        node.childrenFiles.push({ name });
        n += name.length + 12;
      }
      n += absPath.length + 80;
      for (let i = r.int(1, 5); i > 0 && n < size && depth < 12; i--) node.childrenDirs.push(dir(`${absPath}/${r.pick(DIRS).split('/').pop()}${r.int(1, 99)}`, depth + 1));
      return node;
    };
    const top = dir(root, 0);
    while (n < size) top.childrenDirs.push(dir(`${root}/${r.pick(DIRS)}${r.int(1, 999)}`, 1));
    return top;
  }

  run() {
    let index = 0;
    let lastFate = 'success';
    while (this.bytes < this.size) {
      const x = this.rng.float();
      lastFate = x < 0.05 ? 'failed' : x < 0.08 ? 'died' : 'success';
      this.session(index++, lastFate);
    }
    // The last session of the stream succeeds, so the answers of the tools and jq can be compared.
    if (lastFate !== 'success') this.session(index++, 'success');
    this.stats.bytes = this.bytes;
    return this.stats;
  }
}

/** Parses a size: `100M`, `64MiB`, `300k`, `1G`, or plain bytes. k/M/G are powers of 1000, KiB/MiB/GiB of 1024. */
export function parseSize(text) {
  const m = /^(\d+(?:\.\d+)?)\s*(|b|k|kb|m|mb|g|gb|kib|mib|gib)$/i.exec(String(text).trim());
  if (!m) throw new Error(`not a size: ${text}`);
  const unit = m[2].toLowerCase();
  const mult = { '': 1, b: 1, k: 1e3, kb: 1e3, m: 1e6, mb: 1e6, g: 1e9, gb: 1e9, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 }[unit];
  return Math.round(Number(m[1]) * mult);
}

/**
 * Generates a stream of at least `size` bytes, calling `write(text)` with
 * pieces of it (whole lines, each ending with a newline). Returns its stats.
 * `maxPayload` bounds the ordinary tool payloads (default 100 KB);
 * `hugeEvery` places one multi-MiB line every so many bytes (default 24 MB).
 */
export function generate({ seed = 1, size = 100e6, maxPayload = 100e3, hugeEvery = 24e6, write }) {
  let parts = [];
  let pending = 0;
  const gen = new StreamGenerator({
    seed,
    size,
    maxPayload,
    hugeEvery,
    out: (line) => {
      parts.push(line);
      pending += line.length;
      if (pending >= 1 << 20) {
        parts.push('');
        write(parts.join('\n'));
        parts = [];
        pending = 0;
      }
    },
  });
  const stats = gen.run();
  if (parts.length > 0) {
    parts.push('');
    write(parts.join('\n'));
  }
  return stats;
}

/**
 * A short successful session whose completed read tool call is one line of
 * at least `bytes` bytes (the file's content), for the long-line check.
 * Returns the stream as a Buffer and the session's result text.
 */
export function longLineStream({ seed = 1, bytes = 64 * 1024 * 1024 }) {
  const r = new Rng(`${seed}:long-line`);
  const id = r.uuid();
  const mcid = `${r.uuid()}-0-abcd`;
  const ts = 1770000000000;
  const unit = 'const value = readConfig(path); // a line of a very long generated file\n';
  const content = unit.repeat(Math.ceil(bytes / unit.length));
  const text = 'I read the whole file.';
  const lines = [
    { type: 'system', subtype: 'init', apiKeySource: 'login', cwd: '/home/user/big', session_id: id, model: 'Auto', permissionMode: 'default' },
    { type: 'user', message: { role: 'user', content: [{ type: 'text', text: 'Read big.js' }] }, session_id: id },
    { type: 'tool_call', subtype: 'started', call_id: 'call_big', tool_call: { readToolCall: { args: { path: 'big.js' } } }, model_call_id: mcid, session_id: id, timestamp_ms: ts + 1 },
    { type: 'tool_call', subtype: 'completed', call_id: 'call_big', tool_call: { readToolCall: { args: { path: 'big.js' }, result: { success: { content, isEmpty: false, exceededLimit: false, totalLines: content.split('\n').length - 1, totalChars: content.length } } } }, model_call_id: mcid, session_id: id, timestamp_ms: ts + 2 },
    { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text }] }, session_id: id, timestamp_ms: ts + 3 },
    { type: 'assistant', message: { role: 'assistant', content: [{ type: 'text', text }] }, session_id: id },
    { type: 'result', subtype: 'success', duration_ms: 4, duration_api_ms: 4, is_error: false, result: text, session_id: id, request_id: mcid.slice(0, 36) },
  ];
  return { data: Buffer.from(`${lines.map((l) => JSON.stringify(l)).join('\n')}\n`), result: text };
}

function parseArgs(argv) {
  const opts = { size: '100M', seed: '1', maxPayload: '100k', hugeEvery: '24M', out: '-', longLine: undefined };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const m = /^--([a-z-]+)(?:=(.*))?$/.exec(a);
    if (!m) throw new Error(`unexpected argument: ${a}`);
    const key = m[1].replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    if (!(key in opts)) throw new Error(`unknown option: --${m[1]}`);
    opts[key] = m[2] ?? argv[++i];
    if (opts[key] === undefined) throw new Error(`--${m[1]} needs a value`);
  }
  return opts;
}

function cli() {
  let opts;
  try {
    opts = parseArgs(process.argv.slice(2));
  } catch (e) {
    process.stderr.write(`generate: ${e.message}\nusage: node bench/generate.mjs [--size 100M] [--seed 1] [--max-payload 100k] [--huge-every 24M] [--long-line 64MiB] [--out FILE]\n`);
    process.exit(1);
  }
  const fd = opts.out === '-' ? 1 : fs.openSync(opts.out, 'w');
  const write = (text) => {
    const buf = typeof text === 'string' ? Buffer.from(text, 'utf8') : text;
    let off = 0;
    while (off < buf.length) {
      try {
        off += fs.writeSync(fd, buf, off);
      } catch (e) {
        if (e.code === 'EAGAIN') continue;
        if (e.code === 'EPIPE') process.exit(0);
        throw e;
      }
    }
  };
  let stats;
  if (opts.longLine !== undefined) {
    write(longLineStream({ seed: opts.seed, bytes: parseSize(opts.longLine) }).data);
  } else {
    stats = generate({ seed: opts.seed, size: parseSize(opts.size), maxPayload: parseSize(opts.maxPayload), hugeEvery: parseSize(opts.hugeEvery), write });
  }
  if (fd !== 1) fs.closeSync(fd);
  if (stats && opts.out !== '-') process.stderr.write(`${JSON.stringify(stats)}\n`);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) cli();
