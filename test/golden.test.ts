// Golden-file tests of the built binaries: test/fixtures/<tool>/<case>/ holds
//   args             one argument per line (optional)
//   input            what the tool reads on stdin (optional: empty)
//   expected.stdout  expected.stderr  expected.code
// The case folder is the working directory, so args may name files in it.
// UPDATE_GOLDEN=<tool> (or 1 for all) writes the expected files from what the tools do now (review the diff!).
import t from 'tap';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, runBin } from './fixtures/lib/run.js';

const FIXTURES = path.join(ROOT, 'test/fixtures');
const updating = process.env.UPDATE_GOLDEN;

function read(file: string): string | undefined {
  return fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : undefined;
}

for (const tool of fs.readdirSync(FIXTURES).sort()) {
  const toolDir = path.join(FIXTURES, tool);
  if (!fs.existsSync(path.join(ROOT, 'bin', `${tool}.js`))) continue;
  t.test(tool, async (t) => {
    for (const name of fs.readdirSync(toolDir).sort()) {
      const dir = path.join(toolDir, name);
      if (!fs.statSync(dir).isDirectory()) continue;
      t.test(name, async (t) => {
        const argsText = read(path.join(dir, 'args'));
        const args = argsText === undefined ? [] : argsText.split('\n').filter((line, i, all) => line !== '' || i < all.length - 1);
        const input = fs.existsSync(path.join(dir, 'input')) ? fs.readFileSync(path.join(dir, 'input')) : Buffer.alloc(0);
        const ran = await runBin(tool, args, input, { cwd: dir });
        if (updating === '1' || updating === tool) {
          fs.writeFileSync(path.join(dir, 'expected.stdout'), ran.stdout);
          fs.writeFileSync(path.join(dir, 'expected.stderr'), ran.stderr);
          fs.writeFileSync(path.join(dir, 'expected.code'), `${ran.code}\n`);
        }
        t.equal(ran.stdout, read(path.join(dir, 'expected.stdout')) ?? '', 'stdout');
        t.equal(ran.stderr, read(path.join(dir, 'expected.stderr')) ?? '', 'stderr');
        t.equal(String(ran.code), (read(path.join(dir, 'expected.code')) ?? '0').trim(), 'exit status');
      });
    }
  });
}
