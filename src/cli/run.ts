/**
 * The entry point of every binary. `--version` is answered before anything
 * heavy is loaded; otherwise V8's young generation is held small (see
 * heap.ts), the command's module is imported and run, and its status
 * becomes the process's.
 */
import { VERSION } from '../version.js';
import { holdYoungSpace } from './heap.js';

/** The commands, by the module that implements each. */
export type CommandName = 'result' | 'dedupe' | 'text' | 'tools';

/** Runs a command with the process's arguments and exits with its status. */
export async function run(command: CommandName, argv: string[] = process.argv.slice(2)): Promise<never> {
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    process.stdout.write(`${VERSION}\n`);
    process.exit(0);
  }
  holdYoungSpace();
  const module = (await import(`./${command}.js`)) as { main(argv: string[]): Promise<number> };
  process.exit(await module.main(argv));
}
