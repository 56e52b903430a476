/**
 * The audit record: one JSON object per tool call, the default output of
 * ndjson-tools. Its fields are a contract (see the man page): renaming one
 * breaks somebody's jq filter.
 */
import type { JsonObject } from '../events.js';
import type { AuditedCall } from './call.js';
import { pathField } from './call.js';
import { absoluteForm } from './paths.js';
import { pushPath } from '../events.js';
import { exactJsonText, jsonText, writtenJsonText } from '../json-text.js';
import { clipped, visibleJson } from '../safe-text.js';

/** How records are written. */
export interface RecordOptions {
  /** Add the call's `args` and `result` as they were in the stream. */
  full?: boolean;
  /** Paths resolved against the session's `cwd`. */
  absolute?: boolean;
}

/** A reason longer than this is cut (unless `--full`): reasons are meant to be read in one line. */
export const REASON_MAX = 1000;

/** A path as the options want it shown. */
export function shownPath(call: AuditedCall, path: string, absolute: boolean | undefined): string {
  return absolute ? absoluteForm(path, call.cwd) : path;
}

/** The record of a call, fields in contract order; fields without a value are left out. */
export function auditRecord(call: AuditedCall, options: RecordOptions = {}): JsonObject {
  const f = call.facts;
  const rec: JsonObject = {
    session_id: call.session,
    call_id: call.callId ?? null,
    tool: call.tool ?? null,
    kind: call.kind,
    status: call.status,
    started: call.started,
    events: call.events,
    source: call.source,
    line: call.line,
  };
  const set = (key: string, value: unknown): void => {
    if (value !== undefined) rec[key] = value;
  };
  set('parent_call_id', call.parentCallId);
  set('cwd', call.cwd);
  const field = pathField(call);
  if (field !== undefined) {
    // Two spellings may be shown alike (with --absolute): once.
    const shown: string[] = [];
    for (const p of call.paths) pushPath(shown, shownPath(call, p, options.absolute));
    rec[field] = shown;
  }
  set('command', f.command);
  set('working_directory', f.workingDirectory);
  set('dry_run', f.dryRun);
  set('exit_code', f.exitCode);
  set('signal', f.signal);
  set('lines_read', f.linesRead);
  set('chars_read', f.charsRead);
  set('bytes_read', f.bytesRead);
  set('lines_written', f.linesWritten);
  set('bytes_written', f.bytesWritten);
  set('lines_added', f.linesAdded);
  set('lines_removed', f.linesRemoved);
  set('pattern', f.pattern);
  set('url', f.url);
  set('mcp_server', f.mcpServer);
  set('mcp_tool', f.mcpTool);
  set('duration_ms', call.durationMs);
  set('execution_ms', f.executionMs);
  if (f.reason !== undefined) {
    set('reason', options.full ? f.reason : clipped(f.reason, REASON_MAX));
  }
  set('result_variant', call.variant);
  set('args_error', call.argsError);
  if (options.full) {
    set('args', call.args);
    set('result', call.result);
  }
  return rec;
}

/**
 * A value as one line of JSON that is safe on a terminal: no control character left raw (JSON.stringify leaves DEL,
 * C1 controls, U+2028/9 and the bidirectional controls raw in strings; see visibleJson). `exact`: numbers too large
 * for a double written `1e999`, not `null` (see exactJsonText).
 */
export function safeJsonLine(value: unknown, exact = false): string {
  return `${visibleJson(exact ? exactJsonText(value) : jsonText(value))}\n`;
}

/**
 * {@link safeJsonLine} of a record under `--full` (exact), its `args` and
 * `result` with their numbers as the stream wrote them: `written` holds
 * those values read again (see writtenPlaces), each number the string of its
 * text (`12345678901234567890`, `-0`, `1.50`, not the doubles JSON.parse
 * made of them).
 */
export function writtenJsonLine(record: JsonObject, written: { args?: unknown; result?: unknown }): string {
  return `${visibleJson(writtenJsonText(record, written))}\n`;
}
