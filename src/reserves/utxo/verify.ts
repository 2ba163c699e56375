/**
 * `reserves verify` of a UTXO reserve proof: checks the document later, against any ordinary node (no
 * -txindex, no rewind). Every field that carries meaning is re-derived from the chain or from the proof's own
 * re-derived data; what cannot be (created_at, the challenge text itself) is returned as the proof's claim.
 * The verifier is the list of named steps `STEPS` (reserves/verifier.ts: one context, findings of one type;
 * docs/proofs.md has the field-by-field table):
 *
 *  1. `document`: the digest (RFC 8785 form); the totals and every per-address subtotal are the sums of
 *     the outputs attributed to it;
 *  2. `node`: the node is a bitcoind-family node, on the proof's network (`chain`), of a coin whose
 *     addresses chaingw decodes, and at or above the proof's height. Otherwise "cannot say", and the chain
 *     steps below find nothing: a node behind, or of the wrong kind, knows nothing against the proof;
 *  3. `block`: the block at the proof's height on the node's active chain is the proof's block (else
 *     where the chains part);
 *  4. `attribution`: each output's script is exactly the script of what the proof attributes it to (the
 *     address decoded with the node's chain's rules, or the descriptor expanded by the node), and is among
 *     the scripts the proof's scan objects produce;
 *  5. `existence`: in the block the proof names, the transaction has that output, amount and script
 *     (getrawtransaction with the block hash: no -txindex needed);
 *  6. `unspent`: each output was unspent at the proof's height: unspent now (gettxout), or spent in a
 *     block above the proof's height, found by walking blocks upward while some output is unaccounted for;
 *  7. `outputs`: each output's verdict from steps 4-6 as one finding;
 *  8. `ownership`: signatures verify over the proof's challenge (and over `--challenge` when given), for
 *     addresses of the node's chain; the proven total is summed from the re-derived subtotals.
 *
 * A check the chain answered against the proof is a failure ("does not hold"); one the node could not answer
 * (pruned block, no such RPC, an error) is "cannot say". Reads go in batch arrays through the client's batch
 * path. Data out, progress as events.
 */

import { COINS, type Coin, coinNetworkLabel, coinOfNode, whyNotMessageCoin } from "../../chains/coins.js";
import { RpcError } from "../../errors/index.js";
import { type JsonValue, numberOf } from "../../json/lossless.js";
import type { Proof } from "../../proof/document.js";
import { digestOf } from "../../proof/jcs.js";
import { quorumClaim, unitOf } from "../claims.js";
import { DEFAULT_WALK_BLOCKS } from "../defaults.js";
import { checkChallenge, counted, type Finding } from "../verdict.js";
import { cannotSay, fails, ok, outcomeOf, runSteps, type VerifyStep } from "../verifier.js";
import { formatCoins } from "./amount.js";
import { readEach } from "./reads.js";
import { checkAttribution, checkExistence, checkUnspent, outputFindings } from "./verify-outputs.js";
import { checkOwnership } from "./verify-ownership.js";
import { type Ctx, obj, outcomeValue, readOne, type State, type VerifyReport } from "./verify-state.js";

export type { VerifyOptions } from "../verifier.js";
export type {
  AddressVerdict,
  OutputState,
  OutputVerdict,
  ProofClaims,
  VerifyEvent,
  VerifyReport,
} from "./verify-state.js";

