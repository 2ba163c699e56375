/**
 * Settings resolution. Precedence: flag > env > profile > default, decided per setting; the endpoint list
 * is one setting (flags' --url/--gateway replace, not extend, what env or a profile names). The
 * environment is passed in, never read from a global, so tests and callers see exactly what counts.
 */
import { type GroupName as Group, groupOf, parseChainName } from "../chains/index.js";
import { UsageError } from "../errors/index.js";
import type { Endpoint } from "../rpc/endpoint.js";
import { Secrets } from "../util/redact.js";
import {
  checkTransport,
  type EndpointSource,
  type Level,
  type LocalChoice,
  resolveEndpoints,
  walletOf,
} from "./endpoints.js";
import { type ConfigFile, checkPrivate, loadConfig, type Profile, readSecretFile } from "./file.js";
import { localHomes, parseNetwork } from "./node-layout.js";
import {
  DEFAULTS,
  given,
  givenFor,
  type ScalarSettings,
  SETTINGS,
  type Source,
  scalarSettings,
  settingRow,
} from "./settings.js";

export { type ConfigFile, configPath, loadConfig, type Profile, readCookie } from "./file.js";

/** Global options as commander hands them over (all optional: absence means "not given"). */
export interface GlobalFlags {
  url?: string[];
  /** cast's name for --url; both lists are one setting */
  rpcUrl?: string[];
  rpcCookie?: string;
  gateway?: string[];
  product?: string[];
  apiKey?: string;
  apiKeyFile?: string;
  chain?: string;
  profile?: string;
  json?: boolean;
  verbose?: boolean;
  color?: boolean;
  retries?: string;
  timeout?: string;
  requestTimeout?: string;
  connectTimeout?: string;
  scanTimeout?: string;
  maxResponse?: string;
  heavyRate?: string;
  hedge?: string;
  insecure?: boolean;
  /** bitcoin-cli habits: -named, -stdin, -rpcwait, -rpcwaittimeout, -regtest/-testnet/-signet, -datadir */
  named?: boolean;
  stdin?: boolean;
  wait?: boolean;
  waitTimeout?: string;
  network?: string;
  datadir?: string;
  /** bitcoin-cli's -rpcport, -rpcconnect, -rpcuser, -rpcpassword, -rpcwallet */
  rpcPort?: string;
  rpcHost?: string;
  rpcUser?: string;
  rpcPassword?: string;
  rpcWallet?: string;
}

/** What a call runs with: the endpoints, the chain, the table's scalar settings (settings.ts), limits. */
export interface Settings extends ScalarSettings {
  endpoints: Endpoint[];
  endpointSource: EndpointSource;
  /** the local node found for the default endpoint ("Litecoin Core regtest in /path") */
  localNode?: string;
  /** the cookie file the credentials come from (read again by `--wait`: a starting node rewrites it) */
  cookieFile?: string;
  /** heavy methods' per-attempt timeout: --request-timeout when given, else bitcoin-cli's 900 s */
  heavyTimeoutMs: number;
  chain?: Group;
  rateLimits: Record<string, number>;
  warnings: string[];
}

/**
 * A list setting: repeatable flags arrive as arrays and are taken as they are (a password may hold a
 * comma); env variables and profile strings are comma-separated lists (write a comma in a password as %2C).
 */
const list = (v: string | string[] | undefined): string[] | undefined => {
  if (v === undefined) return undefined;
  const arr = (Array.isArray(v) ? v : v.split(",")).map((s) => s.trim()).filter(Boolean);
  return arr.length ? arr : undefined;
};

function hasPassword(u: string): boolean {
  try {
    return new URL(u).password !== "";
  } catch {
    return u.includes("@");
  }
}

/** The chain a flag or the environment names (a profile's chain is applied once settings load). */
export const chainFromFlags = (flags: GlobalFlags, env: NodeJS.ProcessEnv): Group | undefined =>
  parseChainName(flags.chain, "--chain") ?? parseChainName(env.CHAINGW_CHAIN, "CHAINGW_CHAIN");

