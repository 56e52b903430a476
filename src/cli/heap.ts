/**
 * The young generation of V8's heap, held small for the command's lifetime.
 *
 * A filter keeps little alive, yet V8 doubles the space for new objects
 * (from 1 MiB up to 32 MiB on 64-bit) each time enough of them have outlived
 * a collection, and a long input always gets there: peak memory on a 2 GiB
 * log was 19–37 MiB above that on 100 MB, for no gain in speed. The size can
 * only be capped when the process starts (`--max-semi-space-size`), but the
 * growth factor is read at each growth, so once the space has reached
 * {@link YOUNG_SPACE_CAP}, a growth factor of 1 stops it there.
 *
 * Applied on the V8 where this was measured (Node 20's, V8 11): there the
 * flag is read at each growth, and a flag V8 did not know would be reported
 * on standard output, which is the command's data. On other versions, V8
 * keeps its defaults. `NODE_OPTIONS=--max-semi-space-size=N` caps it there.
 */
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { PerformanceObserver } from 'node:perf_hooks';

/** The size of V8's new space (both semi-spaces) at which growth stops: 4 MiB, as `--max-semi-space-size=2`. */
export const YOUNG_SPACE_CAP = 4 * 1024 * 1024;

/** The size of V8's new space now, in bytes. */
export function youngSpaceSize(): number {
  for (const space of v8.getHeapSpaceStatistics()) if (space.space_name === 'new_space') return space.space_size;
  return 0;
}

/** True on the V8 versions where stopping the growth was measured to work. */
export function canHoldYoungSpace(v8Version: string = process.versions.v8): boolean {
  return v8Version.startsWith('11.');
}

/**
 * Stops the new space growing once it reaches `cap` bytes: checked after
 * each collection until then. Does nothing where {@link canHoldYoungSpace}
 * says no. Returns true when the hold is set up.
 */
export function holdYoungSpace(cap: number = YOUNG_SPACE_CAP): boolean {
  if (!canHoldYoungSpace()) return false;
  const stop = (): boolean => {
    if (youngSpaceSize() < cap) return false;
    v8.setFlagsFromString('--semi-space-growth-factor=1');
    return true;
  };
  if (stop()) return true;
  const observer = new PerformanceObserver(() => {
    if (stop()) observer.disconnect();
  });
  observer.observe({ entryTypes: ['gc'] });
  return true;
}

/** How far the old generation may grow past what the last full collection left, before the next: 2 MiB. */
export const OLD_GARBAGE_STEP = 2 * 1024 * 1024;

/** How often the old generation is looked at, in ms (only between reads: a read's work is never cut into). */
const OLD_CHECK_MS = 50;

/** The bytes in use in V8's old generation: the spaces young objects are promoted to, large objects and code. */
export function oldGenerationUsed(): number {
  let used = 0;
  for (const space of v8.getHeapSpaceStatistics()) {
    switch (space.space_name) {
      case 'old_space':
      case 'code_space':
      case 'large_object_space':
      case 'code_large_object_space':
        used += space.space_used_size;
    }
  }
  return used;
}

/**
 * The old generation's garbage, held small for the command's lifetime.
 *
 * What a filter keeps across a few reads (a tool call waiting for its
 * completion, a session's state, a line's text on its way out) outlives two
 * collections of the young generation and is moved to the old one, where it
 * stays after it is let go until a full collection. V8 starts one when the
 * old generation has grown 8 MiB past what the last one left (more on a fast
 * mutator), so a run long enough to get there peaked 8–15 MiB higher than a
 * run of 100 MB, which ends before. Every {@link OLD_CHECK_MS} ms, when the
 * old generation holds more than `step` bytes past what the last full
 * collection left, one is made: on a 2 GiB log, a few dozen of a few ms each.
 *
 * V8 gives no call for it but `gc()`, exposed by a flag: it is set, and the
 * function taken from a new context, the first time one is needed, so a run
 * too short to need one does not pay for the context. Applied where
 * {@link canHoldYoungSpace} says the flags were measured. Returns true when
 * the hold is set up.
 */
export function holdOldGeneration(step: number = OLD_GARBAGE_STEP, every: number = OLD_CHECK_MS): boolean {
  if (!canHoldYoungSpace()) return false;
  let collect: (() => void) | undefined;
  let floor = oldGenerationUsed();
  const timer = setInterval(() => {
    const used = oldGenerationUsed();
    if (used <= floor) {
      // V8 collected on its own, or the command let go of what it kept.
      floor = used;
      return;
    }
    if (used - floor <= step) return;
    if (collect === undefined) {
      v8.setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    }
    collect();
    floor = oldGenerationUsed();
  }, every);
  timer.unref();
  return true;
}
