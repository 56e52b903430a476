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

/** How many places `places` writes in one call, at most: one page of i32. */
export const MAX_PLACES = 16384;

/** How deep `large` follows objects and arrays: a page of 16-byte entries (start, is an array, spans before, large bytes of the parent), less its state. */
export const MAX_DEPTH = 4094;
/** How many large values `large` writes: one page of `[start, end)` pairs. */
export const MAX_SPANS = 8192;
/** {@link ByteScan.large}'s state between windows, at the end of the stack's page: i, state, depth, large, spans, threshold, the string's start. */
export const STATE_BLOCK = MAX_DEPTH * 16;

/** {@link ByteScan.large}: the bytes are not one JSON object the skim can vouch for. */
export const LARGE_INVALID = -1;
/** {@link ByteScan.large}: the bytes are for the caller to judge. */
export const LARGE_UNSURE = -2;

/**
 * What `quote` and `number` give when they reach the end of the window
 * before the token ends, and the bytes go on past it: `MORE - t`, `t` where
 * to go on from once the window has moved.
 */
export const MORE = -3;
/** What `large` gives when the window must move to the position it saved (see WasmScan.large). */
export const LARGE_MORE = MORE;
