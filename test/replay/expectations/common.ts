export const DOWN = { diagnostics: 'tui_down', readiness: 'failed' } as const;
export const GONE = { diagnostics: 'unavailable', readiness: 'failed' } as const;
export const READY = { diagnostics: 'available', readiness: 'ready' } as const;
