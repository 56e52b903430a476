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
 * resumed session's new run).
 */
import { assistantKind, isSystemInit, messageText, sessionId } from './events.js';

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

interface Stretch {
  /** The deltas' text since the last flush or tool call. */
  text: string;
  /** How many deltas that was (a whitespace or empty delta still counts). */
  deltas: number;
}

/** Per-session state of the partial-output rule. Feed it every event, in order. */
export class TextTracker {
  private readonly stretches = new Map<string, Stretch>();

  /**
   * Judges an `assistant` event and updates the state. `text` may be passed
   * when the caller has already extracted it.
   */
  assistant(event: unknown, text: string = messageText(event)): TextVerdict {
    const session = sessionId(event);
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
    if (stretch === undefined || stretch.deltas === 0) return 'only-copy';
    return stretch.text === text ? 'duplicate' : 'mismatch';
  }

  /** A tool call (started or completed) ends the session's stretch of text. */
  toolCall(event: unknown): void {
    this.stretches.delete(sessionId(event));
  }

  /** A result ends the session: forget it. */
  result(event: unknown): void {
    this.stretches.delete(sessionId(event));
  }

  /**
   * A session's `system/init` starts a run of its own: the deltas of a run
   * that stopped before its flush are not the text of the next one.
   */
  init(event: unknown): void {
    this.stretches.delete(sessionId(event));
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

/** True when a verdict means the event's text is new and should be kept or shown. */
export function isNewText(verdict: TextVerdict): boolean {
  return verdict === 'delta' || verdict === 'only-copy';
}
