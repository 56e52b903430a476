/**
 * ndjson-text's core: the stream as a person reads it.
 *
 * By default it keeps, per session, the assistant text written since the
 * session's last tool call, and prints it at the end: what `--output-format
 * text` prints. With `all`, it writes every piece of new assistant text the
 * moment its event is read, with tool lines, prompts and thinking as asked,
 * laid out in blocks by a {@link Transcript}.
 *
 * Which `assistant` events carry new text is not decided here: that is the
 * shared partial-output rule of {@link TextTracker}.
 */
import type { EventRecord } from '../io/input.js';
import type { ToolCore, Emit } from '../io/tool-stream.js';
import { TextTracker } from '../assistant-text.js';
import {
  eventSubtype,
  eventType,
  messageText,
  resultFailed,
  resultText,
  str,
  thinkingText,
} from '../events.js';
import { visible, visibleOneLine } from '../safe-text.js';

/** Options of the text core. */
export interface TextOptions {
  /** The whole transcript, written as it arrives, instead of each session's final message. */
  all?: boolean;
  /** With `all`: one line per tool call. */
  tools?: boolean;
  /** With `all`: the thinking text. */
  thinking?: boolean;
  /** With `all`: the user's prompt. */
  user?: boolean;
  /** Colour the parts that are not assistant text (ANSI SGR). */
  color?: boolean;
  /** Write control characters as they are instead of making them visible. */
  raw?: boolean;
}

/** What the core learnt about one session, for the exit status and the notes on stderr. */
export interface SessionText {
  /** The session id ('' for events without one). */
  session: string;
  /** Where the session was first seen. */
  source: string;
  line: number;
  /** How many events of the session were read. */
  events: number;
  /** The session's last result event, if it had one. */
  result?: EventRecord;
  /** The result reports failure. */
  failed: boolean;
  /** How many `assistant` events carried new text. */
  texts: number;
  /** How many tool calls (started or completed events) were seen. */
  toolCalls: number;
  /** The new assistant text since the session's last tool call: its final message once it has ended. */
  final: string;
  /** How many characters of text were written for the session (default mode: its final message). */
  written: number;
}

interface SessionState extends SessionText {
  /** Tool calls started and not yet completed, by call id. */
  pending: Map<string, ToolCallView>;
}

/** How a tool call ended, as a tool line shows it. */
export interface ToolOutcome {
  /** `success`, `error`, `rejected`, `spawnError`, `failure`, or `not completed`. */
  status: string;
  /** The call did not do its work (error, rejected, spawn error, failure). */
  failed: boolean;
  /** A short detail: `54 lines`, `exit 1`, `+3 -1`, an error message. */
  detail?: string;
}

/** What a tool line needs to know of one tool call event. */
export interface ToolCallView {
  callId: string;
  phase: 'started' | 'completed';
  /** `read`, `shell`, `write`, … (the tool key without `ToolCall`), or a function's name. */
  name: string;
  /** What the call acts on: a path, a command, a pattern; '' when it has none. */
  target: string;
  /** Present once the call has completed. */
  outcome?: ToolOutcome;
}

// Temporary: a minimal reading of tool_call events, until the shared tool-call
// accessors of events.ts exist; the tool line format below stays.
function describeToolCall(event: unknown): ToolCallView | undefined {
  const e = event as { call_id?: unknown; tool_call?: unknown };
  const call = e.tool_call;
  if (typeof call !== 'object' || call === null) return undefined;
  let name = '';
  let body: Record<string, unknown> | undefined;
  for (const [key, value] of Object.entries(call as Record<string, unknown>)) {
    if (typeof value !== 'object' || value === null) continue;
    if (key.endsWith('ToolCall')) {
      name = key.slice(0, -'ToolCall'.length);
      body = value as Record<string, unknown>;
      break;
    }
    if (key === 'function') {
      name = str(value, 'name') ?? 'function';
      body = value as Record<string, unknown>;
      break;
    }
  }
  if (body === undefined) return undefined;
  let args: unknown = body.args;
  if (args === undefined && typeof body.arguments === 'string') {
    try {
      args = JSON.parse(body.arguments);
    } catch {
      args = { arguments: body.arguments };
    }
  }
  const target =
    ['path', 'command', 'pattern', 'globPattern', 'url', 'toolName', 'query', 'arguments']
      .map((k) => str(args, k))
      .find((v) => v !== undefined) ?? '';
  const view: ToolCallView = {
    callId: typeof e.call_id === 'string' ? e.call_id : '',
    phase: eventSubtype(event) === 'completed' ? 'completed' : 'started',
    name,
    target,
  };
  if (view.phase === 'completed') {
    const result = body.result;
    const status = ['success', 'error', 'rejected', 'spawnError', 'failure'].find(
      (k) => typeof result === 'object' && result !== null && (result as Record<string, unknown>)[k] !== undefined,
    );
    const detailOf = (r: unknown): string | undefined => {
      const n = (k: string): number | undefined => {
        const v = (r as Record<string, unknown> | undefined)?.[k];
        return typeof v === 'number' ? v : undefined;
      };
      if (status !== 'success') return str(r, 'error') ?? str(r, 'reason') ?? str(r, 'message');
      if (n('exitCode') !== undefined) return `exit ${n('exitCode')}`;
      const lines = n('totalLines') ?? n('linesCreated');
      if (lines !== undefined) return `${lines} line${lines === 1 ? '' : 's'}`;
      if (n('linesAdded') !== undefined || n('linesRemoved') !== undefined) return `+${n('linesAdded') ?? 0} -${n('linesRemoved') ?? 0}`;
      return undefined;
    };
    const r = status ? (result as Record<string, unknown>)[status] : undefined;
    view.outcome = { status: status ?? 'completed', failed: status !== undefined && status !== 'success', detail: detailOf(r) };
  }
  return view;
}

