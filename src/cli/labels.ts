/**
 * A terminal's tool as people read it: `detecting` while paneward is still finding out which
 * CLI runs in the pane (the library's placeholder for that is `auto`).
 */
export function toolLabel(tool: string): string {
  return tool === 'auto' ? 'detecting' : tool;
}
