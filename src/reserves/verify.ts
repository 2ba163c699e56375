/**
 * `reserves verify`: checks a proof document later, against any ordinary node (no -txindex, no rewind):
 *  1. the digest (RFC 8785 form) matches, and the totals are the sums of the outputs;
 *  2. the block at the proof's height on the node's active chain has the proof's hash (else where the
 *     chains part);
 *  3. each output existed by then: in the block the proof names, the transaction has that output with that
 *     amount and script (getrawtransaction with the block hash: no -txindex needed);
 *  4. each output was unspent at the proof's height: still unspent now (gettxout), or spent in a block
 *     above the proof's height, found by walking blocks upward only while some output is unaccounted for;
 *  5. ownership signatures still verify over the challenge.
 * Reads go in batch arrays through the client's batch path. Data out, progress as events.
 */
import { ChaingwError, InterruptedError, RpcError } from "../errors/index.js";
import { JsonNumber, type JsonObject, type JsonValue } from "../json/lossless.js";
import { decodeProofAddress } from "../proof/address.js";
import type { Proof, ProofOutput, SignatureLine } from "../proof/document.js";
import { digestOf } from "../proof/jcs.js";
import { verifyMessage } from "../proof/message.js";
import type { BatchOutcome } from "../rpc/batch.js";
import type { JsonRpcClient } from "../rpc/client.js";
import { isJsonObject } from "../util/text.js";
import { formatCoins, toSats } from "./amount.js";
import { readEach } from "./reads.js";

export type OutputState = "unspent" | "spent-after" | "failed";

export interface OutputVerdict {
  txid: string;
  vout: number;
  amount: string;
  matched: string;
  ok: boolean;
  state: OutputState;
  /** the height of the block that spent it, for spent-after */
  spentAt?: number;
  detail: string;
}

export interface AddressVerdict {
  address: string;
  amount: string;
  amount_sats: string;
  outputs_ok: boolean;
  ownership: "proven" | "unproven" | "claimed-only";
  detail?: string;
}

export interface VerifyReport {
  holds: boolean;
  digest: { ok: boolean; claimed: string; computed: string };
  block: { ok: boolean; height: number; hash: string; detail: string };
  outputs: OutputVerdict[];
  addresses: AddressVerdict[];
  totals: { ok: boolean; amount: string; amount_sats: string; outputs: number; detail: string };
  ownership: { proven_sats: string; claimed_only_sats: string; proven_addresses: number; addresses: number };
  walked: { blocks: number; from?: number; to?: number };
  /** what is proven, in one line */
  summary: string;
  /** every failing item, one line each */
  failures: string[];
}

export type VerifyEvent =
  | { type: "walk"; height: number; tip: number; pending: number }
  | { type: "step"; text: string };

export interface VerifyOptions {
  /** signatures to check instead of the document's own (verify --signatures) */
  signatures?: SignatureLine[];
}

/** blocks of verbosity 2 per array while walking (a mainnet block is megabytes) */
const WALK_BATCH = 8;

/** The value of an outcome, or its error thrown unless it is a node error (which the caller judges). */
function outcomeValue(o: BatchOutcome): JsonValue | RpcError {
  if (o instanceof RpcError) return o;
  if (o instanceof ChaingwError) throw o;
  return o.result;
}

const num = (v: JsonValue | undefined): number | undefined =>
  v instanceof JsonNumber ? Number(v.raw) : typeof v === "number" ? v : undefined;

/** The coin's ticker for the summary line, from the addresses' own form where it says. */
export function unitOf(proof: Proof): string {
  for (const a of proof.by_address) {
    try {
      const chains = new Set(decodeProofAddress(a.address).networks.map((n) => n.chain));
      if (chains.size === 1) return chains.has("litecoin") ? "LTC" : "BTC";
    } catch {
      // a descriptor: says nothing about the coin
    }
  }
  return "coins";
}

