import { describeModel } from './internal/harness.js';
import { specs } from './internal/suts/completion.js';

for (const spec of specs) describeModel(spec);
