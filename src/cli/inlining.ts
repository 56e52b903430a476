/**
 * V8's optimizing compiler, held to inline less into each function it
 * optimizes, for the commands whose runs that makes shorter.
 *
 * A run of `ndjson-tools` or `ndjson-text` on a large log goes through its
 * code cold: V8 optimizes a function only once it has run enough, on a
 * thread of its own, and most of what a tool call goes through runs once or
 * twice a call. On the corpus of `npm run bench`, V8's default (inlining up
 * to 920 bytes of bytecode into one function) made 75 optimized
 * compilations of `ndjson-tools` 313 ms of work, more than the rest of the
 * run takes, and the hot code ran as bytecode until its turn came; held at
 * {@link INLINING_BUDGET}, 168 ms (`--trace-opt`), and the run was shorter
 * (see the README's *What each change bought*).
 * `ndjson-dedupe`, whose hot loop gains from what is inlined into it, was
 * slower, and `ndjson-result`, whose reading is mostly the WebAssembly
 * module's, the same: they keep V8's default.
 *
 * The flag is set once the command starts reading, not before: V8 takes a
 * code cache only under the flags it was made with, the bundle's (see
 * start.ts) and Node's own, and by then the modules a run needs are loaded.
 * Given on the command line instead, it would cost the run the bundle's
 * cache (about 20 ms).
 *
 * Applied on the V8 where this was measured (Node 20's, V8 11): there the
 * flag is read as said; on other versions V8 keeps its default.
 */
import v8 from 'node:v8';
import { canHoldHeap } from './heap.js';

/** How much bytecode V8 may inline into one optimized function, in bytes (`--max-inlined-bytecode-size-cumulative`; V8 11's default is 920). */
export const INLINING_BUDGET = 100;

/** True on the V8 versions where the budget was measured to help: those where the heap's hold was (see heap.ts). */
export function canLimitInlining(v8Version: string = process.versions.v8): boolean {
  return canHoldHeap(v8Version);
}

/** Holds V8's inlining to {@link INLINING_BUDGET} where {@link canLimitInlining} says yes; returns true then. */
export function limitInlining(): boolean {
  if (!canLimitInlining()) return false;
  v8.setFlagsFromString(`--max-inlined-bytecode-size-cumulative=${INLINING_BUDGET}`);
  return true;
}
