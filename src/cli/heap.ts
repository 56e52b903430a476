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
