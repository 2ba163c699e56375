/**
 * `reserves report PROOF…`: several proofs of the family (UTXO scans and EVM balances) as one summary —
 * per chain and asset: the block, the total, how many addresses hold it, the share proven owned by
 * signatures, and how the holdings spread over the addresses. Data out; the face renders text or HTML.
 * Digests are checked offline always; verification against the chains is the caller's (it needs clients).
 */
import type { NetworkId } from "../chains/assets.js";
import { coinOf } from "../chains/coins.js";
import { numberOf } from "../json/numbers.js";
import type { Proof } from "../proof/document.js";
import type { EvmProof } from "../proof/evm-document.js";
import { digestOf } from "../proof/jcs.js";
import type { JsonRpcClient } from "../rpc/client.js";
import { amountText } from "../util/units.js";
import { share, unitOf } from "./claims.js";
import type { LedgerUntold } from "./evm/ledgers.js";
import { formatCoins } from "./utxo/amount.js";
import { combineVerdicts, counted, type Finding, type Verdict, verdictCode } from "./verdict.js";
import { type VerifyOptions, verifyContext } from "./verifier.js";

export interface Holding {
  address: string;
  amount: string;
  base_units: string;
}

export interface ReportAsset {
  symbol: string;
  /** the token contract, for EVM tokens */
  contract?: string;
  total: string;
  total_base_units: string;
  decimals: number | null;
  addresses: number;
  holders: number;
  /** the share of the total held by addresses with a valid signature ("12.50%"), or null without signatures */
  proven_share: string | null;
  /** that amount: the document's own figure until a verifier re-derives it (`verify` present on the entry) */
  proven: string | null;
  /** every holding above zero, largest first */
  holdings: Holding[];
}

export interface ReportEntry {
  file: string;
  format: string;
  /** "Litecoin regtest", "anvil (chain id 31337)" */
  chain: string;
  block: number;
  block_hash: string;
  snapshot: string;
  digest: string;
  digest_ok: boolean;
  assets: ReportAsset[];
  /** what the document states that no chain confirms: when it was made, the challenge, the cutoff, who signed */
  claims: {
    created_at: string;
    challenge: string | null;
    /** UTXO proofs made with --min-conf N */
    min_conf?: number;
    /** addresses whose signature the document records as valid (the verifier's own: `verify.owned`) */
    signed: string[];
  };
}

const byAmount = (a: Holding, b: Holding) => {
  const x = BigInt(a.base_units);
  const y = BigInt(b.base_units);
  return x === y ? 0 : x > y ? -1 : 1;
};

export function utxoEntry(file: string, p: Proof): ReportEntry {
  const total = BigInt(p.total.amount_sats);
  const holdings = p.by_address
    .filter((a) => a.amount_sats !== "0")
    .map((a) => ({ address: a.address, amount: a.amount, base_units: a.amount_sats }))
    .sort(byAmount);
  return {
    file,
    format: p.format,
    chain: `${unitOf(p)} ${p.chain}`,
    block: p.height,
    block_hash: p.block_hash,
    snapshot: "scan",
    digest: p.digest,
    digest_ok: digestOf(p) === p.digest,
    claims: {
      created_at: p.created_at,
      challenge: p.challenge,
      ...(p.min_conf === undefined ? {} : { min_conf: p.min_conf }),
      signed: p.ownership?.signatures.filter((x) => x.valid).map((x) => x.address) ?? [],
    },
    assets: [
      {
        symbol: unitOf(p),
        total: formatCoins(total),
        total_base_units: p.total.amount_sats,
        decimals: 8,
        addresses: p.by_address.length,
        holders: holdings.length,
        proven_share: p.ownership ? share(BigInt(p.ownership.proven_sats), total) : null,
        proven: p.ownership ? formatCoins(BigInt(p.ownership.proven_sats)) : null,
        holdings,
      },
    ],
  };
}

