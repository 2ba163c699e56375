/**
 * `reserves balances`: native and token holdings of a list of addresses at ONE block of an EVM-style chain,
 * as a proof document (src/proof/evm-document.ts). Typed options in, data out, progress as events.
 *  1. the input is checked locally (addresses, tokens, the block): nothing is sent while anything is wrong;
 *  2. the block is pinned first (number and hash), and the chain id read;
 *  3. each token's code, decimals() and symbol() once; then every balance, in batch arrays, at that block;
 *  4. pinned chains: the block at that number must still have the same hash (else the reads straddled a
 *     reorg, and they run again). Latest-only chains (java-tron serves state at the head only): the reads
 *     run at the head, on one endpoint, and the head must be the same block before and after them; a head
 *     that moved means the reads may mix two states, and they run again, a bounded number of times.
 */
import { address as evmAddress, evmTraits } from "../../chains/evm-values.js";
import type { ChainGroup } from "../../chains/index.js";
import { IntegrityError, UsageError } from "../../errors/index.js";
import type { SignatureLine } from "../../proof/document.js";
import type { EvmAsset, EvmProof } from "../../proof/evm-document.js";
import { EVM_PROOF_FORMAT } from "../../proof/evm-document.js";
import { digestOf } from "../../proof/jcs.js";
import { JsonRpcClient } from "../../rpc/client.js";
import { formatUnits } from "../../util/units.js";
import { readAddressList } from "../address-list.js";
import { readAccountNetwork, readBalances, readBlock, readChainId, readTokenMeta } from "./balances-read.js";
import { judgeSignatures, ownershipSection } from "./ownership.js";

export interface BalancesOptions {
  chain: ChainGroup;
  /** addresses as arguments */
  args: string[];
  /** a list file, "-" for stdin */
  file?: string;
  /** token contracts, as given */
  tokens: string[];
  /** the native coin too (the default when no token is given) */
  native?: boolean;
  /** a block number (decimal or 0x) or "latest" @default "latest" */
  block?: string;
  /** the text the custodian signed; with `signatures`, the proof carries an ownership section */
  challenge?: string;
  /** address,signature lines over the challenge (EIP-191 / TIP-191 keys, EIP-1271 contract wallets) */
  signatures?: SignatureLine[];
  /**
   * the networks a devnet on their chain id is declared to stand in for (`--stand-in`, nodes.ts standInsOf):
   * such a node is named "a stand-in for Ethereum (genesis 0x…)"; its proof still names no network (it is not
   * Ethereum), as one made on it undeclared
   */
  standIns?: ReadonlySet<string>;
  /** reads again after a reorg or a moved head, at most this many times @default 4 */
  attempts?: number;
  createdAt?: Date;
}

export type BalancesEvent =
  | { type: "step"; text: string }
  | { type: "read"; done: number; total: number }
  | { type: "retry"; why: string; attempt: number };

export interface BalancesResult {
  proof: EvmProof;
  /** input entries dropped because they named an address already listed */
  duplicates: number;
  /** how many times the reads ran */
  attempts: number;
  /** the node was a declared stand-in: how every line names its chain ("chain id 1: a stand-in for Ethereum …") */
  standIn?: string;
}

const MAX_PROBLEMS_SHOWN = 50;

/** The input, checked: normalised addresses (unique, input order), tokens, the block reference. */
export interface BalancesPlan {
  given: string[];
  addresses: string[];
  tokens: string[];
  givenTokens: string[];
  native: boolean;
  /** "latest", or 0x hex */
  block: string;
  givenBlock: string;
  duplicates: number;
}

