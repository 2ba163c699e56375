/**
 * `reserves verify` of an EVM balances proof. Every field that carries meaning is re-derived; the verifier is
 * the list of named steps `STEPS` (reserves/verifier.ts: one context, findings of one type):
 *  1. `document`: the digest (RFC 8785 form) matches (the reader has already checked the totals and holder
 *     counts); `inputs`: the inputs as given normalise to the proof's addresses, tokens and block;
 *  2. `chain`: the node is an EVM-style node (eth_chainId) on the proof's chain id, and the network name, the
 *     native coin's symbol and decimals are the chain's own definition's;
 *  3. `block`: the node has the proof's block (else it is behind: "cannot say", and by how much), and the
 *     block at the proof's number is still the proof's block (canonical); `reread`: the block tag the state
 *     is read again at (a latest-only snapshot only while the head is still its block);
 *  4. `metadata`: every token's decimals() and symbol(), re-read at that block, are the proof's;
 *  5. `balances`: every balance, re-read at that block, is the proof's;
 *  5b. `tracking`: which tokens read the native coin, another token, or a ledger another reads (for solvency);
 *  6. `ownership`: each signature is judged again over the proof's challenge (and `--challenge` must be that
 *     challenge): a key's EIP-191 / TIP-191 signature offline, a contract wallet's EIP-1271 answer at the
 *     proof's block (a node without that state: "cannot say"); the proven totals come from the balances
 *     that re-read equal, never from the document's own figures. Signatures are matched to the document's
 *     claims by address, as in every verifier.
 * Every state read of steps 4-6 is of the block step's block: asked by its hash (EIP-1898 `{ "blockHash" }`) where
 * the chain takes that form, and block N's hash asked again after the balances and again after the last read
 * (a chain read by number or at its head: java-tron's JSON-RPC takes neither a number nor a hash for state).
 * A node that cannot read state at that block (not an archive node; a head-only chain once its head moved), of
 * another kind, on another chain, or whose block changed during the re-read (a reorg): "cannot say", exit 3.
 */

import { networkLabel } from "../../chains/assets.js";
import { groupOf } from "../../chains/index.js";
import type { ChainGroup } from "../../chains/types.js";
import { ChaingwError, RpcError } from "../../errors/index.js";
import type { EvmProof } from "../../proof/evm-document.js";
import { digestOf } from "../../proof/jcs.js";
import { amountOf } from "../../util/units.js";
import { quorumClaim } from "../claims.js";
import {
  type ChallengeCheck,
  checkChallenge,
  counted,
  type Finding,
  type Findings,
  type Verdict,
} from "../verdict.js";
import {
  cannotSay,
  fails,
  ok,
  outcomeOf,
  runSteps,
  type VerifyContext,
  type VerifyStep,
} from "../verifier.js";
import { planBalances } from "./balances.js";
import {
  readAccountNetwork,
  readBalances,
  readBlock,
  readChainId,
  readTokenMeta,
  type StateAt,
  StateUnavailableError,
} from "./balances-read.js";
import { blockMoved, checkOwnership } from "./balances-verify-ownership.js";
import { probeTracking, type Tracking } from "./mirrors.js";

export interface EvmAssetVerdict {
  id: string;
  symbol: string | null;
  decimals: number | null;
  total: string;
  total_base_units: string;
  /** decimals and symbol re-read at the proof's block (tokens), or the chain's own (native); null: not checked */
  metadata_ok: boolean | null;
  checked: number;
  mismatches: number;
}

