/**
 * What `chaingw serve` refuses before it serves: the config and keys, the listen addresses free, the Redis of
 * `--state` reachable — checked by `Gateway.start`, and without serving by `serve --workers`' primary.
 */
import { UsageError } from "../errors/index.js";
import type { Secrets } from "../util/redact.js";
import { type GatewayConfig, loadGatewayConfig } from "./config.js";
import { probeListen } from "./http.js";
import { readKeys } from "./keys.js";
import { RedisState } from "./state-redis.js";

/** Redis as the shared state, or bad usage naming it (credentials hidden). */
export async function connectState(
  url: string,
  cfg: { cache: { maxBytes: number }; stateTimeoutMs: number },
  log?: (l: string) => void,
) {
  return RedisState.connect(url, cfg.cache.maxBytes, cfg.stateTimeoutMs, log ?? (() => {})).catch(
    (e: unknown) => {
      throw new UsageError(
        `--state: cannot reach ${url.replace(/\/\/[^@]*@/, "//***@")}: ${(e as Error).message}`,
      );
    },
  );
}

/**
 * What `Gateway.start` refuses before it serves, checked without serving (`serve --workers`' primary, before
 * any worker starts; again on SIGHUP with `reload`, where the address is the running one's).
 */
export async function checkServe(
  opts: { configFile: string; listen?: string; stateUrl?: string; secrets?: Secrets },
  reload = false,
): Promise<void> {
  const cfg = loadGatewayConfig(opts.configFile, { listen: opts.listen }, opts.secrets);
  readKeys(cfg.keysFile);
  if (reload) return;
  await probeListens(cfg);
  if (opts.stateUrl)
    await (await connectState(opts.stateUrl, { ...cfg, cache: { ...cfg.cache, maxBytes: 0 } })).close();
}

/** The listen address (and the operations one, when apart) free, else bad usage naming it. */
export async function probeListens(cfg: GatewayConfig): Promise<void> {
  await probeListen(cfg.host, cfg.port);
  if (cfg.ops) await probeListen(cfg.ops.host, cfg.ops.port);
}
