export type {
  AttachCommand,
  FeedFailure,
  RecordFeed,
  RecordGap,
  SupervisorPort,
} from '../service/port.js';
