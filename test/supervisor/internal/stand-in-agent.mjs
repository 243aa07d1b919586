// A stand-in agent CLI for supervisor tests that need turns to finish: it shows a prompt, and
// for each line typed into it works for a while (a spinner line), then replies and shows the
// prompt again; Ctrl-C interrupts a running turn. A prompt starting with `ask:` first asks the
// operator for permission (`y` goes on, anything else refuses). `STAND_IN_WORK_MS` sets how long
// a turn works (default 600).
import { createInterface } from 'node:readline';

const workMs = Number(process.env.STAND_IN_WORK_MS ?? 600);
let turn = 0;
let running = null;
let asking = null;
const prompt = () => process.stdout.write('❯ ');
process.stdout.write('stand-in agent ready\n');
prompt();
const rl = createInterface({ input: process.stdin });
rl.on('line', (line) => {
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
});

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
