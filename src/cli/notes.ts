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
  // Walked by code points from the start to `at`, and a few either side: the text may be a result of many megabytes,
  // which a list of its characters would take many times over.
  const here = pointsForward(text, 0, at);
  const start = pointsBack(text, here, EXCERPT_BEFORE);
  const end = pointsForward(text, here, EXCERPT_AFTER);
  const piece = text.slice(start, end).replace(/[\\"]/g, '\\$&');
  return `"${start > 0 ? '…' : ''}${visibleOneLine(piece)}${end < text.length ? '…' : ''}"`;
}

const isHigh = (c: number): boolean => c >= 0xd800 && c <= 0xdbff;
const isLow = (c: number): boolean => c >= 0xdc00 && c <= 0xdfff;

/** The UTF-16 index `points` code points on from `from` in `text` (its length at most); a lone surrogate is one. */
function pointsForward(text: string, from: number, points: number): number {
  let i = from;
  for (let n = 0; n < points && i < text.length; n++) i += isHigh(text.charCodeAt(i)) && isLow(text.charCodeAt(i + 1)) ? 2 : 1;
  return i;
}

/** The UTF-16 index `points` code points back from `from` in `text` (0 at least). */
function pointsBack(text: string, from: number, points: number): number {
  let i = from;
  for (let n = 0; n < points && i > 0; n++) i -= i >= 2 && isLow(text.charCodeAt(i - 1)) && isHigh(text.charCodeAt(i - 2)) ? 2 : 1;
  return i;
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
