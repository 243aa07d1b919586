import type { Screen, ToolProfile, ProfileFactory } from '../types.js';
import { decide, type ScreenReading } from './decide.js';
import { pickVersioned } from './version.js';

/** One CLI version's vocabulary and the reader that applies it to a screen. */
export interface VocabularyEdition<V> {
  /** Label used in the evidence (`opencode@1.18`). */
  label: string;
  /** True when this edition reads screens of the version `major.minor`. */
  covers(major: number, minor: number): boolean;
  vocabulary: V;
}

/** What a CLI's folder declares; {@link defineProfile} makes the profile factory from it. */
export interface ProfileDefinition<V> {
  id: string;
  /** Exact versions whose screens were recorded and verified (newest first). */
  verifiedVersions: readonly string[];
  processNames: readonly string[];
  interruptKeys: readonly string[];
  /** See {@link ToolProfile.interruptPresses}. */
  interruptPresses?: number;
  interruptKeyGapMs?: number;
  submitKeys: readonly string[];
  /** Editions newest first; the first that covers the version is used, the newest when unknown. */
  editions: ReadonlyArray<VocabularyEdition<V>>;
  /** Reads one screen with one edition's vocabulary. */
  read(screen: Screen, vocabulary: V): ScreenReading;
}

/**
 * The profile factory of a CLI: picks the vocabulary edition for the version, reads each screen
 * with it, and decides with the shared sequence.
 */
export function defineProfile<V>(def: ProfileDefinition<V>): ProfileFactory {
  return (toolVersion?: string): ToolProfile => {
    const edition = pickVersioned(def.editions, toolVersion);
    const detector = `${def.id}@${edition.label}`;
    return {
      id: def.id,
      verifiedVersions: def.verifiedVersions.join(', '),
      verified: def.verifiedVersions,
      processNames: def.processNames,
      interruptKeys: def.interruptKeys,
      ...(def.interruptPresses === undefined
        ? {}
        : {
            interruptPresses: def.interruptPresses,
            interruptKeyGapMs: def.interruptKeyGapMs ?? 200,
          }),
      submitKeys: def.submitKeys,
      parse: (screen) => decide(def.read(screen, edition.vocabulary), detector),
    };
  };
}

/** True when `version` is one of the exact versions a profile was verified against. */
export function isVerified(verified: readonly string[], version: string | undefined): boolean {
  if (version === undefined) return false;
  const bare = version.trim().replace(/^v/, '');
  return verified.includes(bare);
}
