// Golden cases of ndjson-text: see test/fixtures/lib/golden.ts.
import { golden } from './fixtures/lib/golden.js';

golden('ndjson-text');
