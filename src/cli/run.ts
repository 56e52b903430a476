/**
 * The commands, as the bundle exports them (see start.ts). {@link run} is
 * a binary's: the command's module is loaded and run, V8's heap is held
 * small once it reads its input (see heap.ts), and, for some commands, V8's
 * inlining (see inlining.ts), and its status becomes the process's.
 */
import { finalStatus, processIo } from './common.js';
import { drained } from '../io/output.js';
import type { Io } from './common.js';

/** The commands, by the module that implements each. */
export type CommandName = 'result' | 'dedupe' | 'text' | 'tools';

/** The commands whose runs are shorter with V8's inlining held (see inlining.ts). */
const INLINING_LIMITED: ReadonlySet<CommandName> = new Set(['text', 'tools']);

/** Each command's module, loaded when it runs. */
const COMMANDS: Record<CommandName, () => Promise<{ main(argv: string[], io?: Io): Promise<number> }>> = {
  result: () => import('./result.js'),
  dedupe: () => import('./dedupe.js'),
  text: () => import('./text.js'),
  tools: () => import('./tools.js'),
};

/** Runs a command with these arguments and streams (the process's by default), and gives its status. */
export async function runCommand(command: CommandName, argv: string[], io?: Io): Promise<number> {
  return (await COMMANDS[command]()).main(argv, io);
}

/** Runs a command with the process's arguments and exits with its status (start.ts has answered `--version`). */
export async function run(command: CommandName, argv: string[] = process.argv.slice(2)): Promise<never> {
  const io = processIo();
  // Only a run that reads its input needs the hold and the inlining held, and what they are made of (V8's module,
  // perf_hooks) takes a few ms to load: ndjson-result reading a file from its end, or any --help, goes without.
  io.onRead = () =>
    void Promise.all([import('./heap.js'), import('./inlining.js')]).then(([{ holdHeap }, { limitInlining }]) => {
      holdHeap();
      if (INLINING_LIMITED.has(command)) limitInlining();
    });
  const code = await runCommand(command, argv, io);
  // A signal that came before the run ended still gives its status (a signal to the whole process group ends the
  // agent's output and reaches the tool at once). Node hands a signal over when its event loop next polls: the turn
  // the run ended in may have polled before the signal came, so two turns are taken.
  for (let turn = 0; turn < 2; turn++) await new Promise((resolve) => setImmediate(resolve));
  await untilDrained(io);
  process.exit(finalStatus(code, io.signals));
}

/**
 * Waits until what was written to stdout and stderr has been handed to the
 * system: on a pipe, Node writes what its reader has not taken yet later, and
 * the process's exit would drop it (the warnings of a long input, on a stderr
 * read slowly). A signal ends the wait, as it ends a run.
 */
async function untilDrained(io: Io): Promise<void> {
  if (io.signals?.received) return;
  let onSignal: () => void = () => {};
  const signalled = new Promise<void>((resolve) => {
    onSignal = resolve;
  });
  io.signals?.on('SIGINT', onSignal);
  io.signals?.on('SIGTERM', onSignal);
  try {
    await Promise.race([Promise.all([drained(io.stdout), drained(io.stderr)]), signalled]);
  } finally {
    io.signals?.off('SIGINT', onSignal);
    io.signals?.off('SIGTERM', onSignal);
  }
}