/**
 * Step 1: the profile in use. Named by --profile, CHAINGW_PROFILE or the file's defaultProfile; a file
 * with one profile and no defaultProfile uses that one (and says so).
 */
function selectProfile(
  flags: GlobalFlags,
  env: NodeJS.ProcessEnv,
  file: ConfigFile | undefined,
  path: string,
  warnings: string[],
): { name?: string; profile: Profile } {
  const profiles = file?.profiles ?? {};
  const from =
    flags.profile !== undefined
      ? "--profile"
      : env.CHAINGW_PROFILE !== undefined
        ? "CHAINGW_PROFILE"
        : "defaultProfile";
  let name = flags.profile ?? env.CHAINGW_PROFILE ?? file?.defaultProfile;
  if (name === undefined) {
    const names = Object.keys(profiles);
    if (names.length !== 1) return { profile: {} };
    name = names[0];
    warnings.push(
      `using profile ${JSON.stringify(name)}, the only one in ${path} (set defaultProfile to silence this)`,
    );
  }
  const p = Object.hasOwn(profiles, name) ? profiles[name] : undefined;
  if (!p) {
    const known = Object.keys(profiles);
    throw new UsageError(
      `${from}: no profile ${JSON.stringify(name)} in ${path}${known.length ? ` (it has ${known.map((k) => JSON.stringify(k)).join(", ")})` : ""}`,
    );
  }
  if (p.apiKey) checkPrivate(path, "config file with an apiKey");
  if (list(p.url)?.some(hasPassword)) checkPrivate(path, "config file with a password in a url");
  return { name, profile: p };
}

/** Step 2: the API key: flag file > env > profile (key or key file, only for the profile's gateways). */
function resolveApiKey(
  flags: GlobalFlags,
  env: NodeJS.ProcessEnv,
  profile: Profile,
  warnings: string[],
  secrets: Secrets,
) {
  let apiKey: string | undefined;
  // two flags for one key: which one is sent is not for chaingw to pick
  if (flags.apiKey !== undefined && flags.apiKeyFile !== undefined)
    throw new UsageError(
      "--api-key and --api-key-file both give the gateway's API key: give one (the file keeps it out of the process list)",
    );
  if (flags.apiKey) {
    apiKey = flags.apiKey;
    warnings.push(
      "--api-key puts the key in the process list and shell history; prefer CHAINGW_API_KEY or --api-key-file",
    );
  } else if (flags.apiKeyFile) apiKey = readSecretFile(flags.apiKeyFile, "API key file");
  else if (env.CHAINGW_API_KEY) apiKey = env.CHAINGW_API_KEY.trim();
  else if (profile.apiKey || profile.apiKeyFile) {
    // like the cookie: a profile's key is for the profile's gateways, not for one given by flag or env
    const gatewaysFromAbove = list(flags.gateway) ?? list(env.CHAINGW_GATEWAY);
    if (!gatewaysFromAbove) {
      apiKey = profile.apiKey ?? readSecretFile(profile.apiKeyFile as string, "API key file");
    }
  }
  secrets.add(apiKey);
  return apiKey;
}

