/**
 * `--summary` and `--paths`: what a run's tool calls add up to. Only what the
 * summary shows is kept: counts, each path once, each command run.
 */
import type { AuditedCall, CallStatus, PathField } from './call.js';
import { CALL_STATUSES, PATH_FIELDS, READ_FIELDS, WRITE_FIELDS, callCounts, pathField } from './call.js';
import { absoluteForm, normalizedForm, resolvePath } from './paths.js';
import { visibleOneLine } from '../safe-text.js';
import stringWidth from '../text-width.js';

/** Which paths `--paths` lists. */
export type PathsChoice = 'all' | 'read' | 'written';

/** Every {@link PathsChoice}. */
export const PATHS_CHOICES: readonly PathsChoice[] = ['all', 'read', 'written'];

const PATHS_FIELDS: Record<PathsChoice, ReadonlySet<PathField>> = {
  all: new Set(PATH_FIELDS),
  // As the checks count them: a tool of unknown kind may read or write the paths it names.
  read: READ_FIELDS,
  written: WRITE_FIELDS,
};

/**
 * Unique paths, in the order first seen. Two spellings of one file in one
 * session (`./a`, `a`, `/cwd/a`) count once, shown normalized (`a`), or as
 * the absolute path with `absolute`.
 */
export class PathSet {
  private readonly keys = new Map<string, string>();
  private readonly statuses = new Map<string, CallStatus>();
  readonly list: string[] = [];

  constructor(private readonly absolute: boolean) {}

  /** Adds a path of a call; returns the form to show when it is new, else undefined. */
  add(call: AuditedCall, path: string): string | undefined {
    const resolved = resolvePath(path, call.cwd);
    const show = this.absolute ? absoluteForm(path, call.cwd) : normalizedForm(path, call.cwd);
    // Relative paths of sessions without a cwd are only known by their normalized form.
    const key = `${call.cwd === undefined && !resolved.startsWith('/') ? `${call.session}\u0000` : ''}${resolved}`;
    // A file seen before (under this spelling or another) is not listed again; a success now makes it a success.
    const seen = this.keys.get(key) ?? (this.statuses.has(show) ? show : undefined);
    if (seen !== undefined) {
      // Listed as written by another session: this session's file is that line too, however it is spelt next.
      if (!this.keys.has(key)) this.keys.set(key, seen);
      if (call.status === 'success') this.statuses.set(seen, 'success');
      return undefined;
    }
    this.keys.set(key, show);
    this.statuses.set(show, call.status);
    this.list.push(show);
    return show;
  }

  /** The best status of the calls that touched a shown path: `success` if any succeeded. */
  statusOf(shown: string): CallStatus | undefined {
    return this.statuses.get(shown);
  }
}

/** The paths of a call that `--paths` (with `choice`) lists: none for calls that did not act. */
export function listedPaths(call: AuditedCall, choice: PathsChoice): string[] {
  const field = pathField(call);
  if (field === undefined || !callCounts(call) || !PATHS_FIELDS[choice].has(field)) return [];
  return call.paths;
}

interface CommandRun {
  command: string;
  exit_code?: number;
  /** The signal that ended it (`SIGTERM`), where the call says so. */
  signal?: string;
  status?: CallStatus;
}

interface PendingCall {
  session_id: string;
  call_id: string | null;
  tool: string | null;
  source: string;
  line: number;
}

/** Name for a call with no tool in counts and lists. */
const NO_TOOL = '(none)';

/** Half of a surrogate pair without the other. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/** The `--summary` accumulator. */
export class Summary {
  private calls = 0;
  private readonly byStatus = new Map<CallStatus, number>();
  private readonly byTool = new Map<string, Map<CallStatus, number>>();
  private readonly paths = new Map<PathField, PathSet>();
  private readonly commands: CommandRun[] = [];
  private readonly pending: PendingCall[] = [];

  constructor(absolute: boolean) {
    for (const field of PATH_FIELDS) this.paths.set(field, new PathSet(absolute));
  }

  add(call: AuditedCall): void {
    this.calls++;
    this.byStatus.set(call.status, (this.byStatus.get(call.status) ?? 0) + 1);
    const tool = call.tool ?? NO_TOOL;
    let counts = this.byTool.get(tool);
    if (counts === undefined) this.byTool.set(tool, (counts = new Map()));
    counts.set(call.status, (counts.get(call.status) ?? 0) + 1);
    if (call.status === 'pending') {
      this.pending.push({ session_id: call.session, call_id: call.callId ?? null, tool: call.tool ?? null, source: call.source, line: call.line });
    }
    if (!callCounts(call)) return;
    this.addPaths(call);
    if (call.facts.command !== undefined) {
      const run: CommandRun = { command: call.facts.command };
      if (call.facts.exitCode !== undefined) run.exit_code = call.facts.exitCode;
      if (call.facts.signal !== undefined) run.signal = call.facts.signal;
      run.status = call.status;
      this.commands.push(run);
    }
  }

