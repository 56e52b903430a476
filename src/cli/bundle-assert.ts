/**
 * The two checks yargs makes with Node's `assert` module, for the bundle (see
 * the `bundle` script in package.json), which puts this module in its place.
 * Loading node:assert takes a millisecond of every start, and a check that
 * fails builds an AssertionError, which loads the modules that colour its
 * message and sets up standard error to look at it: yargs makes one fail at
 * every start (finding no package.json of its own, see bundle-find-up.ts)
 * and catches it. These throw a plain Error, as cheaply.
 */
export function strictEqual(actual: unknown, expected: unknown, message?: string): void {
  if (actual !== expected) throw new Error(message ?? `expected ${String(expected)}, not ${String(actual)}`);
}

export function notStrictEqual(actual: unknown, expected: unknown, message?: string): void {
  if (actual === expected) throw new Error(message ?? `expected a value other than ${String(expected)}`);
}
