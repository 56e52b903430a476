/**
 * The CI checks of ndjson-tools: globs a call must not read or write, tools
 * it must not use, writes that must (or must not) happen, calls that must not
 * be left pending. Each check errs on the side of failing: deny globs are
 * tried against every spelling of a path and ignore case; a required write
 * must be a successful one.
 */
import { Minimatch, braceExpand } from 'minimatch';
import type { MinimatchOptions } from 'minimatch';
import { denyForms, isAbsolute, isRoot, matchForms, resolvePath, samePath } from './paths.js';
import type { UnderForms } from './paths.js';
import { callCounts, givenToolName, servedKind, toolNameMatched, FIELD_OF_ACCESS, READ_FIELDS, WRITE_FIELDS, toolNameSet } from './call.js';
import { GLOB_CHARS, MAX_EMPTY_STARS, MAX_GLOB_ALTERNATIVES, groupsOfOne, nearToolName, noDirectoryForms, plainLead, plainPart, toolNameKey } from '../events.js';
import type { AuditedCall, PathField } from './call.js';
import { clipped, shellWord, visibleOneLine } from '../safe-text.js';
import { lowerEach } from '../lower-case.js';
import { flagOption, listOption } from '../option-values.js';

/** The checks asked for. */
export interface PolicyOptions {
  denyRead?: readonly string[];
  denyWrite?: readonly string[];
  denyTool?: readonly string[];
  noWrites?: boolean;
  requireWrite?: readonly string[];
  noPending?: boolean;
}

/** One broken rule. */
export interface Violation {
  /** The check, as its option is spelled: `--deny-read`. */
  check: string;
  /** The glob or tool name it was given, if any. */
  pattern?: string;
  /** The call that broke it (none for `--require-write`). */
  call?: AuditedCall;
  /** The path concerned, if any. */
  path?: string;
  /** The call changes or reads files by its kind, yet names no path the audit can read: the check cannot clear it. */
  noPath?: boolean;
  /** A move or copy of which the audit reads only one path: where it puts the file, or takes it from, is not known. */
  onePath?: boolean;
  /** A grep whose glob has more alternatives than the audit tries: the check cannot clear it. */
  globCut?: boolean;
  /** A grep whose glob the audit cannot read as a pattern (too long, too deeply nested): the check cannot clear it. */
  globUnread?: boolean;
  /** A grep's glob, or a glob call's pattern, with more `**` parts apart than the audit tries (see ToolCallFacts.searchStarsCut). */
  globStars?: boolean;
  /** A call whose arguments are not JSON: the paths read from them may not be all it names, so the check cannot clear it. */
  argsUnread?: boolean;
  /** A path of more than {@link MAX_CHECKED_PARTS} parts, or with a part longer than {@link MAX_CHECKED_NAME}: the check cannot clear it (see tooDeep). */
  tooDeep?: boolean;
  /** A relative path of a session with no absolute cwd, which an absolute glob meets wherever the cwd was (see Glob.tails). */
  noCwd?: boolean;
}

/**
 * How many parts a path may have for the globs to be tried on it. No system opens a longer one (Linux's paths
 * are at most 4096 bytes, Windows' 32,767 characters), and the glob matcher takes time and memory by the square
 * of the parts or worse: a path of 50,000 parts, 200 KB, would hold a check for minutes.
 */
export const MAX_CHECKED_PARTS = 16384;

/**
 * How long a part of a path may be for the globs to be tried on it. No file system holds a longer name (Linux's
 * are at most 255 bytes, Windows' and macOS' 255 characters), and a glob of several stars in one part takes the
 * length of the part to the power of their number: `*a*a*a*a*b` held a check of 300 characters for 39 s.
 */
export const MAX_CHECKED_NAME = 255;

/**
 * True when `path` has more than {@link MAX_CHECKED_PARTS} parts, or a part longer than {@link MAX_CHECKED_NAME}: no
 * deny check clears it, no required write is met by it.
 */
function tooDeep(path: string): boolean {
  if (path.length <= MAX_CHECKED_NAME) return false;
  let parts = 1;
  let start = 0;
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c !== 0x2f && c !== 0x5c) continue;
    if (i - start > MAX_CHECKED_NAME || ++parts > MAX_CHECKED_PARTS) return true;
    start = i + 1;
  }
  return path.length - start > MAX_CHECKED_NAME;
}

interface Glob {
  text: string;
  /** Whether a path (one of its forms) matches. */
  match: (path: string) => boolean;
  /** Its last part when that is a plain file name, no glob characters in it (`.env`, of a glob for every `.env`). */
  name?: string;
  /**
   * The directory every path it matches lies in, as far as its plain parts
   * before the first glob character say (`.github/workflows` of
   * `.github/workflows/**`, `config` of `config/.env`, empty for a glob that
   * starts with `**`), lower case; undefined for a glob without a slash,
   * which matches a file name in any directory.
   */
  above?: string;
  /** The same, of each alternative of a glob with braces (`{.github,.gitlab}/workflows/**`); of the glob itself without. */
  aboves: readonly string[];
  /**
   * Of each alternative whose leading directories go on past its plain
   * parts with parts that name some directories, not any (`.githu[b]`,
   * `+(.github)`, `conf*.d`, not `*` or `?*`): those parts (see NamedPart).
   */
  leads: ReadonlyArray<ReadonlyArray<NamedPart>>;
  /**
   * The plain directories that follow a `**` part, by their parts, lower
   * case: `.github/workflows` of a glob for every `.github/workflows/**`,
   * `secrets` of `src/**` then `/secrets/*.key`. Each names a directory
   * wherever the `**` puts it.
   */
  floating: ReadonlyArray<ReadonlyArray<NamedPart>>;
  /** Whether a path may lie on the way to a path that matches (minimatch's partial match). */
  partial: (path: string) => boolean;
  /** A glob that starts at a root (`/etc`, `C:\x`, `\\host\share`), not at the session's cwd. */
  absolute: boolean;
  /** Whether a path lies under what a deny glob names, its forms given (see underGlob); none for other globs. */
  under?: (forms: UnderForms) => boolean;
  /**
   * For an absolute deny glob, whether a relative path (one of its forms) may be a path it matches from some cwd: the
   * path matches one of the glob's ends (`.github/**` and `**` of `/r/.github/**`, each part after its root on). Asked
   * where the session names no absolute cwd: where the path lies is not known.
   */
  tails?: (path: string) => boolean;
}

