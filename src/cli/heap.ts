/**
 * V8's heap, held small for the command's lifetime, once the run has shown
 * it is not a short one.
 *
 * The young generation. A filter keeps little alive, yet V8 doubles the
 * space for new objects (from 1 MiB up to 32 MiB on 64-bit) each time enough
 * of them have outlived a collection, and a long input always gets there:
 * peak memory on a 2 GiB log was 19–37 MiB above that on 100 MB, for no gain
 * in speed. The size can only be capped when the process starts
 * (`--max-semi-space-size`), but the growth factor is read at each growth,
 * so once the space has reached {@link YOUNG_SPACE_CAP}, a growth factor of
 * 1 stops it there.
 *
 * The old generation. What a filter keeps across a few reads (a tool call
 * waiting for its completion, a session's state, a line's text on its way
 * out) outlives two collections of the young generation and is moved to the
 * old one, where it stays after it is let go until a full collection. V8
 * starts one once the old generation has grown past a limit it sets after
 * each: by default at least 8 MiB past what the collection left (a factor
 * of up to 4 on a fast mutator), so a run long enough to get there peaked
 * higher than a run of 100 MB, which ends before (`ndjson-tools` on 2 GiB:
 * 92–101 MiB against 78). `--heap-growing-percent`, which V8 reads each
 * time it sets a limit, holds that factor at 1 + {@link OLD_GROWTH}%, where
 * V8 computed 1.6 to 4.0 in the same runs (`[HeapController] factor …`
 * under `--trace-gc-verbose`).
 *
 * V8's mode for saving memory. The flag that asks for it,
 * `--optimize-for-size`, is also read at each limit: it holds the factor at
 * 1.1 to 1.3, makes V8's own full collections memory-reducing ones (they
 * compact, and shrink the young generation to 2 MiB), and was the hold's
 * only hold on the old generation until the early start of marking, below
 * (set at the first collection, `ndjson-tools` on 2 GiB peaked at 87–88 MiB
 * against 92–101; given on the command line, the flag also changes what V8
 * sets up as it starts, and a run took 40% longer). It costs a run time at
 * every size: more scavenges (`ndjson-text --all` on 100 MB: 58 against 35)
 * and dearer full collections. So it is set only once a held run has made
 * {@link SAVING_AFTER} full collections, which the tools' runs of 100 MB do
 * not reach (0–3), those of 400 MB reach near their end, and those of 2 GiB
 * early: in `npm run stress` on 2026-12-02, every 2 GiB peak within 1.3 MiB,
 * above or below, of what it was with the mode from the start, where without
 * it they were up to 4 MiB higher (`--deny-read … --paths` 85.3 MiB against
 * 81.3; `ndjson-text` 79.2 against 77.6); on 100 MB `ndjson-text --all` took
 * 881 ms against 924, `ndjson-tools` 870 against 891, `ndjson-dedupe` 766
 * against 949 (medians of 11, alternating), and on 2 GiB `ndjson-text --all`
 * 9.7 s against 10.4, `ndjson-tools` 8.2 against 8.7 (2 runs each). In that
 * mode the least step past what a collection left stays 8 MiB (plus the
 * young generation's size) for every collection V8 starts itself by
 * incremental marking, memory-reducing ones, whose step V8 11 does not
 * lower; only a collection made when an allocation fails sets the limit 2
 * MiB past (`--trace-gc-verbose`, `ndjson-text --all` on 2 GiB: `new limit:
 * 9124 KB` after the first of a run, `15850 KB` from 5644 KB after the
 * second, 8 MiB and the young generation past after each later one).
 *
 * When marking starts. The limit is not where V8 has to start: it starts
 * marking, by default, as the old generation nears its limit, and
 * `--incremental-marking-soft-trigger` sets that start in percent of the
 * room between what the last full collection left and the limit. Held at
 * {@link MARKING_START}, a quarter, V8 collects 2–3 MiB past what the last
 * collection left, where it went 8–9 MiB past before (`ndjson-tools` on 2
 * GiB: full collections at 8.1–9.5 MB of heap in use, against 13.9–15.0,
 * and 19–21 of them against 6; the peak 78.8 MiB against 83.4). These are
 * V8's own collections, marked a step at a time, and each marks what is
 * alive, 5–7 MB: on 100 and 400 MB run times are the same within the
 * noise; on 2 GiB the jobs that collect most took 3–4% longer
 * (`ndjson-text --all` 10.91 s against 10.48, 26 deoptimizations against
 * 23; see the README's *Memory*). A run that keeps much (the distinct
 * paths of a huge log for `--summary`) would have each collection mark all
 * it keeps for the little it frees, so past {@link MARKING_START_LIVE}
 * left by a full collection V8's own start is set back (400,000 distinct
 * paths: 6% longer without that). Forcing full collections instead (through
 * `gc()`, 2 MiB past what the last left) held the peak as low (85 MiB
 * then; 78–79 against 82–84 when tried again), but a forced collection
 * dropped optimized code that had embedded objects it freed (46
 * deoptimizations on 400 MB against 5 then, 10 against 7 when tried
 * again), and V8 made that code again: `ndjson-text --all` on 2 GiB took
 * 10–50% longer (5–9% on 400 MB when tried again, see the README's
 * *Memory*).
 *
 * The flags are set when the young generation reaches its cap, not at
 * start: once V8's flags change, Node's own modules loaded after are
 * compiled again rather than read from the code cache Node ships (V8 takes
 * a cache only under the flags it was made with), 7–9 ms of a short run.
 *
 * Applied on the V8 where this was measured (Node 20's, V8 11): there the
 * flags are read as said, and a flag V8 did not know would be reported on
 * standard output, which is the command's data. On other versions, V8 keeps
 * its defaults. `NODE_OPTIONS=--max-semi-space-size=N` caps the young
 * generation there.
 */