const STATUS_WORD: Record<string, string> = {
  error: 'error',
  rejected: 'rejected',
  spawnError: 'spawn error',
  failure: 'failed',
};

const MAX_TARGET = 200;

/**
 * One line for a tool call: `→ read src/app.ts (54 lines)`, `→ shell npm test
 * (exit 1)`, `✗ write .env rejected`. The arrow says the call ran (a shell
 * command that exits 1 ran); the cross says it did not do its work.
 */
export function toolLine(view: ToolCallView, safeLine: (s: string) => string): string {
  const outcome = view.outcome;
  let target = view.target;
  if (target.length > MAX_TARGET) target = `${target.slice(0, MAX_TARGET)}…`;
  let line = `${outcome?.failed ? '✗' : '→'} ${safeLine(view.name || 'tool')}`;
  if (target) line += ` ${safeLine(target)}`;
  if (outcome === undefined) return line;
  if (outcome.failed) {
    line += ` ${STATUS_WORD[outcome.status] ?? outcome.status}`;
    if (outcome.detail) line += `: ${safeLine(outcome.detail.length > MAX_TARGET ? `${outcome.detail.slice(0, MAX_TARGET)}…` : outcome.detail)}`;
  } else if (outcome.status === 'not completed') {
    line += ' (not completed)';
  } else if (outcome.detail) {
    line += ` (${safeLine(outcome.detail)})`;
  }
  return line;
}

/** The label line of a session, when the input holds more than one. */
function sessionLabel(session: string, safeLine: (s: string) => string): string {
  return `── session ${safeLine(session || '(no id)')} ──`;
}

/** The parts of a transcript, each laid out as a block. */
type Block = 'text' | 'thinking' | 'user' | 'tool' | 'label';

const SGR = {
  reset: '\x1b[0m',
  bold: '\x1b[1m',
  dim: '\x1b[2m',
  red: '\x1b[31m',
  green: '\x1b[32m',
  cyan: '\x1b[36m',
} as const;

const BLOCK_COLOR: Record<Block, string> = {
  text: '',
  thinking: SGR.dim,
  user: SGR.green,
  tool: SGR.cyan,
  label: SGR.bold,
};

/** Prefixes of the lines of quoted blocks, so they stand apart from assistant text without colour too. */
const PREFIX: Partial<Record<Block, string>> = {
  user: '> ',
  thinking: '│ ',
};

/** Counts the newlines at the end of `s`, up to 2 (all a layout decision needs). */
function trailingNewlines(s: string, before: number): number {
  let n = 0;
  for (let i = s.length - 1; i >= 0 && n < 2 && s.charCodeAt(i) === 10; i--) n++;
  if (n === s.length) return Math.min(2, before + n);
  return n;
}

/**
 * The layout of the live transcript: blocks (a stretch of assistant text, a
 * thinking passage, a prompt, a tool line, a session label) separated by a
 * blank line, with tool lines kept right under the text that led to them.
 * Text is written as it comes; only the separators are decided here.
 */
export class Transcript {
  /** Newlines at the end of what was written (2: at the start of a fresh paragraph). */
  private nl = 2;
  private started = false;
  private block: Block | null = null;
  /** The session of the last block written. */
  private blockSession: string | null = null;
  /** The text or thinking block may go on with the next delta. */
  private open = false;
  /** Nothing but newlines written in the current block yet: leading newlines are dropped. */
  private fresh = true;

  constructor(
    private readonly emit: Emit,
    private readonly color: boolean,
    private readonly safe: (s: string) => string,
    private readonly safeLine: (s: string) => string,
  ) {}

