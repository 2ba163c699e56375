/** What a command needs at run time: settings, a client, and how to print. */
import { type GlobalFlags, resolveSettings, type Settings } from "../config/config.js";
import type { Group } from "../methods/types.js";
import { JsonRpcClient } from "../rpc/client.js";
import { abort, writeErr } from "./signals.js";

export interface Context {
  settings: Settings;
  client: JsonRpcClient;
  env: NodeJS.ProcessEnv;
  /** aborted on SIGINT/SIGTERM */
  signal: AbortSignal;
  out(text: string): void;
  err(text: string): void;
}

export function makeContext(flags: GlobalFlags, group?: Group): Context {
  const env = process.env;
  const settings = resolveSettings(flags, env, group);
  for (const w of settings.warnings) writeErr(`chaingw: warning: ${w}`);
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
    verbose: settings.verbose ? (l) => writeErr(`chaingw: ${l}`) : undefined,
    signal: abort.signal,
  });
  return {
    settings,
    client,
    env,
    signal: abort.signal,
    out: (text) => {
      process.stdout.write(text.endsWith("\n") ? text : text + "\n");
    },
    err: writeErr,
  };
}
