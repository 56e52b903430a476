/**
 * The partial-output rule, written once: which `assistant` events carry new
 * text and which repeat text already seen. ndjson-dedupe drops the repeats;
 * ndjson-text prints only the new text. Both ask this module.
 *
 * The documented table says a flush (an `assistant` event with both
 * `timestamp_ms` and `model_call_id`, or with neither) is a duplicate. Real
 * streams made without `--stream-partial-output` look exactly like flushes,
 * yet are the only copy of their text. So a flush is a duplicate only of the
 * deltas that came before it in the same stretch of text of the same session:
 * since that session's last flush or tool call, or its `system/init` (a
 * resumed session's new run). An event without a `session_id` belongs to
 * the session being read: the last one an event named.
 */
import { assistantKind, isSystemInit, messageText, sessionField } from './events.js';

/** What one `assistant` event is worth. */
export type TextVerdict =
  /** A delta: new text, never a duplicate (even when it repeats the previous delta). */
  | 'delta'
  /** A flush with no deltas before it in its stretch: the only copy of its text. */
  | 'only-copy'
  /** A flush that repeats the deltas before it: a duplicate. */
  | 'duplicate'
  /** A flush with deltas before it whose text differs from theirs: dropped like a duplicate (the deltas are the text), but worth a report. */
  | 'mismatch';

/** A session's deltas since its last flush or tool call. */
export interface Stretch {
  /** The deltas' text since the last flush or tool call. */
  text: string;
  /** How many deltas that was (a whitespace or empty delta still counts). */
  deltas: number;
}

/** A flush whose text differs from the deltas before it. It is dropped all the same (not shown by ndjson-text): the deltas are the text. */
export interface FlushMismatch {
  session: string;
  source: string;
  line: number;
  /** How many delta events came before it in its stretch (records, where a reader joined deltas). */
  deltas: number;
  /** The deltas' text and the flush's text. */
  deltaText: string;
  flushText: string;
  /** Where they first differ, in characters (code points). */
  offset: number;
  /** ndjson-dedupe kept it all the same: it also holds content other than text. */
  kept?: boolean;
}

/** The first index where two strings differ, in code points (0-based); the shorter string's length if one is a prefix of the other. */
export function firstDifference(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  // Never split a surrogate pair: step back to its first half.
  if (i > 0 && i < n) {
    const c = a.charCodeAt(i - 1);
    if (c >= 0xd800 && c <= 0xdbff) i--;
  }
  let points = 0;
  for (let j = 0; j < i; j++) {
    const c = a.charCodeAt(j);
    if (!(c >= 0xdc00 && c <= 0xdfff && j > 0 && a.charCodeAt(j - 1) >= 0xd800 && a.charCodeAt(j - 1) <= 0xdbff)) points++;
  }
  return points;
}

/** Per-session state of the partial-output rule. Feed it every event, in order. */
export class TextTracker {
  private readonly stretches = new Map<string, Stretch>();
  /** The session being read: the last one an event named ('' before any). */
  private current = '';

  /**
   * The session of an event whose `session_id` is `field`: that one, or,
   * without one, the session being read (deltas written without an id
   * are that session's text, which its flush repeats).
   */
  sessionFor(field: string | undefined): string {
    if (field !== undefined) this.current = field;
    return this.current;
  }
  /** The stretch the last flush closed (undefined when it had none), to describe a mismatch. */
  private lastClosed: Stretch | undefined;

  /** The stretch the last flush closed, as {@link flushMismatch} describes it. */
  get closed(): Stretch | undefined {
    return this.lastClosed;
  }

  /**
   * Judges an `assistant` event and updates the state. `text` may be passed
   * when the caller has already extracted it.
   */
  assistant(event: unknown, text: string = messageText(event)): TextVerdict {
    const session = this.sessionFor(sessionField(event));
    let stretch = this.stretches.get(session);
    if (assistantKind(event) === 'delta') {
      if (stretch === undefined) {
        stretch = { text: '', deltas: 0 };
        this.stretches.set(session, stretch);
      }
      stretch.text += text;
      stretch.deltas++;
      return 'delta';
    }
    // A flush closes the stretch whatever it is.
    this.stretches.delete(session);
    this.lastClosed = stretch;
    if (stretch === undefined || stretch.deltas === 0) return 'only-copy';
    return stretch.text === text ? 'duplicate' : 'mismatch';
  }

  /** A tool call (started or completed) ends the session's stretch of text. */
  toolCall(event: unknown): void {
    this.stretches.delete(this.sessionFor(sessionField(event)));
  }

  /** A result ends the session: forget it. */
  result(event: unknown): void {
    this.stretches.delete(this.sessionFor(sessionField(event)));
  }

  /**
   * A session's `system/init` starts a run of its own: the deltas of a run
   * that stopped before its flush are not the text of the next one.
   */
  init(event: unknown): void {
    this.stretches.delete(this.sessionFor(sessionField(event)));
  }

  /** Feeds any event: routes it by type. Returns the verdict for `assistant` events, else undefined. */
  see(event: unknown, type: string): TextVerdict | undefined {
    switch (type) {
      case 'assistant':
        return this.assistant(event);
      case 'tool_call':
        this.toolCall(event);
        return undefined;
      case 'result':
        this.result(event);
        return undefined;
      case 'system':
        if (isSystemInit(event)) this.init(event);
        return undefined;
      default:
        return undefined;
    }
  }
}

/** The mismatch `tracker` has just judged: the flush `text` of `session`, read at `rec`, against the stretch it closed. */
export function flushMismatch(tracker: TextTracker, rec: { source: string; line: number }, session: string, text: string): FlushMismatch {
  const deltaText = tracker.closed?.text ?? '';
  return {
    session,
    source: rec.source,
    line: rec.line,
    deltas: tracker.closed?.deltas ?? 0,
    deltaText,
    flushText: text,
    offset: firstDifference(deltaText, text),
  };
}

/** True when a verdict means the event's text is new and should be kept or shown. */
export function isNewText(verdict: TextVerdict): boolean {
  return verdict === 'delta' || verdict === 'only-copy';
}
