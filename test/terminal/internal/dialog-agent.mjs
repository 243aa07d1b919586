// A stand-in CLI that draws a permission dialog as Claude Code draws it, for the answer tests.
// It reads keys raw and appends each to the file `DIALOG_KEYS`. A digit 1-3 closes the dialog (Claude Code's
// prompt box is drawn instead) unless `DIALOG_STUCK` is set, when it keeps the dialog whatever comes.
// Once the file `DIALOG_SWAP` exists it draws another dialog (another command) in its place.
// With `DIALOG_ARROWS` it draws Claude Code's folder trust dialog instead: no numbers, the cursor
// `❯` moved by the arrows, Enter closes it (with `DIALOG_STUCK` the Enter does nothing, the cursor moved).
// With `DIALOG_COLOUR` it draws grok-cli's confirmation, its highlight colour only (black on
// cyan, the others white, as grok-cli 0.0.34 draws them) on the options listed in
// `DIALOG_COLOUR` (`2`: the third; `` : none; `0,1`: two); the arrows move a single highlight,
// Enter and Escape close it.
// With `DIALOG_GUARD_MS` a digit that arrives sooner than that after the dialog was drawn only
// moves the cursor `❯` to its option, as Claude Code 2.1.332 does; a later digit chooses.
// With `DIALOG_LIMBO` a digit clears the dialog to a screen that is neither a dialog nor a
// prompt (the logo line alone) and it stays so, or with `DIALOG_LIMBO_MS` for that long before the
// prompt is drawn (a CLI starting again after the answer). With `DIALOG_CLOSE_AFTER_MS` a digit
// leaves the dialog drawn that long, then the prompt is drawn.
// With `DIALOG_OPENCODE` (a fixtures folder, `test/fixtures/opencode`) it replays opencode's real
// captures with escapes: the permission dialog (`highlight/on-*.ansi`, the highlight moved by
// Left and Right), `Allow always` opening its confirmation (`highlight/confirm-on-*.ansi`), and
// the last frame of `permission-allow-always.jsonl` (the idle prompt) once a choice is made.
// `DIALOG_CONFIRM` changes the confirmation: `skip` (Allow always closes the dialog at once),
// `unlit` (no option highlighted), `back` (Confirm brings the permission dialog back).
import { appendFileSync, existsSync, readFileSync } from 'node:fs';

const dialog = (command, at = 0) =>
  [
    '─'.repeat(60),
    ' Bash command',
    ' Create an empty marker file',
    '╌'.repeat(60),
    ` ${command}`,
    '╌'.repeat(60),
    ' Do you want to proceed?',
    ...['Yes', 'Yes, and always allow access to /work from this project', 'No'].map(
      (o, i) => `${i === at ? ' ❯' : '  '} ${i + 1}. ${o}`,
    ),
    '',
    ' Esc to cancel · Tab to amend',
  ].join('\r\n');
const trust = (cursor) =>
  [
    '─'.repeat(60),
    ' Accessing workspace:',
    ' /work/project',
    ' Quick safety check: Is this a project you created or one you trust?',
    " Claude Code'll be able to read, edit, and execute files here.",
    ' Security guide',
    cursor === 0 ? ' ❯ No, exit' : '   No, exit',
    cursor === 1 ? ' ❯ Yes, I trust this folder' : '   Yes, I trust this folder',
    ' Enter to confirm · Esc to cancel',
  ].join('\r\n');
const GROK_OPTIONS = ['Yes', "Yes, and don't ask again this session", 'No', 'No, with feedback'];
const grok = (lit) =>
  [
    '  ⏺ Run bash command(touch paneward-approved.txt)',
    '    ⎿ Requesting user confirmation',
    '',
    '  Do you want to proceed with this operation?',
    '',
    ...GROK_OPTIONS.map(
      (o, i) =>
        `   ${lit.includes(i) ? '\x1b[30m\x1b[46m' : '\x1b[37m'}${i + 1}. ${o}\x1b[39m\x1b[49m`,
    ),
    '',
    '  ↑↓ navigate • Enter select • Esc cancel',
  ].join('\r\n');
// Claude Code's idle prompt box under a reply, as it draws it once a dialog is answered.
const prompt = (reply) =>
  [`● ${reply}`, '', '─'.repeat(60), '❯ ', '─'.repeat(60), '  ? for shortcuts'].join('\r\n');
// grok-cli's idle input box under a line of the transcript.
const grokPrompt = (line) =>
  [
    `  ⏺ ${line}.`,
    '',
    `  ╭${'─'.repeat(70)}╮`,
    `  │ ❯ Ask me anything...${' '.repeat(49)}│`,
    `  ╰${'─'.repeat(70)}╯`,
    '',
    '  ⏸ auto-edit: off (shift + tab)  ≋ fake-model',
  ].join('\r\n');
