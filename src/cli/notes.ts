/**
 * Notes on stderr that ndjson-dedupe and ndjson-text write alike: a flush
 * whose text differs from the deltas before it, with an excerpt of each
 * where they part.
 */
import type { FlushMismatch } from '../assistant-text.js';
import { visibleOneLine } from '../safe-text.js';

const EXCERPT_BEFORE = 10;
const EXCERPT_AFTER = 30;

/**
 * A short quoted piece of `text` around the code-point offset `at`, safe for
 * one line: a backslash and a quote of the text escaped by a backslash, so
 * that a line end shown as `\n` is one, and a backslash and an `n` are `\\n`.
 */
export function excerptAt(text: string, at: number): string {
  const chars = Array.from(text);
  const start = Math.max(0, at - EXCERPT_BEFORE);
  const end = Math.min(chars.length, at + EXCERPT_AFTER);
  const piece = chars.slice(start, end).join('').replace(/[\\"]/g, '\\$&');
  return `"${start > 0 ? '…' : ''}${visibleOneLine(piece)}${end < chars.length ? '…' : ''}"`;
}

/** `session X: ` for messages, or nothing for events of no session. */
export function sessionPart(session: string): string {
  return session ? `session ${visibleOneLine(session)}: ` : '';
}

/**
 * The stderr line for a flush that did not repeat its deltas, which was
 * `action` (dropped, not shown). `counted`: the number of deltas is known
 * (ndjson-text's reader joins deltas).
 */
export function describeFlushMismatch(m: FlushMismatch, action = 'dropped', counted = true): string {
  const deltas = counted ? `${m.deltas} delta${m.deltas === 1 ? '' : 's'}` : 'deltas';
  return (
    `${visibleOneLine(m.source)}:${m.line}: ${sessionPart(m.session)}flush differs from the ${deltas} before it ` +
    `at offset ${m.offset}, ${action}: flush ${excerptAt(m.flushText, m.offset)}, deltas ${excerptAt(m.deltaText, m.offset)}`
  );
}
