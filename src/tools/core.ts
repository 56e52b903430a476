/**
 * ndjson-tools' core: pairs each tool call's `started` and `completed` events
 * by call id within its session, and hands every call, once complete (or, at
 * the end, still pending), to the output the options ask for: an audit record,
 * the summary, or the paths it touched; and to the checks.
 *
 * Memory: per pending call only (its facts, not its payloads, unless `full`),
 * each session's `cwd`, and for `--summary` what the summary shows.
 */
import type { EventRecord, InputProblem } from '../io/input.js';
import { ESCAPE_U, holdsBytes, recordSessionField, recordSound, recordType, tornSession } from '../io/input.js';
import type { ToolCore, Emit } from '../io/tool-stream.js';
import {
  addOtherFacts,
  argumentsKey,
  claudeToolSteps,
  permissionDenials,
  nearToolName,
  isRunEvent,
  isObject,
  otherToolEntries,
  otherArgs,
  isSystemInit,
  str,
  MAX_SUBAGENT_DEPTH,
  ranSubagent,
  subagentCalls,
  toolCallArgs,
  toolCallEntry,
  toolCallFacts,
  toolCallId,
  toolCallPhase,
  toolCallResult,
  toolCallTimes,
  toolKind,
  toolNameKey,
  unreadToolCalls,
  writtenValues,
} from '../events.js';
import type { JsonObject, ToolCallArgs, ToolCallEntry, ToolCallFacts, ToolCallResult, WrittenOf } from '../events.js';
import type { AuditedCall, CallStatus } from './call.js';
import { CALL_STATUSES, callIsTool, toolNameMatched, toolNameSet } from './call.js';
import { choiceList, choiceOption, flagOption, namesOption } from '../option-values.js';
import { isWindowsCwd, resolvePath, samePath } from './paths.js';
import { Policy } from './policy.js';
import type { PolicyOptions, Violation } from './policy.js';
import { formatViolation } from './policy.js';
import { REASON_MAX, auditRecord, safeJsonLine, writtenJsonLine } from './record.js';
import { PATHS_CHOICES, PathSet, Summary, listedPaths } from './summary.js';
import type { PathsChoice } from './summary.js';
import { clipped, visibleOneLine } from '../safe-text.js';
import { KeySets, UnnamedCalls, callGroup } from '../unnamed-calls.js';
import { exactJsonText, holdsNumber, maySpellNumbers, writtenNumbers, writtenPlaces } from '../json-text.js';

/** Options of the tools core. */
export interface ToolsOptions extends PolicyOptions {
  /** `--summary`: the summary at the end instead of records. */
  summary?: boolean;
  /** With `summary`: as JSON. */
  json?: boolean;
  /** `--paths`: the unique paths the calls touched, one a line, instead of records. */
  paths?: PathsChoice;
  /** With `paths`: each path ended by a NUL byte, as written (see listPaths). */
  nullEnded?: boolean;
  /** With `nullEnded`: called for a path holding a NUL byte, which is not listed. */
  onNulPath?: (path: string, call: AuditedCall) => void;
  /** Paths resolved against the session's `cwd`. */
  absolute?: boolean;
  /** Records carry the calls' `args` and `result`. */
  full?: boolean;
  /** Keep only calls of these tools (names or kinds, any case). */
  tools?: readonly string[];
  /** Keep only calls with these statuses. */
  statuses?: readonly CallStatus[];
  /** Called for each broken check, in order. */
  onViolation?: (v: Violation) => void;
  /**
   * Called once, at the first call none of whose `tool_call` events names a
   * tool the audit can find (see toolCallEntry): such a call is audited with
   * no tool, kind `other` and no paths, which no check could fail.
   */
  onUnknownCalls?: (source: string, line: number) => void;
  /**
   * Called once, at the first result listing the calls of a sub-agent nested
   * deeper than MAX_SUBAGENT_DEPTH levels, which are not audited.
   */
  onDeepSubagent?: (source: string, line: number) => void;
  /**
   * Called once, at the first start of a call started more than MAX_STARTS
   * times (`callId` undefined: a call with no id), which is not read.
   */
  onManyStarts?: (source: string, line: number, callId: string | undefined) => void;
  /** With checks asked for, called for each line that is a tool call the audit cannot read (see ToolsCore.unreadCall). */
  onUnreadCall?: (p: InputProblem) => void;
  /**
   * Called at the end for each `--deny-tool` name that no call matched and
   * that is a few edits from a tool name or kind the audit knows, `known`.
   */
  onMisspeltDenyTool?: (name: string, known: string) => void;
  /** The same, at the end, for each `--tool` name that kept no call (such a filter keeps nothing, for the checks too). */
  onMisspeltTool?: (name: string, known: string) => void;
}

const TOOL_USE = Buffer.from('"tool_use"');
// Its `_`: rare in assistant lines, so each is a cheap place to look.
const TOOL_USE_PIVOT = 5;

// The type of an `assistant` event (and the role of its message), wherever the line holds it: glued after another event too.
const ASSISTANT = Buffer.from('"assistant"');

const TOOL_RESULT = Buffer.from('"tool_result"');
// Its `_`, as in TOOL_USE.
const TOOL_RESULT_PIVOT = 5;

/**
 * True when a line may hold the string `name` (searched from its byte
 * `pivot`): as it is, or spelt with an escape (`"tool\u005fuse"` is
 * "tool_use" to JSON.parse), which a line with any is taken to be.
 */
function mayHold(raw: Buffer, name: Buffer, pivot: number): boolean {
  return holdsBytes(raw, name, pivot) || holdsBytes(raw, ESCAPE_U, 0);
}

/**
 * How many calls of Claude Code's dialect answered with an error a session
 * holds until its run's result says which were refused permission (see
 * ToolsCore.complete): a run with more of them (a loop of failing commands
 * that never ends) does not grow memory with them.
 */
export const MAX_REFUSALS = 1000;

