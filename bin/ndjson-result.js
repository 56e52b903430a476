#!/usr/bin/env node
import { start } from '../dist/cli/start.js';
await start('result');
