/** Settings and a client for a command of a run (loaded on use, not at start-up). */
import type { GroupName } from "../chains/index.js";
import { type GlobalFlags, resolveSettings, type Settings } from "../config/config.js";
import type { Format } from "../output/format.js";
import { JsonRpcClient } from "../rpc/client.js";
import type { Run } from "./run.js";

export type { Run } from "./run.js";

export interface Context {
  settings: Settings;
  client: JsonRpcClient;
  /** aborted on SIGINT/SIGTERM */
  signal: AbortSignal;
  format: Format;
  /** colour on stdout: a human format on a TTY, unless --no-color, NO_COLOR or TERM=dumb */
  color: boolean;
}

/** Settings and a client for a command; `group` decides the default endpoint. */
export function contextFor(
  run: Run,
  flags: GlobalFlags,
  group?: GroupName,
  o: { pooled?: boolean; failFast?: boolean; quiet?: boolean } = {},
): Context {
  const settings = resolveSettings(flags, run.env, group, run.secrets);
  if (!o.quiet) for (const w of settings.warnings) run.tell("warning", `chaingw: warning: ${w}`);
  if (settings.endpointSource === "default" && settings.localNode) run.localNode = settings.localNode;
  const client = new JsonRpcClient({
    endpoints: settings.endpoints,
    connectTimeoutMs: settings.connectTimeoutMs,
    requestTimeoutMs: settings.requestTimeoutMs,
    heavyTimeoutMs: settings.heavyTimeoutMs,
    deadlineMs: settings.deadlineMs,
    retries: settings.retries,
    maxBodyBytes: settings.maxBodyBytes,
    verifyTls: !settings.insecure,
    heavyRate: settings.heavyRate,
    rateLimits: settings.rateLimits,
    hedgeMs: settings.hedgeMs,
    verbose: settings.verbose ? (l) => run.err(`chaingw: ${l}`) : undefined,
    signal: run.abort.signal,
    pooled: o.pooled,
    failFast: o.failFast,
  });
  return { settings, client, signal: run.abort.signal, format: run.format, color: colorOf(run, flags) };
}

/** Colour on stdout: a human format on a TTY, unless --no-color, NO_COLOR or TERM=dumb (a terminal without it). */
export const colorOf = (run: Run, flags: GlobalFlags): boolean =>
  flags.color !== false &&
  !run.env.NO_COLOR &&
  run.env.TERM !== "dumb" &&
  !run.machine &&
  Boolean(run.stdout.isTTY);