const draw = (text) => process.stdout.write(`\x1b[2J\x1b[H${text}`);
const opencode = process.env.DIALOG_OPENCODE;
const confirmMode = process.env.DIALOG_CONFIRM;
const capture = (name) => {
  const ansi = readFileSync(`${opencode}/highlight/${name}.ansi`, 'utf8').replace(/\n$/, '');
  const text =
    name === 'confirm-on-confirm' && confirmMode === 'unlit'
      ? ansi.replace(
          '\x1b[48;2;245;167;66m \x1b[38;2;10;10;10mConfirm',
          '\x1b[48;2;30;30;30m \x1b[38;2;128;128;128mConfirm',
        )
      : ansi;
  return text.split('\n').join('\r\n');
};
const idle = () => {
  const frames = readFileSync(`${opencode}/permission-allow-always.jsonl`, 'utf8')
    .split('\n')
    .filter((l) => l.includes('"type":"frame"'));
  return JSON.parse(frames.at(-1)).text.split('\n').join('\r\n');
};
const PERMISSION = ['on-once', 'on-always', 'on-reject'];
const CONFIRM = ['confirm-on-confirm', 'confirm-on-cancel'];
let open = true;
let cursor = 0;
const arrows = !!process.env.DIALOG_ARROWS;
const colour = process.env.DIALOG_COLOUR;
let lit = (colour ?? '')
  .split(',')
  .filter((x) => x !== '')
  .map(Number);
const drawnAt = Date.now();
// opencode: which screen (`permission`, `confirm`, `idle`) and the option highlighted on it.
let screen = 'permission';
let at = Number(process.env.DIALOG_OPENCODE_AT ?? 0);
const drawOpencode = () =>
  draw(screen === 'idle' ? idle() : capture((screen === 'confirm' ? CONFIRM : PERMISSION)[at]));
if (opencode !== undefined) drawOpencode();
else {
  draw(
    colour !== undefined
      ? grok(lit)
      : arrows
        ? trust(cursor)
        : dialog('touch paneward-approved.txt'),
  );
}
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
  if (opencode !== undefined) {
    // eslint-disable-next-line no-control-regex
    for (const k of key.match(/\x1b\[[CD]|[\s\S]/g) ?? []) {
      if (screen === 'idle') break;
      const options = screen === 'confirm' ? CONFIRM.length : PERMISSION.length;
      if (k === '\x1b[C') at = Math.min(at + 1, options - 1);
      else if (k === '\x1b[D') at = Math.max(at - 1, 0);
      else if (k === '\x1b') {
        screen = screen === 'confirm' ? 'permission' : 'idle';
        at = 0;
      } else if (k === '\r' && screen === 'permission') {
        screen = at === 1 && confirmMode !== 'skip' ? 'confirm' : 'idle';
        at = 0;
      } else if (k === '\r') {
        screen = at === 0 && confirmMode !== 'back' ? 'idle' : 'permission';
        at = 0;
      }
      drawOpencode();
    }
    return;
  }
  if (colour !== undefined) {
    // eslint-disable-next-line no-control-regex
    for (const k of key.match(/\x1b\[[AB]|[\s\S]/g) ?? []) {
      if (!open) break;
      if ((k === '\x1b[B' || k === '\x1b[A') && lit.length === 1) {
        lit = [(lit[0] + (k === '\x1b[B' ? 1 : 3)) % 4];
        draw(grok(lit));
      } else if (k === '\r' || k === '\x1b') {
        open = false;
        draw(grokPrompt(k === '\r' ? `Chose ${GROK_OPTIONS[lit[0]]}` : 'Cancelled'));
      }
    }
    return;
  }
  if (arrows) {
    // The keys of one `send-keys` may come in one chunk: each in turn.
    // eslint-disable-next-line no-control-regex
    for (const k of key.match(/\x1b\[[AB]|[\s\S]/g) ?? []) {
      if (!open) break;
      if (k === '\x1b[B' || k === '\x1b[A') {
        cursor = k === '\x1b[B' ? 1 : 0;
        draw(trust(cursor));
      } else if (k === '\r' && !process.env.DIALOG_STUCK) {
        open = false;
        draw(prompt('Trusted.'));
      }
    }
    return;
  }
  const guard = Number(process.env.DIALOG_GUARD_MS ?? 0);
  if (open && /^[1-3]$/.test(key) && Date.now() - drawnAt < guard) {
    draw(dialog('touch paneward-approved.txt', Number(key) - 1));
    return;
  }
  if (open && /^[1-3]$/.test(key) && process.env.DIALOG_LIMBO) {
    open = false;
    clearInterval(swap);
    draw(' ▐▛███▜▌   Claude Code v2.1.332\r\n');
    const restartMs = Number(process.env.DIALOG_LIMBO_MS ?? 0);
    if (restartMs > 0) setTimeout(() => draw(prompt('Ran it.')), restartMs);
    return;
  }
  if (open && /^[1-3]$/.test(key) && process.env.DIALOG_CLOSE_AFTER_MS) {
    // A CLI that starts again after the answer: the dialog stays drawn until the new one paints.
    open = false;
    clearInterval(swap);
    setTimeout(() => draw(prompt('Ran it.')), Number(process.env.DIALOG_CLOSE_AFTER_MS));
    return;
  }
  if (open && /^[1-3]$/.test(key) && !process.env.DIALOG_STUCK) {
    open = false;
    clearInterval(swap);
    draw(prompt('Ran it.'));
  }
});