/** How many times a call is read as started again (see ToolsCore.start); no agent retries a call so often. */
export const MAX_STARTS = 100;

/** A started call waiting for its completion. */
interface PendingState {
  session: string;
  callId: string | undefined;
  tool: string | undefined;
  source: string;
  line: number;
  events: number;
  facts: ToolCallFacts;
  /** When the call started: `startedAtMs` beside the tool, and the `timestamp_ms` of its start event. */
  startedAtMs: number | undefined;
  startEventMs: number | undefined;
  argsError: string | undefined;
  /** With `--full`: the arguments as the stream gave them (see {@link fullArgs}). */
  args: unknown;
  /** With `--full`: `args` read again, its numbers as written (see ToolsCore.writtenOf). */
  argsWritten?: unknown;
  /** The call that runs the sub-agent that made this one, as its events say (Claude Code's `parent_tool_use_id`). */
  parentCallId?: string;
  /** Other tools the call's events named before (`writeToolCall` started, `readToolCall` started again), with their facts. */
  earlier?: CallView[];
  /** A result its start carried that lists a sub-agent's steps, and where that start was: audited unless its completion lists some. */
  startSteps?: { result: ToolCallResult; at: Place; written?: unknown };
}

/** Where an event was read. */
interface Place {
  source: string;
  line: number;
}

/**
 * A copy of `result` that holds nothing of the event it was read from (its
 * values read whole, in new objects), each number as it was (`-0`,
 * `Infinity`); past the depth a copy reaches, through its JSON text, which
 * keeps all but the sign of a zero.
 */
function keptResult(result: ToolCallResult): ToolCallResult {
  let copy: unknown;
  try {
    copy = structuredClone(result.result);
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    copy = JSON.parse(exactJsonText(result.result));
  }
  return { ...result, body: isObject(copy) && result.variant !== undefined ? copy[result.variant] : undefined, result: copy };
}

/** A call as one of its events names it: its tool, and the facts its arguments give. */
interface CallView {
  tool: string | undefined;
  facts: ToolCallFacts;
}

/** The calls an event names beside its tool (see otherToolEntries), as views: with their results when `completed`. */
function viewsOf(entries: readonly ToolCallEntry[], completed: boolean, windows: boolean): CallView[] {
  return entries.map((e) => ({ tool: e.name, facts: argsFacts(e.name, toolCallArgs(e), completed ? toolCallResult(e) : undefined, undefined, windows) }));
}

/** The arguments of a call's entry, as toolCallArgs reads them; none without an entry. */
function argsOf(entry: ToolCallEntry | undefined): ToolCallArgs {
  return entry === undefined ? { args: undefined } : toolCallArgs(entry);
}

/**
 * The arguments a `--full` record shows: as the stream gave them, which for a
 * `function` call is the object its `arguments` text holds, or, where that
 * could not be read, the text itself (not the few fields picked out of it).
 */
function fullArgs(read: ToolCallArgs): unknown {
  return read.error !== undefined ? read.given : read.args;
}

/** The facts of a call (see toolCallFacts) from its arguments as toolCallArgs read them: arguments not JSON are marked (argsUnread). */
function argsFacts(tool: string | undefined, read: ToolCallArgs, result: ToolCallResult | undefined, fromStart?: ToolCallFacts, windows = false): ToolCallFacts {
  const facts = toolCallFacts(tool ?? '', read.args, result, fromStart, windows);
  if (read.error === 'not JSON') facts.argsUnread = true;
  return facts;
}

const NO_ENTRIES: readonly ToolCallEntry[] = [];
const NO_DENIALS: ReadonlySet<string> = new Set();
const NO_STEPS: readonly JsonObject[] = [];

/** Milliseconds from `start` to `end`, when both are known and `end` is not before `start`. */
function spanMs(start: number | undefined, end: number | undefined): number | undefined {
  return start !== undefined && end !== undefined && end >= start ? end - start : undefined;
}

/** `paths` less those that resolve as one before them does (see resolvePath). */
function oneSpellingEach(paths: readonly string[], cwd: string | undefined): string[] {
  const out: string[] = [];
  const resolved = new Set<string>();
  for (const p of paths) {
    const r = resolvePath(p, cwd);
    if (resolved.has(r)) continue;
    out.push(p);
    resolved.add(r);
  }
  return out;
}

/**
 * A line of UTF-16 text (zero bytes in it) as UTF-8: little-endian, as
 * Windows writes it, from its first byte or, where its zero bytes come
 * more often at even places (the line starts with the zero byte that ended
 * the newline before it), its second.
 */
function utf16AsUtf8(raw: Buffer): Buffer {
  let even = 0;
  let odd = 0;
  for (let i = 0; i < raw.length; i++) if (raw[i] === 0) i % 2 === 0 ? even++ : odd++;
  return Buffer.from(raw.toString('utf16le', even > odd ? 1 : 0).replace(/^\uFEFF/, ''), 'utf8');
}

/** `raw` without its zero bytes. */
function withoutZeros(raw: Buffer): Buffer {
  const out = Buffer.allocUnsafe(raw.length);
  let n = 0;
  for (let i = 0; i < raw.length; i++) {
    const b = raw[i]!;
    if (b !== 0) out[n++] = b;
  }
  return out.subarray(0, n);
}

/** True when `a` and `b` name different tools (neither unknown). */
function otherTool(a: string | undefined, b: string | undefined): boolean {
  return a !== undefined && b !== undefined && toolNameKey(a) !== toolNameKey(b);
}

