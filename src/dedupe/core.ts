/**
 * ndjson-dedupe's core: passes the stream through, dropping exactly the
 * `assistant` flushes that repeat text already streamed as deltas (see
 * {@link TextTracker}), or, with `keys`, every event whose values at those
 * paths equal an earlier event's.
 *
 * Kept events leave as their input bytes and a newline: nothing is parsed
 * again or re-serialised. Only `assistant` events are parsed (and `result`
 * events under `verify`); a `tool_call` or `result` needs its session alone,
 * every other event its type alone, and the input layer reads both from the
 * line's bytes when it can (see {@link DedupeCore.needs}).
 */
import { createHash } from 'node:crypto';
import type { EventRecord, InputProblem } from '../io/input.js';
import { recordSessionField, recordType, tornSession } from '../io/input.js';
import type { ToolCore, Emit } from '../io/tool-stream.js';
import { assistantKind, hasOtherContent, isClaudeCodeEvent, isRunActivity, isSystemInit, messageText, pathSteps, resultFailed, str, valueAt } from '../events.js';
import type { PathStep } from '../events.js';
import { TextTracker, firstDifference, flushMismatch } from '../assistant-text.js';
import type { FlushMismatch } from '../assistant-text.js';
import { canonicalJsonText } from '../json-text.js';
import { flagOption, pathsOption } from '../option-values.js';

export { firstDifference };
export type { FlushMismatch };

const NEWLINE = Buffer.from('\n');

/** The rows of `--stats`: event types, with `assistant` split by what the event was found to be. */
export const STAT_KINDS = [
  'system',
  'user',
  'assistant delta',
  'assistant flush',
  'assistant mismatch',
  'thinking',
  'tool_call',
  'result',
  'other',
] as const;

/** A row of `--stats`. */
export type StatKind = (typeof STAT_KINDS)[number];

/** Counts of one kind of event. */
export interface KindCount {
  read: number;
  kept: number;
  dropped: number;
}

/** What ndjson-dedupe saw and did, for `--stats`. */
export interface DedupeStats {
  kinds: Record<StatKind, KindCount>;
  /** Lines that were not events (dropped, and reported by the input layer). */
  notEvents: number;
  /** `--verify`: results whose text was compared with the kept text. */
  verified: number;
  /** `--verify`: of those, how many differed. */
  differed: number;
  /** `--verify`: results not compared because the run failed or the result has no text. */
  uncheckedFailed: number;
  /** `--verify`: results not compared because the session is in Claude Code's dialect, whose result holds only the final message. */
  uncheckedClaude: number;
  /** `--verify`: results not compared because no assistant event of their run was read (`--output-format json`, or a filtered stream). */
  uncheckedNoText: number;
  /** `--verify`: runs (from their init, or their first event of the agent at work) whose input ended, or whose session started again, before their result. */
  noResult: number;
  /** With `keys`: events that had a value at one of the paths at least (the others are kept, whatever they hold). */
  keyed: number;
}

/** A `result` whose text differs from the session's kept assistant text (`--verify`). */
export interface VerifyFailure {
  session: string;
  source: string;
  line: number;
  /** The session's kept assistant text since its previous result, concatenated. */
  keptText: string;
  resultText: string;
  /** Where they first differ, in characters (code points). */
  offset: number;
}

/** A session whose input ended, or which started again, before its result (`--verify`): its text could not be checked. */
export interface Unverified {
  session: string;
  /** Where the session's run was last seen. */
  source: string;
  line: number;
  /** The session started a new run (its `system/init`) before the result of this one. */
  restarted?: boolean;
}

/** Options of the dedupe core. */
export interface DedupeOptions {
  /**
   * Generic mode: drop every event whose values at these dot paths equal an
   * earlier event's. Replaces the agent-stream rules. Events that have none of
   * the paths are kept.
   */
  keys?: readonly string[];
  /** At each `result`, compare the session's kept assistant text with `result.result`. */
  verify?: boolean;
  /** Called for each dropped flush that did not repeat its deltas exactly. */
  onFlushMismatch?: (mismatch: FlushMismatch) => void;
  /** Called for each result that `verify` finds different. */
  onVerifyFailure?: (failure: VerifyFailure) => void;
  /** Called at the end for each session that `verify` could not check: it has no result. */
  onUnverified?: (session: Unverified) => void;
}