function localChoice(flags: GlobalFlags, env: NodeJS.ProcessEnv, profile: Profile): LocalChoice {
  const network =
    parseNetwork(flags.network, "--network") ??
    parseNetwork(env.CHAINGW_NETWORK, "CHAINGW_NETWORK") ??
    parseNetwork(profile.network, "profile network");
  const datadir = flags.datadir ?? env.CHAINGW_DATADIR ?? profile.datadir;
  const given = network !== undefined ? "--network" : datadir !== undefined ? "--datadir" : undefined;
  if (flags.rpcPort !== undefined && !/^\d{1,5}$/.test(flags.rpcPort))
    throw new UsageError(`invalid --rpc-port: expected a port number, got ${JSON.stringify(flags.rpcPort)}`);
  const password = flags.rpcPassword ?? env.CHAINGW_RPC_PASSWORD;
  // two flags for the node's credentials: the user's would silently win over the cookie's
  if (flags.rpcUser !== undefined && flags.rpcCookie !== undefined)
    throw new UsageError(
      "--rpc-user (-rpcuser) and --rpc-cookie both give the node's credentials: give one (a cookie, or a user and its password)",
    );
  if (flags.rpcUser !== undefined && password === undefined)
    throw new UsageError(
      "--rpc-user (-rpcuser) needs its password: CHAINGW_RPC_PASSWORD, or --rpc-password (-rpcpassword)",
    );
  return { network, datadir, given, port: flags.rpcPort, host: flags.rpcHost, user: flags.rpcUser, password };
}

/**
 * @param methodGroup the group of the method being called (decides the default endpoint)
 * @param secrets where every secret read (passwords, keys, tokens) is recorded, so output can be scrubbed
 */
export function resolveSettings(
  flags: GlobalFlags,
  env: NodeJS.ProcessEnv,
  methodGroup?: Group,
  secrets: Secrets = new Secrets(),
): Settings {
  const warnings: string[] = [];
  const { file, path } = loadConfig(env);
  const { name: profileName, profile } = selectProfile(flags, env, file, path, warnings);
  const chain = chainFromFlags(flags, env) ?? parseChainName(profile.chain, `profile ${profileName} chain`);
  const apiKey = resolveApiKey(flags, env, profile, warnings, secrets);
  const group = chain ?? methodGroup ?? "utxo";
  const flagUrls = [...(flags.url ?? []), ...(flags.rpcUrl ?? [])];
  const levels: Level[] = [
    {
      src: "flag",
      urls: list(flagUrls.length ? flagUrls : undefined),
      gateways: list(flags.gateway),
      products: list(flags.product),
      cookie: flags.rpcCookie,
    },
    {
      src: "env",
      urls: list(env.CHAINGW_URL),
      gateways: list(env.CHAINGW_GATEWAY),
      products: list(env.CHAINGW_PRODUCT),
      cookie: env.CHAINGW_RPC_COOKIE,
    },
    {
      src: "profile",
      urls: list(profile.url),
      gateways: list(profile.gateway),
      products: list(profile.product),
      cookie: profile.rpcCookie,
    },
  ];
  // cast users' variable: an EVM node's URL, so never used for the UTXO group
  if (groupOf(group).evm && env.ETH_RPC_URL) levels.push({ src: "eth-env", urls: list(env.ETH_RPC_URL) });
  // a person at a terminal can change the habit; scripts ported from bitcoin-cli are not nagged on every call
  if (flags.rpcPassword !== undefined && process.stderr.isTTY)
    warnings.push(
      "--rpc-password (-rpcpassword) puts the password in the process list and shell history; prefer CHAINGW_RPC_PASSWORD or the node's cookie",
    );
  const resolved = resolveEndpoints(
    levels,
    group,
    apiKey,
    env,
    warnings,
    secrets,
    localChoice(flags, env, profile),
  );
  const { source, products, local, cookieFile } = resolved;
  const endpoints = walletOf(resolved.endpoints, flags.rpcWallet);
  const scalars = scalarSettings(flags as Record<string, unknown>, env, profile as Record<string, unknown>);
  const requestTimeoutGiven =
    givenFor(
      settingRow("request-timeout"),
      flags as Record<string, unknown>,
      env,
      profile as Record<string, unknown>,
    ).source !== "default";
  checkTransport(endpoints, scalars.insecure, warnings);
  const rateLimits: Record<string, number> = {};
  for (const p of products) Object.assign(rateLimits, profile.limits?.[p] ?? {});
  return {
    endpoints,
    endpointSource: source,
    localNode: local,
    cookieFile,
    chain,
    ...scalars,
    heavyTimeoutMs: requestTimeoutGiven ? scalars.requestTimeoutMs : DEFAULTS.heavyTimeoutS * 1000,
    rateLimits,
    warnings,
  };
}

