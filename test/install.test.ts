// As a user installs it: the packed tarball, installed globally into a fresh
// prefix, gives the four commands on PATH, their man pages, completion, and
// the library; npx runs the commands from a clone.
import t from 'tap';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { ROOT } from './fixtures/lib/run.js';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'ndjson-agent-install-'));
t.teardown(() => fs.rmSync(tmp, { recursive: true, force: true }));
const prefix = path.join(tmp, 'prefix');
const example = path.join(ROOT, 'test/fixtures/streams/basic.ndjson');
const env = { ...process.env, PATH: `${path.join(prefix, 'bin')}${path.delimiter}${process.env.PATH}`, MANPATH: path.join(prefix, 'share/man'), NO_COLOR: '1' };
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string; bin: Record<string, string> };

function sh(command: string, args: string[], options: { cwd?: string; input?: string } = {}) {
  return spawnSync(command, args, { cwd: options.cwd ?? tmp, env, encoding: 'utf8', input: options.input, timeout: 120_000 });
}

t.test('npm pack and npm install -g into a fresh prefix', async (t) => {
  // dist/ is built before the tests run; the tarball needs no build step.
  const pack = sh('npm', ['pack', '--ignore-scripts', '--pack-destination', tmp, '--silent'], { cwd: ROOT });
  t.equal(pack.status, 0, pack.stderr);
  const tarball = path.join(tmp, pack.stdout.trim().split('\n').pop()!);
  t.ok(fs.existsSync(tarball), 'the tarball exists');
  const install = sh('npm', ['install', '-g', '--prefix', prefix, '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', tarball]);
  t.equal(install.status, 0, install.stderr);

  for (const bin of Object.keys(pkg.bin)) {
    t.ok(fs.existsSync(path.join(prefix, 'bin', bin)), `${bin} is on PATH`);
    const version = sh(bin, ['--version']);
    t.equal(version.stdout, `${pkg.version}\n`, `${bin} --version`);
    const help = sh(bin, ['--help']);
    t.equal(help.status, 0, `${bin} --help`);
    const completion = sh('bash', ['-c', `source <(${bin} --completion=bash) && COMP_WORDS=(${bin} --qui) COMP_CWORD=1 && _${bin}_yargs_completions && echo "\${COMPREPLY[@]}"`]);
    t.equal(completion.stdout, '--quiet\n', `${bin}: bash completion from the installed command`);
  }

  const result = sh('ndjson-result', [example]);
  t.equal(result.status, 0);
  t.equal(result.stdout, "I'll read package.json first.Adding the script now.Done: package.json now has a test script.\n");
  const text = sh('ndjson-text', [example]);
  t.equal(text.stdout, 'Done: package.json now has a test script.\n');
  const tools = sh('ndjson-tools', ['--paths=written', example]);
  t.equal(tools.stdout, 'package.json\n');
  const dedupe = sh('ndjson-dedupe', ['--verify', example]);
  t.equal(dedupe.status, 0);
  t.equal(dedupe.stdout, fs.readFileSync(example, 'utf8'));

  if (spawnSync('man', ['--version']).status !== 0) {
    t.skip('man is not installed: the man pages are not looked up');
  } else {
    for (const page of [...Object.keys(pkg.bin).map((b) => [b, '1']), ['ndjson-agent', '7']] as const) {
      const where = sh('man', ['-w', page[1], page[0]]);
      t.equal(where.stdout.trim(), path.join(prefix, 'lib/node_modules/ndjson-agent/man', `${page[0]}.${page[1]}`), `man ${page[1]} ${page[0]} finds the installed page`);
    }
    const rendered = sh('man', ['ndjson-text'], {});
    t.match(rendered.stdout, /ndjson-text/, 'man ndjson-text renders');
  }

  // npm runs `prepare` where a package is installed in place (`npm install` in its directory): with no sources there, it
  // builds nothing, and leaves the built files be.
  const installed = path.join(prefix, 'lib/node_modules/ndjson-agent');
  const prepare = sh('npm', ['run', 'prepare', '--silent'], { cwd: installed });
  t.equal(prepare.status, 0, `prepare in the installed package: nothing to do (${prepare.stderr})`);
  t.ok(fs.existsSync(path.join(installed, 'dist/bundle/ndjson-agent.cjs')), 'the built files are still there');
  t.equal(sh('ndjson-result', [example]).status, 0, 'and the commands still run');

  // The library, imported by name from a program beside the installed package.
  const program = path.join(prefix, 'lib', 'use.mjs');
  fs.writeFileSync(program, "import { result } from 'ndjson-agent';\nprocess.stdin.pipe(result()).pipe(process.stdout);\n");
  const library = sh(process.execPath, [program], { input: fs.readFileSync(example, 'utf8') });
  t.equal(library.stdout, "I'll read package.json first.Adding the script now.Done: package.json now has a test script.\n", 'the installed library works');
});

t.test('npx runs the commands from a clone', async (t) => {
  const r = sh('npx', ['--no-install', 'ndjson-result', example], { cwd: ROOT });
  t.equal(r.status, 0, r.stderr);
  t.match(r.stdout, /Done: package\.json now has a test script\./);
});
