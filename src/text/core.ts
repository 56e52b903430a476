/**
 * ndjson-text's core: the stream as a person reads it.
 *
 * By default it keeps, per session, the assistant text written since the
 * session's last tool call, and prints it when the session's run ends (its
 * result) or at the end of the input: what `--output-format text` prints,
 * run by run. With `all`, it writes every piece of new assistant text the
 * moment its event is read, with tool lines, prompts and thinking as asked,
 * laid out in blocks by a {@link Transcript}.
 *
 * Which `assistant` events carry new text is not decided here: that is the
 * shared partial-output rule of {@link TextTracker}.
 */
import type { EventRecord, InputProblem } from '../io/input.js';
import type { SessionEnd } from '../session.js';
import { Settled, sessionState } from '../session.js';
import { placeOf, placeRecord, recordBroken, recordSessionField, recordSound, recordType, retainRecord, tornSession } from '../io/input.js';
import type { ToolCore, Emit } from '../io/tool-stream.js';
import { TextTracker, flushMismatch } from '../assistant-text.js';
import type { FlushMismatch } from '../assistant-text.js';
import {
  claudeToolSteps,
  writtenValues,
  eventSubtype,
  hasToolUseBlock,
  isSubagentMessage,
  claudeMessageId,
  isRunActivity,
  isSystemInit,
  opensSession,
  showsRun,
  messageText,
  messageThinking,
  resultFailed,
  resultText,
  thinkingText,
  toolCallArgs,
  toolCallEntry,
  toolCallFacts,
  toolCallId,
  toolCallPhase,
  toolCallResult,
  toolNameKey,
  MAX_SUBAGENT_DEPTH,
  ranSubagent,
  subagentCalls,
} from '../events.js';
import type { ClaudeToolStep, JsonObject, ToolCallFacts, ToolCallResult, ToolResultStatus } from '../events.js';
import { clipped, visible, visibleJson, visibleOneLine } from '../safe-text.js';
import { flagOption } from '../option-values.js';
import { UnnamedCalls, callGroup } from '../unnamed-calls.js';

/** Options of the text core. */
export interface TextOptions {
  /** The whole transcript, written as it arrives, instead of each session's final message. */
  all?: boolean;
  /** With `all`: one line per tool call (default true, as `ndjson-text --all`). */
  tools?: boolean;
  /** With `all`: the thinking text. */
  thinking?: boolean;
  /** With `all`: the user's prompt (default true, as `ndjson-text --all`). */
  user?: boolean;
  /** Colour the parts that are not assistant text (ANSI SGR). */
  color?: boolean;
  /** Write control characters as they are instead of making them visible. */
  raw?: boolean;
  /** Called for each flush whose text differs from the deltas before it: not shown, the deltas are the text. */
  onFlushMismatch?: (mismatch: FlushMismatch) => void;
}

/** What the core learnt about one session, for the exit status and the notes on stderr. */
export interface SessionText extends SessionEnd {
  /**
   * The session's last result, if it had one: the event itself when the run
   * failed or the result is its only text; otherwise only where it was
   * (see `placeOf`), so that a long log's results are not all kept.
   */
  result?: EventRecord;
  /** How many `assistant` records of the run carried new text (deltas the reader joined count once). */
  texts: number;
  /** How many tool calls (started or completed events) the run made. */
  toolCalls: number;
  /**
   * Default mode: the new assistant text since the run's last tool call, not
   * yet printed. Its final message once it has ended, until it is printed (as
   * its result is read, or at the end of the input): then empty, for the
   * message is written out, not kept. Its length in `written`.
   */
  final: string;
  /** How many characters of the run's text were written (default mode: its final message). */
  written: number;
}

interface SessionState extends SessionText {
  /** Default mode: the session has been printed (its label, and its final message if it had one). */
  printed: boolean;
  /** Default mode: the id of the Claude Code message the text of {@link SessionText.final} is of, when it is one's. */
  finalMessage?: string;
  /** Tool calls started and not yet completed, by call id (made with the first). */
  pending?: Map<string, StartedCall>;
  /** Those of {@link pending} started without an id, as completions find them (made with the first). */
  unnamed?: UnnamedCalls;
  /** The run has had an event that shows it ran (see showsRun): an `init` now starts another. */
  ran: boolean;
  /** The run has written text or made a tool call (see saidNothing). */
  said: boolean;
  /** Earlier runs of the session the verdict speaks of (failed, without a result, or without a final message), in order. */
  earlier?: SessionText[];
}

/**
 * True when a run wrote text or made tool calls, and none of its text was
 * written out (default mode: it had no final message, as when it ended on a
 * tool call).
 */
export function noFinalMessage(s: SessionText): boolean {
  return s.written === 0 && (s.texts > 0 || s.toolCalls > 0);
}

/**
 * True when a session's run wrote no text and made no tool call: its result,
 * when it has one, is all it said (a lone result, as `--output-format json`
 * gives), and its text is the answer.
 */
function saidNothing(s: SessionState): boolean {
  return !s.said;
}

/**
 * A session settled: its run ended well, its result was only its place, and
 * nothing of it waits to be printed. A long log has one for nearly every
 * session, kept until the end for the verdict (which says nothing of them)
 * and in case the session goes on: these numbers are all its state held
 * (its result's place is made again from them): 182 bytes a session, its
 * id and its entry in the map included, against 342.
 * The session's next event makes it a {@link SessionState} again.
 */
class SettledSession extends Settled<SessionState> {
  constructor(
    readonly source: string,
    readonly line: number,
    readonly texts: number,
    readonly toolCalls: number,
    readonly written: number,
    readonly printed: boolean,
  ) {
    super();
  }