/** One effective setting and where it came from, for `chaingw config show` (secrets masked). */
export interface SettingRow {
  setting: string;
  value: string;
  source: string;
}

/**
 * Every effective setting of a call with these flags and environment, and its source: flag, env,
 * profile or default. Endpoints come from resolveSettings itself, so what is shown is what a call uses.
 */
export function describeSettings(flags: GlobalFlags, env: NodeJS.ProcessEnv, group?: Group): SettingRow[] {
  const { file, path } = loadConfig(env);
  const { name: profileName } = selectProfile(flags, env, file, path, []);
  const profile: Profile = (profileName !== undefined && file?.profiles?.[profileName]) || {};
  const s = resolveSettings(flags, env, group);
  const rows: SettingRow[] = [];
  const from = (src: Source, flag: string, envName?: string) =>
    src === "flag"
      ? `flag --${flag}`
      : src === "env"
        ? `env ${envName}`
        : src === "profile"
          ? `profile ${profileName}`
          : "default";
  /** a row of a setting outside the table (its own resolution), through the same precedence */
  const pick = (
    setting: string,
    flag: unknown,
    envName: string | undefined,
    prof: unknown,
    dflt: unknown,
    show: (v: unknown) => string = String,
  ) => {
    const g = given(
      flag as string | undefined,
      envName ? env[envName] : undefined,
      prof as string | undefined,
    );
    const v = g.source === "default" ? dflt : g.value;
    rows.push({
      setting,
      value: v === undefined ? "(none)" : show(v),
      source: from(g.source, setting, envName),
    });
  };
  rows.push({
    setting: "config file",
    value: file ? path : `${path} (none)`,
    source: env.CHAINGW_CONFIG ? "env CHAINGW_CONFIG" : "default",
  });
  pick("profile", flags.profile, "CHAINGW_PROFILE", profileName ?? undefined, undefined);
  pick("chain", flags.chain, "CHAINGW_CHAIN", profile.chain, group ?? "utxo (from the method)");
  rows.push({
    setting: "endpoints",
    value: s.endpoints
      .map((e) => `${e.label}${Object.keys(e.headers).length ? " (with credentials)" : ""}`)
      .join(", "),
    source: s.endpointSource === "default" && s.localNode ? `default: ${s.localNode}` : s.endpointSource,
  });
  pick("network", flags.network, "CHAINGW_NETWORK", profile.network, "main");
  pick("datadir", flags.datadir, "CHAINGW_DATADIR", profile.datadir, localHomes());
  const key = flags.apiKey ?? flags.apiKeyFile;
  pick(
    "api-key",
    key === undefined ? undefined : flags.apiKeyFile ? `file ${flags.apiKeyFile}` : "***",
    "CHAINGW_API_KEY",
    profile.apiKey ? "***" : profile.apiKeyFile ? `file ${profile.apiKeyFile}` : undefined,
    undefined,
    (v) => (v === env.CHAINGW_API_KEY ? "***" : String(v)),
  );
  // the table's settings: the value a call uses, and where it came from
  for (const r of SETTINGS) {
    const g = givenFor(r, flags as Record<string, unknown>, env, profile as Record<string, unknown>);
    rows.push({
      setting: r.setting,
      value: r.show(s[r.key] as never),
      source: from(g.source, r.setting, r.env),
    });
  }
  if (Object.keys(s.rateLimits).length)
    rows.push({
      setting: "limits",
      value: Object.entries(s.rateLimits)
        .map(([m, r]) => `${m} ${r}/s`)
        .join(", "),
      source: `profile ${profileName}`,
    });
  for (const w of s.warnings) rows.push({ setting: "warning", value: w, source: "" });
  return rows;
}