  /** True when the block of `kind` for `session` is the open one, so text continues it. */
  isOpen(kind: Block, session: string): boolean {
    return this.open && this.block === kind && this.blockSession === session;
  }

  /** Ends the open text or thinking block of `session` (at a tool call, a flush, a completed thought). */
  close(session: string): void {
    if (this.blockSession === session) this.open = false;
  }

  /** Starts a block: a label when the session changed, then the separator the two blocks need. */
  private begin(kind: Block, session: string): void {
    if (this.started && this.blockSession !== session) {
      this.separate(2);
      this.put(sessionLabel(session, this.safeLine), 'label');
      this.put('\n', 'label');
      this.block = 'label';
    }
    if (this.started) {
      // A tool line sits right under the text that led to it; anything sits right under a label.
      const under = this.block === 'label' || (kind === 'tool' && this.block !== 'user');
      this.separate(under ? 1 : 2);
    }
    this.started = true;
    this.block = kind;
    this.blockSession = session;
    this.open = kind === 'text' || kind === 'thinking';
    this.fresh = true;
  }

  /** Writes newlines until `n` of them end the output. */
  private separate(n: number): void {
    if (this.nl < n) this.put('\n'.repeat(n - this.nl), null);
  }

  /** Emits `s` (already safe), coloured as its block asks. */
  private put(s: string, kind: Block | null): void {
    if (s.length === 0) return;
    const sgr = this.color && kind !== null ? BLOCK_COLOR[kind] : '';
    this.emit(sgr ? `${sgr}${s}${SGR.reset}` : s);
    this.nl = trailingNewlines(s, this.nl);
  }

  /** Writes a piece of a block's text: assistant text, thinking or a prompt. */
  private body(kind: Block, text: string): void {
    let s = this.safe(text);
    if (this.fresh) {
      // The blank line before the block already separates it; leading newlines would only widen the gap.
      let i = 0;
      while (i < s.length && s.charCodeAt(i) === 10) i++;
      if (i === s.length) return;
      s = s.slice(i);
      this.fresh = false;
    }
    const prefix = PREFIX[kind];
    if (prefix !== undefined) s = this.prefixed(s, prefix);
    this.put(s, kind);
  }

  /** Puts `prefix` before each line of `s`, lazily: a line's prefix is written with its first character. */
  private prefixed(s: string, prefix: string): string {
    const bare = prefix.trimEnd();
    let out = '';
    let atStart = this.nl > 0;
    let from = 0;
    while (from < s.length) {
      const nl = s.indexOf('\n', from);
      const end = nl === -1 ? s.length : nl + 1;
      if (atStart) out += nl === from ? bare : prefix;
      out += s.slice(from, end);
      atStart = nl !== -1;
      from = end;
    }
    return out;
  }

  /** Assistant text: continues the open text block of the session, or starts a new one. */
  text(session: string, text: string, continues: boolean): void {
    if (text.length === 0) return;
    if (!(continues && this.isOpen('text', session))) this.begin('text', session);
    this.body('text', text);
  }

  /** Thinking text: continues the open thinking block of the session, or starts one. */
  thinking(session: string, text: string): void {
    if (text.length === 0) return;
    if (!this.isOpen('thinking', session)) this.begin('thinking', session);
    this.body('thinking', text);
  }

  /** The user's prompt, as a quoted block. */
  user(session: string, text: string): void {
    if (text.trim().length === 0) return;
    this.begin('user', session);
    this.body('user', text);
    this.separate(1);
  }

  /** One tool line. */
  tool(session: string, line: string, failed: boolean): void {
    this.begin('tool', session);
    const s = this.color ? `${failed ? SGR.red : SGR.cyan}${line}${SGR.reset}\n` : `${line}\n`;
    this.emit(s);
    this.nl = 1;
  }

  /** Ends the current line, if one was begun (at the end of a session or of the input). */
  endLine(): void {
    if (this.started) this.separate(1);
  }
}

/**
 * The text core. Feed it every event in order; it writes as the options ask,
 * and keeps a {@link SessionText} per session for the caller's verdict.
 */
export class TextCore implements ToolCore {
  private readonly tracker = new TextTracker();
  private readonly states = new Map<string, SessionState>();
  private current: SessionState | null = null;
  private transcript: Transcript | null = null;
  private readonly safe: (s: string) => string;
  private readonly safeLine: (s: string) => string;

  constructor(private readonly options: TextOptions = {}) {
    this.safe = options.raw ? (s) => s : visible;
    this.safeLine = options.raw ? (s) => s : visibleOneLine;
  }