  /** The session's state, as it was when it settled. */
  state(session: string): SessionState {
    const { source, line, texts, toolCalls, written, printed } = this;
    return { session, source, line, failed: false, texts, toolCalls, final: '', written, printed, ran: true, said: true, result: placeRecord(source, line, 'result') };
  }
}

/** A tool call as its line shows it, from the shared tool-call accessors. */
export interface ToolCallLine {
  /** The tool's name: `read`, `shell`, a function's name. */
  name: string;
  /** What the call acted on: the command, pattern, path, URL or MCP tool; '' when none is known. */
  target: string;
  /** How it ended: a result variant, `not completed`, or undefined for a completion with no result. */
  status?: ToolResultStatus | 'not completed';
  /** A short detail: `54 lines`, `exit 1`, `+3 -1`, or why it failed. */
  detail?: string;
  /** How a call that failed ended, beside why: `exit 3`, `killed by SIGTERM`. */
  ended?: string;
}

const FAILED_WORD: Partial<Record<string, string>> = {
  error: 'error',
  rejected: 'rejected',
  spawnError: 'spawn error',
  failure: 'failed',
};

const MAX_FIELD = 200;

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/**
 * The first string argument, for tools of unknown kind (a function's `query`,
 * say); a task's `description` (Claude Code's `Task` names its sub-agent's
 * kind first).
 */
function firstStringArg(name: string, args: JsonObject | undefined): string {
  if (args === undefined) return '';
  if (typeof args.description === 'string' && args.description !== '' && toolNameKey(name) === 'task') return args.description;
  for (const key in args) {
    const v = args[key];
    if (typeof v === 'string' && v !== '' && key !== 'toolCallId') return v;
  }
  return '';
}

/** What a tool line keeps of a started call until it completes: see {@link startedCall}. */
export interface StartedCall {
  /** The tool's name. */
  name: string;
  /** What its arguments say (toolCallFacts without a result). */
  facts: ToolCallFacts;
  /** Its first string argument, when those facts name no target ('' otherwise). */
  firstArg: string;
  /** What its line is indented with: two spaces for a call of a sub-agent (Claude Code's), else none. */
  indent?: string;
  /** The id of the call whose sub-agent made it (Claude Code's `parent_tool_use_id`). */
  parent?: string;
}

/** The target a call's facts name: its command, pattern, path, URL or MCP tool. */
function factsTarget(facts: ToolCallFacts): string | undefined {
  const mcp = facts.mcpServer && facts.mcpTool ? `${facts.mcpServer}/${facts.mcpTool}` : (facts.mcpTool ?? facts.mcpServer);
  return facts.command ?? facts.pattern ?? facts.path ?? facts.url ?? mcp;
}

/**
 * What a tool line needs of a started call's arguments, read when it starts,
 * so that nothing keeps the arguments themselves (a file's contents, or the
 * bytes of the line they are still to be read from) until it completes.
 */
export function startedCall(name: string, args: JsonObject | undefined): StartedCall {
  const facts = toolCallFacts(name, args, undefined);
  // Facts that name a target still name it once the result is added: the first string argument is never read then.
  return { name, facts, firstArg: factsTarget(facts) === undefined ? firstStringArg(name, args) : '' };
}

/** What the line of a call of Claude Code's dialect is indented with (see StartedCall.indent). */
function indentOf(step: ClaudeToolStep): string {
  return step.parentCallId !== undefined ? '  ' : '';
}

/** A session's run is over: no call of it is waiting any more. */
function forgetCalls(s: SessionState): void {
  s.pending = undefined;
  s.unnamed = undefined;
}

/** How the keys of pending calls start: those started with an id, and those without, told apart by their order. */
const WITH_ID = 'i';
const ANONYMOUS = 'a';

/**
 * What a tool line says of a call, from its name, its arguments (or, when the
 * completed event has none, what `started` kept of the started event's) and
 * its result.
 */
export function toolCallLine(name: string, args: JsonObject | undefined, result: ToolCallResult | undefined, started?: StartedCall): ToolCallLine {
  const fromStart = args === undefined ? started : undefined;
  const facts = toolCallFacts(name, args, result, fromStart?.facts);
  const target = factsTarget(facts) ?? (fromStart !== undefined ? fromStart.firstArg : firstStringArg(name, args));
  const line: ToolCallLine = { name, target, status: result?.status };
  if (result === undefined) return line;
  if (FAILED_WORD[result.status] !== undefined) {
    // Why, and how a command that ran ended, when the event says.
    line.detail = facts.reason;
    line.ended = facts.exitCode !== undefined ? `exit ${facts.exitCode}` : facts.signal !== undefined ? `killed by ${facts.signal}` : undefined;
  } else if (facts.exitCode !== undefined) {
    line.detail = `exit ${facts.exitCode}`;
  } else if (facts.signal !== undefined) {
    line.detail = `killed by ${facts.signal}`;
  } else if (facts.linesRead !== undefined) {
    line.detail = plural(facts.linesRead, 'line');
  } else if (facts.linesWritten !== undefined) {
    line.detail = plural(facts.linesWritten, 'line');
  } else if (facts.linesAdded !== undefined || facts.linesRemoved !== undefined) {
    line.detail = `+${facts.linesAdded ?? 0} -${facts.linesRemoved ?? 0}`;
  }
  return line;
}

/**
 * One line for a tool call: `→ read src/app.ts (54 lines)`, `→ shell npm test
 * (exit 1)`, `✗ write .env rejected`, `✗ shell npm run lint failed: exit 2`.
 * The arrow says the call ran (a command that exits 1 did run); the cross
 * says it did not do its work.
 */
