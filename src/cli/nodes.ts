/**
 * One way to name the nodes an audit reads (issue 55, item 5): `--node NET=URL`, repeatable, for every command
 * that re-reads proofs on their chains — `reserves verify` (chaingw's own proof or an exchange's address file),
 * `reserves report --verify`, `solvency` (both paths). NET is a coin (LTC, BTC), a network name of the
 * exchanges' files (ETH, ARBITRUM, ERC20, TRON, …) or a group (utxo, evm, evm-compat: every proof of it). The
 * spelling of before, `--url-for GROUP=URL`, is the same as `--node GROUP=URL` (an alias). An unknown NET and a
 * NET given twice are refused by name (exit 2); every verdict names each node as `nodeWords` says it.
 */
import { CHAIN_NAMES, type GroupName } from "../chains/index.js";
import { UsageError } from "../errors/index.js";
import type { ReadProof } from "../reserves/combined.js";
import { redactUrl } from "../util/redact.js";
import { quoted } from "../util/text.js";
import { onePerKey } from "./options.js";

/** The option, declared once: its flags and help for every command that takes it (help, completion, docs). */
export const NODE_OPTION = {
  flags: "--node <net=url>",
  help: "the node that answers for network NET (repeatable, one per NET): a coin (LTC, BTC), a network (ETH, ARBITRUM, TRON, …) or a group (utxo, evm, evm-compat) for every proof of it; asked its chain. --url-for GROUP=URL is the same (alias)",
} as const;

/** `--url-for`, the spelling of before: an alias of `--node GROUP=URL`. */
export const URL_FOR_OPTION = {
  flags: "--url-for <group=url>",
  help: "the same as --node GROUP=URL (alias, kept for scripts), repeatable",
} as const;

/** `--stand-in`, declared once for every command that takes `--node` (help, completion, docs). */
export const STAND_IN_OPTION = {
  flags: "--stand-in <network>",
  help: "a devnet on NETWORK's chain id (ethereum, tron, bnb-smart-chain, …: a network whose genesis chaingw knows) stands in for it: its rows and proofs are read and every verdict says 'a stand-in for Ethereum (genesis 0x…)'; without it such a node cannot say (repeatable)",
} as const;

/**
 * `--stand-in` values as the table's network names ("ethereum", "tron-mainnet"): a network name or alias of
 * the table, or a name `--node` takes for it (ETH, ERC20, TRON); only a network whose genesis chaingw knows
 * (any other is known by its chain id alone: nothing to stand in for). Refused by name, nothing sent.
 */
export async function standInsOf(values: readonly string[] | undefined): Promise<ReadonlySet<string>> {
  const [
    { networkNamed, networkOf, declareStandIns },
    { genesisOfNetwork, GENESIS_KNOWN },
    { expectedNetworkOf },
  ] = await Promise.all([
    import("../chains/assets.js"),
    import("../chains/networks.js"),
    import("../exchange/ownership/coins.js"),
  ]);
  const out = new Set<string>();
  for (const v of values ?? []) {
    const byName = networkNamed(v.trim().toLowerCase());
    const id = byName?.id ?? expectedNetworkOf(v.trim())?.id;
    const name = byName?.name ?? (id === undefined ? undefined : networkOf(id)?.name);
    if (name === undefined || genesisOfNetwork(name) === undefined)
      throw new UsageError(
        `--stand-in ${quoted(v)}: ${name === undefined ? "no such network" : "chaingw knows that network by its chain id alone, so no devnet needs declaring for it"}; a devnet stands in for a network whose genesis block chaingw knows (${GENESIS_KNOWN.join(", ")}); nothing was checked`,
      );
    out.add(name);
  }
  // every label of such a chain in this run names it a stand-in (chains/assets.ts networkLabel)
  declareStandIns(out);
  return out;
}

/** A node named for an audit: the NET as given (upper case; a group lower case), its URL, and the flag used. */
export interface NodeChoice {
  net: string;
  url: string;
  /** set when NET is a group: every proof of that group */
  group?: GroupName;
  flag: "--node" | "--url-for";
}

/** A node and the chain it answered for, as every verdict says it (credentials and key-like values cut). */
export interface NodeUsed {
  net: string;
  chain: string;
  url: string;
}

/** The one sentence every verdict uses for the nodes read: "LTC (Litecoin regtest): http://127.0.0.1:…/". */
export const nodeWords = (n: NodeUsed): string => `${n.net} (${n.chain}): ${n.url}`;

/** `nodes` as one line of a verdict, or none when no node was named. */
export const nodesLine = (nodes: readonly NodeUsed[]): string[] =>
  nodes.length ? [`nodes: ${nodes.map(nodeWords).join("; ")}`] : [];

/** A node used, its URL without credentials. */
export const nodeUsed = (c: NodeChoice, chain: string): NodeUsed => ({
  net: c.net,
  chain,
  url: redactUrl(c.url),
});

/** Whether chaingw knows NET: a group, a coin or an exchange file's network name. */
async function knownNet(net: string): Promise<boolean> {
  const [{ COINS }, { exchangeChainOf }] = await Promise.all([
    import("../chains/coins.js"),
    import("../exchange/ownership/coins.js"),
  ]);
  return COINS.some((c) => c.ticker === net) || exchangeChainOf(net) !== undefined;
}