/** Tracks calls and sessions; see the module comment. */
export class ToolsCore implements ToolCore {
  private readonly cwds = new Map<string, string>();
  /** The sessions some event has named (see opens). */
  private readonly seen = new Set<string>();
  /** The lines of the broken checks of the call being checked, its own and those of its views (see checkViews). */
  private readonly callLines = new Set<string>();
  private session = '';
  private readonly pending = new Map<string, PendingState>();
  /** With `--full`: the values of the event being read, read again with their numbers as written (see writtenOf). */
  private written: WrittenOf | undefined;
  /** With `--full`: the arguments and result of each call read again, its numbers as written, for its record. */
  private readonly writtenParts = new WeakMap<AuditedCall, { args?: unknown; result?: unknown }>();
  /**
   * Calls of Claude Code's dialect answered with an error, by session,
   * waiting for their run's result: each with what hands it over (see
   * complete, settleRefusals).
   */
  private readonly refusals = new Map<string, Array<{ call: AuditedCall; settle: () => void }>>();
  /** The keys of {@link pending} by session, in the order their calls started. */
  private readonly sessionCalls = new KeySets();
  /** The calls of {@link pending} started without an id, as completions find them. */
  private readonly unnamed = new UnnamedCalls();
  private anonymous = 0;
  private readonly tools: ReadonlySet<string>;
  /** The keys of `tools` some call was kept by (see toolNameMatched). */
  private readonly toolsKept = new Set<string>();
  private readonly statuses: ReadonlySet<CallStatus> | undefined;
  private readonly policy: Policy;
  private readonly summary: Summary | undefined;
  private readonly pathSet: PathSet | undefined;
  /** Calls kept by the filters. */
  calls = 0;
  /** A call none of whose events named a tool the audit can find was audited. */
  unknownCalls = false;
  /** A sub-agent was nested too deep to follow (see MAX_SUBAGENT_DEPTH). */
  deepSubagent = false;
  /** A call was started more than MAX_STARTS times (see start). */
  manyStarts = false;
  /** Checks broken. */
  violations = 0;
  /**
   * With checks asked for, what kept the audit from seeing every call, which
   * the checks then cannot pass: calls of no tool it can find, of sub-agents nested too deep, starts past MAX_STARTS, lines of calls it cannot read, or
   * an input with no events of a run (see passed).
   */
  unaudited = 0;
  /** Some event was read (none: the input held none, or none that could be read). */
  sawEvents = false;
  /** An event of the run other than a `result` was read (none: `--output-format json` output, which lists no tool calls; a wrapper's line is none). */
  sawStream = false;
  /** A `result` event was read. */
  sawResult = false;

  private readonly options: ToolsOptions;

  /** True when a check is asked for (`denyRead`, `noWrites`, …). */
  get checking(): boolean {
    return this.policy.active;
  }

  /**
   * Once the input has ended: true when the checks passed (or none was
   * asked for), as `ndjson-tools` ends with 0 rather than 3. They pass when
   * no check was broken (violations) and the audit saw every call
   * (unaudited).
   */
  get passed(): boolean {
    return this.violations === 0 && this.unaudited === 0;
  }

  constructor(options: ToolsOptions = {}) {
    // In any case, as --status takes them.
    const statuses = choiceList(options.statuses, 'statuses', CALL_STATUSES, true);
    this.options = {
      ...options,
      tools: namesOption(options.tools, 'tools'),
      statuses,
      paths: choiceOption(options.paths, 'paths', PATHS_CHOICES),
      summary: flagOption(options.summary, 'summary'),
      json: flagOption(options.json, 'json'),
      absolute: flagOption(options.absolute, 'absolute'),
      full: flagOption(options.full, 'full'),
      nullEnded: flagOption(options.nullEnded, 'nullEnded'),
    };
    const { summary, json, absolute, full, paths, nullEnded } = this.options;
    // As the command refuses them (a usage error): one would be ignored.
    if (json && !summary) throw new TypeError('option json needs summary');
    if (summary && paths !== undefined) throw new TypeError('options summary and paths do not go together');
    if (full && (summary || paths !== undefined)) throw new TypeError('option full only applies to records (not with summary or paths)');
    if (nullEnded && paths === undefined) throw new TypeError('option nullEnded needs paths');
    this.tools = toolNameSet(this.options.tools);
    this.statuses = statuses && statuses.length > 0 ? new Set(statuses) : undefined;
    this.policy = new Policy(options);
    if (summary) this.summary = new Summary(!!absolute);
    else if (paths) this.pathSet = new PathSet(!!absolute);
  }

  /**
   * The events read in full: `tool_call`, and `system` (for `cwd`). Other lines
   * are handed over unparsed; an `assistant` line is parsed only when its bytes
   * may hold a `"tool_use"` block (Claude Code's dialect), and a `user` line
   * only when they may hold a `"tool_result"` (see mayHold).
   */
  needs(type: string): boolean {
    return type === 'tool_call' || type === 'system';
  }

  /** Tool calls are skim-parsed: their payloads are never read, unless `full` writes them out. */
  skim(type: string): boolean {
    return type === 'tool_call' && !this.options.full;
  }

  /**
   * The agent's own events it does not read (thinking, `stream_event`)
   * change nothing but where their session was last seen, and sawStream,
   * which each of them sets. Results and lines of other types (a wrapper's)
   * set less, so they pass in no run with them: a run with them at its ends
   * would hide the agent at work between. Messages and prompts are searched
   * for tool calls of Claude Code's dialect and their answers (see
   * passesPlain).
   */
  passes(type: string): boolean {
    return !this.needs(type) && type !== 'assistant' && type !== 'user' && type !== 'result' && isRunEvent(type);
  }

  /** Nor do text deltas: a message of one text block holds no tool call. */
  readonly passesDeltas = true;

  /** Nor do assistant and user messages whose bytes show they hold no tool block (see ReaderOptions.passesPlain). */
  passesPlain(type: string): boolean {
    return type === 'assistant' || type === 'user';
  }