export interface EvmVerifyReport extends Findings {
  format: string;
  verdict: Verdict;
  /** true only for "holds" */
  holds: boolean;
  /** what the proof states that no chain confirms */
  claims: { created_at: string; quorum: string | null };
  digest: { ok: boolean; claimed: string; computed: string };
  inputs: { ok: boolean; detail: string };
  /** `network`: the network the node is on (its chain id, and its genesis where the table knows that id's) */
  chain: { ok: boolean | null; detail: string; network?: string };
  block: { ok: boolean | null; number: number; hash: string; detail: string };
  metadata: { ok: boolean | null; detail: string };
  balances: { ok: boolean | null; checked: number; detail: string };
  assets: EvmAssetVerdict[];
  /** the challenge the signatures are over, and --challenge when it was required */
  challenge: ChallengeCheck;
  /** per address with a signature: proven, unproven (the chain answered against it) or cannot-say */
  ownership: {
    addresses: {
      address: string;
      ownership: "proven" | "unproven" | "cannot-say";
      format: string;
      detail: string;
    }[];
    /** per asset, re-derived from the balances that re-read equal */
    proven: { asset: string; amount: string; base_units: string; share: string }[];
    proven_addresses: number;
  };
  /** each balance that differs, at most 100 */
  mismatches: { asset: string; address: string; proof: string; node: string }[];
  /** the tokens whose balanceOf moved with the holder's native balance (mirrors.ts `probeTracking`) */
  tracking: Tracking;
  summary: string;
  /** every step's findings, in order (`failures` and `cannot_say` are derived from them) */
  findings: Finding[];
}

export type EvmVerifyEvent = { type: "read"; done: number; total: number } | { type: "step"; text: string };

export type Ctx = VerifyContext<EvmVerifyEvent>;

/** What the steps learn and fill in: the chain, the block tag to re-read at, and the report's sections. */
export interface State {
  proof: EvmProof;
  chain: ChainGroup;
  digest: EvmVerifyReport["digest"];
  inputs: EvmVerifyReport["inputs"];
  chainCheck: EvmVerifyReport["chain"];
  block: EvmVerifyReport["block"];
  /** the block the state is read again at (by hash where the chain takes EIP-1898); undefined: it cannot be */
  at?: StateAt;
  /** block N was seen to change during the re-read (said once, by the step that saw it) */
  reorg?: boolean;
  /** block N's hash as last asked again (null: the node had no block N) */
  nowHash?: string | null;
  /** the node could not read the state at `at` (not an archive node): said once, in `balances` */
  stateUnavailable: boolean;
  metadata: EvmVerifyReport["metadata"];
  balances: EvmVerifyReport["balances"];
  assets: EvmAssetVerdict[];
  mismatches: EvmVerifyReport["mismatches"];
  /** every balance that differs (mismatches keeps the first 100 for the report) */
  differing: Set<string>;
  /** the balances as re-read, `[asset][address]` (step 5), for the tracking probe */
  values?: bigint[][];
  tracking: EvmVerifyReport["tracking"];
  challenge: ChallengeCheck;
  ownership: EvmVerifyReport["ownership"];
}

const assetName = (p: EvmProof, id: string) => {
  const a = p.assets.find((x) => x.id === id);
  return a?.symbol ?? id;
};

const same = (a: readonly string[], b: readonly string[]) =>
  a.length === b.length && a.every((x, i) => x === b[i]);

/** 1a. The digest over the document's RFC 8785 form. */
function checkDigest(_c: Ctx, s: State): Finding[] {
  const { proof } = s;
  const computed = digestOf(proof);
  s.digest = { ok: computed === proof.digest, claimed: proof.digest, computed };
  return [
    s.digest.ok
      ? ok("document", `digest: the content hashes to ${computed}`, "digest")
      : fails(
          "document",
          `digest: the document hashes to ${computed}, not ${proof.digest} (it was edited)`,
          "digest",
        ),
  ];
}