/**
 * `--node` and `--url-for` values as the nodes of one audit: each checked (NET=http(s)://…), NET known
 * (`extra`: names an exchange's file uses for its rows are known too; groups only where `groups`), one per NET
 * across both spellings. A usage error names the value; nothing is sent before.
 */
export async function nodeChoices(
  node: readonly string[] | undefined,
  urlFor: readonly string[] | undefined,
  o: { groups: boolean; extra?: ReadonlySet<string> } = { groups: true },
): Promise<NodeChoice[]> {
  const out: NodeChoice[] = [];
  const given: [string, string][] = [
    ...(urlFor ?? []).map((v): [string, string] => ["--url-for", v]),
    ...(node ?? []).map((v): [string, string] => ["--node", v]),
  ];
  for (const [flag, v] of given) {
    const i = v.indexOf("=");
    const [k, url] = [v.slice(0, i).trim(), v.slice(i + 1).trim()];
    if (flag === "--url-for" && !/^([a-z-]+)=(.+)$/.test(v))
      throw new UsageError(
        `--url-for ${JSON.stringify(v)}: expected group=url, like evm=http://127.0.0.1:8545/`,
      );
    if (i < 1 || !/^https?:\/\/\S+$/.test(url))
      throw new UsageError(
        `${flag} ${JSON.stringify(v)}: expected NET=http(s)://host:port; nothing was checked`,
      );
    const group = CHAIN_NAMES.find((g) => g === k.toLowerCase());
    if (flag === "--url-for" && !group)
      throw new UsageError(
        `invalid --url-for group: expected ${CHAIN_NAMES.join(", ")}, got ${JSON.stringify(k)}`,
      );
    if (group && !o.groups)
      throw new UsageError(
        `${flag} ${k}=…: a group names the node of chaingw's own proofs; an exchange's rows are read per network (--node ETH=URL, --node LTC=URL)`,
      );
    const net = group ?? k.toUpperCase();
    if (!group && !(await knownNet(net)) && !o.extra?.has(net))
      throw new UsageError(
        `${flag} ${quoted(k)}=…: no network ${quoted(k)}: give a coin (LTC, BTC, …), a network (ETH, ARBITRUM, TRON, …)${o.groups ? ` or a group (${CHAIN_NAMES.join(", ")})` : ""}; nothing was checked`,
      );
    out.push({ net, url, flag: flag as NodeChoice["flag"], ...(group ? { group } : {}) });
  }
  // one per NET across both spellings: the one rule of every KEY=VALUE option (options.ts)
  onePerKey(
    ([, , flag]) => flag,
    out.map((c) => [c.net, c.url, c.flag] as const),
  );
  return out;
}

/**
 * The node named for one of chaingw's own proofs: the one whose NET is the proof's coin (a UTXO proof) or
 * whose network is the proof's chain id (an EVM proof), else its group's; undefined when none is named.
 */
export async function nodeForProof(
  choices: readonly NodeChoice[],
  r: ReadProof,
  group: GroupName,
): Promise<NodeChoice | undefined> {
  const named = choices.filter((c) => !c.group);
  if (named.length) {
    if (r.utxo) {
      const { unitOf } = await import("../reserves/claims.js");
      const ticker = unitOf(r.utxo);
      const hit = named.find((c) => c.net === ticker);
      if (hit) return hit;
    } else if (r.evm) {
      const { expectedNetworkOf } = await import("../exchange/ownership/coins.js");
      const id = `evm:${r.evm.chain.chain_id}`;
      const hit = named.find((c) => expectedNetworkOf(c.net)?.id === id);
      if (hit) return hit;
    }
  }
  return choices.find((c) => c.group === group);
}

/**
 * The chain a proof is of, as a verdict names it: "Litecoin regtest", "anvil (chain id 31337)"; a network a
 * devnet was declared to stand in for (`standIns`): "Ethereum or a stand-in for it (--stand-in)" — the chain
 * step says which the node was.
 */
export async function proofChainLabel(r: ReadProof, standIns?: ReadonlySet<string>): Promise<string> {
  const [{ networkLabel, networkOf }, { claimedUtxoNetwork }] = await Promise.all([
    import("../chains/assets.js"),
    import("../liabilities/solvency-identity.js"),
  ]);
  if (r.utxo) {
    const id = claimedUtxoNetwork(r.utxo);
    return id ? networkLabel(id) : `the ${r.utxo.chain} chain`;
  }
  const id = `evm:${r.evm?.chain.chain_id}`;
  const label = networkLabel(id);
  const name = networkOf(id)?.name;
  if (name !== undefined && standIns?.has(name)) return `${label} or a stand-in for it (--stand-in)`;
  return label === id ? `chain id ${r.evm?.chain.chain_id}` : label;
}

/**
 * The nodes named that answer for none of `read`'s proofs: a coin or network no proof is of is refused by
 * name (a group names every proof of it, and may have none).
 */
export async function refuseUnused(
  choices: readonly NodeChoice[],
  used: ReadonlySet<NodeChoice>,
): Promise<void> {
  const idle = choices.find((c) => !c.group && !used.has(c));
  if (idle)
    throw new UsageError(
      `${idle.flag} ${idle.net}=…: no proof read is of ${idle.net}'s chain; name the node of a proof's chain (its coin, its network, or its group)`,
    );
}