/** 1. The digest, the totals, and each per-address subtotal as the sum of the outputs attributed to it. */
function checkDocument(_c: Ctx, s: State): Finding[] {
  const { proof } = s;
  const out: Finding[] = [];
  const { digest: claimed, ...body } = proof;
  const computed = digestOf(body);
  const digestOk = computed === claimed;
  out.push(
    digestOk
      ? ok("document", `digest: the content hashes to ${claimed}`, "digest")
      : fails(
          "document",
          `digest: the document's digest is ${claimed}, its content hashes to ${computed} (edited after it was made)`,
          "digest",
        ),
  );
  let sum = 0n;
  for (const x of proof.outputs) {
    sum += BigInt(x.amount_sats);
    const t = s.subtotals.get(x.matched) ?? { sats: 0n, outputs: 0 };
    t.sats += BigInt(x.amount_sats);
    t.outputs++;
    s.subtotals.set(x.matched, t);
  }
  const totalsOk = sum.toString() === proof.total.amount_sats && proof.outputs.length === proof.total.outputs;
  if (!totalsOk)
    out.push(
      fails(
        "document",
        `totals: the outputs add up to ${sum} base units in ${proof.outputs.length} outputs, the document claims ${proof.total.amount_sats} in ${proof.total.outputs}`,
        "total",
      ),
    );
  const listed = new Set(proof.by_address.map((a) => a.address));
  for (const [k, a] of proof.by_address.entries()) {
    const t = s.subtotals.get(a.address) ?? { sats: 0n, outputs: 0 };
    if (t.sats.toString() !== a.amount_sats || t.outputs !== a.outputs)
      out.push(
        fails(
          "document",
          `by_address ${a.address}: credited ${a.amount} in ${counted(a.outputs, "output")}, but the outputs attributed to it add up to ${formatCoins(t.sats)} in ${counted(t.outputs, "output")}`,
          `by_address[${k}]`,
        ),
      );
  }
  for (const [m, t] of s.subtotals)
    if (!listed.has(m))
      out.push(
        fails(
          "document",
          `by_address: ${m} holds ${formatCoins(t.sats)} in the outputs but has no subtotal in the document`,
          "by_address",
        ),
      );
  s.digest = { ok: digestOk, claimed, computed };
  s.totals = {
    ok: totalsOk,
    amount: proof.total.amount,
    amount_sats: proof.total.amount_sats,
    outputs: proof.total.outputs,
    detail: totalsOk ? "the outputs add up to the total" : "the outputs do not add up to the total",
  };
  return out;
}

/**
 * 2. The node: a bitcoind-family node (getblockchaininfo answers with a chain name), on the proof's network,
 * of a coin chaingw decodes addresses for, and not behind the proof. Any of these missing is "cannot say".
 */
async function checkNode(c: Ctx, s: State): Promise<Finding[]> {
  const { proof } = s;
  c.onEvent({ type: "step", text: "asking the node what it is" });
  const [infoO, netO, genesisO] = await Promise.all([
    readEach(c.client, "getblockchaininfo", [[]]),
    readEach(c.client, "getnetworkinfo", [[]]),
    readEach(c.client, "getblockhash", [[0]]),
  ]);
  const info = outcomeValue(infoO[0]);
  const node = s.node;
  const cannot = (detail: string) => {
    node.ok = false;
    node.detail = detail;
    return [cannotSay("node", `node: ${node.detail}`, "chain")];
  };
  const wrongKind = (what: string) =>
    cannot(
      `the node is not a bitcoind-family node of the proof's kind: ${what}; give the proof a ${proof.chain} UTXO node (\`--url\`)`,
    );
  if (info instanceof RpcError)
    return wrongKind(
      `it answered getblockchaininfo with "${info.rpcMessage}" (${info.code})${/not found/i.test(info.rpcMessage) ? " (an EVM node?)" : ""}`,
    );
  const i = obj(info);
  if (!i || typeof i.chain !== "string") return wrongKind("its getblockchaininfo has no chain name");
  node.chain = i.chain;
  const tip = numberOf(i.blocks);
  node.tip = tip ?? null;
  s.tip = tip ?? -1;
  const sub = String(obj(outcomeValue(netO[0]))?.subversion ?? "");
  // the coin is the chain's: its genesis block, the user-agent only between coins that share one
  const genesis = outcomeValue(genesisO[0]);
  const coin = typeof genesis === "string" ? coinOfNode(genesis, sub) : undefined;
  s.coin = coin?.uses.messages ? coin.id : undefined;
  node.coin = s.coin ?? null;
  if (node.chain !== proof.chain) {
    // each network by the one naming function: the proof's with the coin its addresses name, else the node's
    const named = (c: Coin | undefined, n: string) => (c ? coinNetworkLabel(c, n) : `the "${n}" network`);
    const wanted = named(
      COINS.find((x) => x.ticker === unitOf(proof, coin?.id)),
      proof.chain,
    );
    return cannot(
      `the node is on ${named(coin, node.chain)}, the proof on ${wanted}: this node cannot check it; ask a node on ${wanted}`,
    );
  }
  if (s.coin === undefined)
    return cannot(whyNotMessageCoin(typeof genesis === "string" ? genesis : undefined, sub));
  if (tip === undefined || tip < proof.height) {
    const behind = tip === undefined ? "" : ` (${counted(proof.height - tip, "block")} behind)`;
    return cannot(
      `the node's tip is at height ${tip ?? "?"}, below the proof's height ${proof.height}${behind}: it cannot check this proof yet; verify again once it has caught up`,
    );
  }
  node.ok = true;
  node.detail = `${sub.replace(/^\/|\/$/g, "")} on ${node.chain}, tip ${tip}`;
  s.nodeOk = true;
  return [ok("node", node.detail, "chain")];
}

