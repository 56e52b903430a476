#!/usr/bin/env node
/**
 * The bare floor of the benchmark: the least a Node program that reads a
 * stream event by event must do. It reads the file (or stdin) in 256 KiB
 * chunks, as the tools do, splits it into lines, and `JSON.parse`s every
 * non-blank line. It prints the number of objects parsed.
 *
 * A tool that needs only some events should beat this (it need not parse
 * the others); a tool slower than this spends time on more than parsing.
 *
 * usage: node bench/floor.mjs [FILE]
 */
import fs from 'node:fs';

const READ_SIZE = 256 * 1024;
const fd = process.argv[2] ? fs.openSync(process.argv[2], 'r') : 0;
const chunk = Buffer.allocUnsafe(READ_SIZE);
let carry = [];
let objects = 0;

function parse(line) {
  if (line.length === 0) return;
  const value = JSON.parse(line.toString('utf8'));
  if (typeof value === 'object' && value !== null) objects++;
}

for (;;) {
  let n;
  try {
    n = fs.readSync(fd, chunk, 0, READ_SIZE, null);
  } catch (e) {
    if (e.code === 'EAGAIN') continue;
    if (e.code === 'EOF') break;
    throw e;
  }
  if (n === 0) break;
  const data = chunk.subarray(0, n);
  let start = 0;
  for (;;) {
    const nl = data.indexOf(10, start);
    if (nl === -1) {
      // Copied: the chunk buffer is reused by the next read.
      if (start < n) carry.push(Buffer.from(data.subarray(start)));
      break;
    }
    if (carry.length > 0) {
      carry.push(data.subarray(start, nl));
      parse(Buffer.concat(carry));
      carry = [];
    } else {
      parse(data.subarray(start, nl));
    }
    start = nl + 1;
  }
}
if (carry.length > 0) parse(Buffer.concat(carry));
process.stdout.write(`${objects}\n`);