  record(rec: EventRecord, emit: Emit): void {
    this.sawEvents = true;
    if (this.options.full) this.written = writtenValues(rec);
    const type = recordType(rec);
    if (!this.sawStream && type !== 'result' && isRunEvent(type)) this.sawStream = true;
    if (type === 'result') this.sawResult = true;
    if (type !== 'tool_call' && type !== 'system') {
      const field = recordSessionField(rec);
      // A line handed over unparsed that would open a session: an event only if it parses. One cut short is reported, as
      // the full read reports it (one with a run's first event glued on is not handed over so: see RUN_START in input.ts).
      if (this.opens(field) && !recordSound(rec)) return;
      // The session being read, as every tool reads it: a call after this event that names none is of its session.
      if (field !== undefined) this.session = field;
      // A run's result says which of its calls Claude Code refused permission to.
      if (type === 'result' && this.refusals.size > 0) this.settleRefusals(this.session, permissionDenials(rec.event, this.writtenOfRecord(rec)));
      // Claude Code's dialect: a call's `tool_use` blocks, or the `tool_result` blocks that answer them, in a message.
      const blocks =
        (type === 'assistant' && mayHold(rec.raw, TOOL_USE, TOOL_USE_PIVOT)) || (type === 'user' && mayHold(rec.raw, TOOL_RESULT, TOOL_RESULT_PIVOT));
      if (blocks) this.claudeSteps(rec, emit);
      return;
    }
    const event = rec.event;
    const sid = event.session_id;
    // Events without a session id belong to the session being read.
    if (typeof sid === 'string') {
      this.session = sid;
      this.seen.add(sid);
    }
    if (type === 'system') {
      if (isSystemInit(event)) {
        // A new run of the session: the calls its last run left pending never complete (an id may come again).
        this.endRun(this.session, emit);
        const cwd = str(event, 'cwd');
        // A run that names no cwd has none known: not the run's before it.
        if (cwd) this.cwds.set(this.session, cwd);
        else this.cwds.delete(this.session);
      }
      return;
    }
    const entry = toolCallEntry(event);
    const callId = toolCallId(event, entry, this.writtenOfRecord(rec));
    const result = entry === undefined ? undefined : toolCallResult(entry);
    const phase = toolCallPhase(event);
    // Other tools the event names beside it (one event, two tools): the call is checked as each.
    const others = entry === undefined ? NO_ENTRIES : otherToolEntries(entry);
    // An event of another subtype (or none) completes the call when it carries a result, else starts it.
    if (phase === 'completed' || (phase === 'other' && result !== undefined)) this.complete(rec, callId, entry, result, others, emit);
    else this.start(rec, callId, entry, result, others);
  }

  /**
   * The tool calls of a message in Claude Code's dialect (see
   * claudeToolSteps): each `tool_use` block starts one, each `tool_result`
   * block completes the one it answers, as `tool_call` events would.
   */
  private claudeSteps(rec: EventRecord, emit: Emit): void {
    const steps = claudeToolSteps(rec.event, this.writtenOfRecord(rec));
    if (steps.length === 0) return;
    const sid = rec.event.session_id;
    if (typeof sid === 'string') {
      this.session = sid;
      this.seen.add(sid);
    }
    for (const step of steps) {
      if (step.phase === 'started') this.start(rec, step.callId, step.entry, undefined, NO_ENTRIES, step.parentCallId);
      else this.complete(rec, step.callId, undefined, step.result, NO_ENTRIES, emit, step.parentCallId, true);
    }
  }

  /** True when `field`, the session of an event of a type the core does not read, is one no event named before: it opens it. */
  private opens(field: string | undefined): boolean {
    if (field === undefined || this.seen.has(field)) return false;
    this.seen.add(field);
    return true;
  }

  /**
   * True when the line `p` reports is a tool call the audit cannot read (cut
   * short, broken), of a tool the filters keep: the checks cannot clear it.
   * `--tool` leaves one out, as it would the call read whole, only when
   * every key of a tool it shows names a tool of a known kind it does not
   * keep. A line of values
   * glued together, one not an object, is none: its events were read.
   */
  unreadCall(p: InputProblem): boolean {
    if (p.reason === 'not an object') return false;
    // The whole line: a call may be glued after events of any length. One with zero bytes (UTF-16, a run appended by
    // Windows PowerShell's `>>`, maybe after a line cut short) is read again without them, its ASCII, and what each
    // reading shows counts.
    let raw = p.raw;
    let calls = unreadToolCalls(raw);
    if (raw.includes(0)) {
      // Its structure walked in its text, read as UTF-16: without its zero bytes, a character such as U+2022 would be a quote.
      const ascii = unreadToolCalls((raw = withoutZeros(p.raw)), utf16AsUtf8(p.raw));
      if (ascii !== undefined) {
        calls = calls === undefined ? ascii : { keys: [...new Set([...calls.keys, ...ascii.keys])], names: [...new Set([...calls.names, ...ascii.names])] };
      }
    }
    // Or a message of Claude Code's dialect whose `tool_use` block can no longer be read (anywhere on the line, or on a
    // line of one written over several): its call is not seen either, and no key of the other dialect it shows (in a
    // string, spelt with escapes) leaves it out. An assistant message with an escape may spell the block's type with it.
    if (holdsBytes(raw, TOOL_USE, TOOL_USE_PIVOT) || (raw.includes(ASSISTANT) && holdsBytes(raw, ESCAPE_U, 0))) return true;
    if (calls === undefined) return false;
    // Only a key naming its tool leaves a call out: a name read otherwise (a function's, one beside the arguments) may
    // be one of the call's values, and is one more tool to clear, not the call's.
    if (this.tools.size === 0 || calls.keys.length === 0) return true;
    // Any of them the filters keep (or may keep: of a kind not known) is reason enough.
    return [...calls.keys, ...calls.names].some((key) => {
      const kind = toolKind(key);
      return kind === 'other' || kind === 'mcp' || this.tools.has(toolNameKey(key)) || this.tools.has(kind);
    });
  }

  /** A line that is not an event: with checks asked for, one that is a tool call the audit cannot read (see unreadCall). */
  problem(p: InputProblem): void {
    // A value cut short is of the session it names, when it got as far as its `session_id` (see tornSession): the
    // session being read, as every tool reads it (a call after it that names none is of that session). Only a session
    // seen before: of one never opened the cwd is not known, and a call's paths would lose the one they are read against.
    if (p.reason === 'truncated') {
      const field = tornSession(p.raw);
      if (field !== undefined && this.seen.has(field)) this.session = field;
    }
    if (!this.checking || !this.unreadCall(p)) return;
    this.unaudited++;
    this.options.onUnreadCall?.(p);
  }

