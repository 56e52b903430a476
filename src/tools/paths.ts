/**
 * Paths as agents write them: relative to the session's `cwd` or absolute,
 * with `./`, `..`, doubled slashes, trailing slashes, Windows backslashes.
 * These helpers give one path the forms it is compared and shown in; they
 * are lexical (the files are on another machine, or gone) and never touch
 * the file system.
 */
import { posix } from 'node:path';
import { lowerEach, lowerPrefixEnd } from '../lower-case.js';

const DRIVE = /^[A-Za-z]:\//;
// A path relative to the current directory of a drive: `C:x`.
const DRIVE_RELATIVE = /^[A-Za-z]:(?!\/)/;

/** True for `/a/b` and `C:/a/b` (after backslashes became slashes). */
export function isAbsolute(p: string): boolean {
  return p.startsWith('/') || DRIVE.test(p);
}

// A share's root in a Windows session's path, backslashes made slashes: `//host/share`.
const SHARE = /^\/\/[^/]+\/[^/]+(?=\/|$)/;

/**
 * A path with `.` and `..` segments resolved, slashes collapsed, and no
 * leading `./` or trailing `/`: `./a//b/../c/` is `a/c`. Backslashes are left
 * alone (on POSIX they are part of a name); see {@link matchForms}. A path of
 * a Windows session (`windows`, its backslashes already slashes) that starts
 * with a share keeps it as its root, where `..` stops (`//host/share/a/../..`
 * is `//host/share/`), and one from a drive's current directory keeps its
 * drive (`D:x/../y` is `D:y`); anywhere else, `//` is `/`, as POSIX reads it.
 */
export function normalizePath(p: string, windows = false): string {
  if (p === '') return p;
  const share = windows ? SHARE.exec(p) : null;
  if (share !== null) {
    const n = share[0] + posix.normalize(`/${p.slice(share[0].length)}`);
    return n.endsWith('/') && !isRoot(n) ? n.slice(0, -1) : n;
  }
  // A path from another drive's current directory (`D:x/../y`) keeps its drive: `D:y` (`D:` alone for that directory).
  if (windows && DRIVE_RELATIVE.test(p)) {
    const rest = p.length === 2 ? '.' : posix.normalize(p.slice(2));
    return `${p.slice(0, 2)}${rest === '.' || rest === './' ? '' : rest.endsWith('/') ? rest.slice(0, -1) : rest}`;
  }
  // A drive's root, as `/` is, is where `..` stops: `C:/a/../../x` is `C:/x`.
  const drive = DRIVE.test(p) ? p.slice(0, 2) : '';
  let n = drive + posix.normalize(p.slice(drive.length));
  // A root keeps its slash: `/`, and a drive's, `C:/` (`C:` alone is the drive's current directory).
  if (n.endsWith('/') && !isRoot(n)) n = n.slice(0, -1);
  return n;
}

/** True for a root, normalized: `/`, a drive's, `C:/`, or a share's, `//host/share/`. */
export function isRoot(p: string): boolean {
  return ROOT.test(p);
}

const ROOT = /^(?:[A-Za-z]:|\/\/[^/]+\/[^/]+)?\/$/;

// A Windows `cwd`: a drive (`C:\\proj`, `C:/proj`) or a share (`\\\\host\\share`). In such a session a backslash separates.
const WINDOWS_CWD = /^(?:[A-Za-z]:[\\/]|\\\\)/;

/** True for a Windows session's `cwd` (see WINDOWS_CWD). */
export function isWindowsCwd(cwd: string | undefined): cwd is string {
  return cwd !== undefined && WINDOWS_CWD.test(cwd);
}

// A Windows path in its long form: `\\?\C:\x`, `\\.\C:\x`, `\\?\UNC\host\share\x`, or in the object manager's
// `\??\C:\x` (slashes or backslashes).
const LONG_FORM = /^(?:[\\/]{2}[?.]|[\\/]\?\?)[\\/](UNC[\\/])?(?=.)/i;
// A drive reached through its administrative share on this machine: `\\localhost\C$\x` is `C:\x`.
// The machine is named `localhost` (a trailing dot too), any address of 127.0.0.0/8 (`127.1` as inet_aton reads it),
// `::1`, or Windows's spelling of it for a share (`0--1.ipv6-literal.net`); its own host name is not known.
const LOCAL_DRIVE_SHARE = /^[\\/]{2}(?:localhost\.?|127(?:\.\d{1,3}){0,3}|\[::1\]|0--1\.ipv6-literal\.net)[\\/]([A-Za-z])\$(?=[\\/]|$)/i;

