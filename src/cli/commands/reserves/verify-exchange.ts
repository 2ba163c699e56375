/**
 * `reserves verify FILE` for an exchange's address/signature file (OKX, HTX; src/exchange/ownership/): the
 * flags turned into the verifier's options, every row judged by the registry entry's `AddressFileModule`;
 * verify.ts prints the report as it prints our own proofs'. `--previous OLD` flags signatures reused from an
 * older file; `--challenge TEXT` the message every signed row must be over; `--node NET=URL` reads balances.
 */
import { basename } from "node:path";
import type { NetworkName } from "../../../chains/coins.js";
import type { GlobalFlags } from "../../../config/config.js";
import { UsageError } from "../../../errors/index.js";
import type { ChainNode } from "../../../exchange/ownership/balances.js";
import type { OwnershipFile } from "../../../exchange/ownership/read.js";
import type { OwnershipReport, RowSink } from "../../../exchange/ownership/verify.js";
import type { AddressFileModule } from "../../../formats/registry.js";
import { quoted } from "../../../util/text.js";
import type { NodeUsed } from "../../nodes.js";
import { onePerKey } from "../../options.js";
import type { Run } from "../../run.js";

export interface ExchangeVerifyFlags {
  previous?: string;
  signatures?: string;
  challenge?: string;
  quorum?: string;
  node?: string[];
  token?: string[];
  /** a node may be on another chain than its NET's (solvency, which knows each row by its node's chain) */
  anyChain?: boolean;
  /** --stand-in NETWORK: a devnet on that network's chain id is read as standing in for it (nodes.ts) */
  standIn?: string[];
}

/** `NAME=VALUE` pairs of a repeatable flag, each checked, or a usage error naming the flag and the value. */
function pairs(flag: string, list: string[] | undefined, check: RegExp, what: string): [string, string][] {
  return (list ?? []).map((v) => {
    const i = v.indexOf("=");
    const [k, x] = [v.slice(0, i).trim(), v.slice(i + 1).trim()];
    if (i < 1 || !check.test(x))
      throw new UsageError(`${flag} ${JSON.stringify(v)}: expected ${what}; nothing was checked`);
    return [k.toUpperCase(), x];
  });
}

/** A file read by `read`, a bad line as a usage error naming the file. */
function readFile<T>(path: string, read: () => T): T {
  try {
    return read();
  } catch (e) {
    if (e instanceof UsageError) throw new UsageError(`${path}: ${e.message}`);
    throw e;
  }
}

/**
 * The `--node NET=URL` pairs as the rows' nodes, each asked which chain it is on before a row is read on it
 * (another chain's node refused by name unless `anyChain`, `askNetworks`): a Bitcoin-family network's node is scanned
 * (scantxoutset), TRON's read as java-tron's JSON-RPC, any other as an EVM node.
 */
async function nodesAsked(
  run: Run,
  flags: GlobalFlags,
  nodes: [string, string][],
  network: NetworkName,
  anyChain: boolean,
  standIns: ReadonlySet<string>,
): Promise<ChainNode[]> {
  if (!nodes.length) return [];
  const [{ contextFor }, { groupOf }, { askNetworks }, { utxoCoinOf, isTronNetwork }] = await Promise.all([
    import("../../context.js"),
    import("../../../chains/index.js"),
    import("../../../exchange/ownership/balances.js"),
    import("../../../exchange/ownership/coins.js"),
  ]);
  const { url: _, network: __, ...rest } = flags;
  const out: ChainNode[] = nodes.map(([net, url]) => {
    const group = utxoCoinOf(net, network) ? "utxo" : isTronNetwork(net) ? "evm-compat" : "evm";
    const ctx = contextFor(run, { ...rest, url: [url] }, group, { pooled: true });
    return {
      network: net,
      chain: groupOf(group),
      client: ctx.client,
      scanTimeoutMs: ctx.settings.scanTimeoutMs,
    };
  });
  await askNetworks(out, network, anyChain, standIns);
  return out;
}

/**
 * The address file `file` (its `text`) judged by its layout's module, with the flags' older file and nodes:
 * the report, the file as read and the nodes its balances were read through.
 */
