// The output layer: a run is over only once what it wrote has been handed to the system, so that what the command
// writes after it (a warning, --stats, a verdict on stderr) comes after the output where both go to one pipe.
import t from 'tap';
import { PassThrough, Readable, Writable } from 'node:stream';
import { runOutput, untilClosed } from '../src/io/output.js';

/**
 * A stdout whose reader is slow: each chunk is taken into its buffer at once (under its high-water mark, as a pipe's
 * stdout takes it) and handed to the system a few milliseconds later, in order.
 */
function slowStdout(): { out: Writable; handed: string[] } {
  const handed: string[] = [];
  const out = new Writable({
    highWaterMark: 1 << 20,
    write(chunk: Buffer, _encoding, done) {
      setTimeout(() => {
        handed.push(chunk.toString());
        done();
      }, 5);
    },
  });
  return { out, handed };
}

const LINES = ['{"a":1}\n', '{"b":2}\n', '{"c":3}\n'];

for (const wrapped of [false, true]) {
  t.test(`a run ends once its output is handed over${wrapped ? ', read to its end (untilClosed)' : ''}`, async (t) => {
    const { out, handed } = slowStdout();
    const outcome = await runOutput(Readable.from(LINES), new PassThrough(), wrapped ? untilClosed(out) : out);
    t.same(outcome, { kind: 'done' });
    // What is written next (the stats on stderr) must find every line of output out already.
    t.same(handed.filter((c) => c !== ''), LINES);
  });
}

t.test('untilClosed: once the reader has gone, the rest is dropped and the run still ends', async (t) => {
  const out = new Writable({
    write(_chunk, _encoding, done) {
      done(Object.assign(new Error('write EPIPE'), { code: 'EPIPE' }));
    },
  });
  out.on('error', () => {});
  const outcome = await runOutput(Readable.from(LINES), new PassThrough(), untilClosed(out));
  t.same(outcome, { kind: 'done' });
});