// Matching is lexical and the same on every platform: `/` separates, `\` escapes.
const BASE: MinimatchOptions = { dot: true, nocomment: true, nonegate: true, platform: 'linux' };
// Deny globs: any case (the agent's file system may ignore it), and a glob without a slash matches the file name anywhere.
const DENY: MinimatchOptions = { ...BASE, nocase: true, matchBase: true };
// Required writes: the path must be the one asked for.
const REQUIRE: MinimatchOptions = { ...BASE };

/**
 * A matcher of `pattern` with its regular expressions compiled now: V8
 * compiles one on its first use, and one too large for it (a glob of 40,000
 * characters) would fail the run at the first path tried, rather than the
 * option where it is given.
 */
function matcherOf(pattern: string, options: MinimatchOptions): Minimatch {
  const matcher = new Minimatch(pattern, options);
  for (const parts of matcher.set) for (const part of parts) if (part instanceof RegExp) part.test('');
  return matcher;
}

// A glob written as a Windows path from its root (`C:\proj\**`, `\\host\share\**`): its backslashes separate.
const WINDOWS_ROOTED = /^(?:[A-Za-z]:\\|\\\\)/;

/**
 * A glob as given, with a leading `./` dropped (paths are compared in that
 * form too), and one that ends in `/` read as the directory's every file
 * (`.github/` is `.github/**`: minimatch's `.github/` matches no file). For
 * the deny checks (`deny`), a glob that ends in `/**` also matches the
 * directory it names: deleting `secrets`, or searching it, acts on every
 * file of `secrets/**`, yet minimatch's `secrets/**` does not match
 * `secrets`. A glob with a backslash is read both as minimatch reads it (an
 * escape: `app/\[id\].tsx`, `\.env`) and with it as a separator, as Windows
 * writes paths (`.github\workflows\*.yml`): a path either reading matches
 * matches it. So does a glob with a group of one (`{.github}/**`): as
 * minimatch reads it, and with the group as its alternative.
 */
function compile(text: string, options: MinimatchOptions, deny = false): Glob {
  // A deny glob in composed Unicode, as the paths are tried (see matchForms).
  const given = deny ? text.normalize('NFC') : text;
  // A backslash escapes in a glob; a Windows user writes it as a separator (`.github\workflows\**`): both readings are tried.
  // A glob rooted at a drive or a share (`C:\proj\**`) is read the second way only.
  const slashed = given.replace(/\\/g, '/');
  const written = WINDOWS_ROOTED.test(given) ? [slashed] : slashed === given ? [given] : [given, slashed];
  // A group of one (`{.github}/**`, a list of one made into a group), which minimatch reads as the name with its braces,
  // is also read as its alternative, as a grep's glob is.
  const globs = written.flatMap((g) => [...new Set([g, groupsOfOne(g)])]);
  const readings = globs.map((g) => reading(g, options, deny));
  if (readings.length === 1) return { text, ...readings[0]! };
  const some = <T,>(get: (r: Reading) => ((x: T) => boolean) | undefined): ((x: T) => boolean) | undefined => {
    const tests = readings.map(get).filter((t) => t !== undefined);
    return tests.length === 0 ? undefined : (x) => tests.some((t) => t(x));
  };
  return {
    text,
    match: some((r) => r.match)!,
    name: readings.find((r) => r.name !== undefined)?.name,
    above: readings.reduce<string | undefined>((above, r) => r.above ?? above, undefined),
    aboves: readings.flatMap((r) => r.aboves),
    leads: readings.flatMap((r) => r.leads),
    floating: readings.flatMap((r) => r.floating),
    partial: some((r) => r.partial)!,
    absolute: readings.some((r) => r.absolute),
    under: some((r) => r.under),
    tails: some((r) => r.tails),
  };
}

/**
 * `pattern` with each extglob group of plain names that must match once
 * (`@(.github|.gitlab)`) written as braces (`{.github,.gitlab}`, a group of
 * one as its name): they name the same directories, which the braces'
 * alternatives list (see Glob.aboves).
 */
function groupsAsBraces(pattern: string): string {
  return pattern.replace(EXTGLOB_ONCE, (_, names: string) => (names.includes('|') ? `{${names.replace(/\|/g, ',')}}` : names));
}

// `@(a|b)` of plain names: no glob character, escape, comma or slash in them.
const EXTGLOB_ONCE = /(?<!\\)@\(([^()\\*?[\]{},/!+@|]+(?:\|[^()\\*?[\]{},/!+@|]+)*)\)/g;

type Reading = Omit<Glob, 'text'>;

/** One reading of a glob (see {@link compile}). */
function reading(glob: string, options: MinimatchOptions, deny: boolean): Reading {
  const given = withoutDotParts(glob);
  const pattern = given.replace(/^(?:\.\/+)+/, '').replace(/(.)\/+$/, '$1/**');
  const matcher = matcherOf(pattern === '' ? '.' : pattern, options);
  // The directory alone names one place: not a base name to match in any directory.
  // (`secrets/**/**`, and `secrets/**/`, name it as `secrets/**` does.)
  const dir = deny && /.\/\*\*$/.test(pattern) ? matcherOf(pattern.replace(/(?:\/\*\*)+$/, ''), { ...options, matchBase: false }) : undefined;
  const name = pattern.slice(pattern.lastIndexOf('/') + 1);
  const parts = pattern.split('/').slice(0, -1);
  // The directory parts of each alternative of its braces (the glob itself, without).
  const alternatives = braceExpand(groupsAsBraces(pattern)).map((alternative) => alternative.split('/').slice(0, -1));
  const absolute = isAbsolute(given);
  return {
    match: dir === undefined ? (p) => matcher.match(p) : (p) => matcher.match(p) || dir.match(p),
    name: name !== '' ? plainPart(name) : undefined,
    above: pattern.includes('/') ? leadingDirectory(parts) : undefined,
    aboves: pattern.includes('/') ? alternatives.map(leadingDirectory) : [],
    leads: deny && pattern.includes('/') ? alternatives.flatMap((parts) => namedLead(parts, options)) : [],
    floating: alternatives.flatMap((parts) => floatingDirectories(parts, options)),
    partial: (p) => matcher.match(p, true),
    absolute,
    under: deny ? underGlob(given, absolute, options) : undefined,
    tails: deny && absolute ? tailsOf(pattern, options) : undefined,
  };
}