/** Where the node's active chain and the proof's part: the proof's block's branch, walked down. */
async function partingPoint(
  client: JsonRpcClient,
  proof: Proof,
  nodeHash: JsonValue | RpcError,
): Promise<string> {
  const [hdr] = await readEach(client, "getblockheader", [[proof.block_hash, true]]);
  const h = outcomeValue(hdr);
  if (isJsonObject(h)) {
    // the node knows the proof's block on a branch that is not active: walk back to the active chain
    let cur = h as JsonObject;
    for (let i = 0; i < 100_000 && num(cur.confirmations) === -1; i++) {
      const prev = cur.previousblockhash;
      if (typeof prev !== "string") break;
      const [p] = await readEach(client, "getblockheader", [[prev, true]]);
      const v = outcomeValue(p);
      if (!isJsonObject(v)) break;
      cur = v as JsonObject;
    }
    const common = num(cur.height);
    return `the node's active chain has ${String(nodeHash)} at height ${proof.height}; the proof's block is on a branch that parts from it above height ${common} (block ${String(cur.hash)})`;
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

export async function verifyProof(
  client: JsonRpcClient,
  proof: Proof,
  o: VerifyOptions = {},
  onEvent: (e: VerifyEvent) => void = () => {},
  signal?: AbortSignal,
): Promise<VerifyReport> {
  const failures: string[] = [];
  const check = () => {
    if (signal?.aborted)
      throw new InterruptedError(`interrupted (${String(signal.reason)}): verification did not finish`);
  };

  // 1. digest and totals
  const { digest: claimed, ...body } = proof;
  const computed = digestOf(body);
  const digestOk = computed === claimed;
  if (!digestOk)
    failures.push(
      `digest: the document's digest is ${claimed}, its content hashes to ${computed} (edited after it was made)`,
    );
  const sum = proof.outputs.reduce((s, x) => s + BigInt(x.amount_sats), 0n);
  const totalsOk = sum.toString() === proof.total.amount_sats && proof.outputs.length === proof.total.outputs;
  if (!totalsOk)
    failures.push(
      `totals: the outputs add up to ${sum} base units in ${proof.outputs.length} outputs, the document claims ${proof.total.amount_sats} in ${proof.total.outputs}`,
    );

  // 2. the proof's block on the active chain
  onEvent({ type: "step", text: `checking block ${proof.height}` });
  const [countO, hashO] = await Promise.all([
    readEach(client, "getblockcount", [[]]),
    readEach(client, "getblockhash", [[proof.height]]),
  ]);
  const tip = Number(num(outcomeValue(countO[0]) as JsonValue) ?? -1);
  const nodeHash = outcomeValue(hashO[0]);
  const blockOk = nodeHash === proof.block_hash;
  let blockDetail = `block ${proof.height} is ${proof.block_hash} on the node's active chain (tip ${tip})`;
  if (!blockOk) {
    blockDetail =
      tip < proof.height
        ? `the node's tip is at height ${tip}, below the proof's height ${proof.height}: it cannot check this proof yet`
        : await partingPoint(client, proof, nodeHash);
    failures.push(`block: ${blockDetail}`);
  }
  check();

  // 3. each output existed: its block on the active chain, the transaction in it with that amount and script
  onEvent({ type: "step", text: `checking ${proof.outputs.length} outputs` });
  const verdicts: OutputVerdict[] = proof.outputs.map((x) => ({
    txid: x.txid,
    vout: x.vout,
    amount: x.amount,
    matched: x.matched,
    ok: true,
    state: "unspent",
    detail: "",
  }));
  const fail = (i: number, why: string) => {
    verdicts[i].ok = false;
    verdicts[i].state = "failed";
    verdicts[i].detail ||= why;
  };
  const heights = [...new Set(proof.outputs.map((x) => x.height))];
  const activeAt = new Map<number, JsonValue | RpcError>();
  const hashes = await readEach(
    client,
    "getblockhash",
    heights.map((h) => [h]),
  );
  for (const [i, h] of heights.entries()) activeAt.set(h, outcomeValue(hashes[i]));
  const matches = (x: ProofOutput, vout: JsonValue | undefined): string | undefined => {
    if (!isJsonObject(vout)) return "the transaction has no such output";
    const v = vout as JsonObject;
    let sats: bigint;
    try {
      sats = toSats(v.value, "value");
    } catch {
      return "the node's output has no readable value";
    }
    if (sats.toString() !== x.amount_sats)
      return `the output holds ${formatCoins(sats)}, the proof says ${x.amount}`;
    const spk = isJsonObject(v.scriptPubKey) ? (v.scriptPubKey as JsonObject).hex : undefined;
    if (spk !== x.script_pubkey)
      return `the output's script is ${String(spk)}, the proof says ${x.script_pubkey}`;
    return undefined;
  };
  // each transaction once, however many of its outputs the proof lists (a payout pays hundreds)
  const txKeys = [...new Set(proof.outputs.map((x) => `${x.txid} ${x.block_hash}`))];
  const txAnswers = await readEach(
    client,
    "getrawtransaction",
    txKeys.map((k) => {
      const [txid, block] = k.split(" ");
      return [txid, true, block];
    }),
  );
  const txByKey = new Map(txKeys.map((k, i) => [k, txAnswers[i]]));
  const txs = proof.outputs.map((x) => txByKey.get(`${x.txid} ${x.block_hash}`) as BatchOutcome);
  for (const [i, x] of proof.outputs.entries()) {
    if (x.height > proof.height) {
      fail(i, `created at height ${x.height}, above the proof's height ${proof.height}`);
      continue;
    }
    const active = activeAt.get(x.height);
    if (active !== x.block_hash) {
      fail(
        i,
        `block ${x.height} on the node's active chain is ${active instanceof RpcError ? "missing" : String(active)}, not ${x.block_hash}`,
      );
      continue;
    }
    const tx = outcomeValue(txs[i]);
    if (tx instanceof RpcError) {
      fail(i, `the transaction is not in block ${x.block_hash} (${tx.rpcMessage})`);
      continue;
    }
    const vouts =
      isJsonObject(tx) && Array.isArray((tx as JsonObject).vout)
        ? ((tx as JsonObject).vout as JsonValue[])
        : [];
    const why = matches(
      x,
      vouts.find((v) => isJsonObject(v) && num((v as JsonObject).n) === x.vout),
    );
    if (why) fail(i, why);
  }
  check();

  // 4. unspent at the proof's height: unspent now, or spent above it
  const outs = await readEach(
    client,
    "gettxout",
    proof.outputs.map((x) => [x.txid, x.vout, false]),
  );
  const pending = new Map<string, number>();
  for (const [i, x] of proof.outputs.entries()) {
    if (!verdicts[i].ok) continue;
    const u = outcomeValue(outs[i]);
    if (u instanceof RpcError) {
      fail(i, `gettxout: ${u.rpcMessage}`);
      continue;
    }
    if (u === null) pending.set(`${x.txid}:${x.vout}`, i);
    else verdicts[i].detail = "unspent now";
  }
  let walked = 0;
  let from: number | undefined;
  let to: number | undefined;
  if (pending.size && blockOk) {
    from = proof.height + 1;
    for (let h = from; h <= tip && pending.size; h += WALK_BATCH) {
      check();
      const span = Array.from({ length: Math.min(WALK_BATCH, tip - h + 1) }, (_, k) => h + k);
      onEvent({ type: "walk", height: h, tip, pending: pending.size });
      const bh = await readEach(
        client,
        "getblockhash",
        span.map((x) => [x]),
      );
      const blocks = await readEach(
        client,
        "getblock",
        bh.map((b) => [outcomeValue(b), 2]),
      );
      blocks.forEach((b, k) => {
        const block = outcomeValue(b);
        const height = span[k];
        const list =
          isJsonObject(block) && Array.isArray((block as JsonObject).tx)
            ? ((block as JsonObject).tx as JsonValue[])
            : [];
        for (const tx of list) {
          const vins =
            isJsonObject(tx) && Array.isArray((tx as JsonObject).vin)
              ? ((tx as JsonObject).vin as JsonValue[])
              : [];
          for (const vin of vins) {
            if (!isJsonObject(vin)) continue;
            const key = `${String((vin as JsonObject).txid)}:${num((vin as JsonObject).vout)}`;
            const i = pending.get(key);
            if (i === undefined) continue;
            pending.delete(key);
            verdicts[i].state = "spent-after";
            verdicts[i].spentAt = height;
            verdicts[i].detail = `spent at height ${height}, above the proof's height`;
          }
        }
      });
      walked += span.length;
      to = span[span.length - 1];
    }
  }
  for (const i of pending.values())
    fail(
      i,
      blockOk
        ? `spent, and not in any block above the proof's height (up to ${tip}): it was spent at or before height ${proof.height}`
        : "spent since, and the chains part: not checked above the proof's height",
    );
  for (const v of verdicts)
    if (!v.ok) failures.push(`output ${v.txid}:${v.vout} (${v.amount}, ${v.matched}): ${v.detail}`);

  // 5. ownership, checked offline over the challenge
  const lines =
    o.signatures ??
    proof.ownership?.signatures.map((s, i) => ({
      address: s.address,
      signature: s.signature,
      line: i + 1,
    })) ??
    [];
  const sigBy = new Map<string, { valid: boolean; detail: string }>();
  for (const l of lines) {
    if (proof.challenge === null) {
      failures.push(`signature for ${l.address}: the proof has no challenge to check it against`);
      continue;
    }
    let r: { valid: boolean; detail: string };
    try {
      r = verifyMessage(l.address, l.signature, proof.challenge);
    } catch (e) {
      r = { valid: false, detail: (e as Error).message };
    }
    sigBy.set(l.address, r);
    if (!r.valid) failures.push(`signature for ${l.address} does not verify over the challenge: ${r.detail}`);
  }
  if (!o.signatures && proof.ownership)
    for (const s of proof.ownership.signatures) {
      const now = sigBy.get(s.address);
      if (now && now.valid !== s.valid)
        failures.push(
          `signature for ${s.address}: the document says ${s.valid ? "valid" : "invalid"}, it is ${now.valid ? "valid" : "invalid"}`,
        );
    }
  const badOutputsBy = new Set(verdicts.filter((v) => !v.ok).map((v) => v.matched));
  const addresses: AddressVerdict[] = proof.by_address.map((a) => {
    const s = sigBy.get(a.address);
    return {
      address: a.address,
      amount: a.amount,
      amount_sats: a.amount_sats,
      outputs_ok: !badOutputsBy.has(a.address),
      ownership: s === undefined ? "claimed-only" : s.valid ? "proven" : "unproven",
      ...(s ? { detail: s.detail } : {}),
    };
  });
  const provenSats = addresses
    .filter((a) => a.ownership === "proven")
    .reduce((s, a) => s + BigInt(a.amount_sats), 0n);
  const proven = addresses.filter((a) => a.ownership === "proven").length;
  const holds = failures.length === 0;
  const unit = unitOf(proof);
  const summary = holds
    ? `${proof.total.amount} ${unit} in ${proof.total.outputs} output${proof.total.outputs === 1 ? "" : "s"} unspent at height ${proof.height.toLocaleString("en")} (block ${proof.block_hash.slice(0, 12)}…), ${proven} of ${addresses.length} addresses proven owned`
    : `the proof does not hold: ${failures.length} failing item${failures.length === 1 ? "" : "s"}`;
  return {
    holds,
    digest: { ok: digestOk, claimed, computed },
    block: { ok: blockOk, height: proof.height, hash: proof.block_hash, detail: blockDetail },
    outputs: verdicts,
    addresses,
    totals: {
      ok: totalsOk,
      amount: proof.total.amount,
      amount_sats: proof.total.amount_sats,
      outputs: proof.total.outputs,
      detail: totalsOk ? "the outputs add up to the total" : "the outputs do not add up to the total",
    },
    ownership: {
      proven_sats: provenSats.toString(),
      claimed_only_sats: (BigInt(proof.total.amount_sats) - provenSats).toString(),
      proven_addresses: proven,
      addresses: addresses.length,
    },
    walked: { blocks: walked, from, to },
    summary,
    failures,
  };
}
