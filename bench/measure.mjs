/**
 * What the benchmark (run.mjs) and the scale check (stress.mjs) share: the
 * cached corpus, and running a command for its wall time and peak RSS.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { generate, GENERATOR_VERSION } from './generate.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const CORPUS_DIR = path.join(ROOT, 'bench/corpus');
/** Where outputs and measurements are kept while they are compared. */
export const TMP = path.join(CORPUS_DIR, 'tmp');

/**
 * The generated corpus for a seed and size: `{ file, stats }`, generated
 * once into bench/corpus/ and kept there, with its statistics beside it
 * (`FILE.json`). `progress` is told when it generates one.
 */
export function corpusFor(seed, bytes, progress = () => {}) {
  fs.mkdirSync(CORPUS_DIR, { recursive: true });
  const name = `stream-seed${seed}-${bytes}-v${GENERATOR_VERSION}.ndjson`;
  const file = path.join(CORPUS_DIR, name);
  const metaFile = `${file}.json`;
  if (fs.existsSync(file) && fs.existsSync(metaFile)) {
    const stats = JSON.parse(fs.readFileSync(metaFile, 'utf8'));
    if (stats.bytes === fs.statSync(file).size) return { file, stats };
  }
  const free = fs.statfsSync(CORPUS_DIR);
  if (free.bavail * free.bsize < bytes * 1.1) throw new Error(`not enough disk space in ${CORPUS_DIR} for a ${bytes}-byte corpus`);
  progress(`generating ${name} …`);
  const tmp = `${file}.partial-${process.pid}`;
  const fd = fs.openSync(tmp, 'w');
  const t0 = Date.now();
  let stats;
  try {
    stats = generate({ seed, size: bytes, write: (text) => fs.writeSync(fd, text) });
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
  fs.writeFileSync(metaFile, `${JSON.stringify(stats, null, 2)}\n`);
  progress(`generated ${name} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  return { file, stats };
}

/** GNU time is there: peak RSS is exact. */
export const HAVE_TIME = fs.existsSync('/usr/bin/time') && spawnSync('/usr/bin/time', ['-f', '%M', 'true']).status === 0;
export const RSS_METHOD = HAVE_TIME
  ? 'peak RSS from /usr/bin/time -f %M (getrusage of the command and the children it waited for)'
  : 'peak RSS by polling /proc/<pid>/status VmHWM every 2 ms (a lower bound; install GNU time for exact figures)';

/** The newlines in a buffer. */
function countLines(buf) {
  let n = 0;
  for (let i = buf.indexOf(10); i !== -1; i = buf.indexOf(10, i + 1)) n++;
  return n;
}

let serial = 0;

/**
 * Runs `argv` in the project's root with stdin from `stdin` (a file, or
 * none), stdout to `stdout` (a file; /dev/null by default), stderr to a
 * temporary file. Resolves to `{ ms, rssKiB, code, signal, stderr,
 * stderrLines }`; `stderr` holds its first 4 KiB.
 */
export function measure(argv, { stdin = null, stdout = '/dev/null', env = process.env } = {}) {
  const id = ++serial;
  fs.mkdirSync(TMP, { recursive: true });
  const timeFile = path.join(TMP, `time-${process.pid}-${id}`);
  const errFile = path.join(TMP, `stderr-${process.pid}-${id}`);
  const inFd = stdin ? fs.openSync(stdin, 'r') : 'ignore';
  const outFd = fs.openSync(stdout, 'w');
  const errFd = fs.openSync(errFile, 'w');
  const command = HAVE_TIME ? ['/usr/bin/time', '-f', '%M', '-o', timeFile, ...argv] : argv;
  return new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    const child = spawn(command[0], command.slice(1), { cwd: ROOT, env, stdio: [inFd, outFd, errFd] });
    let hwm = 0;
    let poll = null;
    if (!HAVE_TIME) {
      const statusFile = `/proc/${child.pid}/status`;
      poll = setInterval(() => {
        try {
          const m = /VmHWM:\s+(\d+)/.exec(fs.readFileSync(statusFile, 'latin1'));
          if (m) hwm = Math.max(hwm, Number(m[1]));
        } catch {
          // gone already
        }
      }, 2);
    }
    child.on('error', reject);
    child.on('exit', (code, signal) => {
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (poll) clearInterval(poll);
      for (const fd of [inFd, outFd, errFd]) if (typeof fd === 'number') fs.closeSync(fd);
      let rssKiB = hwm;
      if (HAVE_TIME) {
        // GNU time passes the command's status on, and adds a line about it before the figure.
        const lines = fs.readFileSync(timeFile, 'utf8').trim().split('\n');
        rssKiB = Number(lines[lines.length - 1]) || 0;
        fs.rmSync(timeFile, { force: true });
      }
      const err = fs.readFileSync(errFile);
      fs.rmSync(errFile, { force: true });
      resolve({ ms, rssKiB, code, signal, stderr: err.subarray(0, 4096).toString('utf8'), stderrLines: countLines(err) });
    });
  });
}
