// Plays a terminal recording (docs/contracts.md §2) in the terminal it runs in, at its recorded
// pace, over and over: what `paneward demo` runs in each pane, under the name of the CLI that
// was recorded, so the supervisor sees a pane the way it sees one in real use.
// Usage: player.mjs RECORDING [PAUSE_SECONDS] [OWNER_PID]
// With OWNER_PID it ends when that process is gone, so a demo killed outright leaves no pane.
import { readFileSync } from 'node:fs';

const [file, pauseArg, ownerArg] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: player.mjs RECORDING [PAUSE_SECONDS]\n');
  process.exit(2);
}
const pauseMs = Number(pauseArg ?? 6) * 1000;
const lines = readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l));
// Frames of the running CLI only: a recording's end (the CLI gone) is not played.
const frames = lines.filter(
  (l) => l.type === 'frame' && l.transport === 'tmux_up' && l.process === 'tui_up',
);
if (frames.length === 0) {
  process.stderr.write(`${file}: no frames to play\n`);
  process.exit(2);
}

// Keys typed into the pane are swallowed: nothing echoes over the recorded screen.
if (process.stdin.isTTY) process.stdin.setRawMode(true);
process.stdin.on('data', (d) => {
  if (d.includes(3)) process.exit(0); // Ctrl-C still ends it
});

const owner = Number(ownerArg);
if (Number.isInteger(owner) && owner > 0) {
  setInterval(() => {
    try {
      process.kill(owner, 0);
    } catch {
      process.exit(0);
    }
  }, 1000).unref();
}

const draw = (text) => {
  const rows = text.split('\n').map((row) => `${row}\u001b[K`);
  process.stdout.write(`\u001b[?25l\u001b[H${rows.join('\r\n')}\u001b[J`);
};

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

for (;;) {
  const start = Date.now();
  for (const f of frames) {
    const wait = start + f.t * 1000 - Date.now();
    if (wait > 0) await sleep(wait);
    draw(f.text);
  }
  await sleep(pauseMs);
}
