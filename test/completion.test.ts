// Shell completion: each binary prints a bash and a zsh script, and the bash
// script, sourced in a real bash, completes the binary's options.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { BIN, TEST_ENV, runBin } from './fixtures/lib/run.js';

const tools = ['ndjson-result', 'ndjson-dedupe', 'ndjson-text', 'ndjson-tools'];
const hasBash = spawnSync('bash', ['--version']).status === 0;
const hasZsh = spawnSync('zsh', ['--version']).status === 0;

// A directory with each command on PATH under its own name, as an install gives.
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-completion-'));
t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
for (const tool of tools) {
  fs.writeFileSync(path.join(dir, tool), `#!/bin/sh\nexec "${process.execPath}" "${path.join(BIN, `${tool}.js`)}" "$@"\n`, { mode: 0o755 });
}

for (const tool of tools) {
  t.test(tool, async (t) => {
    const bash = await runBin(tool, ['--completion=bash']);
    t.equal(bash.code, 0);
    t.match(bash.stdout, new RegExp(`complete -o bashdefault -o default -F _${tool}_yargs_completions ${tool}\\n`));
    t.match(bash.stdout, `# Installation: ${tool} --completion=bash >> ~/.bashrc`);
    const zsh = await runBin(tool, ['--completion=zsh']);
    t.equal(zsh.code, 0);
    t.match(zsh.stdout, new RegExp(`^#compdef ${tool}\\n`));
    const bad = await runBin(tool, ['--completion=fish']);
    t.equal(bad.code, 1, 'an unknown shell is a usage error');
    // A bare --completion: the shell of $SHELL, bash when there is none; another shell is said, not answered with bash's script.
    const bare = async (shell: string | undefined) => runBin(tool, ['--completion'], '', { env: { ...TEST_ENV, SHELL: shell } });
    t.match((await bare('/usr/local/bin/zsh')).stdout, new RegExp(`^#compdef ${tool}\\n`), '$SHELL zsh: the zsh script');
    t.match((await bare(undefined)).stdout, /_yargs_completions/, 'no $SHELL: the bash script');
    const fish = await bare('/usr/bin/fish');
    t.same([fish.code, fish.stdout, fish.stderr.split('\n')[0]], [1, '', `${tool}: --completion takes bash or zsh, not fish (the shell $SHELL names)`], '$SHELL fish: a usage error');
    // Its value comes only after `=`, as getopt_long(3) reads an optional value: `--completion zsh` is --completion beside
    // a file, which it would not read: a usage error that says how a shell is given, not $SHELL's script for zsh.
    const spaced = await runBin(tool, ['--completion', 'zsh'], '', { env: { ...TEST_ENV, SHELL: '/bin/bash' } });
    t.same(
      [spaced.code, spaced.stdout, spaced.stderr.split('\n')[0]],
      [1, '', `${tool}: --completion reads no file: zsh (a shell is given as --completion=zsh)`],
      '--completion zsh, $SHELL bash: no script',
    );
    const file = await runBin(tool, ['--completion=bash', 'run.ndjson']);
    t.same([file.code, file.stdout, file.stderr.split('\n')[0]], [1, '', `${tool}: --completion reads no file: run.ndjson`], 'a file beside it');
    const helped = await runBin(tool, ['--help', '--completion', 'bash']);
    t.same([helped.code, helped.stdout], [1, ''], 'with --help too');
    const flagAfter = await runBin(tool, ['--completion', '--json=1'], '', { env: { ...TEST_ENV, SHELL: '/bin/bash' } });
    t.same([flagAfter.code, flagAfter.stdout], [1, ''], '--completion --json=1: the usage error after it is seen');

    if (!hasBash) {
      t.skip('bash is not installed: the script is not run');
      return;
    }
    const script = [
      `export PATH="${dir}:$PATH"`,
      `source <(${tool} --completion=bash)`,
      `COMP_WORDS=(${tool} --str); COMP_CWORD=1`,
      `_${tool}_yargs_completions`,
      'printf "%s\\n" "${COMPREPLY[@]}"',
    ].join('\n');
    const r = spawnSync('bash', ['-c', script], { encoding: 'utf8' });
    t.equal(r.stdout, '--strict\n', 'bash completes --str to --strict');
    t.equal(r.stderr, '');
    // After an option that takes one of a few values, those values; and the documented --no- forms.
    const complete = (...words: string[]) =>
      spawnSync('bash', ['-c', [script.split('\n').slice(0, 2).join('\n'), `COMP_WORDS=(${tool} ${words.map((w) => `"${w}"`).join(' ')}); COMP_CWORD=${words.length}`, `_${tool}_yargs_completions`, 'printf "%s\\n" "${COMPREPLY[@]}"'].join('\n')], {
        encoding: 'utf8',
      }).stdout;
    t.equal(complete('--completion', '=', 'z'), 'zsh\n', '--completion=z, as bash splits it');
    t.equal(complete('--completion', 'z'), '\n', '--completion z: z is a file (--completion alone asks for $SHELL\'s)');
    // The words after `--` are a command's: none of the tool's options or values.
    t.equal(complete('--', 'agent', '--c'), '\n', 'after --, nothing of the tool');
    t.equal(complete('--', 'agent', '--completion', '=', 'z'), '\n', 'after --, no values of the tool');
    if (tool === 'ndjson-text') {
      t.equal(complete('--color', 'a'), 'auto\nalways\n', '--color a');
      // bash splits `--color=al` at its `=`, and replaces the last word.
      t.equal(complete('--color', '=', 'al'), 'always\n', '--color=al, as bash splits it');
      // With nothing typed after it, the `=` is the word bash completes.
      t.equal(complete('--color', '='), 'auto\nalways\nnever\n', '--color=, as bash splits it');
      t.equal(complete('--no-t'), '--no-tools\n--no-thinking\n', '--no-t');
    }
    if (tool === 'ndjson-tools') {
      t.equal(complete('--status', 'sp'), 'spawnError\n', '--status sp');
      t.equal(complete('--paths', '=', 'r'), 'read\n', '--paths=r, as bash splits it');
      t.equal(complete('--paths', '='), 'all\nread\nwritten\n', '--paths=, as bash splits it');
      t.equal(complete('--paths', 'r'), '\n', '--paths r: r is a file (--paths alone is --paths=all)');
      const zshPaths = await runBin(tool, ['--get-yargs-completions', tool, '--paths=w']);
      t.equal(zshPaths.stdout, '--paths=written\n', '--paths=w, as zsh asks');
    }
    // zsh asks with `--completion=z` as one word, and replaces it whole.
    const zshAsks = await runBin(tool, ['--get-yargs-completions', tool, '--completion=z']);
    t.equal(zshAsks.stdout, '--completion=zsh\n', '--completion=z, as zsh asks');
    // A word not begun with `-` is a file's: nothing offered, so that bash (`-o default`) and zsh (`_default`) offer file
    // names, as for cat(1); `-` asks for the options.
    for (const words of [[''], ['al'], ['--strict', ''], ['--', '']]) {
      const asked = await runBin(tool, ['--get-yargs-completions', tool, ...words]);
      t.same([asked.code, asked.stdout], [0, ''], `${JSON.stringify(words)}: nothing offered, the shell's file names instead`);
    }
    const dash = await runBin(tool, ['--get-yargs-completions', tool, '-']);
    t.match(dash.stdout, /^--strict$/m, '-: the options');
    t.match(dash.stdout, /^--help$/m, '-: the options');
    t.equal(complete(''), '\n', 'bash, no word typed: nothing offered (bash then offers file names)');
    // TAB in the middle of a line: the words after the one completed are not asked about.
    const completeAt = (cword: number, ...words: string[]) =>
      spawnSync('bash', ['-c', [script.split('\n').slice(0, 2).join('\n'), `COMP_WORDS=(${tool} ${words.map((w) => `"${w}"`).join(' ')}); COMP_CWORD=${cword}`, `_${tool}_yargs_completions`, 'printf "%s\\n" "${COMPREPLY[@]}"'].join('\n')], {
        encoding: 'utf8',
      }).stdout;
    t.equal(completeAt(1, '--str', 'run.ndjson'), '--strict\n', 'bash, --str before a file name');
    t.equal(completeAt(3, '--completion', '=', 'z', '-q'), 'zsh\n', 'bash, --completion=z before an option');
    if (tool === 'ndjson-text') t.equal(completeAt(2, '--color', '', '-a'), 'auto\nalways\nnever\n', 'bash, --color before -a');
    if (!hasZsh) {
      t.skip('zsh is not installed: its script is not run');
    } else {
      // zsh's completion system stood in for: what the function offers (_describe, given every option yargs knows) or leaves to
      // the shell (_default).
      const zsh = (current: number, ...words: string[]) =>
        spawnSync(
          'zsh',
          [
            '-c',
            [
              `export PATH="${dir}:$PATH"`,
              'compdef() { :; }',
              // What _describe offers: the candidates that begin with the word completed.
              '_describe() { print -l -- ${(M)${(@P)2}:#${words[CURRENT]}*}; }',
              '_default() { print -- "(default)"; }',
              `source <(${tool} --completion=zsh)`,
              `words=(${tool} ${words.map((w) => `"${w}"`).join(' ')}); CURRENT=${current}; BUFFER="\${words[*]}"; CURSOR=0`,
              `_${tool}_yargs_completions`,
            ].join('\n'),
          ],
          { encoding: 'utf8' },
        ).stdout;
      t.equal(zsh(2, '--str'), '--strict\n', 'zsh, --str');
      t.equal(zsh(2, '--str', 'run.ndjson'), '--strict\n', 'zsh, --str before a file name');
      t.equal(zsh(2, '--completion=z', '-q'), '--completion=zsh\n', 'zsh, --completion=z before an option');
      t.equal(zsh(2, 'run', '--strict'), '(default)\n', 'zsh, a file name: the shell offers files');
    }
  });
}