/**
 * {@link Glob.tails} of the absolute glob `pattern`: each alternative of its braces, from each of its parts after its
 * root on; past {@link MAX_UNDER_ALTERNATIVES} alternatives, the glob as a whole from each part on (minimatch reads
 * each part's braces), or, where a brace holds a slash, every path (the glob's ends are not all known). An end that is
 * `**` alone is every path; else a path's last part must match an end's first, which is most often all that is tried.
 */
function tailsOf(pattern: string, options: MinimatchOptions): (path: string) => boolean {
  const alternatives = braceExpand(pattern, { braceExpandMax: MAX_UNDER_ALTERNATIVES + 1 });
  let sources = alternatives;
  if (alternatives.length > MAX_UNDER_ALTERNATIVES) {
    if (slashInBraces(pattern)) return () => true;
    sources = [pattern];
  }
  const tails = new Set<string>();
  const lasts = new Set<string>();
  for (const source of sources) {
    const parts = source.split('/');
    lasts.add(parts.at(-1)!);
    for (let k = 1; k < parts.length; k++) {
      const tail = parts.slice(k).join('/').replace(/^\/+/, '');
      if (tail === '') continue;
      tails.add(tail);
      // The directory itself too, as a deny glob's `…/**` matches it (see reading).
      if (tail.length > 3 && tail.endsWith('/**')) tails.add(tail.slice(0, -3));
    }
  }
  if (tails.has('**')) return () => true;
  const named = { ...options, matchBase: false };
  const names = [...lasts].map((last) => matcherOf(last, named));
  const matchers = [...tails].map((tail) => matcherOf(tail, named));
  return (p) => names.some((n) => n.match(p.slice(p.lastIndexOf('/') + 1))) && matchers.some((m) => m.match(p));
}

/** True when a slash of `pattern` lies between its braces (`{a/b,c}`): its parts are not each a glob of their own. */
function slashInBraces(pattern: string): boolean {
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === '\\') i++;
    else if (c === '{') depth++;
    else if (c === '}' && depth > 0) depth--;
    else if (c === '/' && depth > 0) return true;
  }
  return false;
}

/**
 * `glob` without its `.` parts, as paths are compared (see matchForms):
 * `secrets/./k.pem` is `secrets/k.pem`, and `secrets/.` (`/r/.`) the
 * directory, `secrets/` (`/r/`). Minimatch keeps them, and would match no
 * path with them.
 */
function withoutDotParts(glob: string): string {
  const g = glob.replace(/\/(?:\.\/+)+/g, '/');
  return g.length >= 2 && g.endsWith('/.') ? g.slice(0, -1) : g;
}

/**
 * Whether a path lies under what a deny glob names, as under a line of
 * .gitignore, given its forms (see denyForms): a glob of one name (`.github`,
 * `.github/`, `secrets*`, each also after a leading `**`) names a directory of
 * that name at any depth; one with a slash (`config/keys`), that directory from the cwd (at
 * any depth where no cwd is known); an absolute one, that directory (`/`,
 * every POSIX path); `.` or `./`, the project; each alternative of braces on
 * its own. A relative glob is tried on the
 * forms of the path from the cwd when it lies there, so that no directory
 * above the project (`/tmp` of `/tmp/work`) is one it names. Undefined where
 * the glob names what is under it already (`…/**`).
 */
function underGlob(given: string, absolute: boolean, options: MinimatchOptions): ((forms: UnderForms) => boolean) | undefined {
  // Each alternative of its braces is read as a glob of its own (`{secrets,config/keys}`: a name at any depth, and a directory
  // from the cwd); past a bound on their number, the glob as a whole.
  const alternatives = given.includes('{') ? braceExpand(given, { braceExpandMax: MAX_UNDER_ALTERNATIVES + 1 }) : [];
  if (alternatives.length < 2 || alternatives.length > MAX_UNDER_ALTERNATIVES) return underOne(given, absolute, options);
  const tests = alternatives.map((one) => underOne(one, isAbsolute(one), options)).filter((test) => test !== undefined);
  return tests.length === 0 ? undefined : (u) => tests.some((test) => test(u));
}

/** The alternatives of a deny glob's braces read each as a glob of its own, at most. */
const MAX_UNDER_ALTERNATIVES = 64;

/** {@link underGlob} for a glob without braces, or one read as a whole. */
function underOne(given: string, absolute: boolean, options: MinimatchOptions): ((forms: UnderForms) => boolean) | undefined {
  const base = given.replace(/^(?:\.\/+)+/, '').replace(/\/+$/, '');
  // (A `**` within a name, `.github**`, is a `*`, as minimatch reads it: that name at any depth.)
  if (base === '**' || base.endsWith('/**')) return undefined;
  if (!absolute && (base === '' || base === '.')) return (u) => u.inside;
  const one = base.replace(/^(\*\*\/)+/, '');
  if (!absolute && !one.includes('/') && one !== '') {
    // A name at any depth: each directory of a form tried on its own (`**` on both sides costs as the square of a long path's length).
    const name = matcherOf(one, { ...options, matchBase: false });
    const seen = new Map<string, boolean>();
    const named = (dir: string): boolean => {
      let yes = seen.get(dir);
      if (yes === undefined) {
        yes = dir !== '' && name.match(dir);
        if (seen.size < 4096) seen.set(dir, yes);
      }
      return yes;
    };
    // With a slash at its end (`.github/`), the directory itself too, as the glob alone finds it (deleting `app/.github`).
    const dirs = given.endsWith('/') ? (f: string) => f.split('/') : (f: string) => f.split('/').slice(0, -1);
    return (u) => u.relative.some((f) => dirs(f).some(named));
  }
  const from = matcherOf(base === '' ? '/**' : `${base}/**`, { ...options, matchBase: false });
  if (absolute) return (u) => u.absolute.some((f) => from.match(f));
  const anywhere = matcherOf(`**/${base}/**`, { ...options, matchBase: false });
  return (u) => u.relative.some((f) => (u.noCwd ? anywhere : from).match(f));
}

