export { FleetEdge, type EdgeOptions, type EdgeStatus } from './edge.js';
export { FleetView, type FleetViewOptions, type HostView } from './view.js';
export { FleetFeed, type FleetRecord } from './feed.js';
export { DEFAULT_LIMITS, type FleetLimits } from './connection.js';
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
