/**
 * ndjson-result's core: finds each session's terminal `result` event and
 * judges the run: success, a failure the result reports, or no result at all.
 */
import type { EventRecord, InputProblem } from '../io/input.js';
import type { SessionEnd } from '../session.js';
import { Settled, sessionState } from '../session.js';
import type { ToolCore, Emit } from '../io/tool-stream.js';
import { isObject, isRunActivity, isSystemInit, opensSession, pathSteps, resultFailed, valueAt, writtenEvent, writtenValueText } from '../events.js';
import type { PathStep } from '../events.js';
import { placeOf, placeRecord, recordBroken, recordSessionField, recordSound, recordType, retainRecord, tornSession } from '../io/input.js';
import { visible, visibleJson } from '../safe-text.js';
import { countOption, flagOption, pathsOption } from '../option-values.js';

/** What ndjson-result found for one session. */
export type SessionVerdict = SessionEnd;

/** Options of the result core. */
export interface ResultOptions {
  /** Every session's result, not only the last session's. */
  all?: boolean;
  /** Print the result event itself (its line as read) instead of its text. */
  json?: boolean;
  /** Print these fields (dot paths) of the result instead of its text, one per line. */
  fields?: readonly string[];
  /** With `fields`: one line per result, the fields separated by tabs. */
  tsv?: boolean;
  /** Make control characters in printed text visible (for a terminal). */
  escape?: boolean;
  /** Called when a session's verdict is given. */
  onVerdict?: (verdict: SessionVerdict) => void;
  /**
   * Keep each successful session's result event in `verdicts` once it has been
   * written (default true). With `all` over a long log, false keeps memory
   * flat: such a verdict then holds where its result was, not the event.
   */
  keepResults?: boolean;
  /**
   * Keep every verdict given in `verdicts` (default true). False: only the
   * verdicts that report something (a failed run, a session without a
   * result, a result let go) are kept; every verdict still goes to
   * `onVerdict` and is counted in `given`. With `all` and `keepResults:
   * false`, memory then holds about 150 bytes per session, its id
   * included, whatever the length of the log.
   */
  keepVerdicts?: boolean;
  /**
   * Without `all`: how many sessions' results are kept to be read at the end
   * (default {@link HELD_RESULTS}). Only the last session's verdict is given,
   * and it is nearly always a session that ended last; the results of the
   * sessions that were least recently active beyond this many are let go
   * (their place and whether they failed are kept), so that memory does not
   * grow with the length of the log. Should such a session be the last one
   * after all, its verdict says its result was not kept.
   */
  heldResults?: number;
}

/** How many sessions' results a verdict of the last session keeps by default. */
export const HELD_RESULTS = 64;

/**
 * A field's value as printed: a string as it is, made visible when `escape`
 * (see visible); any other value as compact JSON, its numbers as the event
 * writes them (`written`, the event read again, and `steps`, where the value
 * is in it: see writtenValueText), made visible as JSON still
 * reads it (`\u009b`, not `\x9b`: see visibleJson); nothing for none. `tsv`:
 * as a cell, its backslashes, tabs and line ends escaped first.
 */
function fieldText(value: unknown, escape: boolean | undefined, tsv: boolean, written: () => unknown, steps: readonly PathStep[]): string {
  if (value === undefined) return '';
  const json = typeof value !== 'string';
  let text = json ? writtenValueText(value, written, steps) : value;
  if (tsv) text = tsvCell(text);
  return !escape ? text : json ? visibleJson(text) : visible(text);
}

function tsvCell(text: string): string {
  return text.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'));
}

/** The output for one session's result, as the options ask. Nothing for a session without a result, a result not kept, or a failed result's text. */
export function formatVerdict(verdict: SessionVerdict, options: ResultOptions): string | Buffer | undefined {
  const rec = verdict.result;
  if (rec === undefined || verdict.dropped) return undefined;
  if (options.json) return options.escape ? `${visibleJson(rec.raw.toString('utf8'))}\n` : Buffer.concat([rec.raw, Buffer.from('\n')]);
  // The event read again for its numbers as written, once for all its fields, when one holds a number.
  const written = writtenEvent(rec.raw);
  if (options.fields && options.fields.length > 0) {
    const texts = options.fields.map((path) => {
      // A path naming no field (`.`) prints nothing, as a missing field.
      const steps = pathSteps(path);
      return steps === undefined ? '' : fieldText(valueAt(rec.event, steps), options.escape, options.tsv === true, written, steps);
    });
    return options.tsv ? `${texts.join('\t')}\n` : texts.map((t) => `${t}\n`).join('');
  }
  if (verdict.failed) return undefined;
  const result = isObject(rec.event) ? rec.event.result : undefined;
  return `${fieldText(result === null ? undefined : result, options.escape, false, written, ['result'])}\n`;
}

