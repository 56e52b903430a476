#!/usr/bin/env node
import { main } from '../dist/cli/dedupe.js';
process.exit(await main(process.argv.slice(2)));