/** Where an event, or a line that was to be one, was read. */
type Place = Pick<EventRecord, 'source' | 'line'>;

/** Per-session state for `--verify`. */
interface VerifySession {
  /** Kept assistant text since the session's last result. */
  text: string;
  /** The session speaks Claude Code's dialect: its result is not the concatenation of its text. */
  claude: boolean;
  /** An assistant event of the run was read. */
  assistant: boolean;
  /** The agent was at work in the run (not an `init` alone): another `init` before its result ends it. */
  worked: boolean;
  /** Where the run was last seen: its last event, as ndjson-result names it. */
  source: string;
  line: number;
}

/** Keys longer than this are stored as a SHA-256 digest, so memory per distinct key stays small. */
const MAX_PLAIN_KEY = 64;

/**
 * A value as canonical JSON: object keys sorted, so `{"a":1,"b":2}` and
 * `{"b":2,"a":1}` are the same key.
 */
export function canonicalJson(value: unknown): string {
  return canonicalJsonText(value);
}

/**
 * The dedupe key of an event for `paths`, or undefined when the event has none
 * of the paths. A missing path and a `null` value are different keys. Long
 * keys are replaced by their SHA-256 digest.
 */
export function eventKey(event: unknown, paths: readonly string[]): string | undefined {
  return keyAt(event, paths.map(pathSteps));
}

/** {@link eventKey} for paths read into their steps once (undefined: a string that is no path, which names nothing). */
function keyAt(event: unknown, paths: ReadonlyArray<readonly PathStep[] | undefined>): string | undefined {
  let found = false;
  const parts: string[] = [];
  for (const steps of paths) {
    const value = steps === undefined ? undefined : valueAt(event, steps);
    if (value === undefined) {
      // Canonical JSON is never empty: '' marks a missing path.
      parts.push('');
    } else {
      found = true;
      parts.push(canonicalJson(value));
    }
  }
  if (!found) return undefined;
  // Canonical JSON holds no raw newline, so '\n' separates the parts unambiguously.
  const key = parts.join('\n');
  // '\u0000' never starts canonical JSON, so a digest cannot equal a plain key.
  return key.length <= MAX_PLAIN_KEY ? key : `\u0000${createHash('sha256').update(key).digest('base64')}`;
}

function emptyStats(): DedupeStats {
  const kinds = {} as Record<StatKind, KindCount>;
  for (const kind of STAT_KINDS) kinds[kind] = { read: 0, kept: 0, dropped: 0 };
  return { kinds, notEvents: 0, verified: 0, differed: 0, uncheckedFailed: 0, uncheckedClaude: 0, uncheckedNoText: 0, noResult: 0, keyed: 0 };
}

function statKind(type: string): StatKind {
  switch (type) {
    case 'system':
    case 'user':
    case 'thinking':
    case 'tool_call':
    case 'result':
      return type;
    default:
      return 'other';
  }
}

/** The dedupe filter as a {@link ToolCore}. Read {@link stats} once the input has ended. */
export class DedupeCore implements ToolCore {
  readonly stats: DedupeStats = emptyStats();
  private readonly tracker = new TextTracker();
  private readonly sessions = new Map<string, VerifySession>();
  private readonly seen = new Set<string>();
  /** Under `verify`: the session ids events have named, so that the first event of each is known (kept as ndjson-result keeps its sessions). */
  private readonly named = new Set<string>();
  private readonly keys: readonly string[] | undefined;
  /** The steps of each of {@link keys}, read once rather than at every event. */
  private readonly keySteps: ReadonlyArray<readonly PathStep[] | undefined> = [];

  constructor(private readonly options: DedupeOptions = {}) {
    flagOption(options.verify, 'verify');
    const keys = pathsOption(options.keys, 'keys');
    this.keys = keys && keys.length > 0 ? keys : undefined;
    if (this.keys !== undefined) this.keySteps = this.keys.map(pathSteps);
    // As the command refuses them: the keys replace the rules that verify checks, which would be off.
    if (this.keys !== undefined && options.verify) throw new TypeError('options verify and keys do not go together');
  }

