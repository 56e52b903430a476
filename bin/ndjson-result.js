#!/usr/bin/env node
import { run } from '../dist/cli/run.js';
await run('result');
