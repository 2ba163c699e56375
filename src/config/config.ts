/**
 * Settings resolution. Precedence: flag > env > profile > default, decided per setting; the endpoint list
 * is one setting (flags' --url/--gateway replace, not extend, what env or a profile names). The
 * environment is passed in, never read from a global, so tests and callers see exactly what counts.
 */
import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { type GroupName as Group, groupOf, parseChainName } from "../chains/index.js";
import { UsageError } from "../errors/index.js";
import { parseLossless } from "../json/lossless.js";
import { type Endpoint, gatewayEndpoint, isLoopback, nodeEndpoint } from "../rpc/endpoint.js";
import { redactUrl, Secrets } from "../util/redact.js";
import { checkConfigText } from "./check.js";
import { localNode, type Network, parseNetwork } from "./node-layout.js";
import {
  DEFAULTS,
  given,
  givenFor,
  type ProfileNumbers,
  type ScalarSettings,
  SETTINGS,
  type Source,
  scalarSettings,
  settingRow,
} from "./settings.js";

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

/** A profile of the config file: endpoints, the chain, the key, the node's place; the numbers are the settings table's. */
export interface Profile extends ProfileNumbers {
  url?: string[] | string;
  rpcCookie?: string;
  gateway?: string[] | string;
  product?: string[] | string;
  apiKey?: string;
  apiKeyFile?: string;
  chain?: Group;
  /** a local bitcoind-family node's network and data directory (when no url or gateway is set) */
  network?: string;
  datadir?: string;
  /** per-product method rate limits (calls/s): { "<product>": { "eth_getLogs": 2 } } */
  limits?: Record<string, Record<string, number>>;
}

export interface ConfigFile {
  defaultProfile?: string;
  profiles?: Record<string, Profile>;
}

/** What a call runs with: the endpoints, the chain, the table's scalar settings (settings.ts), limits. */
export interface Settings extends ScalarSettings {
  endpoints: Endpoint[];
  endpointSource: "flag" | "env" | "profile" | "eth-env" | "default";
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

/** How a setting was given, for messages: `--url`, `CHAINGW_URL` or `profile url`. */
const sourceName = (src: Settings["endpointSource"], what: "url" | "gateway") =>
  src === "flag"
    ? `--${what}`
    : src === "env"
      ? `CHAINGW_${what.toUpperCase()}`
      : src === "eth-env"
        ? "ETH_RPC_URL"
        : `profile ${what}`;

/**
 * A list setting: repeatable flags arrive as arrays and are taken as they are (a password may hold a
 * comma); env variables and profile strings are comma-separated lists (write a comma in a password as %2C).
 */
const list = (v: string | string[] | undefined): string[] | undefined => {
  if (v === undefined) return undefined;
  const arr = (Array.isArray(v) ? v : v.split(",")).map((s) => s.trim()).filter(Boolean);
  return arr.length ? arr : undefined;
};

export function configPath(env: NodeJS.ProcessEnv): string {
  if (env.CHAINGW_CONFIG) return env.CHAINGW_CONFIG;
  const base = env.XDG_CONFIG_HOME || join(env.HOME || homedir(), ".config");
  return join(base, "chaingw", "config.json");
}

/** Secrets in a file others can read are refused: the chmod to run is in the message. */
function checkPrivate(path: string, what: string): void {
  try {
    const mode = statSync(path).mode;
    if (mode & 0o077) {
      throw new UsageError(
        `${what} ${path} is readable by other users (mode ${(mode & 0o777).toString(8)}); run: chmod 600 ${path}`,
      );
    }
  } catch (e) {
    if (e instanceof UsageError) throw e;
  }
}

export function loadConfig(env: NodeJS.ProcessEnv): { file?: ConfigFile; path: string } {
  const path = configPath(env);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e: any) {
    if (e?.code === "ENOENT" && !env.CHAINGW_CONFIG) return { path };
    throw new UsageError(`cannot read config file ${path}: ${e?.code ?? e}`);
  }
  let file: ConfigFile;
  try {
    file = JSON.parse(text) as ConfigFile;
  } catch {
    // V8's message quotes the text around the error, which may be an apiKey: give only where it is
    const at = /position (\d+)/.exec(syntaxErrorOf(text))?.[1];
    const where = at === undefined ? "" : ` (line ${lineOf(text, Number(at))})`;
    throw new UsageError(`config file ${path} is not valid JSON${where}`);
  }
  // a mistyped key must not be silently ignored: the same check as `chaingw config check`
  const problems = checkConfigText(text);
  if (problems.length)
    throw new UsageError(
      `config file ${path}: ${problems.length === 1 ? problems[0] : `${problems.length} problems`}`,
      {
        details: problems.length === 1 ? undefined : problems,
        hint: "`chaingw config check` lists them; keys starting with // are comments.",
      },
    );
  return { file, path };
}

