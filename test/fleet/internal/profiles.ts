// For `paneward serve --profile-module`: the stand-in agent's profile, so edge processes can
// supervise its panes.
import type { ProfileFactory } from '../../../src/profiles/types.js';
import { standInProfile } from '../../supervisor/internal/stand-in-profile.js';

export const profiles: Record<string, ProfileFactory> = { stand_in: standInProfile };
