import { describeModel } from './internal/harness.js';
import { specs } from './internal/suts/turnPhase.js';

for (const spec of specs) describeModel(spec);
