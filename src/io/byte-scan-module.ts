/**
 * The bytes of the byte scan's WebAssembly module. Here they are assembled
 * from its code (byte-scan-code.ts); the build replaces the compiled file with
 * one that holds the bytes themselves (see byte-scan-emit.ts), and a test
 * checks that the two are the same.
 */
import { moduleBytes } from './byte-scan-code.js';

export const MODULE: Uint8Array<ArrayBuffer> = moduleBytes();
