/**
 * How a binary starts (bin/, through this module built as CommonJS,
 * dist/cli/start.cjs: no ES module loader to set up before the command
 * runs): `--version` is answered at once; otherwise the
 * commands' bundle (one CommonJS file, see package.json's `bundle` script)
 * is compiled with V8's code cache made for it when the package was built
 * (see code-cache.ts), and the command run.
 *
 * Compiling the bundle and the functions a command calls as it starts is
 * most of the time a short run takes beyond Node's own start. With the
 * cache, V8 reads that code instead of compiling it again. A cache V8 does
 * not accept (another Node, other V8 flags, a bundle changed since) is left
 * aside by V8, and the bundle compiled as without it; a missing one is the
 * same.
 *
 * Code compiled this way has no `import()`: the bundle needs none (esbuild
 * makes the commands' modules part of it). The one left in it, stream-chain
 * asking for `node:string_decoder` as a faster text decoder than its own,
 * fails, and stream-chain keeps its TextDecoder, as it does wherever the
 * module is not there; the input layer decodes lines itself anyway.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';
import { EXIT } from '../exit.js';
import { VERSION } from '../version.js';
import type { CommandName, run, runCommand } from './run.js';

const BUNDLE_DIR = fileURLToPath(new URL('../bundle/', import.meta.url));
/** The bundle of the commands. */
export const BUNDLE = `${BUNDLE_DIR}ndjson-agent.cjs`;
/** V8's code cache for {@link BUNDLE}, made by code-cache.ts. */
export const CODE_CACHE = `${BUNDLE}.cache`;
/**
 * The name the bundle is compiled under when the cache is made: V8 keeps it in the cache, and names it in place of the
 * file's own in the stack of an error wherever the cache is taken, so it is the bundle's place in the package, not
 * the directory it was built in.
 */
export const CACHED_NAME = 'ndjson-agent/dist/bundle/ndjson-agent.cjs';

/** What the bundle exports: run.ts. */
export interface Commands {
  run: typeof run;
  runCommand: typeof runCommand;
}

/** The bundle, compiled, and whether V8 took the cache. */
export interface LoadedBundle {
  commands: Commands;
  /** The compiled bundle (code-cache.ts makes the cache from it). */
  script: Script;
  /** A cache was read and V8 used it. */
  cached: boolean;
}

function readCache(file: string): Buffer | undefined {
  try {
    return readFileSync(file);
  } catch {
    return undefined;
  }
}

/** Compiles and runs the bundle, with the code cache in the file `cache` (null: none), under the name `filename`. */
export function loadBundle(cache: string | null = CODE_CACHE, filename = BUNDLE): LoadedBundle {
  const source = readFileSync(BUNDLE, 'utf8');
  const cachedData = cache === null ? undefined : readCache(cache);
  // The wrapper Node gives a CommonJS module.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename,
    cachedData,
  });
  const module = { exports: {} as Commands };
  const wrapper = script.runInThisContext() as (...args: unknown[]) => void;
  wrapper.call(module.exports, module.exports, createRequire(BUNDLE), module, BUNDLE, BUNDLE_DIR);
  return { commands: module.exports, script, cached: cachedData !== undefined && !script.cachedDataRejected };
}

/** Runs a binary's command with the process's arguments, and exits with its status. */
export async function start(command: CommandName): Promise<never> {
  const argv = process.argv.slice(2);
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    // Written, the process ends with 0; not written (`>/dev/full`), the command answers again, and says why.
    const written = await new Promise<boolean>((resolve) => {
      process.stdout.once('error', () => resolve(false));
      process.stdout.write(`${VERSION}\n`, (error) => resolve(!error));
    });
    if (written) process.exit(0);
  }
  // The current directory, gone (removed under the shell) or not to be read: yargs asks for it as it loads, and a
  // relative path is read from it. One line, as for an input that cannot be read.
  const cwd = cwdProblem();
  if (cwd !== undefined) {
    process.stderr.write(`ndjson-${command}: cannot read the current directory: ${cwd}; run it from another\n`);
    process.exit(EXIT.INPUT);
  }
  return loadBundle().commands.run(command, argv);
}

/** Why the process's current directory cannot be read (`no such file or directory`), if it cannot. */
function cwdProblem(): string | undefined {
  try {
    process.cwd();
    return undefined;
  } catch (error) {
    // `ENOENT: no such file or directory, uv_cwd`
    const message = (error as Error).message;
    return /^\w+: (.*), uv_cwd$/.exec(message)?.[1] ?? message;
  }
}