/**
 * An EVM document's amount the one way (util/units.ts amountText): coin units with every one of the asset's
 * decimals; the document's own text where they are unknown (its base units).
 */
const evmAmount = (base: string, decimals: number | null, stated: string): string =>
  decimals === null ? stated : amountText(BigInt(base), decimals);

export function evmEntry(file: string, p: EvmProof): ReportEntry {
  return {
    file,
    format: p.format,
    chain: `${p.chain.network ?? "chain"} (chain id ${p.chain.chain_id}, ${p.chain.group})`,
    block: p.block.number,
    block_hash: p.block.hash,
    snapshot: p.snapshot,
    digest: p.digest,
    digest_ok: digestOf(p) === p.digest,
    claims: {
      created_at: p.created_at,
      challenge: p.challenge ?? null,
      signed: p.ownership?.signatures.filter((x) => x.valid).map((x) => x.address) ?? [],
    },
    assets: p.assets.map((a, k) => ({
      symbol: a.symbol ?? (a.id === "native" ? "native" : `token ${a.id.slice(0, 10)}…`),
      ...(a.id === "native" ? {} : { contract: a.id }),
      total: evmAmount(a.total.base_units, a.decimals, a.total.amount),
      total_base_units: a.total.base_units,
      decimals: a.decimals,
      addresses: p.addresses.length,
      holders: a.holders,
      proven_share: p.ownership
        ? share(BigInt(p.ownership.proven[k]?.base_units ?? "0"), BigInt(a.total.base_units))
        : null,
      proven: p.ownership
        ? evmAmount(
            p.ownership.proven[k]?.base_units ?? "0",
            a.decimals,
            p.ownership.proven[k]?.amount ?? "0",
          )
        : null,
      holdings: a.balances
        .filter((b) => b.base_units !== "0")
        .map((b) => ({ ...b, amount: evmAmount(b.base_units, a.decimals, b.amount) }))
        .sort(byAmount),
    })),
  };
}

/** The distribution of one asset for a chart: the largest `top` holdings and the rest as one slice. */
export function distribution(
  a: ReportAsset,
  top = 10,
): { label: string; base_units: bigint; share: string }[] {
  const whole = BigInt(a.total_base_units);
  const rows = a.holdings.slice(0, top).map((h) => ({
    label: h.address,
    base_units: BigInt(h.base_units),
    share: share(BigInt(h.base_units), whole),
  }));
  const rest = a.holdings.slice(top).reduce((s, h) => s + BigInt(h.base_units), 0n);
  if (a.holdings.length > top)
    rows.push({
      label: `${a.holdings.length - top} other addresses`,
      base_units: rest,
      share: share(rest, whole),
    });
  return rows;
}

/** A proof's verdict against its chain, as the report shows it. */
export interface ProofCheck {
  verdict: Verdict;
  /** what decides the verdict, stable: the first failing finding's code, else the first that cannot say, else "holds" */
  code: string;
  summary: string;
  /**
   * What the verifier re-derived from the node, for solvency (never the document's own word): the network
   * (a UTXO chain's genesis block hash once the proof's block is on the node's chain; an EVM chain id once
   * eth_chainId matched), the node's tip, the addresses a signature proved owned, and each output spent
   * since the proof's height with the height (and time) of the block that spent it.
   */
  chain: { network: NetworkId | null; tip: number | null; node: string };
  /** the proof's block's time as the node gives it (Unix seconds), or null when the block is not the node's */
  block_time: number | null;
  owned: string[];
  /**
   * the addresses the proof counts that no signature line names: never proven, whatever the node says, so never
   * what might be proven when the node cannot say (judge/holding.ts `unknownFor`); absent when none
   */
  unsigned?: string[];
  spent: Record<string, { height: number; time: number | null; median: number | null }>;
  /** an EVM proof's tokens whose balanceOf moved with the native balance (token → the address it moved at) */
  tracks_native?: Record<string, string>;
  /** of those, the ones that moved with another address's native balance (null: several at once) */
  tracks_follows?: Record<string, string | null>;
  /** an EVM proof's tokens whose tracking of the native balance the node could not tell (token → why) */
  tracking_unknown?: Record<string, string>;
  /**
   * an EVM proof's tokens whose balanceOf moved when another of its tokens answered otherwise (token → that
   * token, and the address it moved at): that token's coins again
   */
  reads_token?: Record<string, { token: string; address: string }>;
  /**
   * what each of an EVM proof's tokens' balanceOf(`holder`) reads outside itself ("contract slot", by
   * eth_createAccessList; two or more tokens), for the shared-ledger rule (judge/reads.ts); absent when not asked
   */
  ledger_slots?: { tokens: Record<string, string[]> };
  /**
   * the tokens whose storage reads the node could not list (token → why): the proof's and the other proofs'
   * tokens asked at its addresses alike
   */
  ledger_unknown?: Record<string, LedgerUntold>;
}