/**
 * The path a Windows long-form path names (`\\?\C:\x` and `\??\C:\x` are `C:\x`, `\\?\UNC\h\s` is
 * `\\h\s`), or a drive's administrative share on this machine (`\\localhost\C$\x` is `C:\x`); any other
 * path as it is.
 */
export function shortForm(p: string): string {
  const m = LONG_FORM.exec(p);
  const short = m === null ? p : m[1] !== undefined ? `\\\\${p.slice(m[0].length)}` : p.slice(m[0].length);
  const share = LOCAL_DRIVE_SHARE.exec(short);
  return share === null ? short : `${share[1]!}:${short.slice(share[0].length)}`;
}

/**
 * A path as a Windows session's paths are compared: its long form as the
 * path it names, backslashes as slashes, and its drive letter in capitals
 * (`c:\x` and `\\?\C:\x` are `C:/x`).
 */
function windowsForm(p: string): string {
  const slashed = shortForm(p).replace(/\\/g, '/');
  return /^[a-z]:/.test(slashed) ? `${slashed[0]!.toUpperCase()}${slashed.slice(1)}` : slashed;
}

/**
 * A path as the summary and `--paths` show it without `--absolute`:
 * normalized; in a session whose `cwd` is a Windows path, its backslashes
 * read as separators and written as slashes, and its drive letter in
 * capitals, as `--absolute` writes it (`d:\x\..\y` is `D:/y`); a file URL as
 * the path it names.
 */
export function normalizedForm(p: string, cwd: string | undefined): string {
  const path = shownAsPath(p);
  if (path === undefined) return p;
  p = path;
  if (isWindowsCwd(cwd)) return normalizePath(windowsForm(p), true);
  return normalizePath(p);
}

/**
 * The path `--absolute` shows: made absolute against `cwd` (see
 * {@link resolvePath}), but for one whose first segment starts with `~`
 * (`~/.ssh/id_rsa`), which is in the home directory where the agent's tool
 * reads it so, and in the `cwd` where it does not: the stream says neither
 * which nor where home is, so it is shown as written (normalized).
 */
export function absoluteForm(p: string, cwd: string | undefined): string {
  const path = shownAsPath(p) ?? p;
  return HOME_RELATIVE.test(path) ? normalizedForm(p, cwd) : resolvePath(p, cwd);
}

// A path whose first segment starts with `~`: `~`, `~/x`, `~user/x`.
const HOME_RELATIVE = /^~[^/\\]*(?:[/\\]|$)/;

/**
 * The path made absolute against `cwd` (itself absolute), normalized; a
 * relative path stays relative without one. A file URL is the path it names. In a session whose `cwd` is a
 * Windows path, backslashes are read as slashes, in both.
 */
export function resolvePath(p: string, cwd: string | undefined): string {
  const path = shownAsPath(p);
  if (path === undefined) return p;
  p = path;
  const windows = isWindowsCwd(cwd);
  if (windows) {
    // Compared in one form: a drive letter in either case names one drive (`c:\x` is `C:\x`).
    p = windowsForm(p);
    cwd = windowsForm(cwd!);
    const drive = DRIVE.test(cwd) ? cwd.slice(0, 2) : undefined;
    // The root of the session's drive or share: `\proj\x` is `C:\proj\x` (`\\host\share\proj\x`), and `C:x` is `x` in the
    // cwd (as Windows reads them).
    const root = drive ?? SHARE.exec(cwd)?.[0];
    if (root !== undefined && p.startsWith('/') && !p.startsWith('//')) p = `${root}${p}`;
    else if (DRIVE_RELATIVE.test(p)) {
      // Another drive's current directory is not known: such a path stays as it is.
      if (drive === undefined || p.slice(0, 1).toLowerCase() !== drive.slice(0, 1).toLowerCase()) return normalizePath(p, true);
      p = p.slice(2);
    }
  }
  if (isAbsolute(p) || cwd === undefined || !isAbsolute(cwd)) return normalizePath(p, windows);
  return normalizePath(`${cwd}/${p}`, windows);
}