  end(emit: Emit): void {
    // Nothing audited is not a pass: no events (an agent that wrote nothing, a log in UTF-16), or none of a run (results
    // alone, as `--output-format json` writes them, list no calls).
    if (this.checking && !this.sawStream) this.unaudited++;
    for (const session of [...this.refusals.keys()]) this.settleRefusals(session, NO_DENIALS);
    for (const state of this.pending.values()) this.finishPending(state, emit);
    this.pending.clear();
    this.sessionCalls.clear();
    this.unnamed.clear();
    for (const v of this.policy.end()) this.violate(v);
    for (const { name, known } of this.policy.misspeltDenyTools()) this.options.onMisspeltDenyTool?.(name, known);
    for (const name of new Set(this.options.tools ?? [])) {
      if (this.toolsKept.has(toolNameKey(name)) || this.toolsKept.has(toolKind(name))) continue;
      const known = nearToolName(name);
      if (known !== undefined) this.options.onMisspeltTool?.(name, known);
    }
    if (this.summary) emit(this.options.json ? safeJsonLine(this.summary.toJson()) : this.summary.toText());
  }

  /**
   * The facts of a call (see argsFacts), from its arguments as toolCallArgs
   * read them in `entry` and from those given beside them (see otherArgs).
   */
  private factsOf(
    tool: string | undefined,
    entry: ToolCallEntry | undefined,
    read: ToolCallArgs,
    result: ToolCallResult | undefined,
    fromStart?: ToolCallFacts,
  ): ToolCallFacts {
    const windows = this.windows();
    const facts = argsFacts(tool, read, result, fromStart, windows);
    if (entry !== undefined) for (const other of otherArgs(entry)) addOtherFacts(facts, toolCallFacts(tool ?? '', other, undefined, undefined, windows));
    return facts;
  }

  /**
   * With `--full`, `value`, a value of the event being read, as that event's
   * bytes write its numbers (see writtenPlaces); undefined where it holds no
   * number, or is not found there (its numbers are then written as
   * JSON.parse read them).
   */
  /** The values of `rec`'s event read again as its bytes write their numbers (see writtenValues): with `--full`, those {@link written} holds. */
  private writtenOfRecord(rec: EventRecord): WrittenOf {
    return this.written ?? writtenValues(rec);
  }

  private writtenOf(value: unknown): unknown {
    return this.written === undefined || value === undefined || !holdsNumber(value) ? undefined : this.written(value);
  }

  /**
   * {@link writtenOf} the arguments a `--full` record shows (see fullArgs):
   * given as JSON text (a `function` call's `arguments`), read from it; given
   * as a number, as the object holding it writes it.
   */
  private argsWritten(read: ToolCallArgs, entry: ToolCallEntry | undefined): unknown {
    const args = fullArgs(read);
    if (entry === undefined) return this.writtenOf(args);
    const key = argumentsKey(entry);
    const text = entry.body[key];
    if (typeof text === 'string' && read.error === undefined) return holdsNumber(args) && maySpellNumbers(text) ? writtenPlaces(args, () => writtenNumbers(text))(args) : undefined;
    if (typeof args === 'number') return this.written?.(entry.body, key);
    return this.writtenOf(args);
  }

  /** {@link writtenOf} a call's result; a number, as the object holding it writes it (beside its args, or beside its function). */
  private resultWritten(result: ToolCallResult | undefined, entry: ToolCallEntry | undefined): unknown {
    if (result === undefined) return undefined;
    if (typeof result.result !== 'number') return this.writtenOf(result.result);
    if (entry === undefined) return undefined;
    return this.written?.(entry.body.result === result.result ? entry.body : entry.toolCall, 'result');
  }

  /** True when `session`'s cwd is a Windows path, where a backslash separates (see toolCallFacts). */
  private windows(session = this.session): boolean {
    return isWindowsCwd(this.cwds.get(session));
  }

  /** Hands over, as pending, the calls `session` left pending. */
  private endRun(session: string, emit: Emit): void {
    // Its calls answered with an error that no result said were refused are as they were answered.
    this.settleRefusals(session, NO_DENIALS);
    for (const key of [...this.sessionCalls.keys(session)]) {
      const state = this.pending.get(key)!;
      this.dropPending(key, state);
      this.finishPending(state, emit);
    }
  }

  /** A call started, waiting for its completion under `key`. */
  private addPending(key: string, state: PendingState): void {
    this.pending.set(key, state);
    this.sessionCalls.add(state.session, key);
    if (state.callId === undefined) this.unnamed.add(key, callGroup(state.session, state.tool), state.facts, this.cwds.get(state.session));
  }

  /** The call under `key` no longer waits. */
  private dropPending(key: string, state: PendingState): void {
    this.pending.delete(key);
    this.sessionCalls.delete(state.session, key);
    this.unnamed.delete(key);
  }

  private key(callId: string | undefined): string {
    return callId === undefined ? `\u0001${this.anonymous++}` : `${this.session}\u0000${callId}`;
  }

  /**
   * Calls without an id pair in order: the oldest pending one of the
   * session with the same tool, and of those, first the oldest started with
   * the arguments the completion has (its command, from its args or its
   * result, and its paths, however written), when it has any.
   */
  private anonymousKey(tool: string | undefined, args: JsonObject | undefined, result: ToolCallResult | undefined): string | undefined {
    const facts = args === undefined && result === undefined ? undefined : toolCallFacts(tool ?? '', args, result);
    // Naming neither a command nor a path, it completes the oldest.
    const names = facts !== undefined && (facts.command !== undefined || facts.argPaths.length > 0);
    return this.unnamed.find(callGroup(this.session, tool), names ? facts : undefined, this.cwds.get(this.session));
  }

