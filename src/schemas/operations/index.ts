import type { z } from '@hono/zod-openapi';
import { answer } from './answer.js';
import { attach } from './attach.js';
import { detach, interrupt, resume, screen } from './control.js';
import type { OperationContract } from './contract.js';
import { hook } from './hook.js';
import { houmaoInput, houmaoState } from './houmao.js';
import { input } from './input.js';
import { observe } from './observe.js';
import { list, state } from './reads.js';
import { events, history, terminalEvents } from './records.js';
import { health, metrics, spawnPresets } from './service.js';
import { spawn, stop } from './spawn.js';
import { turn, turns, wait } from './turns.js';

export * from './contract.js';
export * from './answer.js';
export * from './attach.js';
export * from './control.js';
export * from './hook.js';
export * from './input.js';
export * from './observe.js';
export * from './reads.js';
export * from './records.js';
export * from './service.js';
export * from './spawn.js';
export * from './turns.js';

/**
 * The commands a fleet edge answers over request/reply, by name: what the HTTP routes take,
 * what the fleet view sends and checks the answers against. A local server runs the same
 * handlers (`CommandHandlers`).
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

/**
 * The operations a server answers itself, never through a fleet edge: reads a fleet server
 * answers from its state bucket and the records it follows, what only the paneward of the
 * pane's own host does, and what each server says of itself. Each says why in its
 * `notServed.fleet`.
 */
export const SERVER_OPERATIONS = {
  list,
  state,
  history,
  events,
  terminalEvents,
  spawn,
  stop,
  hook,
  health,
  metrics,
  spawnPresets,
  houmaoState,
  houmaoInput,
};

/**
 * Every operation of the service: the one list the HTTP routes, the CLI client, the MCP tools
 * and the fleet are checked against (each serves it, or its contract says why not).
 */
export const OPERATIONS = { ...COMMANDS, ...SERVER_OPERATIONS } satisfies Record<
  string,
  OperationContract
>;
export type Operations = typeof OPERATIONS;
export type OperationName = keyof Operations;
export type CommandName = keyof Commands;
export type CommandInput<K extends CommandName> = z.output<Commands[K]['input']>;
export type CommandOutput<K extends CommandName> = z.output<Commands[K]['output']>;

/** What runs the commands: one function per command, typed by its contract. */
export type CommandHandlers = {
  [K in CommandName]: (input: CommandInput<K>, signal?: AbortSignal) => Promise<CommandOutput<K>>;
};
export * from './houmao.js';