/** Where the node's active chain and the proof's part: the proof's block's branch, walked down. */
async function partingPoint(c: Ctx, s: State, nodeHash: JsonValue | RpcError): Promise<string> {
  const { client } = c;
  const { proof } = s;
  let cur = obj(await readOne(client, "getblockheader", [proof.block_hash, true]));
  if (cur) {
    // the node knows the proof's block on a branch that is not active: walk back to the active chain, at most
    // --walk headers (the branch is the node's, not the proof's: its length is not bounded by the proof)
    const limit = c.options.walkBlocks ?? DEFAULT_WALK_BLOCKS;
    let steps = 0;
    for (; steps < limit && numberOf(cur.confirmations) === -1; steps++) {
      const prev = cur.previousblockhash;
      if (typeof prev !== "string") break;
      const v = obj(await readOne(client, "getblockheader", [prev, true]));
      if (!v) break;
      cur = v;
    }
    const common = numberOf(cur.height);
    const head = `the node's active chain has ${String(nodeHash)} at height ${proof.height}; the proof's block is on a branch that parts from it`;
    if (steps >= limit && numberOf(cur.confirmations) === -1)
      return `${head} below height ${common} (block ${String(cur.hash)}, reached ${counted(steps, "header")} down, the most --walk ${limit} reads)`;
    return `${head} above height ${common} (block ${String(cur.hash)})`;
  }
  // unknown block: narrow the parting with the outputs' own blocks, highest first
  const heights = [...new Set(proof.outputs.map((o) => o.height))].sort((a, b) => b - a);
  const hashes = await readEach(
    client,
    "getblockhash",
    heights.map((x) => [x]),
  );
  const want = new Map(proof.outputs.map((o) => [o.height, o.block_hash]));
  const agree = heights.find((x, i) => outcomeValue(hashes[i]) === want.get(x));
  return `the node does not know the proof's block ${proof.block_hash}; its chain has ${nodeHash instanceof RpcError ? "no block" : String(nodeHash)} at height ${proof.height}, so the chains part ${agree === undefined ? "below the proof's outputs" : `above height ${agree}`} and at or below ${proof.height}`;
}

/** 3. The proof's block on the node's active chain. */
async function checkBlock(c: Ctx, s: State): Promise<Finding[]> {
  const { proof } = s;
  c.onEvent({ type: "step", text: `checking block ${proof.height}` });
  const nodeHash = await readOne(c.client, "getblockhash", [proof.height]);
  if (nodeHash === proof.block_hash) {
    s.block = {
      ok: true,
      height: proof.height,
      hash: proof.block_hash,
      detail: `block ${proof.height} is ${proof.block_hash} on the node's active chain (tip ${s.tip})`,
    };
    return [ok("block", s.block.detail, "block_hash")];
  }
  const detail = await partingPoint(c, s, nodeHash);
  s.block = { ok: false, height: proof.height, hash: proof.block_hash, detail };
  return [fails("block", `block: ${detail}`, "block_hash")];
}