export async function addressFileJudged(
  run: Run,
  file: string,
  text: string,
  m: AddressFileModule,
  flags: GlobalFlags,
  o: ExchangeVerifyFlags,
  /** where the judged rows go when the report is not to list them (see `AddressFileModule.verify`) */
  sink?: RowSink,
): Promise<{
  report: OwnershipReport;
  file: OwnershipFile;
  nodes: ChainNode[];
  /** each node and the chain it answered for, as every verdict names them */
  used: NodeUsed[];
  /** what the rows were read with: the token contracts by symbol, the Bitcoin-family addresses' network */
  tokens: Map<string, string>;
  tronTokens: Map<string, string>;
  network: NetworkName;
}> {
  for (const [flag, v] of [
    ["--signatures", o.signatures],
    ["--quorum", o.quorum],
  ] as const)
    if (v !== undefined)
      throw new UsageError(
        `${flag} is for chaingw's own proofs; ${file} is an exchange's address file (${m.layout}), whose signatures are its own`,
      );
  const files = await import("../../files.js");
  const owned = readFile(file, () => m.read(text));
  let previous: Map<string, string> | undefined;
  const older = o.previous;
  if (older !== undefined) {
    const old = files.readText(older, "--previous");
    previous = readFile(older, () => m.previous(old, basename(older)));
  }
  // one per NET, NET known (a coin, a network, or a name the file's rows use): src/cli/nodes.ts
  const { nodeKey, networkOf } = await import("../../../exchange/ownership/balances.js");
  const { nodeChoices, standInsOf } = await import("../../nodes.js");
  const standIns = await standInsOf(o.standIn);
  const nodes = (
    await nodeChoices(o.node, undefined, { groups: false, extra: new Set(owned.rows.map(networkOf)) })
  ).map((c): [string, string] => [c.net, c.url]);
  for (const [i, [a]] of nodes.entries())
    for (const [b] of nodes.slice(i + 1))
      if (nodeKey(a) === nodeKey(b))
        throw new UsageError(
          `--node ${quoted(a)} and --node ${quoted(b)} name one chain (the files' ${quoted(nodeKey(a))}): give one of them`,
        );
  // a token's contract: 0x… for the EVM rows of that symbol, T… (a TRC-20) for its TRON rows: one of each
  const tokenPairs = onePerKey(
    "--token",
    pairs(
      "--token",
      o.token,
      /^(0x[0-9a-fA-F]{40}|T[1-9A-HJ-NP-Za-km-z]{33})$/,
      "SYMBOL=0x and 40 hex digits, or SYMBOL=T and a TRON address",
    ),
    ([k, a]) => `${k} ${a[0]}`,
  );
  const tokens = new Map(tokenPairs.filter(([, a]) => a.startsWith("0x")));
  const tronTokens = new Map(tokenPairs.filter(([, a]) => a.startsWith("T")));
  if (tronTokens.size) {
    const { tronToHex20 } = await import("../../../chains/tron.js");
    for (const [k, a] of tronTokens)
      try {
        tronToHex20(a);
      } catch (e) {
        throw new UsageError(`--token ${k}=${a}: ${(e as Error).message}; nothing was checked`);
      }
  }
  // the network of the file's Bitcoin-family addresses: mainnet's, unless --network names a test network
  // (refused by name when no coin has it; "testnet" is "test", as for the local node)
  const { parseNetwork } = await import("../../../config/node-layout.js");
  const network = parseNetwork(flags.network, "--network") ?? "main";
  const chainNodes = await nodesAsked(run, flags, nodes, network, o.anyChain === true, standIns);
  const chain = chainNodes.length
    ? (await import("../../../exchange/ownership/balances.js")).chainChecks(owned, {
        nodes: chainNodes,
        tokens,
        tronTokens,
        network,
        signal: run.abort.signal,
      })
    : undefined;
  // --challenge: the exact message every signed row must be over (else the layout's own messages)
  const options = { previous, chain, network, message: o.challenge };
  const report = await m.verify(owned, options, run.abort.signal, sink);
  // which node answered for which chain, in the words of every verdict (src/cli/nodes.ts)
  const { answeredLabel } = await import("../../../exchange/ownership/balances.js");
  const { redactUrl } = await import("../../../util/redact.js");
  const used = chainNodes.map((n, i) => ({
    net: n.network,
    chain: n.standIn ?? (n.id ? answeredLabel(n.id) : "its chain not told"),
    url: redactUrl(nodes[i]?.[1] ?? ""),
  }));
  return { report, file: owned, nodes: chainNodes, used, tokens, tronTokens, network };
}