/**
 * The path relative to `cwd` when it lies inside it (`.` for `cwd` itself),
 * else undefined. With `ignoreCase`, `/Users/U/p` contains `/users/u/p/x`
 * (as on a case-insensitive file system). `windows`: `cwd` is a Windows
 * session's, normalized as such (see {@link normalizePath}).
 */
export function insidePath(absolute: string, cwd: string, ignoreCase: boolean, windows = false): string | undefined {
  const base = normalizePath(cwd, windows);
  // A root (`/`, `C:/`) ends in its slash already.
  const prefix = base.endsWith('/') ? base : `${base}/`;
  if (!ignoreCase) {
    if (absolute === base) return '.';
    return absolute.startsWith(prefix) ? absolute.slice(prefix.length) : undefined;
  }
  const lowerBase = lowerEach(base);
  if (lowerEach(absolute) === lowerBase) return '.';
  const end = lowerPrefixEnd(absolute, prefix === base ? lowerBase : `${lowerBase}/`);
  return end === undefined ? undefined : absolute.slice(end);
}

/**
 * The path `abs` from the directory `base` (both absolute and normalized, on
 * one root), its directories compared without case as {@link insidePath}
 * compares them, and written as `abs` writes them: a glob in any case
 * matches it as it matches the path (JavaScript's case-insensitive match
 * does not take `i̇`, `İ` lower-cased, for `İ`).
 */
function relativeIgnoringCase(base: string, abs: string): string {
  const from = base.split('/').filter((part) => part !== '');
  const to = abs.split('/').filter((part) => part !== '');
  let same = 0;
  while (same < from.length && same < to.length && lowerEach(from[same]!) === lowerEach(to[same]!)) same++;
  return [...Array<string>(from.length - same).fill('..'), ...to.slice(same)].join('/');
}

/** True when two paths of one session name the same file (lexically). */
export function samePath(a: string, b: string, cwd: string | undefined): boolean {
  // One spelling resolves one way (most results name the path as the args did).
  if (a === b) return true;
  const ra = resolvePath(a, cwd);
  const rb = resolvePath(b, cwd);
  if (ra === rb) return true;
  // Without a cwd, `/home/u/p/x.txt` (from a result) is taken as the `x.txt` the args named.
  if (cwd === undefined && isAbsolute(ra) !== isAbsolute(rb)) {
    const [abs, rel] = isAbsolute(ra) ? [ra, rb] : [rb, ra];
    return !rel.startsWith('../') && rel !== '..' && abs.endsWith(`/${rel}`);
  }
  return false;
}

