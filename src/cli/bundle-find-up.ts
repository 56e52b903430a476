/**
 * For the bundle (see the `bundle` script in package.json), in place of the
 * escalade package, with which yargs looks for a package.json from the
 * directory its code is in (in the bundle, the one it is installed under)
 * up to the file system's root: only to guess a version when none is given,
 * as it does for every command it makes, before ours is given. That walk
 * read one directory after another at every start, and parsed whatever
 * package.json it found, the user's own included. Nothing is looked for:
 * yargs then guesses no version, and is given ours.
 */
export default function findUp(_directory: string, _match: (directory: string, names: string[]) => string | false | void): string | undefined {
  return undefined;
}
