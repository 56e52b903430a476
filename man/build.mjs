#!/usr/bin/env node
// Builds the man pages: man/src/NAME.SECTION.md (ronn-style markdown) -> man/NAME.SECTION (roff).
// `node man/build.mjs --check` fails when a committed page differs from its source.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.dirname(here);
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8'));
// The date in the page header: fixed per release so builds are reproducible.
const DATE = '2026-11-30';
const check = process.argv.includes('--check');
const markedMan = path.join(root, 'node_modules', '.bin', 'marked-man');

// marked-man leaves the HTML escapes of code spans in the page (`"..."` as &quot;...&quot;): a man page is not HTML.
const ENTITIES = { quot: '"', '#39': "'", lt: '<', gt: '>', amp: '&' };

let stale = 0;
for (const file of readdirSync(path.join(here, 'src')).filter((f) => f.endsWith('.md')).sort()) {
  const page = file.slice(0, -3); // ndjson-result.1
  const section = page.slice(page.lastIndexOf('.') + 1);
  const roff = execFileSync(
    markedMan,
    ['--no-breaks', '--version', `ndjson-agent ${pkg.version}`, '--manual', 'ndjson-agent', '--section', section, '--date', DATE, path.join(here, 'src', file)],
    { encoding: 'utf8' },
  ).replace(/&(quot|#39|lt|gt|amp);/g, (_, name) => ENTITIES[name]);
  const target = path.join(here, page);
  // groff reads a page as Latin-1 (`…` is `invalid input character code 128`, and is lost): the source keeps to it.
  for (const [i, line] of readFileSync(path.join(here, 'src', file), 'utf8').split('\n').entries()) {
    const wide = /[^\u0000-\u00ff]/u.exec(line);
    if (wide === null) continue;
    console.error(`man/src/${file}:${i + 1}: ${JSON.stringify(wide[0])} (U+${wide[0].codePointAt(0).toString(16).toUpperCase().padStart(4, '0')}) is not Latin-1, which groff reads`);
    stale++;
  }
  if (check) {
    if (!existsSync(target) || readFileSync(target, 'utf8') !== roff) {
      console.error(`man/${page} is stale: run npm run man`);
      stale++;
    }
  } else {
    writeFileSync(target, roff);
  }
}
process.exitCode = stale ? 1 : 0;
