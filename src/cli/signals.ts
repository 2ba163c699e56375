/** Process-wide interrupt state and stderr writing; kept tiny so `--help` loads nothing else. */
import { setMaxListeners } from "node:events";
import { scrub } from "../util/redact.js";

/** Aborted on SIGINT/SIGTERM; the client passes it to every request. */
export const abort = new AbortController();
// every request in flight listens on it: a batch with --concurrency 16 is not a listener leak
setMaxListeners(0, abort.signal);

export function writeErr(text: string): void {
  process.stderr.write(scrub(text) + "\n");
}

/**
 * What an interrupt does now. `hint`: a line to print (e.g. how to stop a scan the node keeps running).
 * `handled`: the running command cleans up itself (reserves aborts its scan on the node); the abort
 * signal's reason names the signal.
 */
export const interrupt: { hint?: string; handled?: boolean } = {};
