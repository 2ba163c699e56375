/**
 * Where a local bitcoind-family node listens and keeps its cookie, as bitcoin-cli finds them: the data
 * directory (--datadir, else ~/.bitcoin or ~/.litecoin), the network's subdirectory, `rpcport` (and
 * rpcuser/rpcpassword) from the node's own config file, else the network's default port.
 */
import { closeSync, existsSync, fstatSync, openSync, readFileSync, readSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { COINS, type Coin, NETWORK_NAMES, type NetworkName } from "../chains/coins.js";
import { UsageError } from "../errors/index.js";

export const NETWORKS = NETWORK_NAMES;
export type Network = NetworkName;

interface Layout {
  name: string;
  conf: string;
  home: string;
  /** the network's subdirectory of the data directory ("" for main) */
  sub: Record<Network, string>;
  port: Record<Network, number>;
}

/** A coin's node as the coin table describes it; only coins with all four networks have a local layout. */
function layoutOf(coin: Coin): Layout {
  const sub = {} as Record<Network, string>;
  const port = {} as Record<Network, number>;
  for (const n of NETWORKS) {
    const params = coin.networks[n];
    if (!params) throw new Error(`coins.ts: ${coin.name} has uses.localNode but no ${n} network`);
    sub[n] = params.subdir;
    port[n] = params.rpcPort;
  }
  return { ...coin.node, sub, port };
}

/** the nodes `--network` finds, Bitcoin Core's first (the default when nothing tells them apart) */
const LAYOUTS: Layout[] = COINS.filter((c) => c.uses.localNode).map(layoutOf);
const DEFAULT = LAYOUTS[0] as Layout;
/** " (Bitcoin Core|Litecoin Core) version v": a node's start in its log names the node */
const STARTED = new RegExp(` (${LAYOUTS.map((l) => l.name).join("|")}) version v`, "g");

export function parseNetwork(v: string | undefined, from: string): Network | undefined {
  if (v === undefined) return undefined;
  const n = v === "mainnet" ? "main" : v === "testnet" ? "test" : v;
  if ((NETWORKS as readonly string[]).includes(n)) return n as Network;
  throw new UsageError(`invalid ${from}: expected ${NETWORKS.join(", ")}, got ${JSON.stringify(v)}`);
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
  url: string;
  cookie?: string;
  user?: string;
  password?: string;
  /** for messages: "Litecoin Core regtest at /path" */
  what: string;
}

/** How much of a debug.log is read, from its end, looking for the node's last start. */
const LOG_TAIL_BYTES = 8 << 20;

/**
 * What the node's own log says of its last start in this directory: which node it is ("Litecoin Core
 * version v0.21…") and the RPC port given on its command line (`Command-line arg: rpcport="19443"`).
 */
function lastStart(log: string): { layout?: Layout; port?: string } {
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
  const starts = [...text.matchAll(STARTED)];
  const last = starts.at(-1);
  if (!last) return {};
  const since = text.slice(last.index);
  const port = /Command-line arg: rpcport="?(\d{1,5})"?/.exec(since)?.[1];
  return { layout: LAYOUTS.find((l) => l.name === last[1]) ?? DEFAULT, port };
}

/** The node of `network` in `datadir` (or the usual home directories). */
export function localNode(network: Network, datadir: string | undefined, env: NodeJS.ProcessEnv): LocalNode {
  const home = env.HOME || homedir();
  const dirs = datadir ? [datadir] : LAYOUTS.map((l) => join(home, l.home));
  const dir = dirs.find((d) => existsSync(d)) ?? dirs[0];
  const layouts = LAYOUTS;
  // the two nodes share the regtest and signet subdirectories: the network's own log says which one ran
  const logged = () => {
    for (const sub of new Set(layouts.map((l) => l.sub[network]))) {
      const found = lastStart(join(dir, sub, "debug.log"));
      if (found.layout) return found;
    }
    return {};
  };
  const byConf = layouts.find((l) => existsSync(join(dir, l.conf)));
  // a directory named for a node other than the default one (".litecoin", "litecoin-regtest")
  const byName = layouts.slice(1).find((l) => basename(dir).toLowerCase().includes(l.home.slice(1)));
  let log: { layout?: Layout; port?: string } | undefined;
  const logOnce = () => {
    log ??= logged();
    return log;
  };
  const bySubdir = network === "test" ? layouts.find((l) => existsSync(join(dir, l.sub.test))) : undefined;
  const byHome = layouts.find((l) => dir === join(home, l.home));
  const layout = byConf ?? byName ?? logOnce().layout ?? bySubdir ?? byHome;
  if (datadir !== undefined && !existsSync(datadir))
    throw new UsageError(`--datadir ${datadir}: no such directory`);
  if (!layout) {
    if (datadir !== undefined) {
      const sub = DEFAULT.sub[network];
      const [first, ...others] = layouts.map((l) => `${l.name}'s`);
      throw new UsageError(
        `--datadir ${datadir}: cannot tell ${first} data directory from ${others.join(" or ")} (no ${layouts.map((l) => l.conf).join(" or ")}, no ${join(sub || ".", "debug.log")} naming the node)`,
        {
          hint: `name the node: ${layouts.map((l) => `--url http://127.0.0.1:${l.port[network]}/ (${l.name} ${network})`).join(" or ")}, with --rpc-cookie ${join(datadir, sub, ".cookie")}`,
        },
      );
    }
  }
  const chosen = layout ?? DEFAULT;
  // no rpcport in a config file: the port the node was started with, when its log names the same node
  return nodeOf(chosen, dir, network, () => (logOnce().layout === chosen ? logOnce().port : undefined));
}

function nodeOf(
  layout: Layout,
  dir: string,
  network: Network,
  loggedPort: () => string | undefined,
): LocalNode {
  const { top, own } = readConf(join(dir, layout.conf), network);
  // rpcport is a network-only option: the top section sets it for main only (or the network it selects)
  const selected = top.get(network === "test" ? "testnet" : network) === "1" || network === "main";
  const port =
    own.get("rpcport") ??
    (selected ? top.get("rpcport") : undefined) ??
    loggedPort() ??
    String(layout.port[network]);
  if (!/^\d{1,5}$/.test(port))
    throw new UsageError(`rpcport in ${join(dir, layout.conf)} is not a port: ${port}`);
  const cookie = join(dir, layout.sub[network], ".cookie");
  return {
    url: `http://127.0.0.1:${port}/`,
    cookie: existsSync(cookie) ? cookie : undefined,
    user: own.get("rpcuser") ?? top.get("rpcuser"),
    password: own.get("rpcpassword") ?? top.get("rpcpassword"),
    what: `${layout.name} ${network} in ${dir}`,
  };
}
