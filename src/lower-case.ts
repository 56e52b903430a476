/**
 * Names and paths compared without case. `toLowerCase` of a whole string
 * makes a `Σ` a final `ς` before a non-letter and a `σ` elsewhere, so
 * one name lower-cased alone and within a longer string may differ
 * (`ΑΣ/keys` is `ας/keys`, the directory `ΑΣ` alone `ασ`); and a lower
 * case may be longer than its letter (`İ` is `i̇`, two code units), so a
 * length found in the lower case is not one in the string.
 */

/**
 * `s` with each character lower-cased on its own, the same for a character
 * wherever it stands, and a final `ς` read as `σ`, as case folding has it
 * (a whole string lower-cased writes either for `Σ`, by what follows).
 */
export function lowerEach(s: string): string {
  // The final sigma is the one context the default lower case knows: without a Σ, the whole string's is each character's.
  if (s.includes('\u03a3')) {
    let lower = '';
    for (const c of s) lower += lowerOne(c);
    return lower;
  }
  const lower = s.toLowerCase();
  return lower.includes('\u03c2') ? lower.replace(/\u03c2/g, '\u03c3') : lower;
}

/** One character as {@link lowerEach} writes it. */
function lowerOne(c: string): string {
  return c === '\u03c2' ? '\u03c3' : c.toLowerCase();
}

/**
 * Where the part of `s` that is `prefix` once lower-cased (by {@link
 * lowerEach}) ends in `s`; undefined when `s` does not start so. The end is
 * found in `s`, not at `prefix`'s length (see above).
 */
export function lowerPrefixEnd(s: string, prefix: string): number | undefined {
  let lower = '';
  let end = 0;
  for (const c of s) {
    if (lower.length >= prefix.length) break;
    lower += lowerOne(c);
    end += c.length;
  }
  return lower === prefix ? end : undefined;
}
