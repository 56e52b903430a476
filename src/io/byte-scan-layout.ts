/**
 * The layout of the byte scan's WebAssembly module (see byte-scan.ts): what
 * its code (byte-scan-code.ts) and the JavaScript around it (byte-scan.ts)
 * agree on, where each part of its memory is and what its functions give.
 */

/** How many bytes of a line are in the module's memory at a time. */
export const WINDOW = 1024 * 1024;

export const PAGE = 65536;
/** Where `places` writes the places it finds: after the window and its page. */
export const FOUND = (Math.ceil(WINDOW / PAGE) + 1) * PAGE;
/** Where `large` keeps its stack of containers, and writes the large values it finds: the pages after. */
export const LARGE_STACK = FOUND + PAGE;
export const LARGE_SPANS = LARGE_STACK + PAGE;
/** What `run` reads and writes: the words of {@link RUN_WORDS}, then the session's tail, then the prefixes of the types let by. */
export const RUN_AREA = LARGE_SPANS + PAGE;
/**
 * The words at {@link RUN_AREA}, by index: written by `run`, the start of
 * the last line of the run, where the scan stopped, and 1 when it stopped
 * because the line there does not end before the end of the window; read
 * by it, how many bytes the tail has, and the prefixes.
 */
export const RUN_WORDS = { last: 0, next: 1, cut: 2, tail: 3, prefixes: 4 } as const;
/** Where `run` reads the tail every line of the run ends with (`,"session_id":"…"`), and how long it may be. */
export const RUN_TAIL = RUN_AREA + 32;
export const MAX_TAIL = 1024;
/**
 * Where `run` reads the prefixes a line of the run may start with, each its
 * length (a byte, {@link PREFIX_PLAIN} set in it for a type whose lines
 * pass only when plain) then its bytes; how many bytes they may take.
 */
export const RUN_PREFIXES = RUN_TAIL + MAX_TAIL;
export const MAX_PREFIXES = 4096;
/**
 * How far from a line's end a run's first event glued on it (`{"type":"system"`
 * past its first byte) is looked for, in the lines `run` lets by as in those
 * the reader reads (see RUN_START in input.ts): such an event is a few KiB at
 * most (an `init` names the tools, and Claude Code's its MCP servers), and a
 * long line (a tool call's output of MiBs) is not searched all through.
 */
export const RUN_START_WINDOW = 64 * 1024;
/** The bits of a prefix's length byte that are its length (a prefix is at most 127 bytes). */
export const PREFIX_LENGTH = 0x7f;
/** The bit of a prefix's length byte set for a type whose lines pass only when plain: holding none of `"tool_`, `\u` and `{"type":"system"`. */
export const PREFIX_PLAIN = 0x80;
/**
 * What `deltas` reads and writes, after the run's prefixes in the same page:
 * the words of {@link DELTA_WORDS}, then what a delta starts with, then what
 * follows its text up to its time, then the texts of the deltas it reads.
 */
export const DELTA_AREA = RUN_PREFIXES + MAX_PREFIXES;
/**
 * The words at {@link DELTA_AREA}, by index: written by `deltas`, where the
 * last delta it read starts, where it stopped, 1 when it stopped because the
 * line there does not end before the end of the window, and the time of the
 * last delta, `[start, end)`; read by it, how many bytes the head and the
 * middle have.
 */
export const DELTA_WORDS = { last: 0, next: 1, cut: 2, timeStart: 3, timeEnd: 4, head: 5, middle: 6 } as const;
/** Where `deltas` reads what a delta's line starts with (its text's opening quote included), and how long it may be. */
export const DELTA_HEAD = DELTA_AREA + 32;
export const MAX_DELTA_HEAD = 256;
/** Where `deltas` reads what follows a delta's text up to its time (the session's id among it), and how long it may be. */
export const DELTA_MIDDLE = DELTA_HEAD + MAX_DELTA_HEAD;
export const MAX_DELTA_MIDDLE = 1024;
/** Where `deltas` writes the text of each delta it reads, as `[start, end)` and flags (escaped 1, ASCII 2), and how many at most. */
export const DELTA_TEXTS = DELTA_MIDDLE + MAX_DELTA_MIDDLE;
export const MAX_DELTAS = 4096;
/** The flags of a delta's text: it holds escapes; it is all ASCII. */
export const TEXT_ESCAPED = 1;
export const TEXT_ASCII = 2;

if (DELTA_TEXTS + 12 * MAX_DELTAS > RUN_AREA + PAGE) throw new Error('the areas of run and deltas do not fit their page');

/** The pages of the module's memory: a window, a page for what is read past its end, and the pages of places, `large`, and `run` and `deltas`. */
export const PAGES = Math.ceil(WINDOW / PAGE) + 5;
/**
 * Where a scan made with read buffers (see makeByteScan) has them, after
 * those pages: each a window long, then a page for what is read past the
 * last.
 */
export const READ_BUFFERS = PAGES * PAGE;

/** How many places `places` writes in one call, at most: one page of i32. */
export const MAX_PLACES = 16384;

/** How deep `large` follows objects and arrays: a page of 16-byte entries (start, is an array, spans before, large bytes of the parent), less its state. */
export const MAX_DEPTH = 4094;
/** How many large values `large` writes: one page of `[start, end)` pairs. */
export const MAX_SPANS = 8192;
/** {@link ByteScan.large}'s state between windows, at the end of the stack's page: the words of {@link STATE_WORDS}. */
export const STATE_BLOCK = MAX_DEPTH * 16;
/**
 * The words of the state block, by index: where the scan is (the window
 * moves there), what it expects next, how deep it is, the large bytes of the
 * container, the large values found, the threshold, where the string being
 * read began.
 */
export const STATE_WORDS = { i: 0, state: 1, depth: 2, large: 3, spans: 4, threshold: 5, string: 6 } as const;

/** {@link ByteScan.large}: the bytes are not one JSON object the skim can vouch for. */
export const LARGE_INVALID = -1;
/** {@link ByteScan.large}: the bytes are for the caller to judge. */
export const LARGE_UNSURE = -2;

/**
 * The window ends before the scan can go on, and the bytes go on past it:
 * what `large` gives, the window to move to the position it saved (see
 * WasmScan.large); what `quote` and `number` give it, `MORE - t` for a
 * string to go on at `t`.
 */
export const MORE = -3;
