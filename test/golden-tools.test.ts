// Golden cases of ndjson-tools: see test/fixtures/lib/golden.ts.
import { golden } from './fixtures/lib/golden.js';

golden('ndjson-tools');