/**
 * The directories after each `**` of a glob's directory `parts` (see
 * NamedPart), up to the next part that may name any directory.
 */
function floatingDirectories(parts: readonly string[], options: MinimatchOptions): NamedPart[][] {
  const runs: NamedPart[][] = [];
  parts.forEach((part, at) => {
    if (part !== '**') return;
    const run = namedRun(parts, at + 1, options);
    if (run.length > 0) runs.push(run);
  });
  return runs;
}

/**
 * A part of a glob's directories that names some directories, not any: a
 * plain name, in lower case, or a matcher of one name (`.githu[b]`,
 * `+(.github)`, `conf*.d`).
 */
type NamedPart = string | Minimatch;

/** `part` as a NamedPart; undefined where it may name any directory (`*`, `?*`, `[!.]*`, `**`), or is no pattern. */
function namedPart(part: string, options: MinimatchOptions): NamedPart | undefined {
  const plain = plainPart(part);
  if (plain !== undefined) return lowerEach(plain);
  let one: Minimatch;
  try {
    one = matcherOf(part, { ...options, matchBase: false });
  } catch {
    return undefined;
  }
  return ANY_NAMES.some((name) => one.match(name)) ? undefined : one;
}

// Names no glob of a directory a user means names: a part that matches one of them may name any directory.
const ANY_NAMES = ['q', 'zq', 'zq9', 'zq9x_', 'zq9x-v2.k', 'ZQ9X-V2.K.LONGER-NAME'];

/** Whether the name `name` (in lower case) is one `named` names. */
function names(named: NamedPart, name: string): boolean {
  return typeof named === 'string' ? named === name : named.match(name);
}

/**
 * The directories a glob's directory `parts` start with (see NamedPart), up
 * to the first that may name any directory; none where all those are plain
 * (see {@link leadingDirectory}).
 */
function namedLead(parts: readonly string[], options: MinimatchOptions): NamedPart[][] {
  const lead = namedRun(parts, 0, options);
  return lead.some((part) => typeof part !== 'string') ? [lead] : [];
}

/** The parts of `parts` from `from` on, each as a NamedPart, up to the first that may name any directory. */
function namedRun(parts: readonly string[], from: number, options: MinimatchOptions): NamedPart[] {
  const run: NamedPart[] = [];
  for (let k = from; k < parts.length; k++) {
    const named = namedPart(parts[k]!, options);
    if (named === undefined) break;
    run.push(named);
  }
  return run;
}

/** The plain directories a glob's directory `parts` start with, up to the first with a glob character, lower case. */
function leadingDirectory(parts: readonly string[]): string {
  return lowerEach(plainLead(parts));
}

// The session's cwd, or a directory above it, as a relative form of a path (see matchForms).
const CWD_OR_ABOVE = /^\.(?:\.(?:\/\.\.)*)?$/;

/**
 * True when deleting the directory `form` (one form of a path, see
 * matchForms) deletes what `glob` names: the directory it lies in is
 * `form` or under it. The session's `cwd` or a directory above it holds
 * whatever a relative glob names, a file name in any directory included.
 * Where a `**` part puts a directory the glob names anywhere (`.github` in
 * a glob for every `.github/workflows/**`), a `form` that ends with it, or
 * with its first parts, and that lies on the way to a match, is one; a
 * directory the `**` alone would stand for (`src`, for every `.env`) is not.
 */
function deletesUnder(form: string, glob: Glob): boolean {
  // A root holds every file, whatever the session's cwd (or none).
  if (isRoot(form)) return true;
  const absolute = glob.above !== undefined && glob.above.startsWith('/');
  if (CWD_OR_ABOVE.test(form)) return !absolute;
  const f = lowerEach(form);
  // A root (`/`, `c:/`) ends in its slash already.
  const under = f.endsWith('/') ? f : `${f}/`;
  if (glob.aboves.some((above) => above !== '' && above !== '/' && (above === f || above.startsWith(under)))) return true;
  const parts = f.split('/').filter((part) => part !== '');
  // Directories its leading parts name past their plain ones (`.github` of `.githu[b]/ci/**`), from the cwd or its root.
  const from = f.startsWith('/') ? ['', ...parts] : parts;
  if (glob.leads.some((lead) => from.length <= lead.length && from.every((part, i) => names(lead[i]!, part)))) return true;
  if (glob.floating.length === 0) return false;
  return glob.floating.some((run) => endsWithStart(parts, run)) && glob.partial(form);
}

/** True when the last parts of `parts` are the first of `run`, one or more. */
function endsWithStart(parts: readonly string[], run: readonly NamedPart[]): boolean {
  for (let k = Math.min(parts.length, run.length); k >= 1; k--) {
    let same = true;
    for (let i = 0; i < k && same; i++) same = names(run[i]!, parts[parts.length - k + i]!);
    if (same) return true;
  }
  return false;
}

/**
 * The paths a grep limited by its own glob reads, for the deny checks: the
 * glob as a path under the directory searched (`filter`), the same with
 * each of its `**` parts standing for no directory (`./secrets/x` of a
 * grep of `**` then `/secrets/x` in `.`: the directory searched is one a
 * `**` stands for), and,
 * where its file name is a glob (`*.env`), each of those with that name
 * replaced by each plain file name of a deny glob that it matches (`.env`,
 * the last part of the deny glob): the grep reads every file so named.
 */
