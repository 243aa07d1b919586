import { asyncScheduler, type SchedulerLike } from 'rxjs';
import { createExecaTransport } from '../observe/execa-transport.js';
import { createFrameSource, type FrameSource } from '../observe/frame-source.js';
import type { TmuxTransport } from '../observe/transport.js';
import type { KernelConfig } from '../schemas/kernel.js';
import type { z } from 'zod';
import type { SupervisorOptions } from './options.js';

/**
 * The supervisor's tmux transport (the caller's, or one of its own on the socket options) and
 * its frame source: control mode needs its own transport on a real clock; with a transport or
 * scheduler of the caller's, polling is used.
 */
export function openSource(
  options: z.infer<typeof SupervisorOptions>,
  config: KernelConfig,
  given: TmuxTransport | undefined,
  scheduler: SchedulerLike | undefined,
): { transport: TmuxTransport; source: FrameSource } {
  const transport =
    given ??
    createExecaTransport({ socketName: options.socketName, socketPath: options.socketPath });
  const control = options.source === 'control' && !given && !scheduler;
  const source = createFrameSource({
    kind: control ? 'control' : 'polling',
    transport,
    ...(options.socketName ? { socketName: options.socketName } : {}),
    ...(options.socketPath ? { socketPath: options.socketPath } : {}),
    intervalMs: config.pollIntervalSeconds * 1000,
    scheduler: control ? asyncScheduler : (scheduler ?? asyncScheduler),
  });
  return { transport, source };
}