  /** Under `verify`: an event of a run was read (its init, the agent at work, its result, a line cut short); none means no result. */
  sawRun = false;

  /** The lines of the types it does not read are copied out as read: the reader checks them first. */
  readonly copiesUnread = true;

  /**
   * The events read in full: `assistant`, `result` under `verify`, every event
   * with `keys`. Lines of other types are passed through as read, unparsed.
   */
  needs(type: string): boolean {
    return this.keys !== undefined || type === 'assistant' || (type === 'result' && this.options.verify === true);
  }

  record(rec: EventRecord, emit: Emit): void {
    const type = recordType(rec);
    if (this.keys) {
      this.byKey(rec, type, emit);
      return;
    }
    // Every event with a session id names the session being read, whose text an event without one is (see TextTracker.sessionFor).
    const own = recordSessionField(rec);
    const session = this.tracker.sessionFor(own);
    // A run's init is where it starts: the run before it was last seen before.
    if (this.options.verify && type !== 'result' && type !== 'system') this.lastSeen(session, rec);
    // A session first named by a line of no run's type (Claude Code's hook lines before its init, a wrapper's status)
    // has begun its run, which owes a result, as ndjson-result judges it.
    if (this.options.verify && own !== undefined && !this.named.has(own)) {
      this.named.add(own);
      if (type !== 'result') this.session(session, rec);
    }
    // The agent at work (a prompt and thinking too, not only text and tool calls) is a run that owes a result.
    if (this.options.verify && isRunActivity(type)) this.session(session, rec).worked = true;
    switch (type) {
      case 'assistant':
        this.assistant(rec, session, emit);
        return;
      case 'tool_call': {
        // The tracker reads only the session of a tool call or result: hand it that, so the line need not be parsed.
        this.tracker.toolCall({ session_id: session });
        if (this.options.verify) this.session(session, rec);
        break;
      }
      case 'result':
        this.tracker.result({ session_id: session });
        if (this.options.verify) this.verify(rec, session);
        break;
      case 'system':
        // A session's new run (a resumed session): what its last run left unflushed is not this run's text.
        if (isSystemInit(rec.event)) {
          this.newRun(session);
          // A run starts here, and owes a result, as ndjson-result judges it; an init again before the agent is at work
          // is the same run, last seen here.
          if (this.options.verify) {
            this.session(session, rec);
            this.lastSeen(session, rec);
          }
        } else if (this.options.verify) this.lastSeen(session, rec);
        break;
    }
    // Copied as read, a line must be JSON: the reader checks the lines it hands over unparsed (copiesUnread).
    this.keep(rec, statKind(type), emit);
  }

  problem(p: InputProblem, _emit: Emit): void {
    // Output is NDJSON for jq and log stores: a line that is not an event is
    // dropped (the input layer has reported it), never passed on to break them.
    this.stats.notEvents++;
    // A value cut short (`truncated`) is the agent dying as it wrote an event of the session the line names (see
    // tornSession): that session is the one being read, as in ndjson-text and ndjson-result, with or without `verify`
    // (an event after it naming none is of that session). Under `verify`, the session the line is of, named or else
    // the one being read, is a run that owes a result, as ndjson-result has it.
    if (p.reason === 'truncated') {
      const session = this.tracker.sessionFor(tornSession(p.raw));
      if (this.options.verify) {
        this.session(session, p).worked = true;
        this.lastSeen(session, p);
      }
    }
  }

  end(_emit: Emit): void {
    for (const [session, state] of this.sessions) this.unverified(session, state, false);
    this.sessions.clear();
  }

  /** Under `verify`: a run followed to its end, the input's or its session's new start, without a result. */
  private unverified(session: string, state: VerifySession, restarted: boolean): void {
    // A run of Claude Code's dialect owes its result too: only the comparison of its text is left out (see verify).
    this.stats.noResult++;
    this.options.onUnverified?.({ session, source: state.source, line: state.line, ...(restarted ? { restarted } : {}) });
  }