export async function planBalances(o: BalancesOptions): Promise<BalancesPlan> {
  const chain = o.chain;
  const traits = evmTraits(chain);
  const problems: string[] = [];
  const eip55 = traits.eip55 ? (await import("../../util/ox.js")).Address.checksum : undefined;
  const check = (text: string, where: string): string | undefined => {
    let a: string;
    try {
      a = evmAddress(chain, text);
    } catch (e) {
      problems.push(`${where}: ${JSON.stringify(text.slice(0, 100))}: ${(e as Error).message}`);
      return undefined;
    }
    // a mixed-case 0x address carries an EIP-55 checksum: a typo in it must not read someone else's balance
    if (
      eip55 &&
      /^0x[0-9a-fA-F]{40}$/.test(text) &&
      /[a-f]/.test(text) &&
      /[A-F]/.test(text) &&
      eip55(text as `0x${string}`) !== text
    ) {
      problems.push(`${where}: ${text}: bad EIP-55 checksum (expected ${eip55(text as `0x${string}`)})`);
      return undefined;
    }
    return a.toLowerCase();
  };
  const given: string[] = [];
  const addresses: string[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  const take = (text: string, where: string) => {
    const a = check(text, where);
    if (a === undefined) return;
    given.push(text);
    if (seen.has(a)) {
      duplicates++;
      return;
    }
    seen.add(a);
    addresses.push(a);
  };
  readAddressList(o.args, o.file, (t, at, source) =>
    take(t, source === undefined ? `argument ${at}` : `line ${at} of ${source}`),
  );
  const tokens: string[] = [];
  for (const [i, t] of o.tokens.entries()) {
    const a = check(t.trim(), `--token ${i + 1}`);
    if (a === undefined) continue;
    if (tokens.includes(a)) problems.push(`--token ${i + 1}: ${t} is listed twice`);
    else tokens.push(a);
  }
  const givenBlock = (o.block ?? "latest").trim();
  let block = "latest";
  if (givenBlock.toLowerCase() !== "latest") {
    if (!/^(0x[0-9a-fA-F]{1,13}|\d{1,15})$/.test(givenBlock))
      problems.push(`--block: ${JSON.stringify(givenBlock)} is neither a block number nor "latest"`);
    else if (!traits.pinnedStateReads)
      problems.push(
        `--block ${givenBlock}: the ${chain.name} chain serves balances and calls at the latest block only (its JSON-RPC refuses a number, and runs an EIP-1898 block object at the head anyway); leave --block out`,
      );
    else block = `0x${BigInt(givenBlock).toString(16)}`;
  }
  if (problems.length) {
    const shown = problems.slice(0, MAX_PROBLEMS_SHOWN);
    if (problems.length > shown.length) shown.push(`... and ${problems.length - shown.length} more`);
    throw new UsageError(
      `reserves balances: ${problems.length} problem${problems.length === 1 ? "" : "s"} in the input; nothing was sent`,
      { details: shown },
    );
  }
  if (addresses.length === 0)
    throw new UsageError("reserves balances: no addresses; give them as arguments or --file <path|->");
  return {
    given,
    addresses,
    tokens,
    givenTokens: o.tokens.map((t) => t.trim()),
    native: o.native === true || tokens.length === 0,
    block,
    givenBlock,
    duplicates,
  };
}

/** A client held to its first endpoint: reads at "latest" must all see one node's head. */
function onOneEndpoint(client: JsonRpcClient): JsonRpcClient {
  if (client.endpoints.length === 1) return client;
  return new JsonRpcClient({
    ...client.opts,
    endpoints: [client.endpoints[0]!],
    transport: client.transport,
  });
}

/** Each asset's section: its metadata (a token's read, the native coin's the chain's), every balance, the total. */
function assetsOf(
  ids: string[],
  meta: Awaited<ReturnType<typeof readTokenMeta>>,
  values: bigint[][],
  plan: { native: boolean; addresses: string[] },
  nativeSymbol: string,
  traits: ReturnType<typeof evmTraits>,
): EvmAsset[] {
  return ids.map((id, i) => {
    const m = id === "native" ? undefined : meta[i - (plan.native ? 1 : 0)];
    const decimals = m ? m.decimals : traits.native.decimals;
    const d = decimals ?? 0;
    let sum = 0n;
    const balances = values[i].map((v, j) => {
      sum += v;
      return {
        address: plan.addresses[j] as string,
        amount: formatUnits(v, d),
        base_units: v.toString(),
      };
    });
    return {
      id,
      symbol: m ? m.symbol : nativeSymbol,
      symbol_source: m ? m.symbol_source : "chain",
      decimals,
      balances,
      total: { amount: formatUnits(sum, d), base_units: sum.toString() },
      holders: balances.filter((b) => b.base_units !== "0").length,
    };
  });
}

/**
 * The network by its chain id, and its genesis where the table knows that id's: chain id 1 is not enough to be
 * Ethereum (balances-read.ts readAccountNetwork). A declared stand-in (`standIns`) is named so (`standIn`), its
 * coin the network's symbol; the document names no network it is not.
 */
async function networkOf(
  c: JsonRpcClient,
  chain: ChainGroup,
  chainId: bigint,
  standIns: ReadonlySet<string> | undefined,
): Promise<{ network: { name: string; symbol?: string } | undefined; symbol: string; standIn?: string }> {
  const answered = await readAccountNetwork(c, chain, chainId, standIns ? { standIns } : {});
  if ("unread" in answered) throw new IntegrityError(answered.unread);
  const symbol = answered.network?.symbol ?? evmTraits(chain).native.symbol;
  if (answered.standIn) return { network: undefined, symbol, standIn: answered.named };
  return { network: answered.network, symbol };
}

export async function readBalancesProof(
  client: JsonRpcClient,
  o: BalancesOptions,
  onEvent: (e: BalancesEvent) => void = () => {},
  signal?: AbortSignal,
): Promise<BalancesResult> {
  const plan = await planBalances(o);
  const chain = o.chain;
  const traits = evmTraits(chain);
  const pinned = traits.pinnedStateReads;
  const c = pinned ? client : onOneEndpoint(client);
  const createdAt = o.createdAt ?? new Date();
  const chainId = await readChainId(c, chain);
  const attempts = o.attempts ?? 4;
  const moves: string[] = [];
  for (let attempt = 1; attempt <= attempts; attempt++) {
    signal?.throwIfAborted();
    onEvent({
      type: "step",
      text: `pinning ${plan.block === "latest" ? "the latest block" : `block ${BigInt(plan.block)}`}`,
    });
    const before = await readBlock(c, chain, plan.block);
    if (before === null)
      throw new IntegrityError(`block ${plan.givenBlock}: the node has no such block (beyond its head?)`);
    // pinned chains read at the number; latest-only chains at the head, checked before and after
    const at = pinned ? `0x${before.number.toString(16)}` : "latest";
    onEvent({
      type: "step",
      text: `reading ${plan.tokens.length} token${plan.tokens.length === 1 ? "" : "s"}' metadata at block ${before.number}`,
    });
    const meta = await readTokenMeta(c, chain, plan.tokens, at, signal);
    const ids = [...(plan.native ? ["native"] : []), ...plan.tokens];
    const values = await readBalances(
      c,
      chain,
      ids,
      plan.addresses,
      at,
      (done, total) => onEvent({ type: "read", done, total }),
      signal,
    );
    const after = await readBlock(c, chain, pinned ? at : "latest");
    if (after && after.hash === before.hash && after.number === before.number) {
      const { network, symbol, standIn } = await networkOf(c, chain, chainId, o.standIns);
      const assets = assetsOf(ids, meta, values, plan, symbol, traits);
      const doc: Omit<EvmProof, "digest"> = {
        format: EVM_PROOF_FORMAT,
        chain: { group: chain.name, chain_id: chainId.toString(), network: network?.name ?? null },
        snapshot: pinned ? "pinned" : "latest-only",
        block: before,
        created_at: createdAt.toISOString(),
        inputs: {
          addresses: plan.given,
          tokens: plan.givenTokens,
          native: plan.native,
          block: plan.givenBlock,
        },
        addresses: plan.addresses,
        assets,
      };
      if (o.challenge !== undefined) {
        // ownership at the same block: a contract wallet's answer is read where the balances were
        onEvent({
          type: "step",
          text: `checking ${o.signatures?.length ?? 0} signatures over the challenge`,
        });
        const lines = o.signatures ?? [];
        const judged = await judgeSignatures(c, chain, lines, o.challenge, at, signal);
        doc.challenge = o.challenge;
        doc.ownership = ownershipSection(doc, lines, judged);
      }
      const proof = { ...doc, digest: digestOf(doc) };
      return { proof, duplicates: plan.duplicates, attempts: attempt, ...(standIn ? { standIn } : {}) };
    }
    const why = pinned
      ? `block ${before.number} changed from ${before.hash} to ${after?.hash ?? "nothing"} during the reads (a reorg)`
      : `the head moved from block ${before.number} (${before.hash}) to ${after ? `${after.number} (${after.hash})` : "nothing"} during the reads`;
    moves.push(why);
    if (attempt < attempts) onEvent({ type: "retry", why, attempt });
  }
  throw new IntegrityError(
    `reserves balances: no consistent snapshot in ${attempts} attempts: ${moves[moves.length - 1]}`,
    {
      details: moves,
      hint: pinned
        ? "The chain reorganised under every attempt; try an older --block."
        : `The ${chain.name} chain serves state at its head only, so a snapshot needs the head to stay put for the whole read; try again, or with fewer addresses per run.`,
    },
  );
}