function filterPaths(filter: string, globs: readonly Glob[]): string[] | undefined {
  // A part all of whose glob characters are escaped is the name it stands for (`secre\ts`: `secrets`), as the grep reads it;
  // the filter as written is tried too, as any path is (its backslashes also read as slashes, see denyForms).
  const named = filter.includes('\\') ? filter.split('/').map((part) => plainPart(part) ?? part).join('/') : filter;
  if (named !== filter) {
    const both = [filterPathsOf(filter, globs), filterPathsOf(named, globs)];
    return both.includes(undefined) ? undefined : both.flat() as string[];
  }
  return filterPathsOf(filter, globs);
}

/** {@link filterPaths} for one reading of the filter. */
function filterPathsOf(filter: string, globs: readonly Glob[]): string[] | undefined {
  const slash = filter.lastIndexOf('/');
  const last = filter.slice(slash + 1);
  // A name in any directory under the one searched names it in that one too (`config/secrets.yml` of `config/**/secrets.yml`).
  const dirs = noDirectoryForms(filter.slice(0, slash + 1));
  // More `**` parts than are each read as no directory: the files it names are not all known.
  if (dirs === undefined) return undefined;
  const out = dirs.map((dir) => `${dir}${last}`);
  if (GLOB_CHARS.test(last)) {
    let names: Minimatch;
    try {
      names = matcherOf(last, { ...DENY, matchBase: false });
      for (const glob of globs) {
        if (glob.name === undefined || !names.match(glob.name)) continue;
        for (const dir of dirs) out.push(`${dir}${glob.name}`);
      }
    } catch {
      // A pattern too long for minimatch (64 KiB), or one whose expression is too large or too deep: the files it names
      // are not known.
      return undefined;
    }
  }
  return out;
}

// Kinds of tool that change files, whatever paths the audit finds in their calls.
const CHANGE_KINDS: ReadonlySet<string> = new Set(['write', 'edit', 'delete']);
/** The kinds of the tools that search a directory, the project (`.`) when they name none. */
const SEARCH_KINDS: ReadonlySet<string> = new Set(['grep', 'glob', 'ls']);
const REQUIRED_FIELDS: ReadonlySet<PathField> = new Set(['written', 'edited']);
/** The kinds of the tools whose writes meet `--require-write`, as REQUIRED_FIELDS of their paths. */
const REQUIRING_KINDS: ReadonlySet<string> = new Set(['write', 'edit']);

/** True when `out` holds a violation of `check` (with the glob `pattern`, if given; none for a check that takes none). */
function failedAlready(out: readonly Violation[], check: string, pattern?: string): boolean {
  return out.some((v) => v.check === check && v.pattern === pattern);
}

/** The globs of the checks, read. */
interface CheckGlobs {
  denyRead: Glob[];
  denyWrite: Glob[];
  requireWrite: Glob[];
}

/**
 * The checks' globs, each read once, or the usage problem with their
 * arguments: named as the command's options (`--deny-read`), or with
 * `asOptions` as the library's (`option denyRead`).
 */
function readChecks(options: PolicyOptions, asOptions: boolean): CheckGlobs | { problem: string } {
  // The command checks its options, then makes the policy of the same ones: the globs are read once.
  const key = JSON.stringify([options.denyRead, options.denyWrite, options.denyTool, options.requireWrite]);
  if (lastChecks?.key === key) return lastChecks.globs;
  const globs: CheckGlobs = { denyRead: [], denyWrite: [], requireWrite: [] };
  for (const [flag, key] of [
    ['--deny-read', 'denyRead'],
    ['--deny-write', 'denyWrite'],
    ['--require-write', 'requireWrite'],
    ['--deny-tool', 'denyTool'],
  ] as const) {
    const list = options[key];
    const name = asOptions ? `option ${key}` : flag;
    if (list?.some((g) => g === '')) return { problem: `${name} needs a non-empty value` };
    if (key === 'denyTool') continue;
    // minimatch would read `!src/**` as "every path but src/**"; these checks read globs without negation, where it would match nothing.
    const negated = list?.find((g) => g.startsWith('!'));
    if (negated !== undefined) return { problem: `${name} takes no negated glob ('${negated}'): name the paths the check is about` };
    for (const glob of list ?? []) {
      try {
        // Its braces are expanded where it is made, each alternative a pattern: `{a,b}` 25 times over would be 33 million.
        if (braceExpand(glob, { braceExpandMax: MAX_GLOB_ALTERNATIVES + 1 }).length > MAX_GLOB_ALTERNATIVES) {
          return { problem: `${name}: the glob has more alternatives than the checks try (${MAX_GLOB_ALTERNATIVES}): '${visibleOneLine(clipped(glob, 60))}'` };
        }
        globs[key].push(key === 'requireWrite' ? compile(glob, REQUIRE) : compile(glob, DENY, true));
      } catch (error) {
        return { problem: `${name}: the glob cannot be read (${unreadReason(error)}): '${visibleOneLine(clipped(glob, 60))}'` };
      }
    }
  }
  lastChecks = { key, globs };
  return globs;
}

/** The globs {@link readChecks} read last, and of which options (no policy changes its globs: they are shared). */
let lastChecks: { key: string; globs: CheckGlobs } | undefined;

/** A usage problem with the checks' arguments (see readChecks), or undefined. */
export function policyProblem(options: PolicyOptions, asOptions = false): string | undefined {
  const read = readChecks(options, asOptions);
  return 'problem' in read ? read.problem : undefined;
}

/** Why minimatch or V8 could not read a glob, in a few words: its message, without the expression it quotes. */
function unreadReason(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  // `Invalid regular expression: /^…$/i: Regular expression too large`: the expression may be the glob's size.
  const reason = message.startsWith('Invalid regular expression: ') ? message.slice(message.lastIndexOf(': ') + 2) : message;
  return clipped(reason, 100).toLowerCase();
}

