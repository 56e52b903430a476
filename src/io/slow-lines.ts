/**
 * The lines the input layer's slow path has read since the value it reads
 * began (see input.ts, SlowState): kept until the value closes, since a value
 * that fails has its lines after the first read again. A value may span a
 * million lines (a string with literal line ends), so they are kept compact:
 * their bytes end to end in one buffer, grown by doubling, and for each line
 * where it ends and its number, two numbers rather than a Buffer and an
 * object each (about 16 bytes a line against 230).
 */

const EMPTY = Buffer.alloc(0);

/** A line as kept: its bytes, its number, and what the excerpt of a problem of the whole line shows, when not its bytes. */
export interface KeptLine {
  buf: Buffer;
  no: number;
  /** The source ended without a newline after it. */
  unterminated: boolean;
  shown: Buffer | undefined;
}

/** A buffer this much larger than what it holds once lines are dropped is given back. */
const SHRINK_FACTOR = 4;
/** Nor is one smaller than this. */
const SHRINK_FLOOR = 64 * 1024;

export class SlowLines {
  private bytes: Buffer = EMPTY;
  private used = 0;
  /** Where each line ends in {@link bytes} (it starts where the one before ends). */
  private ends: number[] = [];
  /** Each line's number, doubled, plus one when it is unterminated. */
  private marks: number[] = [];
  /** What the first line's excerpts show, when not its bytes. */
  private shown: Buffer | undefined;

  get length(): number {
    return this.ends.length;
  }

  /** Keeps a copy of `raw`, line `no`; `shown` counts for a first line only. */
  push(raw: Buffer, no: number, unterminated = false, shown?: Buffer): void {
    const need = this.used + raw.length;
    if (need > this.bytes.length) {
      const grown = Buffer.allocUnsafeSlow(Math.max(need, 2 * this.bytes.length, 256));
      this.bytes.copy(grown, 0, 0, this.used);
      this.bytes = grown;
    }
    raw.copy(this.bytes, this.used);
    this.used = need;
    if (this.ends.length === 0) this.shown = shown && Buffer.from(shown);
    this.ends.push(need);
    this.marks.push(2 * no + (unterminated ? 1 : 0));
  }

  /** The line at `index`, its bytes a copy (they outlive this store when handed on). */
  line(index: number): KeptLine {
    const start = index === 0 ? 0 : this.ends[index - 1]!;
    return {
      buf: Buffer.from(this.bytes.subarray(start, this.ends[index]!)),
      no: this.no(index),
      unterminated: this.marks[index]! % 2 === 1,
      shown: index === 0 ? this.shown : undefined,
    };
  }

  /** The number of the line at `index`. */
  no(index: number): number {
    return Math.floor(this.marks[index]! / 2);
  }

  /** The bytes of the first line, a copy. */
  first(): Buffer {
    return Buffer.from(this.bytes.subarray(0, this.ends[0] ?? 0));
  }

  /** Keeps only the last line (a value starts on it). */
  dropEarlier(): void {
    const n = this.ends.length;
    if (n > 1) this.keepFrom(n - 1);
  }

  /** Keeps the lines from the one numbered `no` on (an array's first element, read as an event, began on it). */
  dropBefore(no: number): void {
    let index = 0;
    while (index < this.ends.length && this.no(index) < no) index++;
    if (index > 0) this.keepFrom(index);
  }

  /** Keeps only the last line (a value closed on it), as line `no`, terminated. */
  keepLast(no: number): void {
    const n = this.ends.length;
    if (n === 0) return;
    this.keepFrom(n - 1);
    this.marks[0] = 2 * no;
  }

  /** Keeps the lines from the one at `index` on, their bytes moved to the buffer's start (a buffer far larger than they need given back). */
  private keepFrom(index: number): void {
    const start = index === 0 ? 0 : this.ends[index - 1]!;
    const length = this.used - start;
    if (this.bytes.length > SHRINK_FLOOR && this.bytes.length > SHRINK_FACTOR * length) {
      const smaller = Buffer.allocUnsafeSlow(Math.max(2 * length, 256));
      this.bytes.copy(smaller, 0, start, this.used);
      this.bytes = smaller;
    } else if (start > 0) {
      this.bytes.copy(this.bytes, 0, start, this.used);
    }
    this.used = length;
    if (index > 0) {
      this.shown = undefined;
      this.ends = this.ends.slice(index).map((end) => end - start);
      this.marks = this.marks.slice(index);
    }
  }
}