  private start(
    rec: EventRecord,
    callId: string | undefined,
    entry: ReturnType<typeof toolCallEntry>,
    result: ToolCallResult | undefined,
    others: readonly ToolCallEntry[],
    parentCallId?: string,
  ): void {
    const read = argsOf(entry);
    const { args, error } = read;
    const times = toolCallTimes(rec.event);
    const key = this.key(callId);
    const known = this.pending.get(key);
    // A sub-agent's steps its start lists (a task's result carried early): kept, the last start's, for its end; as a copy,
    // read whole now, since the event's large values are read from a buffer that is reused (see skimParse).
    const startSteps = ranSubagent(result)
      ? { result: keptResult(result!), at: { source: rec.source, line: rec.line }, written: this.writtenOf(result!.result) }
      : undefined;
    if (known !== undefined) {
      known.events++;
      // Each start adds the paths of those before to its own, which takes their number: a stream starting one call tens of
      // thousands of times took minutes, then more memory than Node's heap holds. Past MAX_STARTS, a start is counted, not
      // read, and said not to be (the checks cannot pass).
      if (known.events > MAX_STARTS) {
        if (!this.manyStarts) {
          this.manyStarts = true;
          if (this.checking) this.unaudited++;
          this.options.onManyStarts?.(rec.source, rec.line, callId);
        }
        return;
      }
      if (startSteps !== undefined) known.startSteps = startSteps;
      // The same call started again: one call, with the newest arguments it was given, and the paths of those before.
      // Started again as another tool: the checks still see the call as the one it was started as.
      const asBefore = { tool: known.tool, facts: known.facts };
      const another = entry !== undefined && otherTool(known.tool, entry.name);
      if (another) (known.earlier ??= []).push(asBefore);
      if (others.length > 0) (known.earlier ??= []).push(...viewsOf(others, false, this.windows()));
      if (entry !== undefined) known.tool = entry.name;
      if (args !== undefined) {
        const before = known.facts;
        known.facts = this.factsOf(known.tool, entry, read, undefined);
        // An MCP call started again as another tool of its server: seen as each too.
        if (!another && otherTool(before.mcpTool, known.facts.mcpTool)) (known.earlier ??= []).push(asBefore);
        addOtherFacts(known.facts, before);
        known.argsError = error;
        if (this.options.full) {
          known.args = fullArgs(read);
          known.argsWritten = this.argsWritten(read, entry);
        }
      }
      return;
    }
    const tool = entry?.name;
    this.addPending(key, {
      session: this.session,
      callId,
      tool,
      source: rec.source,
      line: rec.line,
      events: 1,
      facts: this.factsOf(tool, entry, read, undefined),
      startedAtMs: times.startedAtMs,
      startEventMs: times.eventMs,
      argsError: error,
      args: this.options.full ? fullArgs(read) : undefined,
      argsWritten: this.options.full ? this.argsWritten(read, entry) : undefined,
      ...(others.length > 0 ? { earlier: viewsOf(others, false, this.windows()) } : {}),
      ...(startSteps !== undefined ? { startSteps } : {}),
      ...(parentCallId !== undefined ? { parentCallId } : {}),
    });
  }

  private complete(
    rec: EventRecord,
    callId: string | undefined,
    entry: ReturnType<typeof toolCallEntry>,
    result: ToolCallResult | undefined,
    others: readonly ToolCallEntry[],
    emit: Emit,
    parentCallId?: string,
    refusable = false,
  ): void {
    const own = argsOf(entry);
    const key = callId === undefined ? this.anonymousKey(entry?.name, own.args, result) : `${this.session}\u0000${callId}`;
    const state = key === undefined ? undefined : this.pending.get(key);
    if (key !== undefined && state !== undefined) this.dropPending(key, state);
    const tool = entry?.name ?? state?.tool;
    // A completion without args takes them (and their facts) from its start.
    const facts = this.factsOf(tool, entry, own, result, own.args === undefined ? state?.facts : undefined);
    // Arguments of its own do not hide those it started with from the checks.
    if (own.args !== undefined && state !== undefined) addOtherFacts(facts, state.facts);
    const times = toolCallTimes(rec.event);
    // One clock for both ends: the tool's own times where both are given, else the events'.
    const startedAtMs = times.startedAtMs ?? state?.startedAtMs;
    const toolClock = startedAtMs !== undefined && times.completedAtMs !== undefined;
    const startMs = toolClock ? startedAtMs : state?.startEventMs;
    const endMs = toolClock ? times.completedAtMs : times.eventMs;
    const base: PendingState = state ?? this.eventless(rec, callId, tool, facts);
    if (state === undefined && parentCallId !== undefined) base.parentCallId = parentCallId;
    const call = this.callOf(
      { ...base, tool, events: base.events + 1, argsError: own.args !== undefined ? own.error : base.argsError },
      result === undefined ? 'unknown' : result.status,
      facts,
      spanMs(startMs, endMs),
      result,
      entry,
    );
    call.started = state !== undefined;
    if (this.options.full) {
      const args = fullArgs(own);
      call.args = args ?? state?.args;
      this.writtenParts.get(call)!.args = args !== undefined ? this.argsWritten(own, entry) : state?.argsWritten;
    }
    // What a sub-agent it ran did, done before it completed: as its completion lists it, else as its start did.
    // (A completion whose list of steps is empty, or null, lists none: its start's count.)
    const steps = ranSubagent(result) ? subagentCalls(result) : NO_STEPS;
    if (steps.length > 0) this.subagent(rec, this.session, callId, steps, emit, 1);
    else if (state?.startSteps !== undefined) this.startSteps(state.startSteps, this.session, callId, emit);
    // Completed as another tool than it was started as: the checks see it as each (a write started, a read completed; an
    // MCP call's `delete_directory` started, `read_file` completed); so do they a call its event names as two tools.
    const asStarted =
      state !== undefined && (state.earlier !== undefined || otherTool(state.tool, tool) || otherTool(state.facts.mcpTool, facts.mcpTool));
    let views: CallView[] | undefined;
    if (asStarted || others.length > 0) {
      views = asStarted ? [...(state.earlier ?? []), { tool: state.tool, facts: state.facts }] : [];
      if (others.length > 0) views.push(...viewsOf(others, true, this.windows()));
    }
    // Claude Code answers a call it refused permission to as it answers one that failed: which it was, its run's result
    // says (see settleRefusals).
    if (refusable && call.status === 'error') this.holdRefusable(call, () => this.handOver(base, call, views, emit));
    else this.handOver(base, call, views, emit);
  }

