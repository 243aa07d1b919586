/** Error messages in the command line's own terms. */
export function cliMessage(message: string): string {
  return message;
}