/** Applies the checks to calls as they complete, then to the run as a whole. */
export class Policy {
  private readonly denyRead: Glob[];
  private readonly denyWrite: Glob[];
  private readonly denyTool: ReadonlySet<string>;
  /** The keys of {@link denyTool} some call matched, by its name or its kind. */
  private readonly deniedToolsSeen = new Set<string>();
  private readonly require: Array<Glob & { met: boolean }>;
  /** True when any check is asked for: without one, no call is checked. */
  readonly active: boolean;

  private readonly options: PolicyOptions;

  constructor(given: PolicyOptions) {
    const options: PolicyOptions = {
      ...given,
      denyRead: listOption(given.denyRead, 'denyRead'),
      denyWrite: listOption(given.denyWrite, 'denyWrite'),
      denyTool: listOption(given.denyTool, 'denyTool'),
      requireWrite: listOption(given.requireWrite, 'requireWrite'),
      noWrites: flagOption(given.noWrites, 'noWrites'),
      noPending: flagOption(given.noPending, 'noPending'),
    };
    // What the command refuses as a usage error (an empty value, a negated glob) would otherwise turn a check off.
    const globs = readChecks(options, true);
    if ('problem' in globs) throw new TypeError(globs.problem);
    this.options = options;
    this.denyRead = globs.denyRead;
    this.denyWrite = globs.denyWrite;
    this.denyTool = toolNameSet(options.denyTool);
    this.require = globs.requireWrite.map((g) => ({ ...g, met: false }));
    this.active =
      this.denyRead.length + this.denyWrite.length + this.denyTool.size + this.require.length > 0 || !!options.noWrites || !!options.noPending;
  }

  /**
   * The rules a call breaks (and notes the required writes it makes).
   * `asNamed`: the call as one of its events named it, another tool than the
   * one it is audited as (see ToolsCore): only the checks of its tool and its
   * paths apply; it makes no write (its record says what the call did), and
   * a pending call is reported once, as itself.
   */
  check(call: AuditedCall, asNamed = false): Violation[] {
    const out: Violation[] = [];
    if (!this.active) return out;
    if (call.status === 'pending' && this.options.noPending && !asNamed) out.push({ check: '--no-pending', call });
    const field = call.facts.access === undefined ? undefined : FIELD_OF_ACCESS[call.facts.access];
    // An MCP call writes as the tool it calls on its server does (`write_file`), its paths `touched`.
    const writes = field !== undefined && (REQUIRED_FIELDS.has(field) || (call.kind === 'mcp' && field === 'touched' && REQUIRING_KINDS.has(servedKind(call))));
    // A preview (`dryRun`) writes nothing.
    if (this.require.length > 0 && !asNamed && call.status === 'success' && writes && call.facts.dryRun !== true) {
      for (const glob of this.require) {
        // A move writes where it puts the file, not where it takes it from.
        // (The same file however spelt: a result names it absolute where the patch named it relative.)
        const moved = call.facts.movedFrom;
        if (!glob.met && call.allPaths.some((p) => !tooDeep(p) && !moved?.some((m) => samePath(m, p, call.cwd)) && matchForms(p, call.cwd, false).some((f) => glob.match(f)))) glob.met = true;
      }
    }
    if (!callCounts(call)) return out;
    const key = toolNameMatched(call, this.denyTool);
    if (key !== undefined) {
      this.deniedToolsSeen.add(key);
      // Named as it was given (`shell`), whatever the call's spelling (`ShellToolCall`).
      out.push({ check: '--deny-tool', pattern: givenToolName(this.options.denyTool ?? [], key) ?? key, call });
    }
    // A grep limited by its own glob to files a deny glob names reads them, whatever directory it searches (the whole project too).
    // One line for each glob: the first of its paths that a deny glob matches.
    if (this.denyRead.length > 0) {
      // A path two globs name (`*.key` and `id.*`) is one line.
      const reported = new Set<string>();
      let unread = call.facts.searchFiltersUnread === true;
      let stars = call.facts.searchStarsCut === true;
      for (const filter of call.facts.searchFilters ?? []) {
        if (noDirectoryForms(filter.slice(0, filter.lastIndexOf('/') + 1)) === undefined) {
          stars = true;
          continue;
        }
        const paths = filterPaths(filter, this.denyRead);
        if (paths === undefined) unread = true;
        else this.deny('--deny-read', this.denyRead, call, out, paths, reported);
      }
      // A glob that cannot be read as a pattern, or of more alternatives, or `**` parts, than are tried: the files it
      // names are not all known (one line for the call, the first reason).
      if (stars) for (const glob of this.denyRead) out.push({ check: '--deny-read', pattern: glob.text, call, globStars: true });
      else if (unread) for (const glob of this.denyRead) out.push({ check: '--deny-read', pattern: glob.text, call, globUnread: true });
      else if (call.facts.searchFiltersCut) for (const glob of this.denyRead) out.push({ check: '--deny-read', pattern: glob.text, call, globCut: true });
    }
    // An MCP call does what the tool it calls on its server does (`write_file`, `delete_directory`).
    const kind = call.kind === 'mcp' ? servedKind(call) : call.kind;
    // A call that names no path the audit can read (under argument keys it does not know, in a patch of another format)
    // cannot be cleared by a check that asks which files: it fails it.
    if (field === undefined) {
      // A copy writes one of its paths, and reads the other.
      if (CHANGE_KINDS.has(kind) || call.facts.copies) {
        if (this.options.noWrites) out.push({ check: '--no-writes', call, noPath: true });
        for (const glob of this.denyWrite) out.push({ check: '--deny-write', pattern: glob.text, call, noPath: true });
      }
      if ((kind === 'read' && !call.facts.wholeWorkspace) || call.facts.copies) {
        for (const glob of this.denyRead) out.push({ check: '--deny-read', pattern: glob.text, call, noPath: true });
      } else if (SEARCH_KINDS.has(kind)) {
        // A search that names no directory searches the project: checked as a search of `.` is.
        this.deny('--deny-read', this.denyRead, call, out, ['.']);
      }
      this.unreadArgs(call, kind, out);
      return out;
    }
    // A tool of unknown kind may write the paths it names, as `--deny-write '**'` has it.
    if (this.options.noWrites && WRITE_FIELDS.has(field)) {
      for (const path of call.paths) out.push({ check: '--no-writes', call, path });
    }
    if (READ_FIELDS.has(field)) this.deny('--deny-read', this.denyRead, call, out);
    if (WRITE_FIELDS.has(field)) this.deny('--deny-write', this.denyWrite, call, out);
    // A move or copy that names one path: the other, where it puts the file (or a copy reads it from), is not known. Each
    // check not failed already fails.
    if ((call.facts.moves || call.facts.copies) && call.paths.length < 2) {
      for (const glob of this.denyWrite) if (!failedAlready(out, '--deny-write', glob.text)) out.push({ check: '--deny-write', pattern: glob.text, call, onePath: true });
      if (call.facts.copies) for (const glob of this.denyRead) if (!failedAlready(out, '--deny-read', glob.text)) out.push({ check: '--deny-read', pattern: glob.text, call, onePath: true });
    }
    // A delete of a directory above what a deny glob names deletes that too (`.github` for `.github/workflows/**`, the project for any),
    // whether the delete is a tool of the agent's or of an MCP server's (`delete_file`, whose paths are `touched`); a move of one
    // takes it away, or puts another in its place.
    if (field === 'deleted' || (WRITE_FIELDS.has(field) && (call.facts.moves || servedKind(call) === 'delete'))) this.denyAbove(call, out);
    this.unreadArgs(call, kind, out);
    return out;
  }

