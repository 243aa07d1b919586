/**
 * paneward's fleet: an edge that publishes a supervisor's records, state and liveness to NATS
 * JetStream and answers its commands, and a view that serves every host through the same HTTP
 * app (`createHttpApp(new FleetView({ nats }))`, from `paneward/server`).
 */
export { FleetEdge, type EdgeOptions, type EdgeStatus } from './edge.js';
export { FleetView } from './view.js';
export type { FleetViewOptions, HostView } from './follower.js';
export { FleetFeed, type FleetRecord } from './feed.js';
export { DEFAULT_LIMITS, type FleetLimits } from './connection.js';
export { SIGNATURE_HEADER, signCommand, checkSignature, type NatsAuth } from './auth.js';
export {
  STREAM,
  STREAM_SUBJECTS,
  STATE_BUCKET,
  HOSTS_BUCKET,
  recordSubject,
  recordFilter,
  stateKey,
  commandSubject,
  messageId,
  qualify,
  unqualify,
} from './names.js';
export { StateEntry, Heartbeat, CommandRequest, CommandReply } from './schemas.js';
export type { SupervisorPort, RecordFeed, AttachCommand } from '../service/port.js';