export interface CombinedReport {
  /** "holds" / "fails" / "cannot-say" with --verify; "not-verified" without (digests checked offline) */
  verdict: Verdict | "not-verified";
  summary: string;
  proofs: (ReportEntry & { verify?: ProofCheck })[];
  /** the command that verifies these proofs again */
  command: string;
}

/**
 * A proof as read for the report: its format's name in the registry (formats/registry.ts, whose module
 * verifies it), its entry, and the proof itself for verification.
 */
export type ReadProof = { format: string; entry: ReportEntry; utxo?: Proof; evm?: EvmProof };

/**
 * Verifies one UTXO proof of the report against its chain. With --verify the proven share shown is the
 * verifier's (signatures re-checked, subtotals re-derived), not the document's. Which function verifies a
 * file is its format's (formats/chaingw-reserves-module.ts), never decided here.
 */
export async function verifyUtxoEntry(
  client: JsonRpcClient,
  r: ReadProof,
  signal?: AbortSignal,
  options: VerifyOptions = {},
): Promise<ReportEntry & { verify: ProofCheck }> {
  const proof = r.utxo as Proof;
  const { verify } = await import("./utxo/verify.js");
  const v = await verify(verifyContext(client, { signal, options }), proof);
  const total = BigInt(proof.total.amount_sats);
  // the coin the node is, where the addresses' form did not say
  const symbol = v.node.coin ? coinOf(v.node.coin)?.ticker : undefined;
  const named = r.entry.assets.map((a) => (a.symbol === "coins" && symbol ? { ...a, symbol } : a));
  const assets = named.map((a) =>
    a.proven_share === null && v.ownership.proven_addresses === 0
      ? a
      : {
          ...a,
          proven_share: share(BigInt(v.ownership.proven_sats), total),
          proven: formatCoins(BigInt(v.ownership.proven_sats)),
        },
  );
  const spent: ProofCheck["spent"] = {};
  for (const o of v.outputs)
    if (o.spentAt !== undefined)
      spent[`${o.txid}:${o.vout}`] = {
        height: o.spentAt,
        time: o.spentTime ?? null,
        median: o.spentMedian ?? null,
      };
  const chain = { network: null as NetworkId | null, tip: v.node.tip, node: v.node.detail };
  let blockTime: number | null = null;
  if (v.block.ok) {
    // the proof's block is on this node's chain, so the node's genesis is the proof's network
    const { readAll } = await import("./utxo/reads.js");
    const [genesis] = await readAll(client, "getblockhash", [[0]]);
    if (typeof genesis === "string") chain.network = `utxo:${genesis}`;
    const [header] = await readAll(client, "getblockheader", [[proof.block_hash, true]]);
    const t = numberOf((header as { time?: unknown } | null)?.time);
    if (t !== undefined && Number.isSafeInteger(t)) blockTime = t;
  }
  const owned = v.addresses.filter((a) => a.ownership === "proven").map((a) => a.address);
  const unsigned = v.addresses.filter((a) => a.ownership === "claimed-only").map((a) => a.address);
  return { ...r.entry, assets, verify: checkOf(v, chain, blockTime, owned, unsigned, spent) };
}

