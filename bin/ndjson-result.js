#!/usr/bin/env node
require('../dist/cli/start.cjs').start('result');