/**
 * A session whose run ended well, once its verdict is given (with `all` and
 * `keepResults: false`): where its result was, all that its state still
 * holds. The session's next event (a resumed run) makes its state again, as
 * it was.
 */
class SettledSession extends Settled<SessionVerdict> {
  constructor(
    readonly source: string,
    readonly line: number,
  ) {
    super();
  }

  /** The session's state, as it was when it settled. */
  state(session: string): SessionVerdict {
    const { source, line } = this;
    return { session, source, line, failed: false, result: placeRecord(source, line, 'result'), dropped: undefined };
  }
}

/**
 * Tracks sessions and their results. With `all`, a session's verdict is given
 * as soon as its result is read (and at the end for sessions without one);
 * otherwise only the last session's verdict is given, at the end.
 */
export class ResultCore implements ToolCore {
  private readonly sessions = new Map<string, SessionVerdict | SettledSession>();
  private last: SessionVerdict | null = null;
  /** Without `all`: the sessions whose result is kept, the least recently active first. */
  private readonly held = new Map<string, SessionVerdict>();
  /** With `all`: the sessions whose run has begun (the agent at work, not an `init` alone) and has no result yet. */
  private readonly begun = new Set<string>();
  /** The verdicts given, in order (those that report something only, when `keepVerdicts` is false). */
  readonly verdicts: SessionVerdict[] = [];
  private verdictsGiven = 0;

  readonly options: ResultOptions;

  constructor(options: ResultOptions = {}) {
    this.options = { ...options, fields: pathsOption(options.fields, 'fields') };
    for (const flag of ['all', 'json', 'tsv', 'escape', 'keepResults', 'keepVerdicts'] as const) this.options[flag] = flagOption(options[flag], flag);
    this.options.heldResults = countOption(options.heldResults, 'heldResults');
    // As the command refuses them (a usage error): one would be ignored.
    const fields = this.options.fields?.length ?? 0;
    if (this.options.json && fields > 0) throw new TypeError('options json and fields do not go together');
    if (this.options.tsv && fields === 0) throw new TypeError('option tsv needs fields');
  }

  /** How many verdicts were given. */
  get given(): number {
    return this.verdictsGiven;
  }

  /** Only results and `system` events are read in full; every other event counts by its type and session alone. */
  needs(type: string): boolean {
    return type === 'result' || type === 'system';
  }

  /**
   * Every event of the agent at work that it does not read tells only that
   * its session goes on, and where. Not another type's (a wrapper's line):
   * a run of lines is handed over as its first and last, which must tell the
   * same as those between them (see isRunActivity).
   */
  passes(type: string): boolean {
    return !this.needs(type) && isRunActivity(type);
  }

  record(rec: EventRecord, emit: Emit): void {
    let field = recordSessionField(rec);
    // A line handed over unparsed that, parsed for its session, is not JSON after all: reported, and skipped as such lines are.
    if (recordBroken(rec)) return;
    const type = recordType(rec);
    // Events without a session id belong to the session being read; before any, one that is not the run's starts none.
    if (field === undefined && this.last === null && !opensSession(type, rec.event)) return;
    // A line handed over unparsed that would open a session, or start its run again: an event only if it parses; then of
    // the session its event names (one broken after its object, `{…}},"session_id":"t"}`, the object's, as read in full).
    if (this.opens(field, type)) {
      if (!recordSound(rec)) return;
      field = recordSessionField(rec);
    }
    const state = this.enter(field, type === 'system' && isSystemInit(rec.event), isRunActivity(type), emit);
    if (type !== 'result') {
      if (state.result === undefined) {
        state.source = rec.source;
        state.line = rec.line;
      }
      return;
    }
    state.result = retainRecord(rec);
    this.begun.delete(state.session);
    state.source = rec.source;
    state.line = rec.line;
    state.failed = resultFailed(rec.event);
    state.dropped = undefined;
    if (this.options.all) this.give(state, emit, rec);
    else this.hold(state);
  }