/** The part of a proof's check every chain's has: its verdict, the chain read, what is owned or unsigned, spent. */
function checkOf(
  v: { verdict: Verdict; summary: string; findings: readonly Finding[] },
  chain: ProofCheck["chain"],
  blockTime: number | null,
  owned: string[],
  unsigned: string[],
  spent: ProofCheck["spent"],
): ProofCheck {
  return {
    verdict: v.verdict,
    code: verdictCode(v.findings),
    summary: v.summary,
    chain,
    block_time: blockTime,
    owned,
    ...(unsigned.length ? { unsigned } : {}),
    spent,
  };
}

/** Verifies one EVM balances proof of the report against its chain (the proven shares are the verifier's). */
export async function verifyEvmEntry(
  client: JsonRpcClient,
  r: ReadProof,
  signal?: AbortSignal,
  options: VerifyOptions = {},
): Promise<ReportEntry & { verify: ProofCheck }> {
  const proof = r.evm as EvmProof;
  const { verify } = await import("./evm/balances-verify.js");
  const v = await verify(verifyContext(client, { signal, options }), proof);
  // the proven share is the verifier's: signatures judged again, balances re-read
  const assets = r.entry.assets.map((a, k) =>
    a.proven_share === null
      ? a
      : {
          ...a,
          proven_share: v.ownership.proven[k]?.share ?? a.proven_share,
          proven: evmAmount(
            v.ownership.proven[k]?.base_units ?? "0",
            a.decimals,
            v.ownership.proven[k]?.amount ?? "0",
          ),
        },
  );
  const { groupOf } = await import("../chains/index.js");
  const { readBlock, readBlockTimed } = await import("./evm/balances-read.js");
  const head = v.chain.ok ? await readBlock(client, groupOf(proof.chain.group), "latest") : null;
  // the proof's block's time, when the node's block at that number is the proof's block
  const own = v.chain.ok
    ? await readBlockTimed(client, groupOf(proof.chain.group), `0x${proof.block.number.toString(16)}`)
    : null;
  const blockTime = own?.hash === proof.block.hash.toLowerCase() ? (own.time ?? null) : null;
  const chain = {
    // the chain id, and the genesis where the table knows that id's (the verifier's read)
    network: v.chain.ok ? (v.chain.network ?? `evm:${proof.chain.chain_id}`) : null,
    tip: head?.number ?? null,
    node: v.chain.detail,
  };
  const owned = v.ownership.addresses.filter((a) => a.ownership === "proven").map((a) => a.address);
  // an address no signature line names (the verifier lists those it judged, lower-cased)
  const judged = new Set(v.ownership.addresses.map((a) => a.address.toLowerCase()));
  const unsigned = proof.addresses.filter((a) => !judged.has(a.toLowerCase()));
  return {
    ...r.entry,
    assets,
    verify: {
      ...checkOf(v, chain, blockTime, owned, unsigned, {}),
      ...(v.tracking.tokens.length
        ? { tracks_native: Object.fromEntries(v.tracking.tokens.map((t) => [t.token, t.address])) }
        : {}),
      ...(v.tracking.tokens.some((t) => t.follows !== undefined)
        ? {
            tracks_follows: Object.fromEntries(
              v.tracking.tokens.flatMap((t) => (t.follows === undefined ? [] : [[t.token, t.follows]])),
            ),
          }
        : {}),
      ...(v.tracking.unknown?.length
        ? { tracking_unknown: Object.fromEntries(v.tracking.unknown.map((t) => [t.token, t.why])) }
        : {}),
      ...(v.tracking.ledger ? { ledger_slots: v.tracking.ledger } : {}),
      ...(v.tracking.ledgerUnknown
        ? {
            ledger_unknown: Object.fromEntries(
              v.tracking.ledgerUnknown.map(({ token, ...why }) => [token, why]),
            ),
          }
        : {}),
      ...(v.tracking.reads
        ? {
            reads_token: Object.fromEntries(
              v.tracking.reads.map((r) => [r.token, { token: r.reads, address: r.address }]),
            ),
          }
        : {}),
    },
  };
}

