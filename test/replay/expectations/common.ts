export const DOWN = { diagnostics: 'tui_down', readiness: 'failed' } as const;
export const GONE = { diagnostics: 'unavailable', readiness: 'failed' } as const;
export const READY = { diagnostics: 'available', readiness: 'ready' } as const;

/**
 * Another release's recordings of the same scenarios (`test/fixtures/<tool>/<version>/`): the
 * same expectations, keyed `<version>/<scenario>`. Only the scenarios named are taken (all of
 * them when none is), so that each entry has its recording.
 */
export function sameScenariosOf<E>(
  version: string,
  base: Record<string, E>,
  only: readonly string[] = Object.keys(base),
): Record<string, E> {
  return Object.fromEntries(
    only.map((scenario) => {
      const exp = base[scenario];
      if (exp === undefined) throw new Error(`${version}/${scenario}: no base expectation`);
      return [`${version}/${scenario}`, exp];
    }),
  );
}