  /** Hands over a completed call, checked also as each other tool `views` name (see checkViews). */
  private handOver(base: PendingState, call: AuditedCall, views: readonly CallView[] | undefined, emit: Emit): void {
    this.finish(call, emit);
    if (views !== undefined) this.checkViews(base, views, call, emit);
  }

  /**
   * Holds `call`, of Claude Code's dialect and answered with an error, for
   * its run's result (see settleRefusals), `settle` handing it over then. Held,
   * it keeps no more of its answer than its record shows; past MAX_REFUSALS,
   * the session's oldest is handed over as it was answered (an error fails
   * the checks a refusal would not: never the other way round).
   */
  private holdRefusable(call: AuditedCall, settle: () => void): void {
    let held = this.refusals.get(this.session);
    if (held === undefined) this.refusals.set(this.session, (held = []));
    if (!this.options.full && call.facts.reason !== undefined) call.facts.reason = clipped(call.facts.reason, REASON_MAX);
    held.push({ call, settle });
    if (held.length > MAX_REFUSALS) held.shift()!.settle();
  }

  /**
   * Hands over the calls of Claude Code's dialect `session` answered with an
   * error (see complete): those `denied` lists (the `tool_use_id`s of its
   * result's `permission_denials`) as `rejected`, refused permission, the
   * others as they were answered, in the order they were.
   */
  private settleRefusals(session: string, denied: ReadonlySet<string>): void {
    const held = this.refusals.get(session);
    if (held === undefined) return;
    this.refusals.delete(session);
    for (const { call, settle } of held) {
      if (call.callId !== undefined && denied.has(call.callId)) call.status = 'rejected';
      settle();
    }
  }

  /**
   * Hands over each call the sub-agent that the call `parent` of `session`
   * ran made, `steps` as its result lists them (see subagentCalls): a call
   * of its own, of that session, at the line of that result, with no
   * `started` event (its time from the times beside its tool, when it has
   * both), and those of a sub-agent it ran in turn before it, down to
   * {@link MAX_SUBAGENT_DEPTH} levels; a sub-agent deeper than that is
   * reported (onDeepSubagent), not followed.
   */
  private subagent(rec: Place, session: string, parent: string | undefined, steps: readonly JsonObject[], emit: Emit, depth: number): void {
    for (const event of steps) {
      const entry = toolCallEntry(event);
      const read = argsOf(entry);
      const { error } = read;
      const own = entry === undefined ? undefined : toolCallResult(entry);
      const callId = entry === undefined ? undefined : toolCallId(event, entry);
      if (ranSubagent(own)) {
        if (depth < MAX_SUBAGENT_DEPTH) this.subagent(rec, session, callId, subagentCalls(own), emit, depth + 1);
        else if (!this.deepSubagent) {
          this.deepSubagent = true;
          if (this.checking) this.unaudited++;
          this.options.onDeepSubagent?.(rec.source, rec.line);
        }
      }
      const tool = entry?.name;
      const facts = argsFacts(tool, read, own, undefined, this.windows(session));
      const state = this.eventless(rec, callId, tool, facts, session);
      state.argsError = error;
      if (this.options.full) {
        state.args = fullArgs(read);
        state.argsWritten = this.argsWritten(read, entry);
      }
      const times = toolCallTimes(event);
      const call = this.callOf(state, own === undefined ? 'unknown' : own.status, facts, spanMs(times.startedAtMs, times.completedAtMs), own, entry);
      call.started = false;
      call.parentCallId = parent ?? null;
      this.finish(call, emit);
      // A step naming two tools: checked as each, as an event of the run is.
      const others = entry === undefined ? NO_ENTRIES : otherToolEntries(entry);
      if (others.length > 0) this.checkViews(state, viewsOf(others, true, this.windows(session)), call, emit);
    }
  }

  /** The state of a call no event of its own has been read for yet, read where `rec` was. */
  private eventless(rec: Place, callId: string | undefined, tool: string | undefined, facts: ToolCallFacts, session = this.session): PendingState {
    return {
      session,
      callId,
      tool,
      source: rec.source,
      line: rec.line,
      events: 0,
      facts,
      startedAtMs: undefined,
      startEventMs: undefined,
      argsError: undefined,
      args: undefined,
    };
  }

  /**
   * Hands over the calls of a sub-agent that the start of the call `parent`
   * listed (see subagent); with `--full`, their values read again from that
   * start's, which `steps.written` holds.
   */
  private startSteps(steps: NonNullable<PendingState['startSteps']>, session: string, parent: string | undefined, emit: Emit): void {
    const event = this.written;
    if (event !== undefined) this.written = writtenPlaces(steps.result.result, () => steps.written);
    try {
      this.subagent(steps.at, session, parent, subagentCalls(steps.result), emit, 1);
    } finally {
      this.written = event;
    }
  }

  /** Hands over a call that never completed, checked also as each other tool its events named. */
  private finishPending(state: PendingState, emit: Emit): void {
    if (state.startSteps !== undefined) this.startSteps(state.startSteps, state.session, state.callId, emit);
    const call = this.callOf(state, 'pending', state.facts, undefined, undefined);
    this.finish(call, emit);
    if (state.earlier !== undefined) this.checkViews(state, state.earlier, call, emit);
  }

