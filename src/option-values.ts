/**
 * The checks of the library's options whose values the commands check as
 * they parse them (yargs, and each command's own checks): a program in plain
 * JavaScript passes what it likes, and a value of the wrong shape would
 * otherwise be read wrong with no word (a string taken letter by letter as a
 * list, a status misspelt keeping no call) or fail only once the input has
 * been read.
 */
import { pathSteps } from './events.js';

/** A value as a message names it: as JSON where it has a JSON form (`"false"`), else as JavaScript writes it (`10n`, `NaN`). */
function shown(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'number') return String(value);
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/** An option that lists values: an array of strings, or one string for a list of one; undefined when not given. */
export function listOption(value: unknown, name: string): readonly string[] | undefined {
  if (value === undefined) return undefined;
  if (typeof value === 'string') return [value];
  if (Array.isArray(value) && value.every((v) => typeof v === 'string')) return value as string[];
  throw new TypeError(`option ${name} takes a string or an array of strings`);
}

/** An option that takes one of `choices` (in any case with `anyCase`, as the command takes it); undefined when not given. */
export function choiceOption<T extends string>(value: unknown, name: string, choices: readonly T[], anyCase = false): T | undefined {
  if (value === undefined) return undefined;
  const choice = typeof value === 'string' ? choices.find((c) => c === value || (anyCase && c.toLowerCase() === value.toLowerCase())) : undefined;
  if (choice !== undefined) return choice;
  throw new TypeError(`option ${name} takes one of ${choices.join(', ')}, not ${shown(value)}`);
}

/** An option that lists values of `choices`: each checked as {@link choiceOption} checks one. */
export function choiceList<T extends string>(value: unknown, name: string, choices: readonly T[], anyCase = false): readonly T[] | undefined {
  return listOption(value, name)?.map((v) => choiceOption(v, name, choices, anyCase)!);
}

/** An option that lists names, none of them empty (an empty one would keep, or name, nothing). */
export function namesOption(value: unknown, name: string): readonly string[] | undefined {
  const names = listOption(value, name);
  if (names?.some((n) => n === '')) throw new TypeError(`option ${name} takes non-empty names`);
  return names;
}

/**
 * An option that lists dot paths to fields (`uuid`, `.message.id`,
 * `.a["b.c"]`), each as the commands take it: none empty, nor `.`, the whole
 * event (a key or a field of it would be none), nor anything else that is no
 * path, which would name nothing and so keep, or print, nothing right.
 */
export function pathsOption(value: unknown, name: string): readonly string[] | undefined {
  const paths = listOption(value, name);
  const bad = paths?.find((p) => pathSteps(p) === undefined);
  if (bad !== undefined) throw new TypeError(`option ${name} takes dot paths to fields (uuid, .message.id, .a["b.c"]), not ${JSON.stringify(bad)}`);
  return paths;
}

/** The most bytes of a line (`maxLine`): a whole number above 0, or undefined when not given. */
export function sizeOption(value: unknown, name: string): number | undefined {
  return wholeAboveZero(value, name, 'a whole number of bytes above 0');
}

/** A count of things kept (`heldResults`): a whole number above 0, or undefined when not given. */
export function countOption(value: unknown, name: string): number | undefined {
  return wholeAboveZero(value, name, 'a whole number above 0');
}

function wholeAboveZero(value: unknown, name: string, what: string): number | undefined {
  if (value === undefined || (typeof value === 'number' && Number.isInteger(value) && value > 0)) return value;
  throw new TypeError(`option ${name} takes ${what}, not ${shown(value)}`);
}

/** An option that is on or off: a boolean, or undefined when not given (a string such as `'false'` would be taken as on). */
export function flagOption(value: unknown, name: string): boolean | undefined {
  if (value === undefined || typeof value === 'boolean') return value;
  throw new TypeError(`option ${name} takes true or false, not ${shown(value)}`);
}

/**
 * Checks the options of a stream's factory that the commands never take from
 * a user: every callback (a name `on…`, such as `onProblem`) is a function,
 * and the input's name (`source`) a string, where given: one of another
 * shape would fail only at the first line it is called for, the stream's
 * output lost, or name the input in its records as no file is named.
 */
export function callbackOptions(options: object): void {
  for (const [name, value] of Object.entries(options)) {
    if (value === undefined) continue;
    if (/^on[A-Z]/.test(name) && typeof value !== 'function') throw new TypeError(`option ${name} takes a function, not ${shown(value)}`);
    if (name === 'source' && typeof value !== 'string') throw new TypeError(`option source takes a string, the input's name, not ${shown(value)}`);
  }
}
