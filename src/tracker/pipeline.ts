/** A terminal's pipeline lives with the rest of a terminal, in src/terminal. */
export { TerminalPipeline, type PipelineOptions, type ProbeFacts } from '../terminal/pipeline.js';
export {
  standaloneSite,
  type ChartLogic,
  type ChartSite,
  type StandaloneSite,
  type TerminalCharts,
  type TerminalHost,
} from '../terminal/charts.js';
export { changedFields, initialState, sameState } from '../terminal/state.js';