  /**
   * Checks the call `call` audits as each other tool `views` name, once a
   * tool: as its last view of that tool, whose facts hold the paths of those
   * before it (as `call`'s hold every path), and not as the tool `call` is.
   */
  private checkViews(state: PendingState, views: readonly CallView[], call: AuditedCall, emit: Emit): void {
    const last = new Map<string, CallView>();
    for (const view of views) {
      // Another tool, or another tool of an MCP call's server.
      if (!otherTool(view.tool, call.tool) && !otherTool(view.facts.mcpTool, call.facts.mcpTool)) continue;
      last.set(`${toolNameKey(view.tool ?? '')}\u0000${view.facts.mcpTool === undefined ? '' : toolNameKey(view.facts.mcpTool)}`, view);
    }
    for (const view of last.values()) this.checkView(state, view, call, emit);
  }

  /**
   * Checks the call `call` audits as it was when `view` named it, with no
   * record of its own; `--paths` and the summary's lists of paths list its
   * paths as that tool's, as the checks count them.
   */
  private checkView(state: PendingState, view: CallView, call: AuditedCall, emit: Emit): void {
    const seen = this.callOf({ ...state, tool: view.tool }, call.status, view.facts, undefined, undefined);
    // A sub-agent's step, said so as the call is.
    if (call.parentCallId !== undefined) seen.parentCallId = call.parentCallId;
    if (this.tools.size > 0 && !callIsTool(seen, this.tools)) return;
    if (this.statuses !== undefined && !this.statuses.has(seen.status)) return;
    // A line the call itself, or another of its views, reported already (an MCP call's tools, both `mcp`) is not repeated.
    for (const v of this.policy.check(seen, true)) this.violate(v, true);
    if (this.summary) this.summary.addPaths(seen);
    else if (this.pathSet) this.listPaths(seen, emit);
  }

  private callOf(
    state: PendingState,
    status: CallStatus,
    facts: ToolCallFacts,
    durationMs: number | undefined,
    result: ToolCallResult | undefined,
    entry?: ToolCallEntry,
  ): AuditedCall {
    const cwd = this.cwds.get(state.session);
    // One spelling of each file, the first: the arguments of its start and of its completion may name it two ways
    // (`./b`, `/r/b`), and a result names it again. Two arguments are one file only when they resolve alike (without a
    // cwd, `x.txt` and `/backup/x.txt` may be a move's two).
    const paths = facts.argPaths.length < 2 ? [...facts.argPaths] : oneSpellingEach(facts.argPaths, cwd);
    for (const r of facts.resultPaths) if (!paths.some((p) => samePath(p, r, cwd))) paths.push(r);
    const all = [...facts.argPaths];
    for (const r of facts.resultPaths) if (!all.includes(r)) all.push(r);
    const call: AuditedCall = {
      session: state.session,
      callId: state.callId,
      tool: state.tool,
      kind: facts.kind,
      status,
      started: true,
      events: state.events,
      source: state.source,
      line: state.line,
      cwd,
      facts,
      paths,
      allPaths: all,
    };
    if (state.parentCallId !== undefined) call.parentCallId = state.parentCallId;
    if (durationMs !== undefined) call.durationMs = durationMs;
    if (state.argsError !== undefined) call.argsError = state.argsError;
    if (result?.status === 'unknown' && result.variant !== undefined) call.variant = result.variant;
    if (this.options.full) {
      if (state.args !== undefined) call.args = state.args;
      if (result !== undefined) call.result = result.result;
      this.writtenParts.set(call, { args: state.argsWritten, result: this.resultWritten(result, entry) });
    }
    return call;
  }

  private finish(call: AuditedCall, emit: Emit): void {
    // A new call: the lines its views may repeat are its own (see violate).
    this.callLines.clear();
    // No event of the call named a tool the audit can find: it may be any tool, whatever the filters keep.
    if (call.tool === undefined && !this.unknownCalls) {
      this.unknownCalls = true;
      if (this.checking) this.unaudited++;
      this.options.onUnknownCalls?.(call.source, call.line);
    }
    if (this.tools.size > 0) {
      const key = toolNameMatched(call, this.tools);
      if (key === undefined) return;
      this.toolsKept.add(key);
    }
    if (this.statuses !== undefined && !this.statuses.has(call.status)) return;
    this.calls++;
    for (const v of this.policy.check(call)) this.violate(v);
    if (this.summary) {
      this.summary.add(call);
    } else if (this.pathSet) {
      this.listPaths(call, emit);
    } else {
      // Under --full, the arguments and results as they were: their numbers as written (a number too large for a double
      // 1e999 where its text is not found, not null).
      const written = this.writtenParts.get(call);
      const record = auditRecord(call, this.options);
      emit(written !== undefined ? writtenJsonLine(record, written) : safeJsonLine(record, this.options.full === true));
    }
  }

  /**
   * `--paths`: the paths of `call` not listed before, each on a line with its
   * control characters made visible; with `nullEnded`, each ended by a NUL
   * byte, its bytes with nothing made visible, for `xargs -0` (made visible, a path holding a
   * newline would name no file, and another may show the same: `a\nb`). A
   * path holding a NUL byte, which no file's name holds, is not listed then.
   */
  private listPaths(call: AuditedCall, emit: Emit): void {
    for (const p of listedPaths(call, this.options.paths!)) {
      const shown = this.pathSet!.add(call, p);
      if (shown === undefined) continue;
      if (!this.options.nullEnded) emit(`${visibleOneLine(shown)}\n`);
      else if (shown.includes('\0')) this.options.onNulPath?.(shown, call);
      else emit(`${shown}\0`);
    }
  }

  /** Counts and reports a broken check; `once`: not when the call being checked has reported the same line (see callLines). */
  private violate(v: Violation, once = false): void {
    if (v.call !== undefined) {
      const line = formatViolation(v);
      if (once && this.callLines.has(line)) return;
      this.callLines.add(line);
    }
    this.violations++;
    this.options.onViolation?.(v);
  }
}
