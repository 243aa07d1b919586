// Run by recorder.test.ts in a child process with a file size limit (`ulimit -f`): writes past
// the limit fail with EFBIG. `frames` mode (limit 4 KiB) fails on a frame after the header,
// `header` mode (limit 0) on the header. Prints one JSON object with what it saw.
import { closeSync, openSync, readFileSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { startRecorder } from '../../src/observe/recorder.js';
import { THEN } from '../../src/observe/tmux-argv.js';
import type { TmuxTransport } from '../../src/observe/transport.js';

const dir = process.argv[2] as string;
const mode = process.argv[3];

function screenTransport(screen: string): TmuxTransport {
  return {
    async run(args) {
      const marker = String(args[args.indexOf(THEN) + 3]);
      return `%1\t4242\t1\t80\t24\tsh\n${marker}\n${screen}\n`;
    },
    async close() {},
  };
}

/** Open descriptors of this process that point at `file`. */
function fdsOf(file: string): string[] {
  return readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`) === file;
    } catch {
      return false;
    }
  });
}

function codeOf(error: unknown): string {
  return (error as { code?: string }).code ?? String(error);
}

if (mode === 'frames') {
  // A frame write fails after the header is on file.
  const frames = join(dir, 'frames.jsonl');
  const rec = startRecorder({
    transport: screenTransport('x'.repeat(3000)),
    target: '%1',
    tool: 'codex',
    processNames: ['codex'],
    file: frames,
    intervalMs: 20,
  });
  const recorderFd = Number(fdsOf(frames)[0]);
  const doneError = codeOf(await rec.done.catch((e: unknown) => e));
  // The recorder's descriptor number is free again: the next file opened takes it.
  const other = join(dir, 'other.txt');
  const otherFd = openSync(other, 'w');
  let inputError = 'none';
  try {
    rec.input('secret prompt text');
  } catch (error) {
    inputError = codeOf(error);
  }
  closeSync(otherFd);
  const stopError = codeOf(await rec.stop().catch((e: unknown) => e));
  process.stdout.write(
    JSON.stringify({
      doneError,
      inputError,
      stopError,
      reusedFd: otherFd === recorderFd,
      other: readFileSync(other, 'utf8'),
      openFds: fdsOf(frames).length,
      recordedSecret: readFileSync(frames, 'utf8').includes('secret'),
    }),
  );
}

if (mode === 'header') {
  // The header itself does not fit.
  const headerFile = join(dir, 'header.jsonl');
  const rec2 = startRecorder({
    transport: screenTransport('small'),
    target: '%1',
    tool: 'codex',
    processNames: ['codex'],
    file: headerFile,
    intervalMs: 20,
  });
  const headerDoneError = codeOf(await rec2.done.catch((e: unknown) => e));
  process.stdout.write(
    JSON.stringify({
      doneError: headerDoneError,
      openFds: fdsOf(headerFile).length,
      size: readFileSync(headerFile, 'utf8').length,
    }),
  );
}
