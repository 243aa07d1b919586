/** Where a client command prints, and what it reads of its environment. */
export interface ClientIo {
  out(line: string): void;
  err(line: string): void;
  env: NodeJS.ProcessEnv;
  /** Colours are used only on a terminal, and never with NO_COLOR. */
  color: boolean;
}

export const defaultIo = (): ClientIo => ({
  out: (l) => process.stdout.write(`${l}\n`),
  err: (l) => process.stderr.write(`${l}\n`),
  env: process.env,
  color: Boolean(process.stdout.isTTY) && !process.env.NO_COLOR,
});
