/**
 * A terminal's tool as people read it: `detecting` while paneward is still finding out which
 * CLI runs in the pane (the library's placeholder for that is `auto`).
 */
export function toolLabel(tool: string): string {
  return tool === 'auto' ? 'detecting' : tool;
}

/**
 * A terminal's tool and version as people read it: `claude_code 2.1.400 (unverified)` when the
 * running release is not one paneward was verified against (docs/profiles.md).
 */
export function toolVersionLabel(v: {
  tool: string;
  toolVersion: string | null;
  toolVersionVerified: boolean | null;
}): string {
  const version = v.toolVersion ? ` ${v.toolVersion}` : '';
  return `${toolLabel(v.tool)}${version}${v.toolVersionVerified === false ? ' (unverified)' : ''}`;
}