/** "3 h", "2 d": how long ago `then` was, roughly, for a verdict line (null when it is not a date). */
export function ageOf(then: string, now: Date): string | null {
  const ms = now.getTime() - Date.parse(then);
  if (!Number.isFinite(ms)) return null;
  const min = Math.max(0, Math.round(ms / 60_000));
  return min < 120
    ? `${min} min`
    : min < 48 * 60
      ? `${Math.round(min / 60)} h`
      : `${Math.round(min / 1440)} d`;
}

/**
 * Where and when one proof was judged: at its own height or block (never "now"), how far below the node's
 * tip that is, and how long ago it was made (its own claim).
 */
export function judgedAt(p: CombinedReport["proofs"][number], now: Date): string {
  const tip = p.verify?.chain.tip;
  const below =
    tip === null || tip === undefined
      ? ""
      : `, ${counted(tip - p.block, "block")} below the node's tip ${tip}`;
  const age = ageOf(p.claims.created_at, now);
  return `${p.file} at ${p.snapshot === "scan" ? "height" : "block"} ${p.block}${below}, made ${p.claims.created_at}${age ? ` (${age} ago)` : ""}`;
}

const JUDGED_NAMED = 3;

/** "proven owned 1.5 of 2 LTC; 0 of 7 USDX (no signatures)": per proof and asset, the verifier's figures. */
function provenLine(proofs: CombinedReport["proofs"]): string {
  return proofs
    .flatMap((p) =>
      p.assets.map((a) =>
        a.proven === null
          ? `${amountText(0n, a.decimals ?? 0)} of ${a.total} ${a.symbol} (no signatures)`
          : `${a.proven} of ${a.total} ${a.symbol}`,
      ),
    )
    .join("; ");
}

/** The report's one verdict and summary line over its proofs (verified or not). */
export function combine(
  proofs: CombinedReport["proofs"],
  verified: boolean,
  command: string,
  now = new Date(),
): CombinedReport {
  const verdicts = proofs.map((p) => p.verify?.verdict).filter((v): v is Verdict => v !== undefined);
  const badDigests = proofs.filter((p) => !p.digest_ok).length;
  const verdict: CombinedReport["verdict"] = !verified
    ? badDigests
      ? "fails"
      : "not-verified"
    : combineVerdicts([...verdicts, ...(badDigests ? (["fails"] as const) : [])]);
  const n = proofs.length;
  const count = (v: Verdict) => verdicts.filter((x) => x === v).length;
  const judged = proofs.slice(0, JUDGED_NAMED).map((p) => judgedAt(p, now));
  if (n > JUDGED_NAMED) judged.push(`${n - JUDGED_NAMED} more`);
  const summary =
    verdict === "holds"
      ? `${n === 1 ? "the proof holds" : `all ${counted(n, "proof")} hold`}, each re-read at its own height, not now (${judged.join("; ")}); proven owned (signed for, re-read): ${provenLine(proofs)}; the rest is claimed only`
      : verdict === "fails"
        ? `${Math.max(count("fails"), badDigests)} of ${counted(n, "proof")} do not hold${badDigests ? ` (${badDigests} edited since signing: digest mismatch)` : ""}`
        : verdict === "cannot-say"
          ? `cannot say whether ${count("cannot-say")} of ${counted(n, "proof")} hold (a node could not check them); none failed`
          : `${counted(n, "proof")}, digests match; not verified against the chains (--verify does that): nothing in them is proven, every figure is claimed`;
  return { verdict, summary, proofs, command };
}