export function formatToolLine(line: ToolCallLine, safeLine: (s: string) => string): string {
  const failed = line.status !== undefined ? FAILED_WORD[line.status] : undefined;
  let out = `${failed !== undefined ? '✗' : '→'} ${safeLine(clipped(line.name || 'tool', MAX_FIELD))}`;
  if (line.target) out += ` ${safeLine(clipped(line.target, MAX_FIELD))}`;
  if (failed !== undefined) {
    out += ` ${failed}`;
    // The first line of why (an error's whole output may follow), then how it ended, whatever the lines of why.
    const why = line.detail === undefined ? '' : clipped(firstLine(line.detail), MAX_FIELD);
    const detail = [why, line.ended ?? ''].filter((part) => part !== '').join(', ');
    if (detail) out += `: ${safeLine(detail)}`;
  } else if (line.status === 'not completed') {
    out += ' (not completed)';
  } else if (line.detail) {
    out += ` (${safeLine(line.detail)})`;
  }
  return out;
}

/**
 * The first line of `text` that is not blank, trimmed, and ` …` after it
 * when more follows (an error's whole output, as Claude Code answers a
 * command that failed): a tool line is one line.
 */
function firstLine(text: string): string {
  const first = /\S[^\r\n]*/.exec(text);
  if (first === null) return '';
  const more = /\S/.test(text.slice(first.index + first[0].length));
  return `${first[0].trimEnd()}${more ? ' …' : ''}`;
}

