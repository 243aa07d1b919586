import { describeModel } from './internal/harness.js';
import { specs } from './internal/suts/witness.js';

for (const spec of specs) describeModel(spec);