/** 1b. The inputs as given, normalised again, are the proof's addresses, tokens and block. */
async function checkInputs(_c: Ctx, s: State): Promise<Finding[]> {
  const { proof, chain } = s;
  const bad = (why: string, at: string) => {
    s.inputs = { ok: false, detail: why };
    return [fails("inputs", `inputs: ${why}`, at)];
  };
  let plan: Awaited<ReturnType<typeof planBalances>>;
  try {
    plan = await planBalances({
      chain,
      args: proof.inputs.addresses,
      tokens: proof.inputs.tokens,
      native: proof.inputs.native,
      block: proof.inputs.block,
    });
  } catch (e) {
    const details = e instanceof ChaingwError && e.details?.length ? `: ${e.details.join("; ")}` : "";
    return bad(`the inputs as given are not valid input (${(e as Error).message}${details})`, "inputs");
  }
  if (!same(plan.addresses, proof.addresses))
    return bad(
      "the addresses as given do not normalise to the addresses the proof states balances for",
      "inputs.addresses",
    );
  const ids = [...(plan.native ? ["native"] : []), ...plan.tokens];
  if (
    !same(
      ids,
      proof.assets.map((a) => a.id),
    )
  )
    return bad(
      `the assets asked (${ids.join(", ")}) are not the proof's (${proof.assets.map((a) => a.id).join(", ")})`,
      "inputs.tokens",
    );
  if (plan.block !== "latest" && BigInt(plan.block) !== BigInt(proof.block.number))
    return bad(
      `block ${proof.inputs.block} was asked, the proof is at block ${proof.block.number}`,
      "inputs.block",
    );
  s.inputs = {
    ok: true,
    detail: `${counted(plan.given.length, "address")} as given, ${counted(ids.length, "asset")}`,
  };
  return [ok("inputs", s.inputs.detail, "inputs")];
}

/** 2. The node's chain, and what the chain's own definition says of the network and its coin. */
async function checkChain(c: Ctx, s: State): Promise<Finding[]> {
  const { proof, chain } = s;
  c.onEvent({ type: "step", text: "checking the chain and the block" });
  let id: bigint;
  try {
    id = await readChainId(c.client, chain);
  } catch (e) {
    if (!(e instanceof RpcError)) throw e;
    const detail = `the node is not an EVM-style node: it answered eth_chainId with "${e.rpcMessage}" (${e.code})${/not found/i.test(e.rpcMessage) ? " (a bitcoind-family node?)" : ""}; give the proof a node of chain id ${proof.chain.chain_id}`;
    s.chainCheck = { ok: null, detail };
    return [cannotSay("chain", `node: ${detail}`, "chain.chain_id")];
  }
  const traits = chain.evm as NonNullable<ChainGroup["evm"]>;
  const other = `the node is on chain id ${id}, the proof on ${proof.chain.chain_id}: this node cannot check it; ask a node of chain id ${proof.chain.chain_id}`;
  const rule = { standIns: c.options.standIns, strict: true }; // a stand-in: read, named so; another: unread
  const same = id.toString() === proof.chain.chain_id;
  const answered = same ? await readAccountNetwork(c.client, chain, id, rule) : { unread: other };
  if ("unread" in answered) {
    s.chainCheck = { ok: null, detail: answered.unread };
    return [cannotSay("chain", `chain: ${answered.unread}`, "chain.chain_id")];
  }
  const { network } = answered;
  const problems: Finding[] = [];
  const proofNetwork = answered.standIn && proof.chain.network === null ? network?.name : proof.chain.network;
  if ((network?.name ?? null) !== proofNetwork)
    problems.push(
      fails(
        "chain",
        `chain.network: the proof names the network ${JSON.stringify(proof.chain.network)}, chain id ${id} is ${network ? `"${network.name}"` : answered.id !== `evm:${id}` ? networkLabel(answered.id) : "no network chaingw names"}`,
        "chain.network",
      ),
    );
  const native = proof.assets.find((a) => a.id === "native");
  if (native) {
    const symbol = network?.symbol ?? traits.native.symbol;
    if (native.symbol !== symbol)
      problems.push(
        fails(
          "chain",
          `native coin: the proof calls it ${JSON.stringify(native.symbol)}, chain id ${id}'s coin is "${symbol}"`,
          "assets.native.symbol",
        ),
      );
    if (native.decimals !== traits.native.decimals)
      problems.push(
        fails(
          "chain",
          `native coin: the proof gives it ${native.decimals} decimals, the ${chain.name} chain's coin has ${traits.native.decimals}`,
          "assets.native.decimals",
        ),
      );
  }
  s.chainCheck = problems.length
    ? { ok: false, detail: problems.map((p) => p.text).join("; ") }
    : { ok: true, detail: answered.named, network: answered.id };
  for (const a of s.assets) if (a.id === "native") a.metadata_ok = s.chainCheck.ok;
  return problems.length ? problems : [ok("chain", s.chainCheck.detail, "chain")];
}

