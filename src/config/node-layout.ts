/**
 * Where a local bitcoind-family node listens and keeps its cookie, as bitcoin-cli finds them: the data
 * directory (--datadir, else the coin's own: ~/.bitcoin, ~/.litecoin, ~/.dogecoin), the network's subdirectory, `rpcport` (and
 * rpcuser/rpcpassword) from the node's own config file, else the network's default port.
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import {
  COINS,
  type Coin,
  coinNetworkLabel,
  type NetworkName,
  networksOf,
  networkTyped,
  sentenceList,
} from "../chains/coins.js";
import { UsageError } from "../errors/index.js";

export type Network = NetworkName;

interface Layout {
  name: string;
  /** the name its debug.log's start line gives ("Dogecoin version v1.14…"), when not `name` */
  log?: string;
  conf: string;
  home: string;
  /** the coin's networks, as its row lists them */
  networks: readonly Network[];
  /** the network's subdirectory of the data directory ("" for main) */
  sub: Readonly<Record<Network, string | undefined>>;
  port: Readonly<Record<Network, number | undefined>>;
}

/** A coin's node as the coin table describes it, on the networks its row lists. */
function layoutOf(coin: Coin): Layout {
  const networks = networksOf(coin);
  const sub: Record<Network, string> = {};
  const port: Record<Network, number> = {};
  for (const n of networks) {
    const params = coin.networks[n];
    if (params) [sub[n], port[n]] = [params.subdir, params.rpcPort];
  }
  return { ...coin.node, networks, sub, port };
}

/** The nodes `--network` finds (`uses.localNode`), Bitcoin Core's first (the default when nothing tells them apart). */
const layoutsOf = (coins: readonly Coin[]): Layout[] => coins.filter((c) => c.uses.localNode).map(layoutOf);
const LAYOUTS = layoutsOf(COINS);

/**
 * Every network some local node has, in the table's order: what `--network` takes (and its completions), each
 * coin's own list deciding once the node is known.
 */
export const localNetworks = (coins: readonly Coin[] = COINS): Network[] => [
  ...new Set(layoutsOf(coins).flatMap((l) => l.networks)),
];

/** The local nodes `--network` finds, by name, in the order it looks for them: "Bitcoin Core", "Litecoin Core"… */
export const localNodeNames = (coins: readonly Coin[] = COINS): string[] =>
  layoutsOf(coins).map((l) => l.name);

/** The data directories looked in when no --datadir names one, in that order: "~/.bitcoin, else ~/.litecoin…" */
export const localHomes = (coins: readonly Coin[] = COINS): string =>
  layoutsOf(coins)
    .map((l) => `~/${l.home}`)
    .join(", else ");

export function parseNetwork(
  v: string | undefined,
  from: string,
  coins: readonly Coin[] = COINS,
): Network | undefined {
  if (v === undefined) return undefined;
  const n = networkTyped(v);
  const known = localNetworks(coins);
  if (known.includes(n)) return n;
  throw new UsageError(`invalid ${from}: expected ${known.join(", ")}, got ${JSON.stringify(v)}`);
}