// A file URL: `file:`, perhaps an authority (`file:///x`, `file://localhost/x`, `file://host/share/x`, `file://C:/x`), the
// path, perhaps a query or a fragment.
const FILE_URL = /^file:(?:\/\/([^/?#]*))?([^?#]*)([?#].*)?$/is;
// A drive at a file URL's path's start (`/C:/x`, `/C|/x`, `C:/x`, `%3A` for the colon), or as its authority (`C:`).
const URL_DRIVE = /^\/?([A-Za-z])(?::|\||%3a)(?=\/|$)/i;

/** A file URL read: the path it names as written and decoded, its query or fragment, and whether it is of this machine. */
interface FileUrl {
  written: string;
  decoded: string;
  suffix: string | undefined;
  local: boolean;
  /** A path without a root (`file:.env`): read from the cwd by some, from the root by others (a URL parser's `/.env`). */
  relative?: boolean;
}

/** `p` read as a file URL (see {@link fileUrlPaths}); undefined when it is none. */
function fileUrl(p: string): FileUrl | undefined {
  const m = FILE_URL.exec(p);
  if (m === null) return undefined;
  const [, host, rest, suffix] = m as unknown as [string, string | undefined, string, string | undefined];
  let path: string;
  let local = true;
  if (host !== undefined && URL_DRIVE.test(host)) path = `${host}${rest}`;
  else if (host !== undefined && host !== '' && host.toLowerCase() !== 'localhost') {
    path = `//${host}${rest || '/'}`;
    local = false;
  } else if (host !== undefined || rest.startsWith('/') || URL_DRIVE.test(rest)) path = rest || '/';
  else if (rest !== '') return { written: rest, decoded: decodeEscapes(rest), suffix, local, relative: true };
  else return undefined;
  return { written: drivePath(path), decoded: drivePath(decodeEscapes(path)), suffix, local };
}

/**
 * The paths a file URL names: `file:///repo/.env` is `/repo/.env`,
 * `file:///C:/x` (also `file:///C|/x`, `file://C:/x`, `file:C:/x`) is
 * `C:/x`, `file://localhost/x` and `file:/x` are `/x`, `file://host/s/x` is
 * `//host/s/x`, `file:.env` both `.env` and `/.env` (a path without a
 * root, read from the cwd by some, from the root by a URL parser); without
 * its query or fragment (`?x=1`, `#L3`), and, where
 * they differ, with its escapes decoded (`%20` is a space, `%43:` a drive)
 * and with the query or fragment kept (a `#` an agent wrote in a file's
 * name). The first is the path as written, the second (when there is one)
 * as decoded. None for any other path.
 */
export function fileUrlPaths(p: string): string[] {
  const url = fileUrl(p);
  if (url === undefined) return [];
  const paths = [url.written];
  if (url.decoded !== url.written) paths.push(url.decoded);
  if (url.suffix !== undefined) paths.push(`${url.written}${url.suffix}`);
  // `file:.env`: from the cwd, as some read it, and from the root, as a URL parser does.
  if (url.relative) for (const p of [...paths]) paths.push(`/${p}`);
  return paths;
}

/** A file URL's path with a drive at its start read as one: `/C:/x`, `/C|/x` are `C:/x`, and a drive alone is its root. */
function drivePath(path: string): string {
  const drive = URL_DRIVE.exec(path);
  if (drive === null) return path;
  return `${drive[1]!}:${path.slice(drive[0].length) || '/'}`;
}

/** `%XX` escapes decoded, each run of them as UTF-8, a run that is not left as written (`%zz`, a lone `%C3`). */
function decodeEscapes(path: string): string {
  return path.replace(/(?:%[0-9A-Fa-f]{2})+/g, (run) => {
    try {
      return decodeURIComponent(run);
    } catch {
      return run;
    }
  });
}

/**
 * The path `p` names as the summary, `--paths` and `--absolute` show it: a
 * file URL's of this machine, its escapes decoded and without its query or
 * fragment; undefined for a file URL of another host (shown as written);
 * else `p` as it is.
 */
function shownAsPath(p: string): string | undefined {
  const url = fileUrl(p);
  if (url === undefined) return p;
  return url.local ? url.decoded : undefined;
}

/**
 * Every form of `p` a glob should be tried against, so that no spelling of a
 * path slips past a check: normalized (as written, and, for the deny checks
 * or in a Windows session, with backslashes as slashes); resolved against
 * `cwd`; and relative to `cwd` when inside it.
 * `broad` (for deny checks) adds the path with any leading `../` segments
 * dropped (`../../x/.env` is also tried as `x/.env`, whatever `cwd` is),
 * compares against `cwd` ignoring case, and adds each form in composed
 * Unicode (NFC) and as Windows reads its names (see {@link windowsName}).
 */
export function matchForms(p: string, cwd: string | undefined, broad: boolean): string[] {
  return formsOf(p, cwd, broad).forms;
}

/** The forms of a path that what lies under a deny glob is looked for in (see {@link denyForms}). */
export interface UnderForms {
  /** The path lies in the session's cwd, as some spelling of it resolves. */
  inside: boolean;
  /**
   * Its forms from the cwd, of each of its spellings (a file URL's as the
   * path it names): inside it; out of it with `../` (and with those
   * dropped); from its root, and with `../` before, on another drive. With
   * no cwd, every relative form {@link matchForms} gives, but for the
   * suffixes of an absolute path, which is tried from its root.
   */
  relative: string[];
  /** Its absolute forms. */
  absolute: string[];
  /** No cwd is known: where the project starts is not, and a glob with a slash is looked for at any depth. */
  noCwd: boolean;
}

/**
 * The forms of `p` for the deny checks, in one pass: those a glob is tried
 * against ({@link matchForms}, broad), and those in which a glob looks for a
 * directory it names that `p` lies under (`under`): for a relative glob, the
 * path from the cwd, so that no directory above the project (`/tmp` of
 * `/tmp/work`) is one it names, however the path is spelt (`../work/a.ts`,
 * `file:///tmp/work/a.ts`); for an absolute glob, its absolute forms.
 */
export function denyForms(p: string, cwd: string | undefined): { forms: string[]; under: UnderForms } {
  const { forms, inside, fromCwd, loose } = formsOf(p, cwd, true);
  const noCwd = loose !== undefined;
  return { forms, under: { inside, relative: loose ?? fromCwd, absolute: forms.filter(isAbsolute), noCwd } };
}

/**
 * {@link matchForms}; and, for the deny checks, whether a spelling lies in
 * the cwd (`inside`), the forms from the cwd of each spelling (`fromCwd`,
 * see UnderForms), and with no cwd, the relative forms with an absolute path
 * tried from its root (`/a/b/c` as `a/b/c`) rather than from each of its
 * directories (`loose`).
 */
function formsOf(
  p: string,
  cwd: string | undefined,
  broad: boolean,
): { forms: string[]; inside: boolean; fromCwd: string[]; loose: string[] | undefined } {
  const forms = new Set<string>();
  let inside = false;
  // The path from the cwd: inside it, or out of it and back in with `../` (and with those dropped), or from its root on another.
  const fromCwd = new Set<string>();
  const short = shortForm(p);
  // As written, with backslashes as slashes, a Windows long form (`\\?\C:\x`) as the path it names, and a file URL
  // (`file:///repo/.env`) as the path it names. The backslashes and long forms for the deny checks, and in a Windows
  // session: in a POSIX one, a backslash is part of a name, and a required write is met by the file it names.
  const urlPaths = fileUrlPaths(p);
  const spellings = new Set(
    broad || isWindowsCwd(cwd) ? [p, short, ...urlPaths].flatMap((s) => [s, s.replace(/\\/g, '/')]) : [p, ...urlPaths],
  );
  // A file URL read as a relative path of that name (`file:/tmp/work/a.ts` in the cwd) names no directory of the path from the cwd.
  const raw = urlPaths.length > 0 ? new Set([p, p.replace(/\\/g, '/'), short, short.replace(/\\/g, '/')]) : undefined;
  const cwdSlashed = cwd === undefined ? undefined : windowsForm(cwd);
  // A Windows session: a share (`\\host\share`) is a root, as a drive is; the forms as POSIX reads `//` are tried too.
  const windows = isWindowsCwd(cwd);
  for (const written of spellings) {
    const n = normalizePath(written);
    forms.add(n);
    if (windows) forms.add(normalizePath(written, true));
    if (broad && (n.startsWith('../') || n === '..')) forms.add(n.replace(/^(\.\.\/)+/, '').replace(/^\.\.$/, '.'));
    if (cwdSlashed !== undefined && isAbsolute(cwdSlashed)) {
      // A share's cwd is resolved against as the session's own (its slashed form would read as POSIX's `//`).
      const abs = resolvePath(written, windows ? cwd : cwdSlashed);
      forms.add(abs);
      const base = normalizePath(cwdSlashed, windows);
      // Inside the cwd, also where one is composed Unicode and the other not (macOS reports names decomposed).
      const within =
        insidePath(abs, base, broad, windows) ?? (broad ? insidePath(abs.normalize('NFC'), base.normalize('NFC'), true, windows) : undefined);
      const fromThere = raw?.has(written) ? new Set<string>() : fromCwd;
      if (within !== undefined) {
        forms.add(within);
        if (fromThere === fromCwd) inside = true;
        fromThere.add(within);
      }
      // Outside it, relative to it too: a glob may name it so (`../secrets/**`); in any case, as the deny globs match.
      else if (broad && isAbsolute(abs) && abs.slice(0, 1).toLowerCase() === base.slice(0, 1).toLowerCase()) {
        // As the path writes its names, and lower-cased (a glob written `straße/**` for `/STRAẞE/x`, which a glob's any
        // case does not take for it).
        const fromBase = relativeIgnoringCase(base, abs);
        for (const relative of new Set([fromBase, lowerEach(fromBase)])) {
          forms.add(relative);
          // And with its leading `../` dropped, as a path written relative is (`/repo/.github/x` from `/repo/app` is `.github/x`).
          forms.add(relative.replace(/^(\.\.\/)+/, ''));
          fromThere.add(relative).add(relative.replace(/^(\.\.\/)+/, ''));
        }
      } else if (broad && isAbsolute(abs)) {
        // On another drive or share: out of the project (`..` names it), from that root.
        fromThere.add(fromRoot(abs)).add(`../${fromRoot(abs)}`);
      }
    }
  }
  let loose: Set<string> | undefined;
  // With no `cwd` to make an absolute path relative to, where it lies is not known: it is tried from each of its
  // directories (`/home/u/p/secrets/k.pem` as `secrets/k.pem` too, for `secrets/**`), and what lies under a glob is
  // looked for from its root.
  let rooted: string[] = [];
  if (broad && (cwdSlashed === undefined || !isAbsolute(cwdSlashed))) {
    loose = new Set([...forms].filter((form) => !isAbsolute(form)));
    rooted = [...forms].filter(isAbsolute);
    for (const form of rooted) loose.add(fromRoot(form));
  }
  if (broad) {
    // Spellings a file system takes for the same file: composed Unicode (macOS stores names decomposed), and Windows's
    // names with trailing dots or spaces, naming a file's data stream (`.env::$DATA`), or with `ı` or `ſ` for `i` or `s`.
    for (const set of [forms, fromCwd, ...(loose ? [loose] : [])]) {
      for (const form of [...set]) for (const spelt of fileSystemSpellings(form)) set.add(spelt);
    }
  }
  // The absolute paths' tails, made from each spelling of the whole path, which is made a name at a time (composed Unicode
  // never joins across a slash): the tails of a long path are not spelt again one by one. The first from the root itself
  // (`/.github/x` as `.github/x`: the project may be `/`, as in a container); a drive's or a share's names are no tail.
  for (const form of rooted) {
    for (const spelt of new Set([form, ...fileSystemSpellings(form)])) {
      const parts = spelt.split('/').filter((part) => part !== '');
      for (let i = spelt.startsWith('/') && !spelt.startsWith('//') ? 0 : 1; i < parts.length; i++) forms.add(parts.slice(i).join('/'));
    }
  }
  for (const set of [forms, fromCwd, loose]) set?.delete('');
  return { forms: [...forms], inside, fromCwd: [...fromCwd], loose: loose && [...loose] };
}

/**
 * The other spellings a file system takes for the same file as `form`: in
 * composed Unicode (macOS stores names decomposed), and that with each name
 * as Windows reads it (see {@link windowsName}). Each is made a name at a
 * time: composed Unicode never joins across a slash.
 */
function fileSystemSpellings(form: string): [string, string] {
  const composed = form.normalize('NFC');
  const windows = composed.split('/').map(windowsName).join('/');
  // A name of dots and spaces made `.` or `..`: the path it then names (`.github/...` is `.github`).
  return [composed, windows !== composed && /(?:^|\/)\.\.?(?:\/|$)/.test(windows) ? normalizePath(windows) : windows];
}

/** An absolute path from its root, as a relative one: `/a/b` as `a/b`, `C:/a/b` and `//host/share/a/b` as `a/b`. */
function fromRoot(path: string): string {
  const parts = path.split('/').filter((part) => part !== '');
  return parts.slice(DRIVE.test(path) ? 1 : path.startsWith('//') ? 2 : 0).join('/');
}

/** `name` without the dots and spaces it ends with, in one pass (a regular expression would try each run of them). */
function withoutTrailingDots(name: string): string {
  let end = name.length;
  while (end > 0 && (name.charCodeAt(end - 1) === 0x2e || name.charCodeAt(end - 1) === 0x20)) end--;
  return name.slice(0, end);
}

/**
 * A path segment as Windows reads it: `.env. `, `.env::$DATA` and
 * `secrets::$INDEX_ALLOCATION` (a directory's index) are the name before;
 * and `ı` and `ſ` are `i` and `s`, which NTFS, comparing names in upper
 * case, takes them for (`.gıthub` is `.github`), where a glob's any case
 * does not (JavaScript's case-insensitive match keeps a letter beyond ASCII
 * from matching one within it).
 */
function windowsName(segment: string): string {
  if (segment === '.' || segment === '..') return segment;
  // Dots and spaces alone: the directory itself (`...`, `. `), or, `..` and spaces, its parent, as Windows reads them.
  if (/^[. ]+$/.test(segment)) return segment.trimEnd() === '..' ? '..' : '.';
  const name = withoutTrailingDots(segment.replace(/:[^:]*:\$[A-Z_]+$/i, ''))
    .replace(/\u0131/g, 'i')
    .replace(/\u017f/g, 's');
  return name === '' ? segment : name;
}
