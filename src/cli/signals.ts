/** Process-wide interrupt state and stderr writing; kept tiny so `--help` loads nothing else. */
import { scrub } from "../util/redact.js";

/** Aborted on SIGINT/SIGTERM; the client passes it to every request. */
export const abort = new AbortController();

export function writeErr(text: string): void {
  process.stderr.write(scrub(text) + "\n");
}
