import type { z } from '@hono/zod-openapi';
import { answer } from './answer.js';
import { attach } from './attach.js';
import { detach, interrupt, resume, screen } from './control.js';
import { input } from './input.js';
import { observe } from './observe.js';
import { turn, turns, wait } from './turns.js';

export * from './contract.js';
export * from './answer.js';
export * from './attach.js';
export * from './control.js';
export * from './input.js';
export * from './observe.js';
export * from './reads.js';
export * from './spawn.js';
export * from './turns.js';

/**
 * Every command of the service by name: what the HTTP routes take, what a fleet edge answers
 * over request/reply, what the fleet view sends and checks the answers against.
 */
export const COMMANDS = {
  attach,
  input,
  turns,
  wait,
  turn,
  interrupt,
  resume,
  detach,
  screen,
  observe,
  answer,
};
export type Commands = typeof COMMANDS;
export type CommandName = keyof Commands;
export type CommandInput<K extends CommandName> = z.output<Commands[K]['input']>;
export type CommandOutput<K extends CommandName> = z.output<Commands[K]['output']>;

/** What runs the commands: one function per command, typed by its contract. */
export type CommandHandlers = {
  [K in CommandName]: (input: CommandInput<K>, signal?: AbortSignal) => Promise<CommandOutput<K>>;
};
export * from './houmao.js';