/** 3. The proof's block on the node's chain now (holds, fails: no longer canonical; cannot say: behind). */
async function checkBlock(c: Ctx, s: State): Promise<Finding[]> {
  const { proof, chain } = s;
  const n = proof.block.number;
  const block = s.block;
  if (s.chainCheck.ok === null) return [];
  const head = await readBlock(c.client, chain, "latest");
  if (head === null || head.number < n) {
    block.detail = `the node's head is block ${head?.number ?? "?"}${head ? `, ${counted(n - head.number, "block")} behind the proof's block ${n}` : ""}: it cannot check this proof yet; verify again once it has caught up`;
    return [cannotSay("block", `block: ${block.detail}`, "block.number")];
  }
  const now = await readBlock(c.client, chain, `0x${n.toString(16)}`);
  block.ok = now !== null && now.hash === proof.block.hash;
  block.detail = block.ok
    ? `block ${n} is ${proof.block.hash} on the node's chain`
    : now === null
      ? `the node has no block ${n} though its head is ${head.number}`
      : `block ${n} is now ${now.hash}, not the proof's ${proof.block.hash}: the proof's block is no longer canonical`;
  return [
    block.ok
      ? ok("block", block.detail, "block.hash")
      : fails("block", `block: ${block.detail}`, "block.hash"),
  ];
}

/**
 * 3b. The block tag the balances are read again at: the pinned block, or "latest" for a latest-only
 * snapshot while the head is still its block (else cannot say, said in `balances`).
 */
async function rereadTag(c: Ctx, s: State): Promise<Finding[]> {
  const { proof, chain } = s;
  const n = proof.block.number;
  if (!s.block.ok) return [];
  if (proof.snapshot === "pinned") {
    // by the hash the block step checked, where the chain takes it: a reorg after it is no block read by number
    s.at = chain.evm?.eip1898 ? { blockHash: proof.block.hash, number: n } : `0x${n.toString(16)}`;
    return [];
  }
  // a latest-only snapshot can be read again only while the head is still its block
  const head = await readBlock(c.client, chain, "latest");
  if (head && head.number === n && head.hash === proof.block.hash) {
    s.at = "latest";
    return [];
  }
  s.balances.detail = `a latest-only snapshot: the ${chain.name} chain serves state at its head only, and the head is now block ${head?.number ?? "?"}, so the balances at block ${n} cannot be re-read`;
  return [cannotSay("reread", s.balances.detail, "snapshot")];
}

/**
 * The state read at the block by `read`; a node without that state (not an archive node) is said once as
 * "cannot say", and no later read is tried.
 */
async function stateRead(s: State, read: (at: StateAt) => Promise<Finding[]>): Promise<Finding[]> {
  if (s.at === undefined || s.stateUnavailable) return [];
  try {
    return await read(s.at);
  } catch (e) {
    if (!(e instanceof StateUnavailableError)) throw e;
    s.stateUnavailable = true;
    s.balances.detail = e.message;
    return [cannotSay("balances", `${e.message}${e.hint ? ` — ${e.hint}` : ""}`, "block")];
  }
}