  /** Every session seen, in the order it was first seen. */
  get sessions(): SessionText[] {
    return [...this.states.values()];
  }

  record(rec: EventRecord, emit: Emit): void {
    const event = rec.event;
    // Events without a session id belong to the session being read.
    const id = str(event, 'session_id') ?? this.current?.session ?? '';
    let s = this.current?.session === id ? this.current : this.states.get(id);
    if (s === undefined) {
      s = {
        session: id,
        source: rec.source,
        line: rec.line,
        events: 0,
        failed: false,
        texts: 0,
        toolCalls: 0,
        final: '',
        written: 0,
        pending: new Map(),
      };
      this.states.set(id, s);
    }
    s.events++;
    this.current = s;
    const out = this.options.all ? (this.transcript ??= this.makeTranscript(emit)) : null;
    switch (eventType(event)) {
      case 'assistant': {
        const text = messageText(event);
        const verdict = this.tracker.assistant(event, text);
        if (verdict !== 'delta' && verdict !== 'only-copy') {
          out?.close(id);
          return;
        }
        s.texts++;
        s.final += text;
        if (out) {
          s.written += text.length;
          out.text(id, text, verdict === 'delta');
          // A complete message stands alone: the next text is a new block.
          if (verdict === 'only-copy') out.close(id);
        }
        return;
      }
      case 'tool_call': {
        this.tracker.toolCall(event);
        s.toolCalls++;
        s.final = '';
        if (out) {
          out.close(id);
          if (this.options.tools) this.toolEvent(s, event, out);
        }
        return;
      }
      case 'thinking':
        if (out && this.options.thinking) {
          if (eventSubtype(event) === 'completed') out.close(id);
          else out.thinking(id, thinkingText(event));
        }
        return;
      case 'user':
        if (out && this.options.user) out.user(id, messageText(event));
        return;
      case 'result':
        this.tracker.result(event);
        s.result = rec;
        s.failed = resultFailed(event);
        if (out) this.endSession(s, out);
        return;
      default:
        return;
    }
  }

  end(emit: Emit): void {
    if (this.options.all) {
      const out = this.transcript;
      if (out === null) return;
      for (const s of this.states.values()) if (s.result === undefined) this.unfinished(s, out);
      out.endLine();
      return;
    }
    const label = this.states.size > 1;
    let first = true;
    for (const s of this.states.values()) {
      const text = this.finalText(s);
      if (label) {
        const head = sessionLabel(s.session, this.safeLine);
        emit(`${first ? '' : '\n'}${this.options.color ? `${SGR.bold}${head}${SGR.reset}` : head}\n`);
      }
      first = false;
      if (text === undefined) continue;
      s.written = text.length;
      emit(`${this.safe(text)}\n`);
    }
  }

  /** The final message of a session in default mode, or undefined when it has none. */
  private finalText(s: SessionState): string | undefined {
    if (s.final.length > 0) return s.final;
    // `--output-format json` is a lone result: its text is the answer.
    if (s.texts === 0 && s.toolCalls === 0 && s.result !== undefined && !s.failed) {
      const text = resultText(s.result.event);
      if (text !== undefined && text.length > 0) return text;
    }
    return undefined;
  }

  private makeTranscript(emit: Emit): Transcript {
    return new Transcript((data) => emit(data), this.options.color === true, this.safe, this.safeLine);
  }

  /** A tool call event: remembered when started, one line when completed. */
  private toolEvent(s: SessionState, event: unknown, out: Transcript): void {
    const view = describeToolCall(event);
    if (view === undefined) return;
    if (view.phase === 'started') {
      s.pending.set(view.callId, view);
      return;
    }
    const started = s.pending.get(view.callId);
    s.pending.delete(view.callId);
    // A completed event may carry the result without the args: the started event had them.
    const full: ToolCallView = started ? { ...view, name: view.name || started.name, target: view.target || started.target } : view;
    out.tool(s.session, toolLine(full, this.safeLine), full.outcome?.failed === true);
  }

  /** The end of a session in the transcript: calls that never completed, and the text of a lone result. */
  private endSession(s: SessionState, out: Transcript): void {
    this.unfinished(s, out);
    if (s.texts === 0 && s.toolCalls === 0 && !s.failed && s.result) {
      const text = resultText(s.result.event);
      if (text) {
        s.written += text.length;
        out.text(s.session, text, false);
      }
    }
    out.close(s.session);
    out.endLine();
  }

  private unfinished(s: SessionState, out: Transcript): void {
    if (!this.options.tools) return;
    for (const view of s.pending.values()) {
      out.tool(s.session, toolLine({ ...view, outcome: { status: 'not completed', failed: false } }, this.safeLine), false);
    }
    s.pending.clear();
  }
}
