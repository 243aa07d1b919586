const STOP_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;

/**
 * Resolves on the first SIGINT, SIGTERM or SIGHUP. The listeners stay registered until
 * `release()`, so cleanup runs to its end: with none left, a library's exit hook (execa's)
 * would raise the signal again and end the process half-way. A second signal while cleaning up
 * ends the process at once (exit 130), as a person pressing Ctrl-C twice expects.
 */
export function untilStopSignal(): { stopped: Promise<string>; release(): void } {
  let first: string | null = null;
  let resolve!: (signal: string) => void;
  const stopped = new Promise<string>((r) => (resolve = r));
  const onSignal = (signal: NodeJS.Signals) => {
    if (first !== null) process.exit(130);
    first = signal;
    resolve(signal);
  };
  for (const s of STOP_SIGNALS) process.on(s, onSignal);
  return {
    stopped,
    release: () => {
      for (const s of STOP_SIGNALS) process.off(s, onSignal);
    },
  };
}
