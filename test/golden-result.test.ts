// Golden cases of ndjson-result: see test/fixtures/lib/golden.ts.
import { golden } from './fixtures/lib/golden.js';

golden('ndjson-result');
