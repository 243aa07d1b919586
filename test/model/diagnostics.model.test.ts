import { describeModel } from './internal/harness.js';
import { specs } from './internal/suts/diagnostics.js';

for (const spec of specs) describeModel(spec);