/** The steps that ask the node: none of them applies once the node said it cannot check the proof. */
const onNode = (
  name: string,
  run: (c: Ctx, s: State) => Promise<Finding[]> | Finding[],
): VerifyStep<Ctx, State> => ({
  name,
  run: (c, s) => (s.nodeOk ? run(c, s) : []),
});

/** The UTXO proof's checks, in order (the module's comment says what each does). */
export const STEPS: readonly VerifyStep<Ctx, State>[] = [
  { name: "document", run: checkDocument },
  { name: "node", run: checkNode },
  onNode("block", checkBlock),
  onNode("attribution", checkAttribution),
  onNode("existence", checkExistence),
  onNode("unspent", checkUnspent),
  onNode("outputs", outputFindings),
  { name: "ownership", run: checkOwnership },
];

/** The state before the first step: every output unspent until a step says otherwise. */
function initialState(proof: Proof): State {
  return {
    proof,
    tip: -1,
    nodeOk: false,
    subtotals: new Map(),
    verdicts: proof.outputs.map((x) => ({
      txid: x.txid,
      vout: x.vout,
      amount: x.amount,
      matched: x.matched,
      ok: true,
      state: "unspent",
      detail: "",
    })),
    digest: { ok: false, claimed: proof.digest, computed: "" },
    totals: {
      ok: false,
      amount: proof.total.amount,
      amount_sats: proof.total.amount_sats,
      outputs: proof.total.outputs,
      detail: "",
    },
    node: { ok: null, chain: null, coin: null, tip: null, detail: "" },
    block: {
      ok: null,
      height: proof.height,
      hash: proof.block_hash,
      detail: "not checked: the node cannot check this proof",
    },
    attribution: { ok: null, detail: "not checked" },
    walked: { blocks: 0, limit: DEFAULT_WALK_BLOCKS },
    challenge: checkChallenge(proof.challenge, undefined),
    addresses: [],
    ownership: { proven_sats: "0", claimed_only_sats: "0", proven_addresses: 0, addresses: 0 },
  };
}

/** Verifies a UTXO reserve proof against the context's node: every step, one report. */
export async function verify(ctx: Ctx, proof: Proof): Promise<VerifyReport> {
  const s = initialState(proof);
  const findings = await runSteps(ctx, s, STEPS);
  // the addresses' form names the coin where it can; else the node's own (shared test prefixes)
  const unit = unitOf(proof, s.coin);
  const outcome = outcomeOf(
    findings,
    // proven (a valid signature, outputs re-read) before claimed (the rest), so neither reads as the other
    () =>
      `proven owned ${formatCoins(BigInt(s.ownership.proven_sats))} ${unit} (${s.ownership.proven_addresses} of ${counted(s.addresses.length, "address")} signed the challenge), claimed only ${formatCoins(BigInt(s.ownership.claimed_only_sats))} ${unit}: ${proof.total.amount} ${unit} in ${counted(proof.total.outputs, "output")} unspent at height ${proof.height.toLocaleString("en")} (block ${proof.block_hash.slice(0, 12)}…)`,
  );
  return {
    format: proof.format,
    verdict: outcome.verdict,
    holds: outcome.holds,
    claims: {
      created_at: proof.created_at,
      challenge: proof.challenge,
      ...(proof.min_conf === undefined ? {} : { min_conf: proof.min_conf }),
      excluded_outputs: proof.excluded?.length ?? 0,
      quorum: quorumClaim(proof.quorum),
    },
    challenge: s.challenge,
    node: s.node,
    digest: s.digest,
    block: s.block,
    attribution: s.attribution,
    outputs: s.nodeOk ? s.verdicts : [],
    addresses: s.addresses,
    totals: s.totals,
    ownership: s.ownership,
    walked: s.walked,
    summary: outcome.summary,
    failures: outcome.failures,
    cannot_say: outcome.cannot_say,
    findings,
  };
}
