/**
 * Settings' steps 3 and 4: the endpoints a call goes to — from the first level (flags, env, profile) that
 * names any, else the group's default (a bitcoind-family group's local node, bitcoin-cli's way) — and the
 * transport's rules for them (http(s) only; credentials over plain http only to loopback).
 */
import { type GroupName as Group, groupOf } from "../chains/index.js";
import { UsageError } from "../errors/index.js";
import { type Endpoint, gatewayEndpoint, isLoopback, nodeEndpoint } from "../rpc/endpoint.js";
import { redactUrl, type Secrets } from "../util/redact.js";
import { readCookie } from "./file.js";
import { localNode, type Network } from "./node-layout.js";

/** Where the endpoints came from. */
export type EndpointSource = "flag" | "env" | "profile" | "eth-env" | "default";

/** How a setting was given, for messages: `--url`, `CHAINGW_URL` or `profile url`. */
export const sourceName = (src: EndpointSource, what: "url" | "gateway") =>
  src === "flag"
    ? `--${what}`
    : src === "env"
      ? `CHAINGW_${what.toUpperCase()}`
      : src === "eth-env"
        ? "ETH_RPC_URL"
        : `profile ${what}`;

/** One level of endpoint settings (flags, env, profile): the first that names any endpoint wins whole. */
export interface Level {
  src: EndpointSource;
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
  src: EndpointSource,
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
const NO_ENDPOINT_HINT = [
  "Set one, for example:",
  "  chaingw --url https://HOST:PORT/ ...          (this call)",
  "  export CHAINGW_URL=https://HOST:PORT/         (this shell)",
  '  chaingw config init, then set "url" in a profile of the file it writes (every call)',
  "A gateway: --gateway BASE --product ID (CHAINGW_GATEWAY, CHAINGW_PRODUCT, CHAINGW_API_KEY).",
].join("\n");

/** --network / --datadir (flag > env > profile): where to look for a local node. */
export interface LocalChoice {
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
export function walletOf(endpoints: Endpoint[], name: string | undefined): Endpoint[] {
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

/** What step 3 gives: the endpoints, the level they came from, the products, the local node found. */
export interface ResolvedEndpoints {
  endpoints: Endpoint[];
  source: EndpointSource;
  products: string[];
  local?: string;
  cookieFile?: string;
}

/** Step 3: the endpoints, from the first level that names any, else the group's default. */
export function resolveEndpoints(
  levels: Level[],
  group: Group,
  apiKey: string | undefined,
  env: NodeJS.ProcessEnv,
  warnings: string[],
  secrets: Secrets,
  local: LocalChoice,
): ResolvedEndpoints {
  const chosenAt = levels.findIndex((l) => l.urls || l.gateways);
  // a cookie names one node: a profile's or env's cookie must not travel to URLs given at a higher level
  const cookiePath = levels
    .slice(0, chosenAt >= 0 ? chosenAt + 1 : levels.length)
    .find((l) => l.cookie)?.cookie;
  const products = levels.find((l) => l.products)?.products ?? [];
  if (chosenAt < 0) return defaultEndpoints(group, env, secrets, local, cookiePath, products);
  const chosen = levels[chosenAt];
  const localOnly = [
    ["--rpc-port", local.port],
    ["--rpc-host", local.host],
    ["--rpc-user", local.user],
  ].find(([, v]) => v !== undefined)?.[0];
  if (localOnly)
    throw new UsageError(
      `${localOnly} places the local node (bitcoin-cli's way); ${sourceName(chosen.src, chosen.urls ? "url" : "gateway")} already names the endpoint: put the host, port or user in that URL, or leave it out`,
    );
  const endpoints = [
    ...nodeEndpoints(chosen, cookiePath, warnings, secrets),
    ...gatewayEndpoints(chosen, products, apiKey, warnings),
  ];
  return { endpoints, source: chosen.src, products, cookieFile: cookiePath };
}

/**
 * No level names an endpoint: the group's default; for a bitcoind-family group the local node, found
 * bitcoin-cli's way (the network's port and cookie in the data directory, ~/.bitcoin, ~/.litecoin).
 */
function defaultEndpoints(
  group: Group,
  env: NodeJS.ProcessEnv,
  secrets: Secrets,
  local: LocalChoice,
  cookiePath: string | undefined,
  products: string[],
): ResolvedEndpoints {
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

/** The level's node URLs, with the cookie's credentials where one is given. */
function nodeEndpoints(
  chosen: Level,
  cookiePath: string | undefined,
  warnings: string[],
  secrets: Secrets,
): Endpoint[] {
  const cookie = cookiePath ? readCookie(cookiePath, secrets) : undefined;
  return (chosen.urls ?? []).map((u) => {
    const ep = nodeUrl(u, chosen.src, secrets, cookie);
    const pw = new URL(u).password;
    secrets.add(decodeURIComponent(pw));
    // a person at a terminal can change the habit; scripts are not nagged on every call
    if (pw && chosen.src === "flag" && process.stderr.isTTY) {
      warnings.push(
        "a password in --url is visible in the process list; prefer CHAINGW_URL, --rpc-cookie or a profile",
      );
    }
    return ep;
  });
}

/** The level's gateways, each with its product (one for all, or one each) and the API key. */
function gatewayEndpoints(
  chosen: Level,
  products: string[],
  apiKey: string | undefined,
  warnings: string[],
): Endpoint[] {
  const gws = chosen.gateways ?? [];
  if (!gws.length) return [];
  if (!products.length)
    throw new UsageError("--gateway needs --product <id> (or CHAINGW_PRODUCT / the profile's product)");
  if (products.length !== 1 && products.length !== gws.length) {
    throw new UsageError(
      `--product: give one product for all gateways or one per gateway (${gws.length} gateways, ${products.length} products)`,
    );
  }
  const endpoints = gws.map((g, i) => {
    try {
      return gatewayEndpoint(g, products[products.length === 1 ? 0 : i], apiKey);
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
  return endpoints;
}

/** Step 4: only http(s); credentials over plain http only to loopback, unless --insecure. */
export function checkTransport(endpoints: Endpoint[], insecure: boolean, warnings: string[]): void {
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
