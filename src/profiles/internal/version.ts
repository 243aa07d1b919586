/** One parser of a profile, for the tool versions it covers. */
export interface Versioned {
  /** True when this entry reads screens of the version `major.minor`. */
  covers(major: number, minor: number): boolean;
}

/**
 * Picks the entry for a tool version from a list ordered newest first: the first entry that
 * covers the version, or the newest when the version is unknown, unparsable or not covered.
 */
export function pickVersioned<T extends Versioned>(list: readonly T[], toolVersion?: string): T {
  const newest = list[0];
  if (newest === undefined) throw new Error('pickVersioned: no versions to pick from');
  const m = toolVersion ? /(\d+)\.(\d+)/.exec(toolVersion) : null;
  if (!m) return newest;
  return list.find((v) => v.covers(Number(m[1]), Number(m[2]))) ?? newest;
}
