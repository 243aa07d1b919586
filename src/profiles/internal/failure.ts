/** Longest failure message a profile reports; the screen line it quotes can be much longer. */
export const MAX_FAILURE_MESSAGE = 200;

/** A failure message cut to the common bound. */
export function boundMessage(message: string): string {
  return message.slice(0, MAX_FAILURE_MESSAGE);
}
