// The documentation agrees with the binaries: every binary has a man page,
// listed in package.json, built from its committed source, rendering without
// warnings, naming exactly the options --help names.
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT, runBin } from './fixtures/lib/run.js';
import { VERSION } from '../src/version.js';
import { dedupeSpec } from '../src/cli/dedupe.js';
import { resultSpec } from '../src/cli/result.js';
import { textSpec } from '../src/cli/text.js';
import { toolsSpec } from '../src/cli/tools.js';
import { exampleLines } from '../src/cli/common.js';

const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as {
  version: string;
  bin: Record<string, string>;
  man: string[];
};
const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
const hasGroff = spawnSync('groff', ['--version']).status === 0;

/** Long option names (`--json`) in a text. */
function longOptions(text: string): Set<string> {
  return new Set([...text.matchAll(/(?<![\w-])--([a-z][a-z0-9-]*)/g)].map((m) => m[1]!));
}

t.equal(VERSION, pkg.version, 'src/version.ts agrees with package.json');

t.test('man pages are built from their sources', async (t) => {
  const r = spawnSync(process.execPath, [path.join(ROOT, 'man/build.mjs'), '--check'], { encoding: 'utf8' });
  t.equal(r.status, 0, r.stderr || 'every committed page matches its source');
  for (const page of fs.readdirSync(path.join(ROOT, 'man')).filter((f) => /\.\d$/.test(f))) {
    const roff = fs.readFileSync(path.join(ROOT, 'man', page), 'utf8');
    t.notMatch(roff, /&(quot|#39|lt|gt|amp);/, `${page}: no HTML escapes, a quote is a quote`);
  }
});

for (const bin of Object.keys(pkg.bin).sort()) {
  t.test(bin, async (t) => {
    const page = `man/${bin}.1`;
    t.ok(pkg.man.includes(page), `${page} is listed in package.json "man"`);
    t.ok(fs.existsSync(path.join(ROOT, page)), `${page} exists`);
    t.match(readme, new RegExp(`## ${bin}\\b`), 'README has a section on it');

    if (hasGroff) {
      const r = spawnSync('groff', ['-man', '-ww', '-z', path.join(ROOT, page)], { encoding: 'utf8' });
      t.equal(r.stderr, '', 'groff renders it without warnings');
    } else {
      t.skip('groff is not installed: rendering not checked');
    }

    const source = fs.readFileSync(path.join(ROOT, 'man/src', `${bin}.1.md`), 'utf8');
    const help = await runBin(bin, ['--help']);
    t.equal(help.code, 0, '--help exits 0');
    t.match(help.stdout, /Exit status:/, '--help lists the exit statuses');
    // The statuses --help lists are those the man page gives the tool (not those it marks as not used).
    const statusSection = /## EXIT STATUS\n([\s\S]*?)\n## /.exec(source)?.[1] ?? '';
    const manStatuses = [...statusSection.matchAll(/^\* `(\d+)`(?:, `\d+`)?:\n\s+(.*)$/gm)].filter((m) => !/^Not used/.test(m[2]!)).map((m) => m[1]);
    const helpStatuses = [...(help.stdout.split('\nExit status:\n')[1] ?? '').matchAll(/^ {2}(\d+) /gm)].map((m) => m[1]);
    t.same(helpStatuses, manStatuses, '--help lists the exit statuses the man page gives');
    // A failure reported is the tool's own: a result for ndjson-result and ndjson-text, which have no checks.
    if (bin === 'ndjson-result' || bin === 'ndjson-text') {
      const man3 = /^\* `3`:\n\s+(.*?)\.?$/m.exec(statusSection)?.[1]?.toLowerCase();
      t.match(help.stdout, new RegExp(`\\n {2}3 +${man3}\\n`), '--help says what status 3 means as the man page does');
    }
    // A command that cannot be started is status 2 where a tool runs one (the man page's SYNOPSIS has `-- command`).
    if (source.includes("`--` *command*")) {
      const two = /\n {2}2 +([\s\S]*?)\n {2}3 /.exec(help.stdout)?.[1]?.replace(/\s+/g, ' ');
      t.match(two, /the command after -- could not be started/, '--help says a command not started gives 2');
    }
    t.match(help.stdout, /Examples:/, '--help ends with examples');
    const version = await runBin(bin, ['--version']);
    t.equal(version.stdout.trim(), pkg.version, '--version prints the version');

    const optionsSection = /## OPTIONS\n([\s\S]*?)\n## /.exec(source)?.[1] ?? '';
    const manOptions = new Set([...optionsSection.matchAll(/^\* `(?:-\w`, `)?--([a-z][a-z0-9-]*)/gm)].map((m) => m[1]!));
    const optionsPart = help.stdout.split(/\nOptions:\n/)[1]?.split(/\n\n/)[0] ?? '';
    const helpOptions = new Set([...optionsPart.matchAll(/^\s+(?:-\w, )?--([a-z][a-z0-9-]*)/gm)].map((m) => m[1]!));
    t.ok(helpOptions.size > 0, '--help lists options');
    t.same([...helpOptions].sort(), [...manOptions].sort(), 'the man page documents the options --help lists, no more, no less');
    for (const option of longOptions(optionsPart)) {
      t.ok(longOptions(source).has(option), `--${option} is in the man page`);
    }
  });
}

t.test('--help, read through a pipe (80 columns), gives each example whole and each exit status indented', async (t) => {
  for (const spec of [dedupeSpec, resultSpec, textSpec, toolsSpec]) {
    const help = (await runBin(spec.name, ['--help'])).stdout;
    for (const line of help.split('\n')) t.ok(line.length <= 80, `${spec.name}: fits in 80 columns: ${line}`);
    const [, examples = '', statuses = ''] = help.split(/\nExamples:\n|\nExit status:\n/);
    // A command too long for a line is cut before a `|` and carried on with a backslash: copied, it is the command.
    const commands = examples.split('\n').filter((l) => /^ {2}\S|^ {4}\S/.test(l) && !/^ {6}/.test(l)).join('\n');
    for (const [command] of spec.examples) {
      t.ok(`${commands}\n`.replace(/ \\\n {4}/g, ' ').includes(`  ${command}\n`), `${spec.name}: ${command}`);
    }
    for (const line of statuses.trimEnd().split('\n')) t.match(line, /^ {2}\d+ +\S|^ {6}\S/, `${spec.name}: ${line}`);
  }
});

t.test('an example is cut to the width of any terminal, between words, and reads back as the command', async (t) => {
  const commands = [dedupeSpec, resultSpec, textSpec, toolsSpec].flatMap((spec) => spec.examples.map(([command]) => command));
  commands.push(`ndjson-tools --deny-read '**/a b/.env' --deny-write "x y" run.ndjson | tee out | head -1 > f`);
  for (const command of commands) {
    for (let width = 30; width <= 200; width++) {
      const lines = exampleLines(command, width);
      const words = lines.map((l, i) => l.replace(i === 0 ? /^ {2}/ : /^ {4}/, '').replace(i === lines.length - 1 ? /$/ : / \\$/, ''));
      if (words.join(' ') !== command) t.fail(`${command} at ${width}: ${JSON.stringify(lines)}`);
      for (const [i, line] of lines.entries()) {
        // Only a word wider than the line is: alone on it.
        if (line.length > width && / ./.test(words[i]!)) t.fail(`${command} at ${width}: ${line}`);
        if (i < lines.length - 1 && /(^|\s)(\||>)$/.test(words[i]!)) t.fail(`${command} at ${width}: ends in an operator: ${line}`);
      }
      // Quoted words stay whole: a line is never cut inside quotes.
      for (const w of words) if ((w.match(/'/g) ?? []).length % 2 !== 0) t.fail(`${command} at ${width}: cut in quotes: ${w}`);
    }
    t.pass(command);
  }
});
