// A stand-in CLI that draws a permission dialog as Claude Code draws it, for the answer tests.
// It reads keys raw and appends each to the file `DIALOG_KEYS`. A digit 1-3 closes the dialog (a prompt
// `❯ ` is drawn instead) unless `DIALOG_STUCK` is set, when it keeps the dialog whatever comes.
// Once the file `DIALOG_SWAP` exists it draws another dialog (another command) in its place.
import { appendFileSync, existsSync } from 'node:fs';

const dialog = (command) =>
  [
    '─'.repeat(60),
    ' Bash command',
    ' Create an empty marker file',
    '╌'.repeat(60),
    ` ${command}`,
    '╌'.repeat(60),
    ' Do you want to proceed?',
    ' ❯ 1. Yes',
    '   2. Yes, and always allow access to /work from this project',
    '   3. No',
    '',
    ' Esc to cancel · Tab to amend',
  ].join('\r\n');
const draw = (text) => process.stdout.write(`\x1b[2J\x1b[H${text}`);
let open = true;
draw(dialog('touch paneward-approved.txt'));
const swap = setInterval(() => {
  if (process.env.DIALOG_SWAP && existsSync(process.env.DIALOG_SWAP)) {
    clearInterval(swap);
    draw(dialog('rm -rf paneward-approved.txt'));
  }
}, 20);
process.stdin.setRawMode(true);
process.stdin.on('data', (chunk) => {
  const key = chunk.toString('utf8');
  appendFileSync(process.env.DIALOG_KEYS, `${JSON.stringify(key)}\n`);
  if (key === '\x03') process.exit(0);
  if (open && /^[1-3]$/.test(key) && !process.env.DIALOG_STUCK) {
    open = false;
    clearInterval(swap);
    draw('● Ran it.\r\n\r\n❯ ');
  }
});
