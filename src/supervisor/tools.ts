import { PanewardError } from '../errors.js';
import { getProfile, knownTools, type ProfileFactory } from '../profiles/index.js';
import type { ToolProfile } from '../profiles/types.js';

/** The agent CLIs a supervisor knows: the profiles paneward ships and the caller's own. */
export class ToolCatalog {
  constructor(
    /** Extra tool profiles by id (they come first). */
    private readonly custom: Readonly<Record<string, ProfileFactory>>,
    /** Do not read the screens of a version newer than every one a profile was verified against. */
    private readonly verifiedOnly: boolean,
  ) {}

  /** The profile that reads `tool`'s screens at `version`. */
  profileFor(tool: string, version?: string): ToolProfile {
    const options = { verifiedOnly: this.verifiedOnly };
    return this.custom[tool]?.(version, options) ?? getProfile(tool, version, options);
  }

  /** Every tool id an attach may name. */
  ids(): string[] {
    return [...Object.keys(this.custom), ...knownTools().map((t) => t.id), 'unsupported'];
  }

  /** Refuses (`invalid_input`, naming `tool`) a tool no profile reads. */
  assertKnown(tool: string | undefined): void {
    if (tool !== undefined && !this.ids().includes(tool)) {
      throw new PanewardError(
        'invalid_input',
        `attach: field \`tool\`: unknown tool ${JSON.stringify(tool)} (known: ${this.ids().join(', ')})`,
      );
    }
  }

  /** The tools discovery looks for, by the processes they run as. */
  discoverable(): Array<{ id: string; processNames: readonly string[] }> {
    const custom = Object.entries(this.custom).map(([id, factory]) => ({
      id,
      processNames: factory().processNames,
    }));
    return [...custom, ...knownTools()];
  }
}