  /**
   * A call given arguments that are not JSON, or not an object (a list), at any of its events (or an
   * MCP call its own arguments so): the paths picked out of them (see
   * toolCallArgs) may not be all it names, a patch cut short among them. Of
   * the checks that ask which files a call of its kind touches, each it has
   * not failed already fails: `--no-writes` and `--deny-write` for a write,
   * edit, delete or copy, `--deny-read` for a read, search or copy. Not a
   * tool of a kind not known: such tools take free text (`web_search`, a
   * custom tool's raw input), and a check of every one would fail runs on
   * calls that name no file.
   */
  private unreadArgs(call: AuditedCall, kind: string, out: Violation[]): void {
    if (call.argsError !== 'not JSON' && call.argsError !== 'not an object' && call.facts.argsUnread !== true) return;
    if (CHANGE_KINDS.has(kind) || call.facts.copies) {
      if (this.options.noWrites && !failedAlready(out, '--no-writes')) out.push({ check: '--no-writes', call, argsUnread: true });
      for (const glob of this.denyWrite) if (!failedAlready(out, '--deny-write', glob.text)) out.push({ check: '--deny-write', pattern: glob.text, call, argsUnread: true });
    }
    if (kind === 'read' || SEARCH_KINDS.has(kind) || call.facts.copies) {
      for (const glob of this.denyRead) if (!failedAlready(out, '--deny-read', glob.text)) out.push({ check: '--deny-read', pattern: glob.text, call, argsUnread: true });
    }
  }

  /** The rules the run as a whole breaks: required writes that never happened. */
  end(): Violation[] {
    return this.require.filter((g) => !g.met).map((g) => ({ check: '--require-write', pattern: g.text }));
  }

  /**
   * The `--deny-tool` names, as given, that no call matched and that look
   * misspelt (`writes`): each with the name the audit knows that it is a few
   * edits from (see nearToolName). Such a check can never fail.
   */
  misspeltDenyTools(): Array<{ name: string; known: string }> {
    const out: Array<{ name: string; known: string }> = [];
    for (const name of new Set(this.options.denyTool ?? [])) {
      if (this.deniedToolsSeen.has(toolNameKey(name))) continue;
      const known = nearToolName(name);
      if (known !== undefined) out.push({ name, known });
    }
    return out;
  }

  /** `--deny-write` for a delete of a directory above what a glob names, for each path not reported already. */
  private denyAbove(call: AuditedCall, out: Violation[]): void {
    const reported = new Set(out.filter((v) => v.check === '--deny-write').map((v) => v.path));
    // Every path it names, its result's too (a result may name the directory absolute where the arguments name it
    // relative, with no cwd to say they are one), each reported as the arguments named it.
    for (const path of call.allPaths) {
      const shown = shownAs(call, path);
      // One too deep to check is reported as such by the deny checks.
      if (reported.has(shown) || tooDeep(path)) continue;
      const forms = matchForms(path, call.cwd, true);
      const glob = this.denyWrite.find((g) => forms.some((f) => deletesUnder(f, g)));
      if (glob === undefined) continue;
      out.push({ check: '--deny-write', pattern: glob.text, call, path: shown });
      reported.add(shown);
    }
  }

  /**
   * Reports each of `paths` (by default the call's) that one of `globs`
   * names, once. With `filter`, the files already reported for the call's
   * other filters, `paths` are those one filter of a search names (see
   * filterPaths): only the first that a glob names counts, reported unless
   * it is one of those.
   */
  private deny(check: string, globs: readonly Glob[], call: AuditedCall, out: Violation[], paths: readonly string[] = call.allPaths, filter?: Set<string>): void {
    if (globs.length === 0) return;
    const reported = filter ?? new Set<string>();
    const tailed = globs.filter((g) => g.tails !== undefined);
    for (const path of paths) {
      const deep = tooDeep(path);
      let glob: Glob | undefined = globs[0];
      let placed = false;
      if (!deep) {
        const { forms, under } = denyForms(path, call.cwd);
        glob = globs.find((g) => forms.some((f) => g.match(f)) || (g.under !== undefined && g.under(under)));
        // A relative path (no form of it absolute: not `C:\x`, `file:///x`) with no absolute cwd to place it: an absolute glob
        // meets it wherever it may lie, under a relative cwd from there (`repo/b.yml` of `b.yml` in `repo`).
        if (glob === undefined && under.noCwd && tailed.length > 0 && !forms.some(isAbsolute)) {
          const placedForms = call.cwd === undefined ? under.relative : denyForms(`${call.cwd}/${path}`, undefined).under.relative;
          glob = tailed.find((g) => placedForms.some((f) => g.tails!(f)));
          placed = glob !== undefined;
        }
      }
      if (glob === undefined) continue;
      // One line per file: a result's absolute path is reported as the path the arguments named.
      const shown = shownAs(call, path);
      const violation: Violation = { check, pattern: glob.text, call, path: shown };
      if (deep) violation.tooDeep = true;
      else if (placed) violation.noCwd = true;
      if (filter !== undefined) {
        if (!reported.has(shown)) out.push(violation);
        reported.add(shown);
        return;
      }
      if (reported.has(shown)) continue;
      reported.add(shown);
      out.push(violation);
    }
  }
}

