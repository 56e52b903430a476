#!/usr/bin/env node
import { run } from '../dist/bundle/run.js';
await run('dedupe');
