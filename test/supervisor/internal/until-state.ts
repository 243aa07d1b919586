import { filter, firstValueFrom, timeout } from 'rxjs';
import type { Supervisor } from '../../../src/index.js';
import type { TerminalState } from '../../../src/schemas/terminal-state.js';

/** The first state of terminal `id` that `pred` holds for, within `ms`. */
export const until = (
  sup: Supervisor,
  id: string,
  pred: (s: TerminalState) => boolean,
  ms = 15_000,
) => firstValueFrom(sup.state$(id).pipe(filter(pred), timeout(ms)));
