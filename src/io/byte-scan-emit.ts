/**
 * A step of the build (`node dist/io/byte-scan-emit.js`, after tsc): replaces
 * dist/io/byte-scan-module.js, which assembles the byte scan's WebAssembly
 * module from its code when loaded, with a file that holds the bytes
 * themselves. Assembling them took about 10 ms and a few MiB at every start
 * of a command; the bundle then leaves the module's code out.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { moduleBytes } from './byte-scan-code.js';

const file = fileURLToPath(new URL('./byte-scan-module.js', import.meta.url));
const base64 = Buffer.from(moduleBytes()).toString('base64');
writeFileSync(
  file,
  `// The bytes of the byte scan's WebAssembly module, as byte-scan-code.js assembles them (written by byte-scan-emit.js).\nexport const MODULE = new Uint8Array(Buffer.from('${base64}', 'base64'));\n`,
);