  /** True when an event of `type` naming `field` would open a session, or start its run again after its result. */
  private opens(field: string | undefined, type: string): boolean {
    const state = this.sessions.get(field ?? this.last?.session ?? '');
    return state === undefined || ((state instanceof SettledSession || state.result !== undefined) && isRunActivity(type));
  }

  /**
   * A value cut short (`truncated`): the agent died writing an
   * event, of the session the line names (see tornSession) or else of the
   * session being read. Its run did not end where a result read before says
   * it did: that result is not the run's verdict.
   */
  problem(p: InputProblem): void {
    if (p.reason !== 'truncated') return;
    const field = tornSession(p.raw);
    if (field === undefined && this.last === null) return;
    const state = this.enter(field, false, true);
    state.source = p.source;
    state.line = p.line;
  }

  /**
   * The state of the session an event names (`field`; none: the session
   * being read), made the session being read. The event starts its run again
   * (`init`), or is the run at work (`activity`): after the session's result,
   * a run that result does not answer for. With `all`, a run the agent was
   * at work in, taken up by an `init` before its result, is judged, as a run
   * without one (a session that died and was resumed).
   */
  private enter(field: string | undefined, init: boolean, activity: boolean, emit: Emit = () => {}): SessionVerdict {
    const id = field ?? this.last?.session ?? '';
    let state = sessionState(this.sessions, id);
    if (state === undefined) {
      state = { session: id, source: '', line: 0, failed: false };
      this.sessions.set(id, state);
    } else if (init || (state.result !== undefined && activity)) {
      if (init && this.options.all && state.result === undefined && this.begun.has(id)) this.give(state, emit);
      // The run after it begins with the agent at work, not with this init alone.
      this.begun.delete(id);
      // The session starts again (a resumed run), or goes on after its result: an earlier run's result is not this run's.
      state.result = undefined;
      state.failed = false;
      state.dropped = undefined;
      this.held.delete(id);
    }
    if (this.options.all && activity) this.begun.add(id);
    // The order of activity changes only when the session does.
    if (state !== this.last && state.result !== undefined && this.held.delete(id)) this.held.set(id, state);
    this.last = state;
    return state;
  }

  /** Keeps a session's result for the end, letting go of that of the least recently active session beyond the limit. */
  private hold(state: SessionVerdict): void {
    this.held.delete(state.session);
    this.held.set(state.session, state);
    if (this.held.size <= (this.options.heldResults ?? HELD_RESULTS)) return;
    const [id, oldest] = this.held.entries().next().value!;
    this.held.delete(id);
    oldest.result = placeOf(oldest.result!);
    oldest.dropped = true;
  }

  end(emit: Emit): void {
    if (this.options.all) {
      for (const state of this.sessions.values()) if (!(state instanceof SettledSession) && state.result === undefined) this.give(state, emit);
    } else if (this.last) {
      this.give(this.last, emit);
    }
  }

  /** Gives a session's verdict; `read`, the result event as just read, is formatted rather than the copy kept (which parses again). */
  private give(state: SessionVerdict, emit: Emit, read?: EventRecord): void {
    const verdict: SessionVerdict = { ...state };
    const success = verdict.result !== undefined && !verdict.failed && !verdict.dropped;
    if (this.options.keepVerdicts !== false || !success) this.verdicts.push(verdict);
    this.verdictsGiven++;
    this.options.onVerdict?.(verdict);
    const out = formatVerdict(read === undefined ? verdict : { ...verdict, result: read }, this.options);
    if (out !== undefined) emit(out);
    if (this.options.keepResults === false && success) {
      // Written: only where it was is still needed.
      state.result = verdict.result = placeOf(read ?? verdict.result!);
      if (this.options.all) this.sessions.set(state.session, new SettledSession(state.source, state.line));
    }
  }
}
