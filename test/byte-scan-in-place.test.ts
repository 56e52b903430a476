// The byte scan over bytes read into its own read buffers (see ByteScan.readBuffers): scanned
// where they are, not copied. Every test of byte-scan.test.ts again, each line put in a read
// buffer first; and a check that the scan reads the buffer itself.
import t from 'tap';
import { WINDOW, makeByteScan } from '../src/io/byte-scan.js';

const scan = makeByteScan(2);

t.test('read buffers: a window each, in the scan memory, distinct', { skip: scan ? false : 'no byte scan' }, async (t) => {
  const [a, b] = scan!.readBuffers;
  t.equal(scan!.readBuffers.length, 2);
  t.same([a!.length, b!.length], [WINDOW, WINDOW]);
  t.equal(a!.buffer, b!.buffer, 'views of one memory');
  t.ok(b!.byteOffset >= a!.byteOffset + WINDOW, 'not overlapping');
  t.same(makeByteScan()!.readBuffers, [], 'none unless asked for');
});

t.test('bytes in a read buffer are scanned where they are, not copied', { skip: scan ? false : 'no byte scan' }, async (t) => {
  const buffer = scan!.readBuffers[1]!;
  const line = buffer.subarray(100, 200);
  line.fill(0x61);
  scan!.load(line);
  t.equal(scan!.string(0, 100), 100, 'no quote');
  buffer[150] = 0x22;
  t.equal(scan!.string(0, 100), 50, 'a quote written into the buffer after the load is seen: the scan reads the buffer');
  const copy = Buffer.from(line);
  scan!.load(copy);
  copy[20] = 0x22;
  t.equal(scan!.string(0, 100), 50, 'a buffer of its own is copied when loaded: a later change is not seen');
});

process.env.BYTE_SCAN_IN_PLACE = '1';
await import('./byte-scan.test.js');
