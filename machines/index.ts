export * from './readiness.js';
export * from './completion.js';
export * from './turnPhase.js';
export * from './lastTurn.js';
export * from './diagnostics.js';
export * from './watchdog.js';
export * from './terminal.js';
export * from './supervisor.js';