/** 4. Each token's decimals and symbol read again at the block, against the proof's. */
const checkMetadata = (c: Ctx, s: State): Promise<Finding[]> =>
  stateRead(s, async (at) => {
    const { proof, chain } = s;
    const n = proof.block.number;
    const tokens = proof.assets.filter((a) => a.id !== "native");
    c.onEvent({ type: "step", text: `re-reading ${counted(tokens.length, "token")}' decimals and symbol` });
    const meta = await readTokenMeta(
      c.client,
      chain,
      tokens.map((t) => t.id),
      at,
      c.signal,
    );
    const changed: Finding[] = [];
    tokens.forEach((t, k) => {
      const m = meta[k];
      const v = s.assets.find((a) => a.id === t.id);
      if (!m || !v) return;
      const diffs: string[] = [];
      if (m.decimals !== t.decimals)
        diffs.push(`decimals ${m.decimals ?? "none"} (the proof says ${t.decimals ?? "none"})`);
      if (m.symbol !== t.symbol || m.symbol_source !== t.symbol_source)
        diffs.push(
          `symbol ${JSON.stringify(m.symbol)} as ${m.symbol_source} (the proof says ${JSON.stringify(t.symbol)} as ${t.symbol_source})`,
        );
      v.metadata_ok = diffs.length === 0;
      if (diffs.length)
        changed.push(fails("metadata", `token ${t.id} answers ${diffs.join(" and ")} at block ${n}`, t.id));
    });
    s.metadata = changed.length
      ? {
          ok: false,
          detail: `${changed.length} of ${counted(tokens.length, "token")} answer other decimals or symbol`,
        }
      : {
          ok: true,
          detail: `${counted(tokens.length, "token")}' decimals and symbol re-read at block ${n}, all equal; the native coin's from the chain's definition`,
        };
    return changed.length ? changed : [ok("metadata", s.metadata.detail)];
  });

/** 5. Every balance read again at the block; each that differs is a failure naming the asset and address. */
const checkBalances = (c: Ctx, s: State): Promise<Finding[]> =>
  stateRead(s, async (at) => {
    const { proof, chain, balances, mismatches, differing } = s;
    const n = proof.block.number;
    let values: bigint[][] | undefined;
    try {
      values = await readBalances(
        c.client,
        chain,
        proof.assets.map((a) => a.id),
        proof.addresses,
        at,
        (done, total) => c.onEvent({ type: "read", done, total }),
        c.signal,
      );
    } catch (e) {
      // asked by its hash, a block the node no longer knows: said as the reorg it is, if block N moved
      if (!(e instanceof StateUnavailableError) || typeof at === "string") throw e;
      if (!(await blockMoved(c, s))) throw e;
    }
    const moved = values === undefined ? true : await blockMoved(c, s);
    if (moved || values === undefined) {
      s.reorg = true;
      balances.detail =
        at === "latest"
          ? `the head moved off block ${n} during the re-read; a latest-only snapshot cannot be re-read now`
          : `block ${n} changed from ${proof.block.hash} to ${s.nowHash ?? "nothing"} during the re-read (a reorg): the balances read may be of another block, so none is judged; verify again`;
      return [cannotSay("balances", balances.detail, at === "latest" ? "snapshot" : "block.hash")];
    }
    s.values = values;
    proof.assets.forEach((a, i) => {
      const v = s.assets[i];
      if (!v) return;
      a.balances.forEach((b, j) => {
        const node = values[i]?.[j];
        v.checked++;
        if (node?.toString() === b.base_units) return;
        differing.add(`${a.id} ${b.address}`);
        v.mismatches++;
        if (mismatches.length < 100)
          mismatches.push({ asset: a.id, address: b.address, proof: b.base_units, node: String(node) });
      });
      balances.checked += v.checked;
    });
    const bad = s.assets.reduce((t, a) => t + a.mismatches, 0);
    balances.ok = bad === 0;
    balances.detail = balances.ok
      ? `${balances.checked} balances re-read at block ${n}, all equal`
      : `${bad} of ${balances.checked} balances differ at block ${n}`;
    if (balances.ok) return [ok("balances", balances.detail)];
    return mismatches.map((m) =>
      fails(
        "balances",
        `${assetName(proof, m.asset)} of ${m.address}: the proof says ${m.proof}, the node ${m.node} base units at block ${n}`,
        `${m.asset} ${m.address}`,
      ),
    );
  });

