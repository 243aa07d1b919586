import { existsSync, readFileSync } from 'node:fs';

/**
 * Waits until every pid in `pids` has exited, polling /proc; one still running after `graceMs`
 * is sent SIGKILL (they are processes of ours, already asked to stop). A folder they write to
 * can be removed once this resolves.
 */
export async function awaitExit(pids: readonly number[], graceMs = 5000): Promise<void> {
  const alive = (pid: number) => existsSync(`/proc/${pid}`) && !isZombie(pid);
  const deadline = Date.now() + graceMs;
  let left = pids.filter(alive);
  while (left.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    left = left.filter(alive);
  }
  for (const pid of left) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
  while (left.length > 0 && Date.now() < deadline + graceMs) {
    await new Promise((r) => setTimeout(r, 50));
    left = left.filter(alive);
  }
}

function isZombie(pid: number): boolean {
  try {
    // The state follows the command name in parentheses: "pid (comm) S ...".
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}
