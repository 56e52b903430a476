// Golden cases of ndjson-dedupe: see test/fixtures/lib/golden.ts.
import { golden } from './fixtures/lib/golden.js';

golden('ndjson-dedupe');
