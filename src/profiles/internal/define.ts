import type { DialogContext, ProfileResult, ReadQuestion } from '../../schemas/signals.js';
import type { LaunchRecipe } from '../launch-recipe.js';
import type { SessionRecordReader } from '../session-record.js';
import type {
  HookMechanism,
  ProfileFactory,
  ProfileOptions,
  Screen,
  ToolProfile,
} from '../types.js';
import { decide, type ScreenReading } from './decide.js';
import { unrecognisedQuestion } from './question.js';
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
  /** See {@link ToolProfile.packages}. */
  packages: readonly string[];
  processNames: readonly string[];
  interruptKeys: readonly string[];
  /** See {@link ToolProfile.interruptPresses}. */
  interruptPresses?: number;
  interruptKeyGapMs?: number;
  /** See {@link ToolProfile.clearPutBackDraftKeys}. */
  clearPutBackDraftKeys?: readonly string[];
  submitKeys: readonly string[];
  /** See {@link ToolProfile.answerSettleMs}. */
  answerSettleMs?: number;
  /** See {@link ToolProfile.answerCloseMs}. */
  answerCloseMs?: ToolProfile['answerCloseMs'];
  /** See {@link ToolProfile.replyChrome}: from the edition's vocabulary. */
  replyChrome?(vocabulary: V): readonly RegExp[];
  /** Editions newest first; the first that covers the version is used, the newest when unknown. */
  editions: ReadonlyArray<VocabularyEdition<V>>;
  /** Reads one screen with one edition's vocabulary. */
  read(screen: Screen, vocabulary: V): ScreenReading;
  /**
   * Reads the dialog the reader found as a question, with the keys of each choice
   * (docs/questions.md); null when the dialog is not one it fully recognises.
   */
  question?(screen: Screen, dialog: DialogContext, vocabulary: V): ReadQuestion | null;
  /** How paneward starts it (`spawn`); absent: paneward cannot start it. */
  launch?: LaunchRecipe;
  /** Its session record's reader (docs/session-records.md); absent: the screen alone witnesses. */
  sessionRecord?: SessionRecordReader;
  /** How paneward installs its hooks (docs/hooks.md); absent: it has none paneward can use. */
  hooks?: HookMechanism;
}

/** Everything paneward knows of one shipped CLI beside its screens, named by its profile. */
export interface CliParts {
  id: string;
  launch?: LaunchRecipe;
  sessionRecord?: SessionRecordReader;
  hooks?: HookMechanism;
}

/** A shipped CLI's profile factory, carrying the CLI's other parts. */
export type ShippedProfile = ProfileFactory & { readonly cli: CliParts };

/**
 * Decides one screen and, when a dialog holds the agent, reads it as a question: the profile's
 * own reading, else a question of kind `other` that nothing can answer.
 */
function decideWithQuestion<V>(
  def: ProfileDefinition<V>,
  screen: Screen,
  vocabulary: V,
  detector: string,
): ProfileResult {
  const reading = def.read(screen, vocabulary);
  const result = decide(reading, detector);
  if (reading.shape === 'cli' && reading.dialog !== null) {
    result.question =
      def.question?.(screen, reading.dialog, vocabulary) ?? unrecognisedQuestion(screen.text);
  }
  return result;
}

/**
 * The profile factory of a CLI: picks the vocabulary edition for the version, reads each screen
 * with it, and decides with the shared sequence.
 */
export function defineProfile<V>(def: ProfileDefinition<V>): ShippedProfile {
  const factory = (toolVersion?: string, options: ProfileOptions = {}): ToolProfile => {
    const edition = pickVersioned(def.editions, toolVersion);
    const detector = `${def.id}@${edition.label}`;
    const drifted =
      options.verifiedOnly === true && isNewerThanVerified(def.verifiedVersions, toolVersion);
    return {
      id: def.id,
      verifiedVersions: def.verifiedVersions.join(', '),
      verified: def.verifiedVersions,
      packages: def.packages,
      ...(drifted ? { unverifiedUnread: true } : {}),
      processNames: def.processNames,
      interruptKeys: def.interruptKeys,
      ...(def.interruptPresses === undefined
        ? {}
        : {
            interruptPresses: def.interruptPresses,
            interruptKeyGapMs: def.interruptKeyGapMs ?? 200,
          }),
      ...(def.clearPutBackDraftKeys === undefined
        ? {}
        : { clearPutBackDraftKeys: def.clearPutBackDraftKeys }),
      submitKeys: def.submitKeys,
      ...(def.answerSettleMs === undefined ? {} : { answerSettleMs: def.answerSettleMs }),
      ...(def.answerCloseMs === undefined ? {} : { answerCloseMs: def.answerCloseMs }),
      ...(def.replyChrome ? { replyChrome: def.replyChrome(edition.vocabulary) } : {}),
      // Under the strict gate a newer release is not read until verified: it may draw a known
      // shape with a new meaning.
      parse: drifted
        ? () => decide({ shape: 'unrecognised' }, `${def.id}@${toolVersion}:unverified`)
        : (screen) => decideWithQuestion(def, screen, edition.vocabulary, detector),
    };
  };
  const cli: CliParts = {
    id: def.id,
    ...(def.launch ? { launch: def.launch } : {}),
    ...(def.sessionRecord ? { sessionRecord: def.sessionRecord } : {}),
    ...(def.hooks ? { hooks: def.hooks } : {}),
  };
  return Object.assign(factory, { cli });
}

/** True when `version` is one of the exact versions a profile was verified against. */
export function isVerified(verified: readonly string[], version: string | undefined): boolean {
  if (version === undefined) return false;
  const bare = version.trim().replace(/^v/, '');
  return verified.includes(bare);
}

/** Numeric parts of a version (`v2.1.330-beta` → [2, 1, 330]); null when it has none. */
function versionParts(version: string): number[] | null {
  const m = /^v?(\d+(?:\.\d+)*)/.exec(version.trim());
  return m ? m[1]!.split('.').map(Number) : null;
}

/** -1, 0 or 1 as `a` is older than, the same release as, or newer than `b`. */
export function compareVersions(a: string, b: string): number {
  const x = versionParts(a) ?? [];
  const y = versionParts(b) ?? [];
  for (let i = 0; i < Math.max(x.length, y.length); i++) {
    const d = (x[i] ?? 0) - (y[i] ?? 0);
    if (d !== 0) return Math.sign(d);
  }
  return 0;
}

/** True when `version` is known and newer than every verified version. */
export function isNewerThanVerified(
  verified: readonly string[],
  version: string | undefined,
): boolean {
  if (version === undefined || versionParts(version) === null || verified.length === 0) {
    return false;
  }
  return verified.every((v) => compareVersions(version, v) > 0);
}