/** 5b. Which tokens track the native coin (`probeTracking`): for solvency, never a failure of the proof. */
async function checkTracking(c: Ctx, s: State): Promise<Finding[]> {
  if (!s.values || s.at === undefined) return [];
  c.onEvent({ type: "step", text: "probing the tokens for the native balance" });
  const [id, mine] = [s.proof.chain.chain_id, new Set(s.proof.addresses.map((a) => a.toLowerCase()))];
  const own = new Set(s.proof.assets.map((a) => a.id.toLowerCase()));
  const also = (c.options.nativeAlso?.get(id) ?? []).filter((a) => !mine.has(a.toLowerCase()));
  const tokens = (c.options.tokensAlso?.get(id) ?? []).filter((t) => !own.has(t));
  s.tracking = await probeTracking(c.client, s.chain, s.proof, s.at, c.signal, also, true, tokens);
  return s.tracking.probed && !s.tracking.unknown ? [ok("tracking", s.tracking.detail)] : [];
}

/** The EVM balances proof's checks, in order (the module's comment says what each does). */
export const STEPS: readonly VerifyStep<Ctx, State>[] = [
  { name: "document", run: checkDigest },
  { name: "inputs", run: checkInputs },
  { name: "chain", run: checkChain },
  { name: "block", run: checkBlock },
  { name: "reread", run: rereadTag },
  { name: "metadata", run: checkMetadata },
  { name: "balances", run: checkBalances },
  { name: "tracking", run: checkTracking },
  { name: "ownership", run: checkOwnership },
];

function initialState(proof: EvmProof): State {
  return {
    proof,
    chain: groupOf(proof.chain.group),
    digest: { ok: false, claimed: proof.digest, computed: "" },
    inputs: { ok: false, detail: "" },
    chainCheck: { ok: null, detail: "" },
    block: { ok: null, number: proof.block.number, hash: proof.block.hash, detail: "not checked" },
    stateUnavailable: false,
    metadata: { ok: null, detail: "not checked" },
    balances: { ok: null, checked: 0, detail: "not re-read" },
    assets: proof.assets.map((a) => ({
      id: a.id,
      symbol: a.symbol,
      decimals: a.decimals,
      total: a.total.amount,
      total_base_units: a.total.base_units,
      metadata_ok: null,
      checked: 0,
      mismatches: 0,
    })),
    mismatches: [],
    differing: new Set(),
    tracking: { probed: false, tokens: [], detail: "not probed" },
    challenge: checkChallenge(proof.challenge ?? null, undefined),
    ownership: { addresses: [], proven: [], proven_addresses: 0 },
  };
}

/** Verifies an EVM balances proof against the context's node: every step, one report. */
export async function verify(ctx: Ctx, proof: EvmProof): Promise<EvmVerifyReport> {
  const s = initialState(proof);
  const findings = await runSteps(ctx, s, STEPS);
  const n = proof.block.number;
  const outcome = outcomeOf(findings, () => {
    // per asset the proven amount (a valid signature, the balance re-read) before the claimed total, each
    // the one way (at the asset's decimals)
    const at = (a: EvmProof["assets"][number], x: string) => amountOf(x, a.decimals ?? 0);
    const each = (a: EvmProof["assets"][number], k: number) =>
      `${a.symbol ?? a.id}${a.decimals === null ? " (base units)" : ""} proven owned ${at(a, s.ownership.proven[k]?.amount ?? "0")} of ${at(a, a.total.amount)}`;
    const totals = proof.assets.map(each).join(", ");
    return `${totals} (${s.ownership.proven_addresses} of ${counted(proof.addresses.length, "address")} signed the challenge; the rest claimed only), at block ${n} (${proof.block.hash}), every balance re-read`;
  });
  return {
    format: proof.format,
    verdict: outcome.verdict,
    holds: outcome.holds,
    claims: { created_at: proof.created_at, quorum: quorumClaim(proof.quorum) },
    digest: s.digest,
    inputs: s.inputs,
    chain: s.chainCheck,
    block: s.block,
    metadata: s.metadata,
    balances: s.balances,
    assets: s.assets,
    challenge: s.challenge,
    ownership: s.ownership,
    mismatches: s.mismatches,
    tracking: s.tracking,
    failures: outcome.failures,
    cannot_say: outcome.cannot_say,
    summary: outcome.summary,
    findings,
  };
}