import v8 from 'node:v8';
import { PerformanceObserver, constants } from 'node:perf_hooks';
import type { PerformanceEntry } from 'node:perf_hooks';

/** The size of V8's new space (both semi-spaces) at which growth stops: 4 MiB, as `--max-semi-space-size=2`. */
export const YOUNG_SPACE_CAP = 4 * 1024 * 1024;

/** The size of V8's new space now, in bytes. */
export function youngSpaceSize(): number {
  for (const space of v8.getHeapSpaceStatistics()) if (space.space_name === 'new_space') return space.space_size;
  return 0;
}

/** True on the V8 versions where the hold was measured to work. */
export function canHoldHeap(v8Version: string = process.versions.v8): boolean {
  return v8Version.startsWith('11.');
}

/**
 * When V8 starts marking the old generation for its next full collection,
 * held: in percent of the room its limit leaves past what the last full
 * collection left (V8's `--incremental-marking-soft-trigger`; 0 is V8's own
 * start, as the old generation nears the limit).
 */
export const MARKING_START = 25;

/**
 * How much V8 lets the old generation grow past what a full collection left
 * before the next, in percent (`--heap-growing-percent`; V8's own factor is
 * 1.6 to 4.0 on these runs, 1.1 to 1.3 in its mode for saving memory).
 */
export const OLD_GROWTH = 20;

/**
 * After how many full collections of a held run V8's mode for saving memory
 * is set too (`--optimize-for-size`, see the module's comment): a run that
 * long is a long one, whose peak the mode keeps lower, and a shorter one
 * does not pay for it.
 */
export const SAVING_AFTER = 4;

/**
 * What a full collection may leave in the old generation for marking to go
 * on starting early: past it, V8's own start is set back, as each
 * collection would mark far more than it frees.
 */
export const MARKING_START_LIVE = 16 * 1024 * 1024;

const OLD_SPACES: readonly string[] = ['old_space', 'code_space', 'large_object_space', 'code_large_object_space'];

/** The bytes in use in V8's old generation now. */
export function oldGenerationUsed(): number {
  let used = 0;
  for (const space of v8.getHeapSpaceStatistics()) if (OLD_SPACES.includes(space.space_name)) used += space.space_used_size;
  return used;
}

/** True for the entry of a full collection (Node gives its kind in `detail`). */
function isFullCollection(entry: PerformanceEntry): boolean {
  return (entry as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR;
}

/** How {@link holdHeap} holds the heap: the defaults are the module's constants (other values are for tests). */
export interface HoldOptions {
  /** {@link YOUNG_SPACE_CAP} */
  cap?: number;
  /** {@link MARKING_START} */
  markingStart?: number;
  /** {@link MARKING_START_LIVE} */
  markingStartLive?: number;
  /** {@link SAVING_AFTER} */
  savingAfter?: number;
}

/**
 * Holds the heap (see the module's comment) once the new space reaches its
 * cap: checked after each collection until then; after it, each full
 * collection is counted towards {@link SAVING_AFTER} and checked against
 * {@link MARKING_START_LIVE}. Does nothing where {@link canHoldHeap} says
 * no. Returns true when the hold is set up.
 */
export function holdHeap({
  cap = YOUNG_SPACE_CAP,
  markingStart = MARKING_START,
  markingStartLive = MARKING_START_LIVE,
  savingAfter = SAVING_AFTER,
}: HoldOptions = {}): boolean {
  if (!canHoldHeap()) return false;
  const hold = (): boolean => {
    if (youngSpaceSize() < cap) return false;
    v8.setFlagsFromString('--semi-space-growth-factor=1');
    v8.setFlagsFromString(`--heap-growing-percent=${OLD_GROWTH}`);
    v8.setFlagsFromString(`--incremental-marking-soft-trigger=${markingStart}`);
    return true;
  };
  let held = hold();
  let full = 0;
  let guarded = false;
  const observer = new PerformanceObserver((list) => {
    if (!held) {
      held = hold();
      return;
    }
    if (!list.getEntries().some(isFullCollection)) return;
    if (++full === savingAfter) v8.setFlagsFromString('--optimize-for-size');
    if (!guarded && oldGenerationUsed() > markingStartLive) {
      v8.setFlagsFromString('--incremental-marking-soft-trigger=0');
      guarded = true;
    }
    if (guarded && full >= savingAfter) observer.disconnect();
  });
  observer.observe({ entryTypes: ['gc'] });
  return true;
}
