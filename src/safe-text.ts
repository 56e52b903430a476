/**
 * Text from the stream is written by someone else: an agent, or a file the
 * agent read. Printed raw to a terminal, an escape sequence in it can move the
 * cursor, rewrite the screen, or set the clipboard (OSC 52); a carriage return
 * can hide what came before it; a bidirectional override or isolate
 * (U+202A–U+202E, U+2066–U+2069) reorders what is shown after it, so that
 * `secrets/\u202eyek.mep` reads `secrets/pem.key`. These helpers make such
 * characters visible.
 */

// C0 controls but tab and newline, DEL, C1 controls, the Unicode line/paragraph separators, bidirectional overrides and isolates;
// a carriage return only where it hides something: not before a newline (a line of Windows text).
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]|\r(?!\n)/g;
// eslint-disable-next-line no-control-regex
const UNSAFE_ONE_LINE = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeChar(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

// JSON escapes C0 controls in strings, but may leave DEL, C1 controls, U+2028/9 and the bidirectional controls raw
// there, and allows tab and carriage return as white space between tokens.
const UNSAFE_IN_JSON = /[\t\r\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * JSON text made safe for a terminal, the same JSON value: DEL, C1 controls,
 * U+2028/9 and the bidirectional controls as `\u` escapes, which mean the
 * same inside strings (the only place valid JSON holds them); tab and
 * carriage return, which valid JSON holds only between tokens, as spaces.
 */
export function visibleJson(text: string): string {
  UNSAFE_IN_JSON.lastIndex = 0;
  if (!UNSAFE_IN_JSON.test(text)) return text;
  return text.replace(UNSAFE_IN_JSON, (c) => (c === '\t' || c === '\r' ? ' ' : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`));
}

/**
 * `text` cut to its first `max` UTF-16 code units and `…`, when it is longer:
 * one unit fewer where the cut would fall between the two halves of a
 * surrogate pair (an emoji), so that no character is cut in two, which
 * would leave half of one (a lone surrogate, not text in any encoding).
 */
export function clipped(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return `${text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max)}…`;
}

/** Makes control characters visible (`\x1b`), keeping newlines and tabs: for text meant to span lines. */
export function visible(text: string): string {
  UNSAFE.lastIndex = 0;
  return UNSAFE.test(text) ? text.replace(UNSAFE, escapeChar) : text;
}

/** Makes every control character visible as its code (`\x0a`, `\u202e`), newlines and tabs too: for an excerpt of a line as read. */
export function visibleCodes(text: string): string {
  UNSAFE_ONE_LINE.lastIndex = 0;
  return UNSAFE_ONE_LINE.test(text) ? text.replace(UNSAFE_ONE_LINE, escapeChar) : text;
}

/** Makes every control character visible, newlines and tabs too: for a value shown on one line (a path, a command, a call id). */
export function visibleOneLine(text: string): string {
  UNSAFE_ONE_LINE.lastIndex = 0;
  return UNSAFE_ONE_LINE.test(text)
    ? text.replace(UNSAFE_ONE_LINE, (c) => (c === '\n' ? '\\n' : c === '\t' ? '\\t' : c === '\r' ? '\\r' : escapeChar(c)))
    : text;
}

/**
 * `text` as one word of a shell command, in single quotes, made visible as
 * {@link visibleOneLine} makes it: an option's value shown in a message
 * (`--deny-write 'it'\''s/**'`), to be given again as it is shown, but for a
 * control character, shown as its escape (`\n`), which the shell reads as
 * written.
 */
export function shellWord(text: string): string {
  return `'${visibleOneLine(text).replaceAll("'", "'\\''")}'`;
}
