/**
 * Where a local bitcoind-family node listens and keeps its cookie, as bitcoin-cli finds them: the data
 * directory (--datadir, else ~/.bitcoin or ~/.litecoin), the network's subdirectory, `rpcport` (and
 * rpcuser/rpcpassword) from the node's own config file, else the network's default port.
 */
import { existsSync, readFileSync } from "node:fs";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import { UsageError } from "../errors/index.js";

export const NETWORKS = ["main", "test", "regtest", "signet"] as const;
export type Network = (typeof NETWORKS)[number];

interface Layout {
  name: string;
  conf: string;
  home: string;
  /** the network's subdirectory of the data directory ("" for main) */
  sub: Record<Network, string>;
  port: Record<Network, number>;
}

// chainparamsbase.cpp of each: the RPC ports and data subdirectories
const BITCOIN: Layout = {
  name: "Bitcoin Core",
  conf: "bitcoin.conf",
  home: ".bitcoin",
  sub: { main: "", test: "testnet3", regtest: "regtest", signet: "signet" },
  port: { main: 8332, test: 18332, regtest: 18443, signet: 38332 },
};
const LITECOIN: Layout = {
  name: "Litecoin Core",
  conf: "litecoin.conf",
  home: ".litecoin",
  sub: { main: "", test: "testnet4", regtest: "regtest", signet: "signet" },
  port: { main: 9332, test: 19332, regtest: 19443, signet: 39332 },
};

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

/** The node of `network` in `datadir` (or the usual home directories). */
export function localNode(network: Network, datadir: string | undefined, env: NodeJS.ProcessEnv): LocalNode {
  const home = env.HOME || homedir();
  const dirs = datadir ? [datadir] : [join(home, BITCOIN.home), join(home, LITECOIN.home)];
  const dir = dirs.find((d) => existsSync(d)) ?? dirs[0];
  const layouts = [BITCOIN, LITECOIN];
  const layout =
    layouts.find((l) => existsSync(join(dir, l.conf))) ??
    (/litecoin/i.test(basename(dir)) ? LITECOIN : undefined) ??
    layouts.find((l) => existsSync(join(dir, l.sub[network], ".cookie"))) ??
    (dir === join(home, LITECOIN.home) ? LITECOIN : BITCOIN);
  const { top, own } = readConf(join(dir, layout.conf), network);
  // rpcport is a network-only option: the top section sets it for main only (or the network it selects)
  const selected = top.get(network === "test" ? "testnet" : network) === "1" || network === "main";
  const port =
    own.get("rpcport") ?? (selected ? top.get("rpcport") : undefined) ?? String(layout.port[network]);
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
