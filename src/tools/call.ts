/**
 * One tool call as ndjson-tools audits it: its `started` and `completed`
 * events folded together, with what the checks, the records and the summary
 * need, and nothing bulky unless asked for.
 */
import type { ToolAccess, ToolCallFacts, ToolKind, ToolResultStatus } from '../events.js';
import { toolKind, toolNameKey } from '../events.js';

/** The status of a call: its result's variant, or `pending` (started, never completed). */
export type CallStatus = ToolResultStatus | 'pending';

/** Every status, in the order summaries list them. */
export const CALL_STATUSES: readonly CallStatus[] = ['success', 'error', 'rejected', 'spawnError', 'failure', 'pending', 'unknown'];

/** The record field that lists the paths of each kind of access. */
export type PathField = 'read' | 'searched' | 'written' | 'edited' | 'deleted' | 'touched';

/** Path fields in record order. */
export const PATH_FIELDS: readonly PathField[] = ['read', 'searched', 'written', 'edited', 'deleted', 'touched'];

/** The path field for an access. */
export const FIELD_OF_ACCESS: Record<ToolAccess, PathField> = {
  read: 'read',
  search: 'searched',
  write: 'written',
  edit: 'edited',
  delete: 'deleted',
  other: 'touched',
};

/** The path fields of calls that read, and that write, what they name: a tool of unknown kind (`touched`) may do either. */
export const READ_FIELDS: ReadonlySet<PathField> = new Set(['read', 'searched', 'touched']);
export const WRITE_FIELDS: ReadonlySet<PathField> = new Set(['written', 'edited', 'deleted', 'touched']);

/** A tool call, completed or pending. */
export interface AuditedCall {
  /** The session ('' for events without one). */
  session: string;
  /** The call id; undefined when the events carry none. */
  callId: string | undefined;
  /** The tool's name (`read`, `shell`, a function's name); undefined when the event names no tool. */
  tool: string | undefined;
  /** The tool's kind. */
  kind: ToolKind;
  status: CallStatus;
  /** A `started` event was seen. */
  started: boolean;
  /** How many `tool_call` events make up the call. */
  events: number;
  /** Where the call's first event was read. */
  source: string;
  line: number;
  /** The session's working directory (`system`/`init`'s `cwd`), when known. */
  cwd: string | undefined;
  facts: ToolCallFacts;
  /** The paths to show: those of the arguments, and those of the result that name another file. */
  paths: string[];
  /** Every path the call names (arguments and result), for the checks. */
  allPaths: string[];
  /** Wall time between start and completion, when both carry a time. */
  durationMs?: number;
  /** For status `unknown`: the key the result held instead of a known variant. */
  variant?: string;
  /** A `function` call's `arguments` could not be read. */
  argsError?: string;
  /**
   * A call a sub-agent made, listed in the result of the call that ran it
   * (Cursor's `taskToolCall`): that call's id (null when it has none).
   */
  parentCallId?: string | null;
  /**
   * With `--full`: the arguments and the result as they were in the stream (a
   * `function` call's `arguments` that could not be read: as given, the text).
   */
  args?: unknown;
  result?: unknown;
}

/**
 * True when the call did, or may have done, what it names: every status but
 * `rejected` (permission refused) and `spawnError` (it never ran). A call that
 * failed, or never completed, may have acted before it stopped.
 */
export function callCounts(call: AuditedCall): boolean {
  return call.status !== 'rejected' && call.status !== 'spawnError';
}

/** The field the call's paths belong to, or undefined when it names none. */
export function pathField(call: AuditedCall): PathField | undefined {
  return call.facts.access === undefined || call.paths.length === 0 ? undefined : FIELD_OF_ACCESS[call.facts.access];
}

/**
 * The names given to `--tool` or `--deny-tool`, as {@link callIsTool} takes
 * them: each name's key, and the kind of a name the audit knows as one
 * (`bash`, Claude Code's shell, is `shell`, which Cursor's `shellToolCall`
 * is too; `read_file` is `read`).
 */
export function toolNameSet(names: readonly string[] | undefined): ReadonlySet<string> {
  const set = new Set<string>();
  for (const name of names ?? []) {
    set.add(toolNameKey(name));
    const kind = toolKind(name);
    if (kind !== 'other') set.add(kind);
  }
  return set;
}

/** The name of `names`, as given, that the key {@link toolNameMatched} gave stands for: that name, or one of that kind. */
export function givenToolName(names: readonly string[], key: string): string | undefined {
  return names.find((n) => toolNameKey(n) === key) ?? names.find((n) => toolKind(n) === key);
}

/**
 * The key of `names` (a {@link toolNameSet}) the call answers to, or
 * undefined: its tool's name, its kind, the name of the tool an MCP call
 * calls on its server or that tool's kind, its server (`mcp__github`,
 * `mcp__github__*`) or that tool on it (`mcp__github__create_issue`), or
 * `shell` for a call that may run a command (a tool
 * of unknown kind, or on an MCP server, given a command).
 */
export function toolNameMatched(call: AuditedCall, names: ReadonlySet<string>): string | undefined {
  if (names.size === 0) return undefined;
  const own = call.tool === undefined ? undefined : toolNameKey(call.tool);
  if (own !== undefined && names.has(own)) return own;
  if (names.has(call.kind)) return call.kind;
  const served = servedTool(call);
  if (served !== undefined && names.has(served)) return served;
  // And its kind, as for a name given (`--deny-tool read` counts an MCP call to `read_file`, as `--deny-tool read_file` does).
  const kind = servedKind(call);
  if (kind !== 'other' && kind !== 'mcp' && names.has(kind)) return kind;
  // Its server's tools, named as Claude Code's permission rules name them: every one (`mcp__github`, `mcp__github__*`),
  // or the one it calls (`mcp__github__create_issue`, the name Claude Code's own calls of it have).
  if (call.kind === 'mcp' && call.facts.mcpServer !== undefined) {
    const server = `mcp${toolNameKey(call.facts.mcpServer)}`;
    if (names.has(server)) return server;
    if (names.has(`${server}*`)) return `${server}*`;
    if (served !== undefined && names.has(`${server}${served}`)) return `${server}${served}`;
  }
  if (call.facts.mayRunCommand === true && names.has('shell')) return 'shell';
  return undefined;
}

/** The key of the tool an MCP call calls on its server (`deletefile` for `delete_file`); undefined for other calls. */
function servedTool(call: AuditedCall): string | undefined {
  return call.kind === 'mcp' && call.facts.mcpTool !== undefined ? toolNameKey(call.facts.mcpTool) : undefined;
}

/** The kind of the tool an MCP call calls on its server (`delete` for `delete_file`); `other` for other calls. */
export function servedKind(call: AuditedCall): ToolKind {
  const served = servedTool(call);
  return served === undefined ? 'other' : toolKind(served);
}

/** True when the call answers to a name of `names` (see {@link toolNameMatched}). */
export function callIsTool(call: AuditedCall, names: ReadonlySet<string>): boolean {
  return toolNameMatched(call, names) !== undefined;
}