  private newRun(session: string): void {
    this.tracker.init({ session_id: session });
    if (!this.options.verify) return;
    // Under `verify`, the run before it, followed and without a result, ended there unchecked; after an init alone,
    // it goes on (one run, as ndjson-result and ndjson-text read an init twice).
    const state = this.sessions.get(session);
    if (state === undefined || !state.worked) return;
    this.sessions.delete(session);
    this.unverified(session, state, true);
  }

  private keep(rec: EventRecord, kind: StatKind, emit: Emit): void {
    const count = this.stats.kinds[kind];
    count.read++;
    count.kept++;
    emit(rec.raw);
    emit(NEWLINE);
  }

  private drop(kind: StatKind): void {
    const count = this.stats.kinds[kind];
    count.read++;
    count.dropped++;
  }

  private session(id: string, rec: Place): VerifySession {
    this.sawRun = true;
    let state = this.sessions.get(id);
    if (state === undefined) {
      state = { text: '', claude: false, assistant: false, worked: false, source: rec.source, line: rec.line };
      this.sessions.set(id, state);
    }
    return state;
  }

  /** Under `verify`: `rec` is where its session, if its run is followed, was last seen. */
  private lastSeen(id: string, rec: Place): void {
    const state = this.sessions.get(id);
    if (state === undefined) return;
    state.source = rec.source;
    state.line = rec.line;
  }

  private assistant(rec: EventRecord, id: string, emit: Emit): void {
    const event = rec.event;
    const text = messageText(event);
    const verdict = this.tracker.assistant(event, text);
    // A flush that repeats the deltas' text but holds more (an image, a tool_use block) is kept whole: that is nowhere else.
    const other = (verdict === 'duplicate' || verdict === 'mismatch') && hasOtherContent(event);
    if (verdict === 'duplicate') {
      if (other) this.keep(rec, 'assistant flush', emit);
      else this.drop('assistant flush');
      return;
    }
    if (verdict === 'mismatch') {
      if (other) this.keep(rec, 'assistant mismatch', emit);
      else this.drop('assistant mismatch');
      this.options.onFlushMismatch?.({ ...flushMismatch(this.tracker, rec, id, text), ...(other ? { kept: true } : {}) });
      return;
    }
    if (this.options.verify) {
      const state = this.session(id, rec);
      state.text += text;
      state.assistant = true;
      if (!state.claude && isClaudeCodeEvent(event, 'assistant')) state.claude = true;
    }
    this.keep(rec, verdict === 'delta' ? 'assistant delta' : 'assistant flush', emit);
  }

  private verify(rec: EventRecord, id: string): void {
    this.sawRun = true;
    const event = rec.event;
    const state = this.sessions.get(id);
    // The result ends the session's run: the next run with this id starts afresh.
    this.sessions.delete(id);
    // Only a text is compared: a result of another kind (`42`, an object) is no copy of the assistant's text.
    const expected = str(event, 'result');
    // Claude Code's result holds only the final message; a failed run's result need not be its text.
    if (state?.claude || isClaudeCodeEvent(event, 'result')) {
      this.stats.uncheckedClaude++;
      return;
    }
    if (expected === undefined || resultFailed(event)) {
      this.stats.uncheckedFailed++;
      return;
    }
    // No assistant event at all: the output of --output-format json, or a stream filtered before us.
    if (!state?.assistant && expected !== '') {
      this.stats.uncheckedNoText++;
      return;
    }
    this.stats.verified++;
    const kept = state?.text ?? '';
    if (kept === expected) return;
    this.stats.differed++;
    this.options.onVerifyFailure?.({
      session: id,
      source: rec.source,
      line: rec.line,
      keptText: kept,
      resultText: expected,
      offset: firstDifference(kept, expected),
    });
  }

  private byKey(rec: EventRecord, type: string, emit: Emit): void {
    const kind = type === 'assistant' ? (assistantKind(rec.event) === 'delta' ? 'assistant delta' : 'assistant flush') : statKind(type);
    const key = keyAt(rec.event, this.keySteps);
    if (key !== undefined) {
      this.stats.keyed++;
      if (this.seen.has(key)) {
        this.drop(kind);
        return;
      }
      this.seen.add(key);
    }
    this.keep(rec, kind, emit);
  }
}
