/**
 * paneward's HTTP service: `createHttpApp` serves anything that satisfies `SupervisorPort` (a
 * `Supervisor`, or a fleet's `FleetView`) as a Hono app and a Node request listener.
 */
export { createHttpApp, hostName, type HttpApp, type HttpAppOptions } from './app.js';
export type {
  SupervisorPort,
  RecordFeed,
  RecordGap,
  FeedFailure,
  AttachCommand,
} from '../service/port.js';
export { COMMANDS, type CommandHandlers, type CommandName } from '../schemas/operations/index.js';
