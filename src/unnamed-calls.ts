/**
 * Calls started without a call id, waiting for their completion, found as
 * ndjson-tools and ndjson-text pair them: of a group (a session's calls of
 * one tool), first the oldest started with the arguments the completion has
 * (the same command and paths: see argsKey), else the oldest. Each is
 * found at once, however many wait: a long run of calls without ids, or
 * many runs that died with calls pending, would otherwise make every
 * completion look through all of them.
 */
import type { ToolCallFacts } from './events.js';
import { resolvePath } from './tools/paths.js';

/** The group of a call: its session and its tool (undefined: none named). */
export function callGroup(session: string, tool: string | undefined): string {
  return JSON.stringify([session, tool ?? null]);
}

/**
 * A call's command and paths (see toolCallFacts), as one string: equal for
 * two calls given the same ones, a path named two ways (`./b`, `b`, `/r/b`
 * in the cwd `/r`) the same.
 */
function argsKey(facts: ToolCallFacts, cwd: string | undefined): string {
  return JSON.stringify([facts.command ?? null, facts.argPaths.map((p) => resolvePath(p, cwd))]);
}

/**
 * Keys filed under names, each name's in the order they were filed: a Map of
 * Sets whose emptied Sets are let go a good many at a time. A Map entry
 * deleted stays in V8's table, as a hole its key's lookups step over, until
 * the table is made again: a name emptied and filed under again and again
 * (a session's one call, completed, then its next) in a table of many other
 * names (runs that died with calls pending) made each lookup of it step over
 * every hole it left before, a time that grew with the number of calls.
 */
export class KeySets {
  private readonly sets = new Map<string, Set<string>>();
  /** How many of {@link sets} are empty. */
  private empty = 0;

  add(name: string, key: string): void {
    let keys = this.sets.get(name);
    if (keys === undefined) this.sets.set(name, (keys = new Set()));
    else if (keys.size === 0) this.empty--;
    keys.add(key);
  }

  delete(name: string, key: string): void {
    const keys = this.sets.get(name);
    if (keys === undefined || !keys.delete(key) || keys.size > 0) return;
    // The empty ones are let go once they are most of the table: each is let go once, and they never outnumber the rest.
    if (++this.empty > 64 && this.empty * 2 > this.sets.size) {
      for (const [at, set] of this.sets) if (set.size === 0) this.sets.delete(at);
      this.empty = 0;
    }
  }

  /** The keys filed under `name`, in the order they were filed (none: empty). */
  keys(name: string): ReadonlySet<string> {
    return this.sets.get(name) ?? NO_KEYS;
  }

  /** The first key filed under `name` still there. */
  first(name: string): string | undefined {
    for (const key of this.keys(name)) return key;
    return undefined;
  }

  clear(): void {
    this.sets.clear();
    this.empty = 0;
  }
}

const NO_KEYS: ReadonlySet<string> = new Set();

export class UnnamedCalls {
  /** The keys of each group, in the order their calls started. */
  private readonly groups = new KeySets();
  /** The keys of each group's calls of the same arguments, in the order they started. */
  private readonly byArgs = new KeySets();
  /** Where each key is filed. */
  private readonly filed = new Map<string, [group: string, args: string]>();

  /** A call of `group` started, with the facts of its arguments, under `key` (a key not in use); `cwd`: its session's. */
  add(key: string, group: string, facts: ToolCallFacts, cwd?: string): void {
    const args = `${group}\n${argsKey(facts, cwd)}`;
    this.filed.set(key, [group, args]);
    this.groups.add(group, key);
    this.byArgs.add(args, key);
  }

  /** The call under `key` is no longer waiting (no-op when it is not filed). */
  delete(key: string): void {
    const filed = this.filed.get(key);
    if (filed === undefined) return;
    this.filed.delete(key);
    this.groups.delete(filed[0], key);
    this.byArgs.delete(filed[1], key);
  }

  /**
   * The key of the call a completion of `group` completes: see the module
   * comment (`facts`: of its arguments and result, when it has any; `cwd`:
   * its session's).
   */
  find(group: string, facts: ToolCallFacts | undefined, cwd?: string): string | undefined {
    return (facts === undefined ? undefined : this.byArgs.first(`${group}\n${argsKey(facts, cwd)}`)) ?? this.groups.first(group);
  }

  clear(): void {
    this.groups.clear();
    this.byArgs.clear();
    this.filed.clear();
  }
}