function syntaxErrorOf(text: string): string {
  try {
    parseLossless(text);
    return "";
  } catch (e) {
    return (e as Error).message;
  }
}

const lineOf = (text: string, pos: number) => text.slice(0, pos).split("\n").length;

function readSecretFile(path: string, what: string): string {
  checkPrivate(path, what);
  try {
    return readFileSync(path, "utf8").trim();
  } catch (e: any) {
    throw new UsageError(`cannot read ${what} ${path}: ${e?.code ?? e}`);
  }
}

export function readCookie(path: string, secrets: Secrets): { user: string; password: string } {
  const text = readSecretFile(path, "cookie file");
  const i = text.indexOf(":");
  if (i <= 0) throw new UsageError(`--rpc-cookie: ${path} does not hold user:password`);
  const cred = { user: text.slice(0, i), password: text.slice(i + 1) };
  secrets.add(cred.password);
  return cred;
}

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

/** One level of endpoint settings (flags, env, profile): the first that names any endpoint wins whole. */
interface Level {
  src: Settings["endpointSource"];
  urls?: string[];
  gateways?: string[];
  products?: string[];
  cookie?: string;
}

/**
 * `scheme://` at the start (RFC 3986: a letter, then letters, digits, "+", "." or "-"), read with string
 * operations: every plain call asks once, and a regular expression's first run is compiled then.
 */
function hasScheme(u: string): boolean {
  const end = u.indexOf("://");
  if (end < 1) return false;
  for (let i = 0; i < end; i++) {
    const c = u.charCodeAt(i) | 0x20; // lower case for letters
    const letter = c >= 0x61 && c <= 0x7a;
    if (i === 0 ? !letter : !(letter || "0123456789+.-".includes(u[i] as string))) return false;
  }
  return true;
}

/** A node URL, or a usage error that says what would be one (`127.0.0.1:8332` → `http://127.0.0.1:8332/`). */
function nodeUrl(
  u: string,
  src: Settings["endpointSource"],
  secrets: Secrets,
  cookie?: { user: string; password: string },
) {
  const what = sourceName(src, "url");
  if (!hasScheme(u.trim())) {
    throw new UsageError(
      `invalid ${what}: ${JSON.stringify(redactUrl(u))} is not a URL (no scheme); did you mean ${JSON.stringify(`http://${redactUrl(u.trim()).replace(/^\/+/, "")}`)}?`,
    );
  }
  try {
    return nodeEndpoint(u, cookie, secrets);
  } catch {
    throw new UsageError(`invalid ${what}: ${JSON.stringify(redactUrl(u))} is not a URL`);
  }
}

/** What to say when no endpoint is configured and the group has no usual local one. */
export const NO_ENDPOINT_HINT = [
  "Set one, for example:",
  "  chaingw --url https://HOST:PORT/ ...          (this call)",
  "  export CHAINGW_URL=https://HOST:PORT/         (this shell)",
  '  chaingw config init, then set "url" in a profile of the file it writes (every call)',
  "A gateway: --gateway BASE --product ID (CHAINGW_GATEWAY, CHAINGW_PRODUCT, CHAINGW_API_KEY).",
].join("\n");