function describeCall(call: AuditedCall): string {
  const id = call.callId === undefined ? 'no call id' : `call ${visibleOneLine(call.callId)}`;
  const parent = call.parentCallId;
  const by = parent === undefined ? '' : `, by the sub-agent of ${parent === null ? 'a call with no id' : `call ${visibleOneLine(parent)}`}`;
  return `(${id}${by}, ${call.status})`;
}

/** One line (without `tool: ` or newline) describing a violation, safe to print. */
export function formatViolation(v: Violation): string {
  const check = v.pattern === undefined ? v.check : `${v.check} ${shellWord(v.pattern)}`;
  if (v.call === undefined) return `${check}: no file written matches`;
  const call = v.call;
  const where = `${visibleOneLine(call.source)}:${call.line}`;
  const tool = visibleOneLine(call.tool ?? '(no tool)');
  let what: string;
  if (v.noPath) what = `${tool}, which names no path the audit can read`;
  else if (v.onePath) what = `${tool} ${visibleOneLine(call.paths[0] ?? '')}, a move or copy whose other path the audit cannot read`;
  else if (v.globCut) what = `${tool}, whose glob has more alternatives than the audit tries (${MAX_GLOB_ALTERNATIVES})`;
  else if (v.globStars) what = `${tool}, whose glob has more \`**\` parts apart than the audit tries (${MAX_EMPTY_STARS})`;
  else if (v.globUnread) what = `${tool}, whose glob is too long or too deeply nested for the audit to read`;
  else if (v.argsUnread) what = `${tool}, whose arguments are not JSON: the audit cannot read all the paths they name`;
  else if (v.noCwd) what = `${tool} ${visibleOneLine(v.path!)}, a relative path in a session with no absolute cwd`;
  else if (v.tooDeep) what = `${tool} ${visibleOneLine(clipped(v.path!, 200))}, a path of more parts than the audit checks (${MAX_CHECKED_PARTS}) or with a name longer (${MAX_CHECKED_NAME} characters)`;
  else if (v.path !== undefined) what = `${tool} ${visibleOneLine(v.path)}`;
  else if (call.facts.command !== undefined) what = `${tool} ${visibleOneLine(call.facts.command)}`;
  else if (call.facts.path !== undefined) what = `${tool} ${visibleOneLine(call.facts.path)}`;
  else what = tool;
  if (v.check === '--no-pending') return `${where}: ${check}: ${what} started and never completed ${describeCall(call)}`;
  return `${where}: ${check}: ${what} ${describeCall(call)}`;
}

/** The paths of a call checked, for {@link shownAs}: by their resolved form, and for a call with no cwd, by what they may end in. */
interface PathsOf {
  /** The first of the call's paths (its index) that resolves to each form. */
  byResolved: Map<string, number>;
  /** With no cwd: the first of its absolute paths (resolved) that ends in each path of one or more parts (`y/.env` of `/r/y/.env`). */
  absoluteEnding: Map<string, number>;
}

const PATHS_OF = new WeakMap<AuditedCall, PathsOf>();

/**
 * The path of `call` that `path` is reported as: the first of its paths that names the same file (samePath), else
 * `path`. Two paths that resolve to one form name the same file, and are found in a map; but for a call with no cwd,
 * an absolute path that ends in a relative one (`/r/y/.env`, `y/.env`) does too: found by what each absolute path
 * ends in (one entry for each of its parts), or by each ending of the absolute path looked for among the relative ones.
 * A call naming thousands of denied paths of one name (`d1/.env`, `/d2/.env`, …) is reported in the time of one look
 * for each part of each.
 */
function shownAs(call: AuditedCall, path: string): string {
  let of = PATHS_OF.get(call);
  if (of === undefined) {
    const byResolved = new Map<string, number>();
    const absoluteEnding = new Map<string, number>();
    call.paths.forEach((p, i) => {
      const resolved = resolvePath(p, call.cwd);
      if (!byResolved.has(resolved)) byResolved.set(resolved, i);
      if (call.cwd !== undefined || !isAbsolute(resolved)) return;
      for (const ending of endings(resolved)) if (!absoluteEnding.has(ending)) absoluteEnding.set(ending, i);
    });
    of = { byResolved, absoluteEnding };
    PATHS_OF.set(call, of);
  }
  const resolved = resolvePath(path, call.cwd);
  let first = of.byResolved.get(resolved) ?? call.paths.length;
  if (call.cwd === undefined) {
    if (!isAbsolute(resolved)) {
      // `..` and what starts with it lie above the cwd, which no absolute path says (see samePath).
      if (resolved !== '..' && !resolved.startsWith('../')) first = Math.min(first, of.absoluteEnding.get(resolved) ?? first);
    } else {
      for (const ending of endings(resolved)) {
        const i = of.byResolved.get(ending);
        if (i !== undefined && i < first && !isAbsolute(ending)) first = i;
      }
    }
  }
  return call.paths[first] ?? path;
}

/** What the resolved path `p` ends in after each of its slashes (`r/y/.env`, `y/.env`, `.env` of `/r/y/.env`). */
function endings(p: string): string[] {
  const out: string[] = [];
  for (let at = p.indexOf('/'); at !== -1; at = p.indexOf('/', at + 1)) if (at + 1 < p.length) out.push(p.slice(at + 1));
  return out;
}
