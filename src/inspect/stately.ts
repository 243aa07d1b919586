import { createServer } from 'node:http';
import type * as StatelyInspect from '@statelyai/inspect';
import type * as StatelyInspectServer from '@statelyai/inspect/server';
import type { InspectionEvent } from 'xstate';
import { PanewardError } from '../errors.js';
import { stripPaneText } from './strip.js';

export interface StatelyInspection {
  /** Pass as `createSupervisor({ inspect })`. */
  inspect: (event: InspectionEvent) => void;
  /** The page that shows the live actors (it embeds https://stately.ai/inspect). */
  pageUrl: string;
  /** The WebSocket the events are relayed through. */
  socketUrl: string;
  stop(): void;
}

export interface StatelyInspectionOptions {
  /** Port of the local bridge (page and WebSocket); default 8080, Stately's own default. */
  port?: number;
  /** Send what panes show and prompts typed into them too (default: stripped to their length). */
  paneText?: boolean;
}

/**
 * Connects paneward's actor system to Stately's inspector: a local bridge (page and WebSocket,
 * from `@statelyai/inspect/server`) and a WebSocket inspector feeding it. `@statelyai/inspect`
 * is an optional dependency, imported only here; without it this rejects saying how to add it.
 */
export async function startStatelyInspection(
  options: StatelyInspectionOptions = {},
): Promise<StatelyInspection> {
  const port = options.port ?? 8080;
  let lib: typeof StatelyInspect;
  let server: typeof StatelyInspectServer;
  try {
    lib = await import('@statelyai/inspect');
    server = await import('@statelyai/inspect/server');
  } catch (cause) {
    throw new PanewardError(
      'invalid_input',
      'field `inspect`: live inspection needs the optional package @statelyai/inspect (npm install @statelyai/inspect)',
      { cause },
    );
  }
  // The bridge does not report a port in use (it would crash the process): look first.
  await new Promise<void>((resolve, reject) => {
    const probe = createServer();
    probe.once('error', (cause) =>
      reject(
        new PanewardError('invalid_input', `field \`inspect\`: port ${port} is in use`, { cause }),
      ),
    );
    probe.listen(port, () => probe.close(() => resolve()));
  });
  const bridge = server.createInspectorServer({ port, autoOpen: false });
  const socketUrl = `ws://localhost:${port}`;
  // Every event passes through `serialize` on its way out: events, snapshots and actor inputs.
  const inspector = lib.createWebSocketInspector({
    url: socketUrl,
    ...(options.paneText ? {} : { serialize: (e) => stripPaneText(e) }),
  });
  return {
    inspect: inspector.inspect.next ? (e) => inspector.inspect.next?.(e) : () => {},
    pageUrl: `http://localhost:${port}`,
    socketUrl,
    stop: () => {
      inspector.stop();
      bridge.stop();
    },
  };
}
