/** The turn driver lives with the rest of a terminal, in src/terminal. */
export * from '../terminal/turn-driver.js';
