/**
 * The face's run: how to print (the output format, chosen once), the interrupt of this process as an
 * AbortSignal, what to say if the user interrupts, and the settings and client a command needs. One
 * object per process run, created in main.ts: no state at module level.
 */
import { setMaxListeners } from "node:events";
import type { GroupName } from "../chains/index.js";
import { type GlobalFlags, resolveSettings, type Settings } from "../config/config.js";
import { type Format, isMachine } from "../output/format.js";
import { JsonRpcClient } from "../rpc/client.js";
import { Secrets } from "../util/redact.js";

export interface Context {
  settings: Settings;
  client: JsonRpcClient;
  /** aborted on SIGINT/SIGTERM */
  signal: AbortSignal;
  format: Format;
  /** colour on stdout: a human format on a TTY, unless --no-color or NO_COLOR */
  color: boolean;
}

export class Run {
  /** aborted on SIGINT/SIGTERM; the reason is the signal's name */
  readonly abort = new AbortController();
  /**
   * What an interrupt does now. `hint`: a line to print (e.g. how to stop a scan the node keeps running).
   * `handled`: the running command cleans up itself (reserves aborts its scan on the node).
   */
  readonly interrupt: { hint?: string; handled?: boolean } = {};
  /** `--wait`: keep trying to reach the node for this long (ms; 0 = no limit) */
  wait?: { timeoutMs: number };
  /** the exit code a command that ends with a status of its own set (batch) */
  exitCode?: number;
  /** a progress line to take off the terminal before data is written to stdout */
  clearProgress?: () => void;
  /** every secret this run has read: removed from anything it prints */
  readonly secrets = new Secrets();

  constructor(
    readonly format: Format,
    readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    // every request in flight listens on it: a batch with --concurrency 16 is not a listener leak
    setMaxListeners(0, this.abort.signal);
  }

  get machine(): boolean {
    return isMachine(this.format);
  }

  /** A line of diagnostics on stderr, secrets scrubbed. */
  err(text: string): void {
    process.stderr.write(this.secrets.scrub(text) + "\n");
  }

  /** Data on stdout (a line), after any progress line is taken off the terminal. */
  out(text: string): void {
    this.clearProgress?.();
    process.stdout.write(text.endsWith("\n") ? text : text + "\n");
  }

  /** Settings and a client for a command; `group` decides the default endpoint. */
  context(flags: GlobalFlags, group?: GroupName, o: { pooled?: boolean; failFast?: boolean } = {}): Context {
    const settings = resolveSettings(flags, this.env, group, this.secrets);
    for (const w of settings.warnings) this.err(`chaingw: warning: ${w}`);
    const client = new JsonRpcClient({
      endpoints: settings.endpoints,
      connectTimeoutMs: settings.connectTimeoutMs,
      requestTimeoutMs: settings.requestTimeoutMs,
      deadlineMs: settings.deadlineMs,
      retries: settings.retries,
      maxBodyBytes: settings.maxBodyBytes,
      verifyTls: !settings.insecure,
      heavyRate: settings.heavyRate,
      rateLimits: settings.rateLimits,
      hedgeMs: settings.hedgeMs,
      verbose: settings.verbose ? (l) => this.err(`chaingw: ${l}`) : undefined,
      signal: this.abort.signal,
      pooled: o.pooled,
      failFast: o.failFast,
    });
    const color =
      flags.color !== false && !this.env.NO_COLOR && !this.machine && Boolean(process.stdout.isTTY);
    return { settings, client, signal: this.abort.signal, format: this.format, color };
  }
}