/** True when a tool line reports a call that did not do its work. */
export function toolLineFailed(line: ToolCallLine): boolean {
  return line.status !== undefined && FAILED_WORD[line.status] !== undefined;
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

/** A flat copy of a string built by appending many pieces. */
function flatString(s: string): string {
  return Buffer.from(s, 'utf8').toString('utf8');
}

/** The key of what a block of `kind` of `session` held back (see Transcript.held). */
function heldKey(kind: Block, session: string): string {
  return `${kind}\u0000${session}`;
}

/** True when the last character of `text` is held back (see Transcript.held): a `\r`, or the first half of a surrogate pair. */
function holdsBack(text: string): boolean {
  const last = text.charCodeAt(text.length - 1);
  return last === 13 || (last >= 0xd800 && last <= 0xdbff);
}

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
  /**
   * The line written last was ended outside (see {@link lineBroken}): the
   * next line end written is that one, and text written before one starts a
   * new line, with its prefix.
   */
  private broken = false;
  private started = false;
  /** The first session an event named (see {@link saw}). */
  private firstSession: string | null = null;
  private block: Block | null = null;
  /** The session of the last block written. */
  private blockSession: string | null = null;
  /** The text or thinking block may go on with the next delta. */
  private open = false;
  /** Nothing but newlines written in the current block yet: leading newlines are dropped. */
  private fresh = true;
  /**
   * The last character of a session's text, or of its thinking, held back
   * until its next delta of that text (thinking), whatever comes between: a
   * `\r` the next delta may end as `\r\n` (a line end, not a control
   * character to make visible), or the first half of a character the next
   * delta ends (a surrogate pair split between deltas). By kind and session
   * (see {@link heldKey}). The session's tool line or prompt, the end of its
   * run, or the end of the input writes it first, as it is; so does the
   * session's next text or thinking block, a `\r` it makes no line end of,
   * when the block that held it is still the last written (see endHeldCr).
   */
  private readonly held = new Map<string, string>();

  constructor(
    private readonly emit: Emit,
    private readonly color: boolean,
    private readonly safe: (s: string) => string,
    private readonly safeLine: (s: string) => string,
  ) {}

  /** An event of `session` was read (one without an id, of no session yet, is none). */
  saw(session: string): void {
    if (this.firstSession === null && session !== '') this.firstSession = session;
  }

  /** True when the block of `kind` for `session` is the open one, so text continues it. */
  isOpen(kind: Block, session: string): boolean {
    return this.open && this.block === kind && this.blockSession === session;
  }

  /** Ends the open text or thinking block of `session` (at a tool call, a flush), or only its block of `kind` (a completed thought). */
  close(session: string, kind?: Block): void {
    if (this.blockSession === session && (kind === undefined || this.block === kind)) this.open = false;
  }

  /** `session` runs again: its next block starts under its label, as another session's would. */
  newRun(session: string): void {
    this.writeHeld(session);
    if (this.blockSession !== session) return;
    this.blockSession = null;
    this.open = false;
  }

  /** Starts a block: a label when the session changed, then the separator the two blocks need. */
  private begin(kind: Block, session: string): void {
    // A tool line or a prompt: what the session's text or thinking held goes before it.
    if (kind === 'tool' || kind === 'user') this.writeHeld(session);
    // The first block is under a label too when another session was seen before it (their inits): unlabelled, it would
    // be taken for that session's.
    const another = this.started ? this.blockSession !== session : this.firstSession !== null && this.firstSession !== session;
    if (another) {
      this.separate(2);
      const label = sessionLabel(session, this.safeLine);
      this.emit(this.color ? `${BLOCK_COLOR.label}${label}${SGR.reset}\n` : `${label}\n`);
      this.nl = 1;
      this.broken = false;
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

  /**
   * Writes what `session`'s text and thinking held back (see {@link held})
   * as it is: in the block written last when it is the one that held it
   * (first), else in a block of its own.
   */
  private writeHeld(session: string): void {
    if (this.held.size === 0) return;
    const kinds = this.block === 'thinking' && this.blockSession === session ? (['thinking', 'text'] as const) : (['text', 'thinking'] as const);
    for (const kind of kinds) {
      const key = heldKey(kind, session);
      const text = this.held.get(key);
      if (text === undefined) continue;
      this.held.delete(key);
      if (this.block !== kind || this.blockSession !== session) this.begin(kind, session);
      this.write(kind, text);
    }
  }

  /**
   * True when `text`, the start of `session`'s next block of `kind`, is, with
   * what the block held back, only line ends (`\n`, `\r\n`), perhaps with a
   * last character to hold back: a new block would be nothing (leading line
   * ends are dropped, see {@link write}), nor a label over nothing. What is
   * held is then that last character.
   */
  private onlyLineEnds(kind: Block, session: string, text: string): boolean {
    // Nothing held, and a first character that is no line end nor one to hold alone: text to write.
    const first = text.charCodeAt(0);
    if (this.held.size === 0 && first !== 10 && first !== 13 && !(text.length === 1 && holdsBack(text))) return false;
    const key = heldKey(kind, session);
    const full = (this.held.get(key) ?? '') + text;
    const hold = holdsBack(full) ? 1 : 0;
    const end = full.length - hold;
    for (let i = 0; i < end; i++) {
      const c = full.charCodeAt(i);
      if (c === 10) continue;
      if (c === 13 && i + 1 < end && full.charCodeAt(i + 1) === 10) {
        i++;
        continue;
      }
      return false;
    }
    if (hold === 1) this.held.set(key, full.slice(-1));
    else this.held.delete(key);
    return true;
  }

  /**
   * Before `text` starts a new block of `kind` for `session`: a `\r` the
   * session's last written block held back (its text's, or its thinking's),
   * that `text` does not make a line end of (`\r\n`: only the next delta of
   * the same kind can), is written there first (a tool call came between,
   * its line not shown, or a thought ended): it ends that paragraph, not the
   * next.
   */
  private endHeldCr(kind: Block, session: string, text: string): void {
    const last = this.block;
    if (this.held.size === 0 || this.blockSession !== session || (last !== 'text' && last !== 'thinking')) return;
    if (last === kind && text.charCodeAt(0) === 10) return;
    const key = heldKey(last, session);
    if (this.held.get(key) !== '\r') return;
    this.held.delete(key);
    this.write(last, '\r');
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
    this.broken = false;
  }

  /** The line being written was ended outside the core (see ToolCore.lineBroken). */
  lineBroken(): void {
    if (this.nl === 0) this.broken = true;
  }

  /** Writes a piece of the current block's text: assistant text, thinking or a prompt (see {@link held}). */
  private body(kind: Block, text: string): void {
    if (kind === 'user') {
      this.write(kind, text);
      return;
    }
    // Most deltas neither find nor leave anything held: no key is made for them.
    if (this.held.size > 0) {
      const key = heldKey(kind, this.blockSession!);
      const before = this.held.get(key);
      if (before !== undefined) {
        this.held.delete(key);
        text = before + text;
      }
    }
    if (holdsBack(text)) {
      this.held.set(heldKey(kind, this.blockSession!), text.slice(-1));
      text = text.slice(0, -1);
      if (text.length === 0) return;
    }
    this.write(kind, text);
  }

  /** Writes a piece of a block's text, made safe. */
  private write(kind: Block, text: string): void {
    let s = this.safe(text);
    if (this.fresh) {
      // The blank line before the block already separates it; leading newlines (`\r\n` too) would only widen the gap.
      let i = 0;
      for (;;) {
        if (s.charCodeAt(i) === 10) i++;
        else if (s.charCodeAt(i) === 13 && s.charCodeAt(i + 1) === 10) i += 2;
        else break;
      }
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
    // A line ended outside: text that does not end it first (its line end is the one owed) starts the next line.
    let atStart = this.nl > 0 || (this.broken && s.charCodeAt(0) !== 10 && !(s.charCodeAt(0) === 13 && s.charCodeAt(1) === 10));
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
    if (!(continues && this.isOpen('text', session))) {
      // Only newlines would be dropped as a new block's leading ones: no block, nor a label with nothing under it.
      if (this.onlyLineEnds('text', session, text)) return;
      this.endHeldCr('text', session, text);
      this.begin('text', session);
    }
    this.body('text', text);
  }

  /** Thinking text: continues the open thinking block of the session, or starts one. */
  thinking(session: string, text: string): void {
    if (text.length === 0) return;
    if (!this.isOpen('thinking', session)) {
      if (this.onlyLineEnds('thinking', session, text)) return;
      this.endHeldCr('thinking', session, text);
      this.begin('thinking', session);
    }
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
    this.broken = false;
  }

  /** Ends the current line, if one was begun (at the end of the input), after what any session still held back. */
  endLine(): void {
    // The block written last first: what it held ends it.
    if (this.blockSession !== null) this.writeHeld(this.blockSession);
    for (const key of [...this.held.keys()]) this.writeHeld(key.slice(key.indexOf('\u0000') + 1));
    if (this.started) this.separate(1);
  }

  /**
   * At the end of `session`'s run: ends the current line when it is the
   * session's (or that of a run ended since: the next block starts on a line
   * of its own anyway), not when it is another session's text, still going.
   */
  endLineOf(session: string): void {
    this.writeHeld(session);
    if ((this.blockSession === session || this.blockSession === null) && this.started) this.separate(1);
  }
}

/**
 * The text core. Feed it every event in order; it writes as the options ask,
 * and keeps a {@link SessionText} per session for the caller's verdict.
 */
export class TextCore implements ToolCore {
  private readonly tracker = new TextTracker();
  private readonly states = new Map<string, SessionState | SettledSession>();
  /** The session being read, and its state unless it has settled. */
  private currentId = '';
  private current: SessionState | null = null;
  private transcript: Transcript | null = null;
  /** Default mode: something has been printed (a blank line goes before the next label). */
  private printedAny = false;
  /** Default mode: a session ran again (see {@link runsApart}): every run is printed under a label. */
  private resumed = false;
  /** Calls started without an id so far (see toolEvent). */
  private anonymous = 0;
  private readonly safe: (s: string) => string;
  private readonly safeLine: (s: string) => string;

  private readonly options: TextOptions;

  constructor(given: TextOptions = {}) {
    const options: TextOptions = { ...given };
    for (const flag of ['all', 'tools', 'thinking', 'user', 'color', 'raw'] as const) options[flag] = flagOption(given[flag], flag);
    // As the command refuses it (a usage error): it would be ignored.
    const extra = options.all ? undefined : (['tools', 'user', 'thinking'] as const).find((k) => options[k] === true);
    if (extra !== undefined) throw new TypeError(`option ${extra} needs all`);
    // As the command has it: with `all`, the tool lines and the prompt unless turned off.
    this.options = { ...options, tools: options.tools ?? true, user: options.user ?? true };
    this.safe = options.raw ? (s) => s : visible;
    this.safeLine = options.raw ? (s) => s : visibleOneLine;
  }

  /** Every session seen, in the order it was first seen. */
  get sessions(): SessionText[] {
    const all: SessionText[] = [];
    for (const [id, s] of this.states) {
      if (s instanceof SettledSession) all.push(s.state(id));
      else all.push(...(s.earlier ?? []), s);
    }
    return all;
  }

  /**
   * Which events are read in full: assistant text, results and `system`
   * events (a session's `init` starts a run again) always; tool calls,
   * prompts and thinking only when the transcript shows them. Other lines
   * count by their type and session alone, unparsed.
   */
  needs(type: string): boolean {
    switch (type) {
      case 'assistant':
      case 'result':
      case 'system':
        return true;
      case 'tool_call':
        return this.options.all === true && this.options.tools === true;
      case 'user':
        // A prompt, or the answers to Claude Code's tool calls (`tool_result` blocks).
        return this.options.all === true && (this.options.user === true || this.options.tools === true);
      case 'thinking':
        return this.options.all === true && this.options.thinking === true;
      default:
        return false;
    }
  }

  /** Text deltas in a row are read as one: what the core makes of them is their text, taken together. */
  readonly joinsDeltas = true;

  /** Tool calls are skim-parsed: a tool line reads their arguments and figures, not their payloads. */
  skim(type: string): boolean {
    return type === 'tool_call';
  }

  /**
   * Of the events of the agent at work it does not read, all but tool calls
   * (each ends a stretch of text) only say where their session was last
   * seen. Not another type's (a wrapper's line): a run of lines is handed
   * over as its first and last, which must tell the same as those between
   * them (see isRunActivity).
   */
  passes(type: string): boolean {
    return !this.needs(type) && type !== 'tool_call' && isRunActivity(type);
  }

  record(rec: EventRecord, emit: Emit): void {
    let field = recordSessionField(rec);
    // A line handed over unparsed that, parsed for its session, is not JSON after all: reported, and skipped as such lines are.
    if (recordBroken(rec)) return;
    const type = recordType(rec);
    // Before any session, an event without a session id that is not the run's (a wrapper's status line, a hook's) starts none.
    if (field === undefined && this.states.size === 0 && !opensSession(type, rec.event)) return;
    // A line handed over unparsed that would open a session, or start its run again: an event only if it parses; then of
    // the session its event names (one broken after its object, `{…}},"session_id":"t"}`, the object's, as read in full).
    if (this.opens(field, type)) {
      if (!recordSound(rec)) return;
      field = recordSessionField(rec);
    }
    const s = this.enter(field, type === 'system' && isSystemInit(rec.event), isRunActivity(type), showsRun(type), rec.source, rec.line, emit);
    const id = s.session;
    const out = this.options.all ? (this.transcript ??= this.makeTranscript(emit)) : null;
    out?.saw(id);
    switch (type) {
      case 'assistant': {
        const event = rec.event;
        const text = messageText(event);
        const verdict = this.tracker.assistant(event, text);
        if (verdict === 'mismatch') this.options.onFlushMismatch?.(flushMismatch(this.tracker, rec, id, text));
        // Claude Code's thinking: blocks of its messages, before their text.
        if (out && this.options.thinking && verdict !== 'duplicate' && verdict !== 'mismatch') {
          const thought = messageThinking(event);
          if (thought.length > 0) {
            out.thinking(id, thought);
            out.close(id);
          }
        }
        // A sub-agent's text (Claude Code's) is shown in the transcript, but is no part of the final message: the agent's own
        // answer follows the call that ran it.
        if ((verdict === 'delta' || verdict === 'only-copy') && text.length > 0 && (out !== null || !isSubagentMessage(event))) {
          s.texts++;
          s.said = true;
          if (out) {
            s.written += text.length;
            out.text(id, text, verdict === 'delta');
          } else {
            // Claude Code's answer (its result) is its last message alone: a message of another id starts it again
            // (a hook that has the model go on writes a second after the first).
            const message = claudeMessageId(event);
            if (message !== undefined && message !== s.finalMessage) s.final = '';
            s.finalMessage = message;
            s.final += text;
          }
        }
        // A flush ends the stretch, and a complete message stands alone: the next text is a new block.
        if (verdict !== 'delta') out?.close(id);
        if (hasToolUseBlock(event)) {
          // Claude Code's calls: each `tool_use` block a call started, its line written when its `tool_result` comes.
          // A sub-agent's calls are indented under the text (the line of the call that runs it comes once that ends).
          if (out && this.options.tools) {
            for (const step of claudeToolSteps(event, writtenValues(rec))) {
              this.callStarted(s, step.callId, step.entry?.name ?? '', step.entry && toolCallArgs(step.entry).args, indentOf(step), step.parentCallId);
            }
          }
          // A sub-agent's call (Claude Code's) is a step of the call that runs it: the agent's own answer so far stands.
          this.toolCallSeen(s, field, out, out !== null || !isSubagentMessage(event));
        }
        return;
      }
      case 'tool_call':
        this.toolCallSeen(s, field, out);
        if (out && this.options.tools) this.toolEvent(s, rec, out);
        return;
      case 'thinking':
        if (out && this.options.thinking) {
          const event = rec.event;
          // A thought completed ends the session's thinking block, not its text (a thought with no text shows nothing).
          if (eventSubtype(event) === 'completed') out.close(id, 'thinking');
          else out.thinking(id, thinkingText(event));
        }
        return;
      case 'user':
        if (out && this.options.user) out.user(id, messageText(rec.event));
        // The answers to Claude Code's calls: a line for each.
        if (out && this.options.tools) {
          for (const step of claudeToolSteps(rec.event, writtenValues(rec))) if (step.phase === 'completed') this.callCompleted(s, step.callId, undefined, undefined, step.result, out, indentOf(step));
        }
        return;
      case 'result': {
        const event = rec.event;
        // A second result with no `init` between (a log of `--output-format json` runs of a resumed session) is another run,
        // as in ndjson-result --all: the one before is printed, and kept for the verdict if it failed.
        if (s.result !== undefined) {
          this.runAgain(s, emit);
          // This run has run: its result shows it (an `init` after it starts another).
          s.ran = true;
        }
        this.tracker.result(event);
        s.failed = resultFailed(event);
        // Read later only for a failed run's message, or as the text of a lone result (json output).
        s.result = s.failed || saidNothing(s) ? retainRecord(rec) : placeOf(rec);
        s.source = rec.source;
        s.line = rec.line;
        if (out) this.endSession(s, out);
        else if (this.labelled) this.print(s, emit);
        // The lone session so far waits for the end of the input or a second session: one flat string, not the chain of every delta it was built from.
        else if (s.final.length > 0) s.final = flatString(s.final);
        this.settle(s);
        return;
      }
      default:
        return;
    }
  }

  /** `--all`: a transcript stopped at a bad line under `--strict` ends the line it was in. */
  halt(): void {
    this.transcript?.endLine();
  }

  /** `--all`: a warning ended the transcript's line (see ToolCore.lineBroken). */
  lineBroken(): void {
    this.transcript?.lineBroken();
  }

  end(emit: Emit): void {
    if (this.options.all) {
      const out = this.transcript;
      if (out === null) return;
      for (const s of this.states.values()) if (!(s instanceof SettledSession) && s.result === undefined) this.unfinished(s, out);
      out.endLine();
      return;
    }
    // Runs that never ended, and text written since a run ended, in the order their sessions were first seen.
    for (const s of this.states.values()) if (!(s instanceof SettledSession) && (!s.printed || s.final.length > 0)) this.print(s, emit);
  }

  /**
   * Makes a session whose result was just read a {@link SettledSession} when
   * nothing of it is left to print or say: a run that ended well, with its
   * result kept only as a place, no call left pending, and, by default, its
   * final message printed (or none to print).
   */
  private settle(s: SessionState): void {
    if (s.failed || saidNothing(s) || s.pending !== undefined || s.final.length > 0 || s.earlier !== undefined) return;
    if (!this.options.all && !s.printed) return;
    this.states.set(s.session, new SettledSession(s.source, s.line, s.texts, s.toolCalls, s.written, s.printed));
    this.current = null;
  }

  /**
   * Default mode: the input holds more than one session, so each final
   * message is printed under a label. Until a second session is seen, the
   * first one's message waits, so that a lone session is printed bare.
   */
  private get labelled(): boolean {
    return this.states.size > 1 || this.resumed;
  }

  /** True when an event of `type` naming `field` would open a session, or start its run again after its result. */
  private opens(field: string | undefined, type: string): boolean {
    const s = this.states.get(field ?? this.currentId);
    return s === undefined || ((s instanceof SettledSession || s.result !== undefined) && isRunActivity(type));
  }

  /**
   * A value cut short (`truncated`): the agent died writing an
   * event, of the session the line names (see tornSession) or else of the
   * session being read. Its run did not end where a result read before says
   * it did: that result is not the run's verdict.
   */
  problem(p: InputProblem, emit: Emit): void {
    if (p.reason !== 'truncated') return;
    const field = tornSession(p.raw);
    if (field === undefined && this.states.size === 0) return;
    this.enter(field, false, true, true, p.source, p.line, emit);
  }

  /**
   * The state of the session an event at `source:line` names (`field`; none:
   * the session being read), made the session being read. The event starts
   * its run again (`init`), or is the run at work (`activity`): after the
   * session's result, a run that result does not answer for. `shows`: the
   * event shows the session has run (see showsRun), so that an `init` after
   * it starts another run.
   */
  private enter(
    field: string | undefined,
    init: boolean,
    activity: boolean,
    shows: boolean,
    source: string,
    line: number,
    emit: Emit,
  ): SessionState {
    // Events without a session id belong to the session being read: to the partial-output rule too.
    const id = this.tracker.sessionFor(field ?? this.currentId);
    let s = this.current !== null && this.currentId === id ? this.current : sessionState(this.states, id);
    if (s !== undefined) {
      // After its result, the agent at work again without an `init` is a run the result does not answer for.
      if (!init && s.result !== undefined && activity) this.runAgain(s, emit);
      // An init after events that show a run (not the hooks that come before it, nor an init alone) starts another.
      if (init && s.ran) this.runAgain(s, emit);
      else if (shows) s.ran = true;
    }
    if (s === undefined) {
      s = {
        session: id,
        source,
        line,
        failed: false,
        texts: 0,
        toolCalls: 0,
        final: '',
        written: 0,
        printed: false,
        ran: shows,
        said: false,
      };
      this.states.set(id, s);
      if (this.states.size === 2 && !this.options.all) this.labelFirst(emit);
    }
    if (s.result === undefined) {
      s.source = source;
      s.line = line;
    }
    this.currentId = id;
    this.current = s;
    return s;
  }

  /**
   * A session's `init` after its events, or a second result with none
   * between: the session runs again (`--resume`, or the same log appended
   * twice). The run before it is done with: what it
   * left unprinted is printed (by default under a label, as each run is from
   * now on), its calls never completed are shown (`--all`), a failed run, or
   * one that stopped without a result, is kept for the verdict (every run
   * counts, as with ndjson-result --all), and the run's state starts afresh
   * (the counts are the session's, over all its runs).
   */
  private runAgain(s: SessionState, emit: Emit): void {
    if (this.options.all) {
      if (this.transcript !== null) {
        this.unfinished(s, this.transcript);
        this.transcript.newRun(s.session);
      }
    } else {
      this.runsApart(s, emit);
    }
    // Failed, stopped without a result, or (default mode) ended with no final message: the verdict says so.
    if (s.result === undefined || s.failed || (!this.options.all && noFinalMessage(s))) this.keepRun(s);
    this.tracker.result({ session_id: s.session });
    s.result = undefined;
    s.failed = false;
    s.final = '';
    s.printed = false;
    s.texts = 0;
    s.toolCalls = 0;
    s.written = 0;
    forgetCalls(s);
    s.ran = false;
    s.said = false;
  }

  /** Default mode: from now on every run is printed under a label; what `s`'s run left unprinted is printed now. */
  private runsApart(s: SessionState, emit: Emit): void {
    this.resumed = true;
    if (!s.printed || s.final.length > 0) this.print(s, emit);
  }

  /** Keeps the run `s` is done with for the verdict. */
  private keepRun(s: SessionState): void {
    const { session, source, line, failed, result, texts, toolCalls, written } = s;
    (s.earlier ??= []).push({ session, source, line, failed, result, texts, toolCalls, final: '', written });
  }

  /** Default mode: a second session was seen, so the first is labelled, and printed now if its run has ended. */
  private labelFirst(emit: Emit): void {
    // Once a session has run again, every run has been printed under its label as it ended.
    if (this.resumed) return;
    const first = this.states.values().next().value;
    if (first !== undefined && !(first instanceof SettledSession) && first.result !== undefined) this.print(first, emit);
  }

  /** Default mode: prints a session's final message (under its label when there are several), and forgets it. */
  private print(s: SessionState, emit: Emit): void {
    const text = this.finalText(s);
    s.printed = true;
    s.final = '';
    // A run without a final message prints nothing, not even its label: the note on stderr says why.
    if (text === undefined) return;
    if (this.labelled) {
      const head = sessionLabel(s.session, this.safeLine);
      emit(`${this.printedAny ? '\n' : ''}${this.options.color ? `${SGR.bold}${head}${SGR.reset}` : head}\n`);
    }
    this.printedAny = true;
    s.written += text.length;
    emit(`${this.safe(text)}\n`);
  }

  /** The final message of a session in default mode, or undefined when it has none. */
  private finalText(s: SessionState): string | undefined {
    if (s.final.length > 0) return s.final;
    // `--output-format json` is a lone result: its text is the answer.
    if (saidNothing(s) && s.result !== undefined && !s.failed) {
      const text = this.loneResultText(s.result);
      if (text !== undefined && text.length > 0) return text;
    }
    return undefined;
  }

  /**
   * The text of a lone result (`--output-format json`): a value other than a
   * string is its compact JSON, made visible as JSON still reads it
   * (`\u009b`, not `\x9b`: see visibleJson), unless `raw`.
   */
  private loneResultText(rec: EventRecord): string | undefined {
    const event = rec.event;
    const text = resultText(event, rec.raw);
    return text === undefined || this.options.raw || typeof event.result === 'string' ? text : visibleJson(text);
  }

  private makeTranscript(emit: Emit): Transcript {
    return new Transcript((data) => emit(data), this.options.color === true, this.safe, this.safeLine);
  }

  /**
   * A tool call ends the session's stretch of text: what follows it is a new
   * message. `field` is the event's own `session_id`, all the tracker reads of
   * it, so that a tool call line need not be parsed. A sub-agent's call
   * (Claude Code's) counts as the run's doing, but does not end the final
   * message (`endsFinal` false): it is a step of the call that runs it.
   */
  private toolCallSeen(s: SessionState, field: string | undefined, out: Transcript | null, endsFinal = true): void {
    this.tracker.toolCall(field === undefined ? {} : { session_id: field });
    s.toolCalls++;
    s.said = true;
    if (endsFinal) s.final = '';
    out?.close(s.session);
  }

  /** A tool call event: remembered when started, one line when completed. */
  private toolEvent(s: SessionState, rec: EventRecord, out: Transcript): void {
    const event = rec.event;
    const entry = toolCallEntry(event);
    if (entry === undefined) return;
    const id = toolCallId(event, entry, writtenValues(rec));
    const phase = toolCallPhase(event);
    const args = toolCallArgs(entry).args;
    if (phase === 'started') this.callStarted(s, id, entry.name, args);
    else if (phase === 'completed') this.callCompleted(s, id, entry.name, args, toolCallResult(entry), out);
  }

  /** A call started (`name` its tool, '' when it names none; `indent`, see StartedCall): remembered until it completes. */
  private callStarted(s: SessionState, id: string | undefined, name: string, args: JsonObject | undefined, indent = '', parent?: string): void {
    // Calls without an id are told apart in the order they started, and paired as ndjson-tools pairs them.
    const started = startedCall(name, args);
    if (indent !== '') started.indent = indent;
    if (parent !== undefined) started.parent = parent;
    const key = id === undefined ? `${ANONYMOUS}${this.anonymous++}` : `${WITH_ID}${id}`;
    (s.pending ??= new Map()).set(key, started);
    if (id === undefined) (s.unnamed ??= new UnnamedCalls()).add(key, callGroup(s.session, name), started.facts);
  }

  /**
   * A call completed: its line. `name`: the tool its completion names;
   * undefined when it names none (Claude Code's `tool_result`), the tool its
   * start named. `indent`: that of its start, else this.
   */
  private callCompleted(
    s: SessionState,
    id: string | undefined,
    name: string | undefined,
    args: JsonObject | undefined,
    result: ToolCallResult | undefined,
    out: Transcript,
    indent = '',
  ): void {
    const key =
      id === undefined
        ? s.unnamed?.find(callGroup(s.session, name), args === undefined ? undefined : toolCallFacts(name ?? '', args, undefined))
        : `${WITH_ID}${id}`;
    const started = key === undefined ? undefined : s.pending?.get(key);
    if (key !== undefined) {
      s.pending?.delete(key);
      s.unnamed?.delete(key);
    }
    // A completed event may carry the result without the args: the started event had them.
    const line = toolCallLine(name ?? started?.name ?? '', args, result, started);
    out.tool(s.session, `${started?.indent ?? indent}${formatToolLine(line, this.safeLine)}`, toolLineFailed(line));
    if (ranSubagent(result)) this.subagentLines(s, result, out, 1);
  }

  /**
   * Under a call that ran a sub-agent (Cursor's `task`), a line for each call
   * the sub-agent made, as its result lists them (see subagentCalls),
   * indented two spaces a level; those of a sub-agent it ran in turn under
   * it, down to MAX_SUBAGENT_DEPTH levels, and below that a line that says
   * more are not shown; a step that names no tool (see subagentCalls) says
   * so too.
   */
  private subagentLines(s: SessionState, result: ToolCallResult | undefined, out: Transcript, level: number): void {
    const indent = '  '.repeat(level);
    for (const event of subagentCalls(result)) {
      const entry = toolCallEntry(event);
      if (entry === undefined) {
        out.tool(s.session, `${indent}… (a step that names no tool, not shown)`, false);
        continue;
      }
      const own = toolCallResult(entry);
      const line = toolCallLine(entry.name, toolCallArgs(entry).args, own);
      out.tool(s.session, `${indent}${formatToolLine(line, this.safeLine)}`, toolLineFailed(line));
      if (!ranSubagent(own)) continue;
      if (level < MAX_SUBAGENT_DEPTH) this.subagentLines(s, own, out, level + 1);
      else out.tool(s.session, `${indent}  … (the calls of sub-agents nested deeper are not shown)`, false);
    }
  }

  /** The end of a session in the transcript: calls that never completed, and the text of a lone result. */
  private endSession(s: SessionState, out: Transcript): void {
    this.unfinished(s, out);
    if (saidNothing(s) && !s.failed && s.result) {
      const text = this.loneResultText(s.result);
      if (text) {
        s.written += text.length;
        out.text(s.session, text, false);
      }
    }
    out.close(s.session);
    // Another session's line may be open: it goes on.
    out.endLineOf(s.session);
  }

  private unfinished(s: SessionState, out: Transcript): void {
    if (!this.options.tools || s.pending === undefined) return;
    // A sub-agent's calls come before the line of the call that runs it, as when it completes: each call's own first
    // (those naming it their parent, still pending), then it, in the order they started.
    const pending = s.pending;
    const own = new Map<string, string[]>();
    for (const [key, call] of pending) {
      const parent = call.parent === undefined ? undefined : `${WITH_ID}${call.parent}`;
      if (parent === undefined || parent === key || !pending.has(parent)) continue;
      const keys = own.get(parent);
      if (keys === undefined) own.set(parent, [key]);
      else keys.push(key);
    }
    const written = new Set<string>();
    const write = (key: string): void => {
      if (written.has(key)) return;
      written.add(key);
      for (const child of own.get(key) ?? []) write(child);
      const call = pending.get(key)!;
      const line: ToolCallLine = { ...toolCallLine(call.name, undefined, undefined, call), status: 'not completed' };
      out.tool(s.session, `${call.indent ?? ''}${formatToolLine(line, this.safeLine)}`, false);
    };
    // In the order they started, each call whose parent is not pending, its own before it; then any left, whose parents
    // name each other.
    for (const [key, call] of pending) if (call.parent === undefined || !pending.has(`${WITH_ID}${call.parent}`)) write(key);
    for (const key of pending.keys()) write(key);
    forgetCalls(s);
  }
}
