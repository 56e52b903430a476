/**
 * The width of a string on a terminal, in columns: what yargs and its layout
 * modules (cliui, wrap-ansi) measure help text with, and what `ndjson-tools
 * --summary` aligns its tools' names by.
 *
 * The bundle puts this module in place of the string-width package (see the
 * `bundle` script in package.json). As they load, string-width and the older
 * copy cliui has each build an emoji regex and an Intl.Segmenter: about 40 ms
 * of every start of every command, for help text that is ours. This one
 * counts code points: escape sequences and control, format and combining
 * characters take no column, East Asian wide and fullwidth characters two
 * (the table string-width reads, from get-east-asian-width), every other
 * character one. Where it differs from string-width is on clusters a
 * terminal draws as one, such as emoji joined by U+200D or regional
 * indicator pairs, which help text does not hold (nor, as a rule, a tool's name).
 */
import { eastAsianWidth } from 'get-east-asian-width';

// CSI and OSC sequences, and two-byte escapes (ECMA-48).
const ESCAPES = /\u001B(?:\[[0-?]*[ -/]*[@-~]|\][^\u0007\u001B]*(?:\u0007|\u001B\\)|[@-Z\\-_])|\u009B[0-?]*[ -/]*[@-~]/g;
const NO_COLUMN = /^[\p{Mn}\p{Me}\p{Cc}\p{Cf}\p{Cs}\p{Default_Ignorable_Code_Point}]$/u;

/** The number of terminal columns `text` takes. */
export default function stringWidth(text: string): number {
  if (typeof text !== 'string' || text.length === 0) return 0;
  const shown = text.includes('\u001B') || text.includes('\u009B') ? text.replace(ESCAPES, '') : text;
  let width = 0;
  for (const character of shown) {
    const code = character.codePointAt(0)!;
    if (code >= 0x20 && code < 0x7f) width++;
    else if (!NO_COLUMN.test(character)) width += eastAsianWidth(code);
  }
  return width;
}