/** --network / --datadir (flag > env > profile): where to look for a local node. */
interface LocalChoice {
  network?: Network;
  datadir?: string;
  /** the option that asked for it, for messages; undefined when nothing did */
  given?: string;
  /** bitcoin-cli's -rpcport / -rpcconnect / -rpcuser and its password: the local node's, not a URL's */
  port?: string;
  host?: string;
  user?: string;
  password?: string;
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

/** `--rpc-port`, `--rpc-host`: the local node's place, its cookie still the one of its data directory. */
function placed(urls: string[], local: LocalChoice): string[] {
  if (local.port === undefined && local.host === undefined) return urls;
  const host = local.host?.includes(":") && !local.host.startsWith("[") ? `[${local.host}]` : local.host;
  const out = urls.map((u) => {
    const url = new URL(u);
    if (host !== undefined) {
      url.hostname = host;
      if (url.hostname !== host.toLowerCase())
        throw new UsageError(`invalid --rpc-host: ${JSON.stringify(local.host)} is not a host name`);
    }
    if (local.port !== undefined) url.port = local.port;
    return url.toString();
  });
  return [...new Set(out)];
}

/** `--rpc-wallet NAME` (bitcoin-cli -rpcwallet): every node endpoint's wallet path, `<url>/wallet/NAME`. */
function walletOf(endpoints: Endpoint[], name: string | undefined): Endpoint[] {
  if (name === undefined) return endpoints;
  return endpoints.map((ep) => {
    if (ep.kind !== "node")
      throw new UsageError(
        `--rpc-wallet (-rpcwallet) names a node's wallet; ${ep.label} is a gateway, whose product names the node`,
      );
    const u = new URL(ep.url);
    u.pathname = `${u.pathname.replace(/\/+$/, "")}/wallet/${encodeURIComponent(name)}`;
    return { ...ep, url: u.toString(), label: redactUrl(u.toString()) };
  });
}

/** Step 3: the endpoints, from the first level that names any, else the group's default. */
function resolveEndpoints(
  levels: Level[],
  group: Group,
  apiKey: string | undefined,
  env: NodeJS.ProcessEnv,
  warnings: string[],
  secrets: Secrets,
  local: LocalChoice,
): {
  endpoints: Endpoint[];
  source: Settings["endpointSource"];
  products: string[];
  local?: string;
  cookieFile?: string;
} {
  const chosenAt = levels.findIndex((l) => l.urls || l.gateways);
  const chosen = chosenAt >= 0 ? levels[chosenAt] : undefined;
  // a cookie names one node: a profile's or env's cookie must not travel to URLs given at a higher level
  const cookiePath = levels
    .slice(0, chosenAt >= 0 ? chosenAt + 1 : levels.length)
    .find((l) => l.cookie)?.cookie;
  const products = levels.find((l) => l.products)?.products ?? [];
  const endpoints: Endpoint[] = [];
  if (!chosen) {
    const chain = groupOf(group);
    if (local.given && !chain.cookieAuth)
      throw new UsageError(
        `${local.given} finds a local bitcoind-family node; the ${chain.name} group has none: give --url`,
      );
    if (!chain.defaultUrl)
      throw new UsageError(`no endpoint for the ${chain.name} chain`, {
        hint: NO_ENDPOINT_HINT,
      });
    if (!chain.cookieAuth)
      return { endpoints: [nodeEndpoint(chain.defaultUrl, undefined, secrets)], source: "default", products };
    // bitcoin-cli's way: the network's port and cookie in the data directory (~/.bitcoin, ~/.litecoin)
    const node = localNode(local.network, local.datadir, env);
    let cred: { user: string; password: string } | undefined;
    if (local.user !== undefined && local.password !== undefined) {
      cred = { user: local.user, password: local.password };
      secrets.add(local.password);
    }
    const cookie = cred ? undefined : (cookiePath ?? node.cookie);
    if (cookie) {
      try {
        cred = readCookie(cookie, secrets);
      } catch (e) {
        if (cookiePath) throw e;
      }
    }
    if (!cred && node.user !== undefined && node.password !== undefined) {
      cred = { user: node.user, password: node.password };
      secrets.add(node.password);
    }
    return {
      endpoints: placed(node.urls, local).map((u) => nodeEndpoint(u, cred, secrets)),
      source: "default",
      products,
      local: node.what,
      // rpcuser/rpcpassword of the node's config file are not rewritten by the node; its cookie is
      cookieFile: cred && !cookie ? undefined : (cookiePath ?? node.cookiePath),
    };
  }
  const localOnly = [
    ["--rpc-port", local.port],
    ["--rpc-host", local.host],
    ["--rpc-user", local.user],
  ].find(([, v]) => v !== undefined)?.[0];
  if (localOnly)
    throw new UsageError(
      `${localOnly} places the local node (bitcoin-cli's way); ${sourceName(chosen.src, chosen.urls ? "url" : "gateway")} already names the endpoint: put the host, port or user in that URL, or leave it out`,
    );
  const cookie = cookiePath ? readCookie(cookiePath, secrets) : undefined;
  for (const u of chosen.urls ?? []) {
    const ep = nodeUrl(u, chosen.src, secrets, cookie);
    const pw = new URL(u).password;
    secrets.add(decodeURIComponent(pw));
    // a person at a terminal can change the habit; scripts are not nagged on every call
    if (pw && chosen.src === "flag" && process.stderr.isTTY) {
      warnings.push(
        "a password in --url is visible in the process list; prefer CHAINGW_URL, --rpc-cookie or a profile",
      );
    }
    endpoints.push(ep);
  }
  const gws = chosen.gateways ?? [];
  if (gws.length) {
    if (!products.length)
      throw new UsageError("--gateway needs --product <id> (or CHAINGW_PRODUCT / the profile's product)");
    if (products.length !== 1 && products.length !== gws.length) {
      throw new UsageError(
        `--product: give one product for all gateways or one per gateway (${gws.length} gateways, ${products.length} products)`,
      );
    }
    gws.forEach((g, i) => {
      try {
        endpoints.push(gatewayEndpoint(g, products[products.length === 1 ? 0 : i], apiKey));
      } catch {
        throw new UsageError(
          `invalid ${sourceName(chosen.src, "gateway")}: ${JSON.stringify(redactUrl(g))} is not a URL`,
        );
      }
    });
    if (!apiKey)
      warnings.push(
        "no API key configured (CHAINGW_API_KEY, --api-key-file or the profile's apiKey); the gateway will likely refuse",
      );
  }
  return { endpoints, source: chosen.src, products, cookieFile: cookiePath };
}

/** Step 4: only http(s); credentials over plain http only to loopback, unless --insecure. */
function checkTransport(endpoints: Endpoint[], insecure: boolean, warnings: string[]): void {
  for (const ep of endpoints) {
    const secret = Object.keys(ep.headers).length > 0;
    const u = new URL(ep.url);
    if (!["http:", "https:"].includes(u.protocol))
      throw new UsageError(
        `invalid endpoint ${ep.label}: only http and https URLs are supported (did you mean http://${ep.label.replace(/^[a-z]+:\/*/i, "")}?)`,
      );
    if (secret && u.protocol === "http:" && !isLoopback(ep.url)) {
      if (!insecure) {
        throw new UsageError(
          `refusing to send credentials over plain http to ${ep.label}; use https, or --insecure to allow it`,
        );
      }
      warnings.push(`--insecure: sending credentials over plain http to ${ep.label}`);
    }
  }
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
  pick("datadir", flags.datadir, "CHAINGW_DATADIR", profile.datadir, "~/.bitcoin, else ~/.litecoin");
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