/** `key=value` lines of a node's config file: the top section and the network's own `[section]`. */
function readConf(path: string, network: Network): { top: Map<string, string>; own: Map<string, string> } {
  const top = new Map<string, string>();
  const own = new Map<string, string>();
  let text = "";
  try {
    text = readFileSync(path, "utf8");
  } catch {
    return { top, own };
  }
  let section = "";
  for (const raw of text.split("\n")) {
    const line = raw.replace(/#.*/, "").trim();
    const s = /^\[(\w+)\]$/.exec(line);
    if (s) {
      section = s[1];
      continue;
    }
    const m = /^([\w.]+)\s*=\s*(.*)$/.exec(line);
    if (!m) continue;
    const key = m[1].includes(".") ? m[1] : `${section ? `${section}.` : ""}${m[1]}`;
    const [sec, k] = key.includes(".") ? (key.split(".", 2) as [string, string]) : ["", key];
    if (sec === "") top.set(k, m[2]);
    else if (sec === network) own.set(k, m[2]);
  }
  return { top, own };
}

export interface LocalNode {
  /** where to ask, in order: what the data directory says, then (when it cannot tell) every coin's default */
  urls: string[];
  /** the cookie file, when it exists now */
  cookie?: string;
  /** where the node writes its cookie (a starting node writes it late: `--wait` reads it again) */
  cookiePath: string;
  user?: string;
  password?: string;
  /** for messages: "Litecoin Core regtest in /path", "Bitcoin Core testnet in /path" */
  what: string;
}

/**
 * The network a node's config file selects, as the node reads it: `chain=NAME` or `regtest=1` /
 * `testnet=1` / `signet=1` in the top section (undefined: main, or no file).
 */
function confNetwork(path: string, coins: readonly Coin[]): Network | undefined {
  const { top } = readConf(path, "main");
  const chain = top.get("chain");
  if (chain !== undefined)
    return parseNetwork(chain === "testnet4" ? "test" : chain, `chain= in ${path}`, coins);
  if (top.get("regtest") === "1") return "regtest";
  if (top.get("testnet") === "1") return "test";
  if (top.get("signet") === "1") return "signet";
  return undefined;
}

/** How much of a debug.log is read, from its end, looking for the node's last start. */
const LOG_TAIL_BYTES = 8 << 20;

/**
 * What the node's own log says of its last start in this directory: which node it is ("Litecoin Core
 * version v0.21…") and the RPC port given on its command line (`Command-line arg: rpcport="19443"`).
 */
function lastStart(log: string, layouts: readonly Layout[]): { layout?: Layout; port?: string } {
  let text: string;
  try {
    const fd = openSync(log, "r");
    try {
      const size = fstatSync(fd).size;
      const n = Math.min(size, LOG_TAIL_BYTES);
      const buf = Buffer.alloc(n);
      readSync(fd, buf, 0, n, size - n);
      text = buf.toString("utf8");
    } finally {
      closeSync(fd);
    }
  } catch {
    return {};
  }
  // " (Bitcoin Core|Litecoin Core|Dogecoin) version v": a node's start in its log names the node
  const logName = (l: Layout) => l.log ?? l.name;
  const started = new RegExp(` (${layouts.map(logName).join("|")}) version v`, "g");
  const starts = [...text.matchAll(started)];
  const last = starts.at(-1);
  if (!last) return {};
  const since = text.slice(last.index);
  const port = /Command-line arg: rpcport="?(\d{1,5})"?/.exec(since)?.[1];
  return { layout: layouts.find((l) => logName(l) === last[1]) ?? layouts[0], port };
}

/**
 * The node in `datadir` (or the usual home directories), on `given` — else the network the node's config
 * file selects, else main. Which node it is comes from its config file, its log or the directory's place;
 * when none says, every node's default port is tried in turn (the one the directory's name suggests first).
 * A node known to be a coin's that has no such network is refused, naming the networks it has; a guess is
 * made among the nodes that have it. `coins`: the coin table (a test's own rows).
 */
export function localNode(
  given: Network | undefined,
  datadir: string | undefined,
  env: NodeJS.ProcessEnv,
  coins: readonly Coin[] = COINS,
): LocalNode {
  const all = coins === COINS ? LAYOUTS : layoutsOf(coins);
  const home = env.HOME || homedir();
  // the usual home directories of the nodes that have the network asked for
  const homes = given === undefined ? all : all.filter((l) => l.networks.includes(given));
  const dirs = datadir ? [datadir] : homes.map((l) => join(home, l.home));
  const dir = dirs.find((d) => existsSync(d)) ?? dirs[0];
  if (datadir !== undefined && !existsSync(datadir))
    throw new UsageError(`--datadir ${datadir}: no such directory`);
  const byConf = all.find((l) => existsSync(join(dir, l.conf)));
  const network = given ?? (byConf && confNetwork(join(dir, byConf.conf), coins)) ?? "main";
  const layouts = all.filter((l) => l.networks.includes(network));
  // the nodes share the regtest and signet subdirectories: the network's own log says which one ran
  let log: { layout?: Layout; port?: string } | undefined;
  const logged = () => {
    if (log) return log;
    log = {};
    for (const sub of new Set(layouts.map((l) => l.sub[network] ?? ""))) {
      const found = lastStart(join(dir, sub, "debug.log"), all);
      if (found.layout) {
        log = found;
        break;
      }
    }
    return log;
  };
  const byHome = all.find((l) => dir === join(home, l.home));
  const known = byConf ?? logged().layout ?? byHome;
  if (known && !known.networks.includes(network))
    throw new UsageError(
      `network ${JSON.stringify(network)}: ${known.name} in ${dir} has none of that name; its networks are ${sentenceList(known.networks)}`,
    );
  // a directory named for a node other than the default one (".litecoin", "litecoin-regtest")
  const byName = layouts
    .filter((l) => l !== all[0])
    .find((l) => basename(dir).toLowerCase().includes(l.home.slice(1)));
  const bySubdir =
    network === "test" ? layouts.find((l) => existsSync(join(dir, l.sub.test ?? ""))) : undefined;
  const chosen = known ?? byName ?? bySubdir ?? (layouts[0] as Layout);
  // no rpcport in a config file: the port the node was started with, when its log names the same node
  const node = nodeOf(chosen, dir, network, coins, () =>
    logged().layout === chosen ? logged().port : undefined,
  );
  if (known) return node;
  // a guess: then every node's default, after what the guess found
  const order = [chosen, ...layouts.filter((l) => l !== chosen)];
  const defaults = order.map((l) => `http://127.0.0.1:${l.port[network]}/`);
  const cookie = order.map((l) => join(dir, l.sub[network] ?? "", ".cookie")).find((c) => existsSync(c));
  return {
    ...node,
    urls: [...new Set([...node.urls, ...defaults])],
    cookie: cookie ?? node.cookie,
    what: `${coinNetworkLabel({ name: sentenceList(layouts.map((l) => l.name)) }, network)} in ${dir} (no ${sentenceList(layouts.map((l) => l.conf))}, no ${join(chosen.sub[network] || ".", "debug.log")} naming the node: trying each one's port)`,
  };
}

function nodeOf(
  layout: Layout,
  dir: string,
  network: Network,
  coins: readonly Coin[],
  loggedPort: () => string | undefined,
): LocalNode {
  const { top, own } = readConf(join(dir, layout.conf), network);
  // rpcport is a network-only option: the top section sets it for main only (or the network it selects)
  const selected = confNetwork(join(dir, layout.conf), coins) === network || network === "main";
  const port =
    own.get("rpcport") ??
    (selected ? top.get("rpcport") : undefined) ??
    loggedPort() ??
    String(layout.port[network]);
  if (!/^\d{1,5}$/.test(port))
    throw new UsageError(`rpcport in ${join(dir, layout.conf)} is not a port: ${port}`);
  const cookie = join(dir, layout.sub[network] ?? "", ".cookie");
  return {
    urls: [`http://127.0.0.1:${port}/`],
    cookie: existsSync(cookie) ? cookie : undefined,
    cookiePath: cookie,
    user: own.get("rpcuser") ?? top.get("rpcuser"),
    password: own.get("rpcpassword") ?? top.get("rpcpassword"),
    what: `${coinNetworkLabel(layout, network)} in ${dir}`,
  };
}
