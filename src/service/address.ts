/** Where `paneward serve` listens by default, and what the client commands talk to. */
export const DEFAULT_PORT = 7420;
export const DEFAULT_URL = `http://127.0.0.1:${DEFAULT_PORT}`;