  /** Lists the paths of `call` (a call that did not act has none), counting nothing else of it: a call seen as another tool. */
  addPaths(call: AuditedCall): void {
    if (!callCounts(call)) return;
    const field = pathField(call);
    if (field !== undefined) for (const p of call.paths) this.paths.get(field)!.add(call, p);
  }

  /** The summary as one JSON object (see the man page for its fields). */
  toJson(): Record<string, unknown> {
    const status: Record<string, number> = {};
    for (const s of CALL_STATUSES) if (this.byStatus.has(s)) status[s] = this.byStatus.get(s)!;
    // Made from entries, so that a tool named `__proto__` is a key like any other.
    const tools = Object.fromEntries(
      [...this.byTool]
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([tool, counts]) => [tool, Object.fromEntries(CALL_STATUSES.filter((s) => counts.has(s)).map((s) => [s, counts.get(s)!]))]),
    );
    const out: Record<string, unknown> = { calls: this.calls, status, tools };
    const unsuccessful: Record<string, Record<string, CallStatus>> = {};
    for (const field of PATH_FIELDS) {
      const set = this.paths.get(field)!;
      out[field] = set.list;
      // Made from entries, so that a path named `__proto__` is a key like any other.
      const marked = set.list.flatMap((p) => {
        const status = set.statusOf(p);
        return status !== undefined && status !== 'success' ? [[p, status] as const] : [];
      });
      if (marked.length > 0) unsuccessful[field] = Object.fromEntries(marked);
    }
    out.unsuccessful = unsuccessful;
    out.commands = this.commands;
    out.pending = this.pending;
    return out;
  }

  /** The summary for people; every path, command and id made safe to print. */
  toText(): string {
    const lines: string[] = [];
    const countList = (counts: ReadonlyMap<CallStatus, number>): string =>
      CALL_STATUSES.filter((s) => counts.has(s))
        .map((s) => `${counts.get(s)} ${s}`)
        .join(', ');
    lines.push(`${this.calls} tool call${this.calls === 1 ? '' : 's'}${this.calls > 0 ? `: ${countList(this.byStatus)}` : ''}`);
    // Aligned as a terminal shows them: a wide character (`読`) takes two columns, a combining one none, half a
    // surrogate pair one (written as U+FFFD), a soft hyphen one (as wcwidth has it, and terminals draw it).
    const tools = [...this.byTool.keys()].sort().map((tool) => {
      const shown = visibleOneLine(tool);
      return { tool, shown, width: stringWidth(shown.replace(LONE_SURROGATE, '\ufffd').replaceAll('\u00ad', '-')) };
    });
    const width = Math.max(0, ...tools.map((t) => t.width));
    for (const t of tools) lines.push(`  ${t.shown}${' '.repeat(width - t.width)}  ${countList(this.byTool.get(t.tool)!)}`);
    const section = (title: string, items: readonly string[], always: boolean): void => {
      if (items.length === 0 && !always) return;
      lines.push(`${title} (${items.length})${items.length > 0 ? ':' : ''}`);
      for (const item of items) lines.push(`  ${item}`);
    };
    const shown = (field: PathField) => {
      const set = this.paths.get(field)!;
      return set.list.map((p) => {
        const status = set.statusOf(p);
        return status === 'success' ? visibleOneLine(p) : `${visibleOneLine(p)}  (${status})`;
      });
    };
    section('files read', shown('read'), true);
    section('paths searched', shown('searched'), false);
    section('files written', shown('written'), true);
    section('files edited', shown('edited'), true);
    section('files deleted', shown('deleted'), true);
    section('paths touched by other tools', shown('touched'), false);
    section(
      'commands run',
      this.commands.map((c) => {
        const notes = [
          c.exit_code !== undefined ? `exit ${c.exit_code}` : undefined,
          c.signal !== undefined ? `signal ${visibleOneLine(c.signal)}` : undefined,
          c.status !== 'success' ? c.status : undefined,
        ].filter((n) => n !== undefined);
        return `$ ${visibleOneLine(c.command)}${notes.length > 0 ? `  (${notes.join(', ')})` : ''}`;
      }),
      true,
    );
    section(
      'pending',
      this.pending.map(
        (p) => `${visibleOneLine(p.tool ?? NO_TOOL)} ${p.call_id === null ? '(no call id)' : visibleOneLine(p.call_id)}  (${visibleOneLine(p.source)}:${p.line})`,
      ),
      true,
    );
    return `${lines.join('\n')}\n`;
  }
}
