// A stand-in agent CLI for supervisor tests that need turns to finish: it shows a prompt, and
// for each line typed into it works for a while (a spinner line), then replies and shows the
// prompt again; Ctrl-C interrupts a running turn. A prompt starting with `ask:` first asks the
// operator for permission (`y` goes on, anything else refuses). `STAND_IN_WORK_MS` sets how long
// a turn works (default 600). `STAND_IN_DROP_ENTER_MS` makes it read keys raw with bracketed
// paste on, and drop the first Enter that arrives within that many ms of a paste's end, as some
// CLIs do while they still take a paste in (noting each in the file `STAND_IN_DROP_LOG`, if set).
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

const workMs = Number(process.env.STAND_IN_WORK_MS ?? 600);
let turn = 0;
let running = null;
let asking = null;
const prompt = () => process.stdout.write('❯ ');
process.stdout.write('stand-in agent ready\n');
prompt();
const dropEnterMs = Number(process.env.STAND_IN_DROP_ENTER_MS ?? 0);
if (dropEnterMs > 0) readRaw();
else createInterface({ input: process.stdin }).on('line', onLine);

function readRaw() {
  process.stdin.setRawMode(true);
  process.stdout.write('\x1b[?2004h');
  let draft = '';
  let pasting = false;
  let pastedAt = 0;
  let dropped = false;
  const redraw = () => process.stdout.write(`\r\x1b[2K❯ ${draft}`);
  process.stdin.on('data', (chunk) => {
    let rest = chunk.toString('utf8');
    while (rest.length > 0) {
      if (rest.startsWith('\x1b[200~')) {
        pasting = true;
        rest = rest.slice(6);
      } else if (rest.startsWith('\x1b[201~')) {
        pasting = false;
        pastedAt = Date.now();
        rest = rest.slice(6);
        redraw();
      } else if (rest[0] === '\r' && !pasting) {
        rest = rest.slice(1);
        if (!dropped && Date.now() - pastedAt < dropEnterMs) {
          dropped = true;
          if (process.env.STAND_IN_DROP_LOG)
            appendFileSync(process.env.STAND_IN_DROP_LOG, 'dropped\n');
          continue;
        }
        const line = draft;
        draft = '';
        process.stdout.write('\n');
        onLine(line);
      } else if (rest[0] === '\x03') {
        rest = rest.slice(1);
        process.kill(process.pid, 'SIGINT');
      } else {
        draft += rest[0] === '\r' ? ' ' : rest[0];
        rest = rest.slice(1);
        if (!pasting) redraw();
      }
    }
  });
}

function onLine(line) {
  if (asking) {
    const pending = asking;
    asking = null;
    if (line.trim() === 'y') work(pending);
    else {
      process.stdout.write('✗ refused by the operator\n');
      prompt();
    }
    return;
  }
  if (running) return;
  if (line.startsWith('ask:')) {
    asking = line;
    process.stdout.write('Allow the tool to run? [y/n] ');
    return;
  }
  work(line);
}

function work(line) {
  turn += 1;
  const n = turn;
  const started = Date.now();
  const tick = setInterval(() => {
    const seconds = Math.round((Date.now() - started) / 100) / 10;
    process.stdout.write(`⠋ working on turn ${n} (${seconds}s)\n`);
  }, 150);
  const done = setTimeout(() => {
    clearInterval(tick);
    running = null;
    process.stdout.write(`● reply ${n}: ${line.slice(0, 40)}\n`);
    prompt();
  }, workMs);
  running = { tick, done };
}
// Ctrl-C reaches the process as a signal (the terminal is in cooked mode): it interrupts a
// running turn, and is ignored at the prompt.
process.on('SIGINT', () => {
  if (!running) return;
  clearInterval(running.tick);
  clearTimeout(running.done);
  running = null;
  process.stdout.write('⏹ interrupted\n');
  prompt();
});
