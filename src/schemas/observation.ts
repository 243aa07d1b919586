import { z } from 'zod';

/** Whether the parser recognised the surface at all (docs/statecharts.md §1). */
export const Availability = z.enum(['supported', 'unsupported', 'disconnected', 'unknown']);
export type Availability = z.infer<typeof Availability>;

/** What the agent is doing, as far as the screen tells. */
export const BusinessState = z.enum(['idle', 'working', 'awaiting_operator', 'unknown']);
export type BusinessState = z.infer<typeof BusinessState>;

/** What typing would do right now. */
export const InputMode = z.enum(['freeform', 'modal', 'closed', 'unknown']);
export type InputMode = z.infer<typeof InputMode>;

/**
 * One poll of one terminal after parsing: the only input the readiness and completion
 * classifiers read.
 */
export const Observation = z.object({
  availability: Availability,
  businessState: BusinessState,
  inputMode: InputMode,
  uiContext: z.string(),
  projectionText: z.string(),
  baselineInvalidated: z.boolean().default(false),
});
export type Observation = z.infer<typeof Observation>;
