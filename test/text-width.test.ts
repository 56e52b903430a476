// The bundle measures yargs' help text with src/text-width.ts in place of string-width
// (see the bundle script): the two must agree on everything help text can hold, and the
// help of every command must come out the same as with string-width.
import t from 'tap';
import realWidth from 'string-width';
import stringWidth from '../src/text-width.js';
import { memoryIo } from './fixtures/lib/run.js';
import { main as resultMain } from '../src/cli/result.js';
import { main as dedupeMain } from '../src/cli/dedupe.js';
import { main as textMain } from '../src/cli/text.js';
import { main as toolsMain } from '../src/cli/tools.js';

t.test('the same widths as string-width, for text help can hold', async (t) => {
  const samples = [
    '',
    'plain ASCII words, digits 0123 and punctuation !?#$%&',
    "With --all: the thinking text, quoted with '│ ' (off by default)",
    'ellipsis… and dashes – — and quotes “ ” ‘ ’ and arrows → ←',
    'café naïve résumé Ångström',
    'e\u0301 a\u0308 combining marks',
    '日本語のテキスト',
    '한국어 텍스트',
    'ｆｕｌｌｗｉｄｔｈ ＡＢＣ',
    'tab\there, newline\nthere, bell\u0007, delete\u007f, C1 \u0085',
    'zero\u200bwidth space and\u00adsoft hyphen',
    '\u001b[1mbold\u001b[22m and \u001b[31mred\u001b[39m text',
    '\u001b]8;;https://example.com\u0007a link\u001b]8;;\u0007',
    'α β γ Ω ∑ ∞ ≤ ≥ ± × ÷',
    '😀 a single emoji',
  ];
  for (const sample of samples) t.equal(stringWidth(sample), realWidth(sample), JSON.stringify(sample));
});

t.test('every line of every command\'s --help measures the same', async (t) => {
  for (const [name, main] of [
    ['ndjson-result', resultMain],
    ['ndjson-dedupe', dedupeMain],
    ['ndjson-text', textMain],
    ['ndjson-tools', toolsMain],
  ] as const) {
    const m = memoryIo('');
    t.equal(await main(['--help'], m.io), 0);
    const lines = m.stdout().split('\n');
    t.ok(lines.length > 20, `${name}: ${lines.length} lines of help`);
    const differ = lines.filter((line) => stringWidth(line) !== realWidth(line));
    t.same(differ, [], `${name}: no line measured otherwise`);
  }
});
