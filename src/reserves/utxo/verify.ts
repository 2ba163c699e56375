/**
 * `reserves verify` of a UTXO reserve proof: checks the document later, against any ordinary node (no
 * -txindex, no rewind). Every field that carries meaning is re-derived from the chain or from the proof's own
 * re-derived data; what cannot be (created_at, the challenge text itself) is returned as the proof's claim.
 * The checks, each a step below (docs/proofs.md has the field-by-field table):
 *
 *  1. `checkDocument`: the digest (RFC 8785 form); the totals and every per-address subtotal are the sums of
 *     the outputs attributed to it;
 *  2. `checkNode`: the node is a bitcoind-family node, on the proof's network (`chain`), of a coin whose
 *     addresses chaingw decodes, and at or above the proof's height. Otherwise "cannot say", and nothing else
 *     is asked: a node behind, or of the wrong kind, knows nothing against the proof;
 *  3. `checkBlock`: the block at the proof's height on the node's active chain is the proof's block (else
 *     where the chains part);
 *  4. `checkAttribution`: each output's script is exactly the script of what the proof attributes it to (the
 *     address decoded with the node's chain's rules, or the descriptor expanded by the node), and is among
 *     the scripts the proof's scan objects produce;
 *  5. `checkExistence`: in the block the proof names, the transaction has that output, amount and script
 *     (getrawtransaction with the block hash: no -txindex needed);
 *  6. `checkUnspent`: each output was unspent at the proof's height: unspent now (gettxout), or spent in a
 *     block above the proof's height, found by walking blocks upward while some output is unaccounted for;
 *  7. `checkOwnership`: signatures verify over the proof's challenge (and over `--challenge` when given), for
 *     addresses of the node's chain; the proven total is summed from the re-derived subtotals.
 *
 * A check the chain answered against the proof is a failure ("does not hold"); one the node could not answer
 * (pruned block, no such RPC, an error) is "cannot say". Reads go in batch arrays through the client's batch
 * path. Data out, progress as events.
 */

import { bytesToHex } from "@noble/hashes/utils.js";
import { ChaingwError, InterruptedError, RpcError } from "../../errors/index.js";
import { JsonNumber, type JsonObject, type JsonValue } from "../../json/lossless.js";
import { decodeProofAddress, type ProofAddress } from "../../proof/address.js";
import type { Proof, ProofOutput, ScanObject, SignatureLine } from "../../proof/document.js";
import { ProofInputError } from "../../proof/errors.js";
import { digestOf } from "../../proof/jcs.js";
import { verifyMessage } from "../../proof/message.js";
import type { BatchOutcome } from "../../rpc/batch.js";
import type { JsonRpcClient } from "../../rpc/client.js";
import { isJsonObject } from "../../util/text.js";
import { quorumClaim, unitOf } from "../claims.js";
import {
  type ChallengeCheck,
  checkChallenge,
  counted,
  type Findings,
  signatureLines,
  type Verdict,
  verdictOf,
} from "../verdict.js";
import { formatCoins, toSats } from "./amount.js";
import { readEach } from "./reads.js";

export type OutputState = "unspent" | "spent-after" | "failed" | "unknown";

export interface OutputVerdict {
  txid: string;
  vout: number;
  amount: string;
  matched: string;
  /** true: every check of this output went for the proof */
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
  /** outputs attributed to it in the proof */
  outputs: number;
  /** of those, how many failed a check */
  outputs_failed: number;
  outputs_ok: boolean;
  ownership: "proven" | "unproven" | "claimed-only";
  detail?: string;
}

/** What the proof states that no chain can confirm: printed as the proof's claims, never as findings. */
export interface ProofClaims {
  created_at: string;
  /** the text the signatures were made over (null: none) */
  challenge: string | null;
  min_conf?: number;
  /** outputs the scan found but left out of the total (not counted, not checked) */
  excluded_outputs: number;
  /** the nodes the proof says agreed on every read when it was made (--quorum), as they described themselves */
  quorum: string | null;
}

export interface VerifyReport extends Findings {
  format: string;
  verdict: Verdict;
  /** true only for "holds" */
  holds: boolean;
  claims: ProofClaims;
  /** the challenge the signatures are over, and --challenge when it was required */
  challenge: ChallengeCheck;
  node: { ok: boolean | null; chain: string | null; coin: string | null; tip: number | null; detail: string };
  digest: { ok: boolean; claimed: string; computed: string };
  block: { ok: boolean | null; height: number; hash: string; detail: string };
  attribution: { ok: boolean | null; detail: string };
  outputs: OutputVerdict[];
  addresses: AddressVerdict[];
  totals: { ok: boolean; amount: string; amount_sats: string; outputs: number; detail: string };
  ownership: { proven_sats: string; claimed_only_sats: string; proven_addresses: number; addresses: number };
  walked: { blocks: number; from?: number; to?: number };
  /** what is proven (or why not), in one line */
  summary: string;
}

export type VerifyEvent =
  | { type: "walk"; height: number; tip: number; pending: number }
  | { type: "step"; text: string };

export interface VerifyOptions {
  /** signatures to check instead of the document's own (verify --signatures) */
  signatures?: SignatureLine[];
  /** the challenge the signatures must be over (verify --challenge): another one fails */
  challenge?: string;
}

/** blocks of verbosity 2 per array while walking (a mainnet block is megabytes) */
const WALK_BATCH = 8;
/** addresses per deriveaddresses call when a ranged descriptor is expanded */
const DERIVE_CHUNK = 10_000;

/** Node answers that mean "this node cannot tell", not "the chain says otherwise". */
const CANNOT_TELL =
  /prun|not available|not found on disk|block data|not in main chain|Method not found|not supported|disabled/i;

const num = (v: JsonValue | undefined): number | undefined =>
  v instanceof JsonNumber ? Number(v.raw) : typeof v === "number" ? v : undefined;

/** The value of an outcome, or its error thrown unless it is a node error (which the caller judges). */
function outcomeValue(o: BatchOutcome): JsonValue | RpcError {
  if (o instanceof RpcError) return o;
  if (o instanceof ChaingwError) throw o;
  return o.result;
}

/** The network part of an address's networks that a node's `chain` names ("signet" prints test addresses). */
const netOf = (chain: string): "main" | "test" | "regtest" =>
  chain === "main" ? "main" : chain === "regtest" ? "regtest" : "test";

/** Per-run state of a verification: the proof, the node and what was found so far. */
interface Ctx {
  client: JsonRpcClient;
  proof: Proof;
  o: VerifyOptions;
  onEvent: (e: VerifyEvent) => void;
  signal?: AbortSignal;
  failures: string[];
  cannot: string[];
  verdicts: OutputVerdict[];
  /** the node's coin ("bitcoin" / "litecoin"), known after checkNode */
  coin?: "bitcoin" | "litecoin";
  tip: number;
  /** the node can check this proof (its kind, network, coin and height are right) */
  nodeOk?: boolean;
  /** per matched text: the sats and outputs the proof attributes to it */
  subtotals: Map<string, { sats: bigint; outputs: number }>;
}

function failOutput(c: Ctx, i: number, why: string): void {
  const v = c.verdicts[i] as OutputVerdict;
  if (v.state === "failed") return;
  v.ok = false;
  v.state = "failed";
  v.detail = why;
}

function unknownOutput(c: Ctx, i: number, why: string): void {
  const v = c.verdicts[i] as OutputVerdict;
  if (v.state === "failed" || v.state === "unknown") return;
  v.ok = false;
  v.state = "unknown";
  v.detail = why;
}

function interrupted(c: Ctx): void {
  if (c.signal?.aborted)
    throw new InterruptedError(`interrupted (${String(c.signal.reason)}): verification did not finish`);
}

/** 1. The digest, the totals, and each per-address subtotal as the sum of the outputs attributed to it. */
function checkDocument(c: Ctx): { digest: VerifyReport["digest"]; totals: VerifyReport["totals"] } {
  const { proof } = c;
  const { digest: claimed, ...body } = proof;
  const computed = digestOf(body);
  const digestOk = computed === claimed;
  if (!digestOk)
    c.failures.push(
      `digest: the document's digest is ${claimed}, its content hashes to ${computed} (edited after it was made)`,
    );
  let sum = 0n;
  for (const x of proof.outputs) {
    sum += BigInt(x.amount_sats);
    const t = c.subtotals.get(x.matched) ?? { sats: 0n, outputs: 0 };
    t.sats += BigInt(x.amount_sats);
    t.outputs++;
    c.subtotals.set(x.matched, t);
  }
  const totalsOk = sum.toString() === proof.total.amount_sats && proof.outputs.length === proof.total.outputs;
  if (!totalsOk)
    c.failures.push(
      `totals: the outputs add up to ${sum} base units in ${proof.outputs.length} outputs, the document claims ${proof.total.amount_sats} in ${proof.total.outputs}`,
    );
  const listed = new Set(proof.by_address.map((a) => a.address));
  for (const a of proof.by_address) {
    const t = c.subtotals.get(a.address) ?? { sats: 0n, outputs: 0 };
    if (t.sats.toString() !== a.amount_sats || t.outputs !== a.outputs)
      c.failures.push(
        `by_address ${a.address}: credited ${a.amount} in ${counted(a.outputs, "output")}, but the outputs attributed to it add up to ${formatCoins(t.sats)} in ${counted(t.outputs, "output")}`,
      );
  }
  for (const [m, t] of c.subtotals)
    if (!listed.has(m))
      c.failures.push(
        `by_address: ${m} holds ${formatCoins(t.sats)} in the outputs but has no subtotal in the document`,
      );
  return {
    digest: { ok: digestOk, claimed, computed },
    totals: {
      ok: totalsOk,
      amount: proof.total.amount,
      amount_sats: proof.total.amount_sats,
      outputs: proof.total.outputs,
      detail: totalsOk ? "the outputs add up to the total" : "the outputs do not add up to the total",
    },
  };
}

/**
 * 2. The node: a bitcoind-family node (getblockchaininfo answers with a chain name), on the proof's network,
 * of a coin chaingw decodes addresses for, and not behind the proof. Any of these missing is "cannot say".
 */
async function checkNode(c: Ctx): Promise<VerifyReport["node"]> {
  const { proof } = c;
  c.onEvent({ type: "step", text: "asking the node what it is" });
  const [infoO, netO] = await Promise.all([
    readEach(c.client, "getblockchaininfo", [[]]),
    readEach(c.client, "getnetworkinfo", [[]]),
  ]);
  const info = outcomeValue(infoO[0] as BatchOutcome);
  const node: VerifyReport["node"] = { ok: null, chain: null, coin: null, tip: null, detail: "" };
  const wrongKind = (what: string) => {
    node.ok = false;
    node.detail = `the node is not a bitcoind-family node of the proof's kind: ${what}; give the proof a ${proof.chain} UTXO node (\`--url\`)`;
    c.cannot.push(`node: ${node.detail}`);
    return node;
  };
  if (info instanceof RpcError)
    return wrongKind(
      `it answered getblockchaininfo with "${info.rpcMessage}" (${info.code})${/not found/i.test(info.rpcMessage) ? " (an EVM node?)" : ""}`,
    );
  if (!isJsonObject(info) || typeof (info as JsonObject).chain !== "string")
    return wrongKind("its getblockchaininfo has no chain name");
  const i = info as JsonObject;
  node.chain = i.chain as string;
  const tip = num(i.blocks);
  node.tip = tip ?? null;
  c.tip = tip ?? -1;
  const net = outcomeValue(netO[0] as BatchOutcome);
  const sub = isJsonObject(net) ? String((net as JsonObject).subversion ?? "") : "";
  c.coin = /litecoin/i.test(sub) ? "litecoin" : /satoshi|bitcoin/i.test(sub) ? "bitcoin" : undefined;
  node.coin = c.coin ?? null;
  if (node.chain !== proof.chain) {
    node.ok = false;
    node.detail = `the node is on the "${node.chain}" network, the proof on "${proof.chain}": this node cannot check it; ask a ${proof.chain} node`;
    c.cannot.push(`node: ${node.detail}`);
    return node;
  }
  if (c.coin === undefined) {
    node.ok = false;
    node.detail = `the node calls itself "${sub || "nothing"}": not a Bitcoin or Litecoin node, whose addresses chaingw decodes`;
    c.cannot.push(`node: ${node.detail}`);
    return node;
  }
  if (tip === undefined || tip < proof.height) {
    node.ok = false;
    const behind = tip === undefined ? "" : ` (${counted(proof.height - tip, "block")} behind)`;
    node.detail = `the node's tip is at height ${tip ?? "?"}, below the proof's height ${proof.height}${behind}: it cannot check this proof yet; verify again once it has caught up`;
    c.cannot.push(`node: ${node.detail}`);
    return node;
  }
  node.ok = true;
  node.detail = `${sub.replace(/^\/|\/$/g, "")} on ${node.chain}, tip ${tip}`;
  return node;
}

/** Where the node's active chain and the proof's part: the proof's block's branch, walked down. */
async function partingPoint(c: Ctx, nodeHash: JsonValue | RpcError): Promise<string> {
  const { proof, client } = c;
  const [hdr] = await readEach(client, "getblockheader", [[proof.block_hash, true]]);
  const h = outcomeValue(hdr as BatchOutcome);
  if (isJsonObject(h)) {
    // the node knows the proof's block on a branch that is not active: walk back to the active chain
    let cur = h as JsonObject;
    for (let i = 0; i < 100_000 && num(cur.confirmations) === -1; i++) {
      const prev = cur.previousblockhash;
      if (typeof prev !== "string") break;
      const [p] = await readEach(client, "getblockheader", [[prev, true]]);
      const v = outcomeValue(p as BatchOutcome);
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
  const agree = heights.find((x, i) => outcomeValue(hashes[i] as BatchOutcome) === want.get(x));
  return `the node does not know the proof's block ${proof.block_hash}; its chain has ${nodeHash instanceof RpcError ? "no block" : String(nodeHash)} at height ${proof.height}, so the chains part ${agree === undefined ? "below the proof's outputs" : `above height ${agree}`} and at or below ${proof.height}`;
}

/** 3. The proof's block on the node's active chain. */
async function checkBlock(c: Ctx): Promise<VerifyReport["block"]> {
  const { proof } = c;
  c.onEvent({ type: "step", text: `checking block ${proof.height}` });
  const [hashO] = await readEach(c.client, "getblockhash", [[proof.height]]);
  const nodeHash = outcomeValue(hashO as BatchOutcome);
  if (nodeHash === proof.block_hash)
    return {
      ok: true,
      height: proof.height,
      hash: proof.block_hash,
      detail: `block ${proof.height} is ${proof.block_hash} on the node's active chain (tip ${c.tip})`,
    };
  const detail = await partingPoint(c, nodeHash);
  c.failures.push(`block: ${detail}`);
  return { ok: false, height: proof.height, hash: proof.block_hash, detail };
}

/** A scan object's text as the node takes it, and the range of a ranged descriptor. */
const descOf = (s: ScanObject): { desc: string; range?: [number, number] } =>
  typeof s === "string" ? { desc: s } : s;
const isDescriptor = (s: string) => s.includes("(");

/**
 * The scripts a descriptor produces, expanded by the node (getdescriptorinfo adds the checksum that
 * deriveaddresses requires; a ranged one is derived in chunks). `addr()` and `raw()` are read here.
 * Undefined with the node's reason when it cannot expand it (a script with no address, an old node).
 */
async function expandDescriptor(
  c: Ctx,
  desc: string,
  range: [number, number] | undefined,
): Promise<{ scripts: Set<string> } | { why: string }> {
  const bare = desc.replace(/#[a-z0-9]{8}$/, "");
  const addr = /^addr\(([^()]+)\)$/.exec(bare);
  if (addr) {
    const a = chainAddress(c, addr[1] as string);
    return "why" in a ? a : { scripts: new Set([bytesToHex(a.scriptPubKey)]) };
  }
  const raw = /^raw\(([0-9a-fA-F]+)\)$/.exec(bare);
  if (raw) return { scripts: new Set([(raw[1] as string).toLowerCase()]) };
  const [infoO] = await readEach(c.client, "getdescriptorinfo", [[bare]]);
  const info = outcomeValue(infoO as BatchOutcome);
  if (info instanceof RpcError) return { why: `getdescriptorinfo: ${info.rpcMessage}` };
  const full = isJsonObject(info) ? (info as JsonObject).descriptor : undefined;
  if (typeof full !== "string") return { why: "getdescriptorinfo gave no descriptor" };
  const calls: unknown[][] = [];
  if (range)
    for (let b = range[0]; b <= range[1]; b += DERIVE_CHUNK)
      calls.push([full, [b, Math.min(range[1], b + DERIVE_CHUNK - 1)]]);
  else calls.push([full]);
  const scripts = new Set<string>();
  for (const o of await readEach(c.client, "deriveaddresses", calls)) {
    const v = outcomeValue(o);
    if (v instanceof RpcError) return { why: `deriveaddresses: ${v.rpcMessage}` };
    for (const a of Array.isArray(v) ? v : []) {
      const d = typeof a === "string" ? chainAddress(c, a) : { why: "not an address" };
      if ("why" in d) return d;
      scripts.add(bytesToHex(d.scriptPubKey));
    }
  }
  return { scripts };
}

/** An address decoded with the node's chain's rules: one this network's nodes print, or why not. */
function chainAddress(c: Ctx, text: string): ProofAddress | { why: string } {
  let a: ProofAddress;
  try {
    a = decodeProofAddress(text);
  } catch (e) {
    if (e instanceof ProofInputError) return { why: `${text} is not an address: ${e.reason}` };
    throw e;
  }
  const net = netOf(c.proof.chain);
  if (!a.networks.some((n) => n.chain === c.coin && n.net === net))
    return {
      why: `${text} is not an address of ${c.coin} ${c.proof.chain} (it is one of ${a.networks.map((n) => `${n.chain} ${n.net}`).join(", ")})`,
    };
  return a;
}

/**
 * 4. Each output's script is exactly what the proof attributes it to: an address's script (decoded with the
 * chain's rules), or one the matched descriptor produces; and it is among what the scan objects produce.
 */
async function checkAttribution(c: Ctx): Promise<VerifyReport["attribution"]> {
  const { proof } = c;
  c.onEvent({
    type: "step",
    text: `checking what ${counted(proof.scan_objects.length, "scan object")} produce`,
  });
  const scanned = new Set<string>();
  const unexpanded: string[] = [];
  for (const s of proof.scan_objects) {
    const { desc, range } = descOf(s);
    if (!isDescriptor(desc)) {
      const a = chainAddress(c, desc);
      if ("why" in a) {
        c.failures.push(`scan object ${desc}: ${a.why}`);
        continue;
      }
      scanned.add(bytesToHex(a.scriptPubKey));
      continue;
    }
    const e = await expandDescriptor(c, desc, range);
    if ("why" in e) unexpanded.push(`${desc}: ${e.why}`);
    else for (const x of e.scripts) scanned.add(x);
    interrupted(c);
  }
  // descriptors the outputs are attributed to, each expanded once
  const matchedDesc = new Map<string, Set<string> | string>();
  for (const x of proof.outputs)
    if (isDescriptor(x.matched) && !matchedDesc.has(x.matched)) {
      const e = await expandDescriptor(c, x.matched, undefined);
      matchedDesc.set(x.matched, "why" in e ? e.why : e.scripts);
    }
  const before = c.verdicts.filter((v) => !v.ok).length;
  for (const [i, x] of proof.outputs.entries()) {
    if (isDescriptor(x.matched)) {
      const e = matchedDesc.get(x.matched) as Set<string> | string;
      if (typeof e === "string") unknownOutput(c, i, `its descriptor cannot be expanded by the node (${e})`);
      else if (!e.has(x.script_pubkey))
        failOutput(c, i, `its script ${x.script_pubkey} is not what ${x.matched} produces`);
    } else {
      const a = chainAddress(c, x.matched);
      if ("why" in a) failOutput(c, i, a.why);
      else if (bytesToHex(a.scriptPubKey) !== x.script_pubkey)
        failOutput(
          c,
          i,
          `its script ${x.script_pubkey} is not the script of ${x.matched} (${bytesToHex(a.scriptPubKey)}): the output is not that address's`,
        );
    }
    if (c.verdicts[i]?.state !== "unspent" || scanned.has(x.script_pubkey)) continue;
    if (unexpanded.length)
      unknownOutput(
        c,
        i,
        `its script is produced by none of the scan objects the node could expand (${unexpanded.join("; ")})`,
      );
    else failOutput(c, i, `its script ${x.script_pubkey} is produced by none of the proof's scan objects`);
  }
  const bad = c.verdicts.filter((v) => !v.ok).length - before;
  return bad
    ? { ok: false, detail: `${counted(bad, "output")} not attributed as the proof says` }
    : {
        ok: true,
        detail: `every output's script is its address's or descriptor's, and among what the ${counted(proof.scan_objects.length, "scan object")} produce`,
      };
}

/** 5. Each output existed: its block on the active chain, the transaction in it with that amount and script. */
async function checkExistence(c: Ctx): Promise<void> {
  const { proof, client } = c;
  c.onEvent({ type: "step", text: `checking ${counted(proof.outputs.length, "output")}` });
  const heights = [...new Set(proof.outputs.map((x) => x.height))];
  const hashes = await readEach(
    client,
    "getblockhash",
    heights.map((h) => [h]),
  );
  const activeAt = new Map<number, JsonValue | RpcError>();
  for (const [i, h] of heights.entries()) activeAt.set(h, outcomeValue(hashes[i] as BatchOutcome));
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
  const txByKey = new Map(txKeys.map((k, i) => [k, txAnswers[i] as BatchOutcome]));
  for (const [i, x] of proof.outputs.entries()) {
    const active = activeAt.get(x.height);
    if (active instanceof RpcError) {
      unknownOutput(c, i, `getblockhash ${x.height}: ${active.rpcMessage}`);
      continue;
    }
    if (active !== x.block_hash) {
      failOutput(
        c,
        i,
        `block ${x.height} on the node's active chain is ${String(active)}, not ${x.block_hash}`,
      );
      continue;
    }
    const tx = outcomeValue(txByKey.get(`${x.txid} ${x.block_hash}`) as BatchOutcome);
    if (tx instanceof RpcError) {
      if (CANNOT_TELL.test(tx.rpcMessage))
        unknownOutput(c, i, `the node cannot read block ${x.block_hash} (${tx.rpcMessage})`);
      else failOutput(c, i, `the transaction is not in block ${x.block_hash} (${tx.rpcMessage})`);
      continue;
    }
    const vouts =
      isJsonObject(tx) && Array.isArray((tx as JsonObject).vout)
        ? ((tx as JsonObject).vout as JsonValue[])
        : [];
    const why = outputMismatch(
      x,
      vouts.find((v) => isJsonObject(v) && num((v as JsonObject).n) === x.vout),
    );
    if (why) failOutput(c, i, why);
  }
}

function outputMismatch(x: ProofOutput, vout: JsonValue | undefined): string | undefined {
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
}

/** 6. Unspent at the proof's height: unspent now, or spent in a block above it (walked upward). */
async function checkUnspent(c: Ctx, blockOk: boolean): Promise<VerifyReport["walked"]> {
  const { proof, client } = c;
  const outs = await readEach(
    client,
    "gettxout",
    proof.outputs.map((x) => [x.txid, x.vout, false]),
  );
  const pending = new Map<string, number>();
  for (const [i, x] of proof.outputs.entries()) {
    if (!c.verdicts[i]?.ok) continue;
    const u = outcomeValue(outs[i] as BatchOutcome);
    if (u instanceof RpcError) {
      unknownOutput(c, i, `gettxout: ${u.rpcMessage}`);
      continue;
    }
    if (u === null) pending.set(`${x.txid}:${x.vout}`, i);
    else (c.verdicts[i] as OutputVerdict).detail = "unspent now";
  }
  const walked: VerifyReport["walked"] = { blocks: 0 };
  let unreadable: string | undefined;
  if (pending.size && blockOk) {
    walked.from = proof.height + 1;
    for (let h = walked.from; h <= c.tip && pending.size && !unreadable; h += WALK_BATCH) {
      interrupted(c);
      const span = Array.from({ length: Math.min(WALK_BATCH, c.tip - h + 1) }, (_, k) => h + k);
      c.onEvent({ type: "walk", height: h, tip: c.tip, pending: pending.size });
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
      for (const [k, b] of blocks.entries()) {
        const block = outcomeValue(b);
        const height = span[k] as number;
        if (!isJsonObject(block) || !Array.isArray((block as JsonObject).tx)) {
          unreadable = `block ${height}: ${block instanceof RpcError ? block.rpcMessage : "no transactions in the answer"}`;
          break;
        }
        for (const tx of (block as JsonObject).tx as JsonValue[]) {
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
            const v = c.verdicts[i] as OutputVerdict;
            v.state = "spent-after";
            v.spentAt = height;
            v.detail = `spent at height ${height}, above the proof's height`;
          }
        }
        walked.blocks++;
        walked.to = height;
      }
    }
  }
  for (const i of pending.values()) {
    if (unreadable)
      unknownOutput(
        c,
        i,
        `spent since, and the node cannot read the blocks above the proof to say when (${unreadable})`,
      );
    else if (blockOk)
      failOutput(
        c,
        i,
        `spent, and not in any block above the proof's height (up to ${c.tip}): it was spent at or before height ${proof.height}`,
      );
    else failOutput(c, i, "spent since, and the chains part: not checked above the proof's height");
  }
  return walked;
}

/** 7. Ownership: signatures over the challenge, for addresses of this chain that the proof credits. */
function checkOwnership(c: Ctx): {
  challenge: VerifyReport["challenge"];
  addresses: AddressVerdict[];
  ownership: VerifyReport["ownership"];
} {
  const { proof, o } = c;
  const challenge = checkChallenge(proof.challenge, o.challenge, {
    failures: c.failures,
    cannot_say: c.cannot,
  });
  const lines = signatureLines(o.signatures, proof.ownership?.signatures);
  const credited = new Set(proof.by_address.map((a) => a.address));
  const sigBy = new Map<string, { valid: boolean; detail: string }>();
  for (const l of lines) {
    if (challenge.ok === false) {
      // one failure above says why; none of these signatures proves anything for this audit
      sigBy.set(l.address, { valid: false, detail: "over another challenge than the required one" });
      continue;
    }
    if (proof.challenge === null) {
      c.failures.push(`signature for ${l.address}: the proof has no challenge to check it against`);
      continue;
    }
    let r: { valid: boolean; detail: string };
    const a = c.nodeOk ? chainAddress(c, l.address) : undefined;
    if (a && "why" in a) r = { valid: false, detail: a.why };
    else
      try {
        r = verifyMessage(l.address, l.signature, proof.challenge);
      } catch (e) {
        r = { valid: false, detail: (e as Error).message };
      }
    sigBy.set(l.address, r);
    if (!r.valid)
      c.failures.push(`signature for ${l.address} does not verify over the challenge: ${r.detail}`);
    else if (!credited.has(l.address))
      // harmless: a signature proves ownership of nothing the proof counts
      sigBy.delete(l.address);
  }
  if (!o.signatures && proof.ownership && challenge.ok !== false)
    for (const s of proof.ownership.signatures) {
      const now = sigBy.get(s.address);
      if (now && now.valid !== s.valid)
        c.failures.push(
          `signature for ${s.address}: the document says ${s.valid ? "valid" : "invalid"}, it is ${now.valid ? "valid" : "invalid"}`,
        );
    }
  const failedBy = new Map<string, number>();
  for (const v of c.verdicts) if (!v.ok) failedBy.set(v.matched, (failedBy.get(v.matched) ?? 0) + 1);
  const addresses: AddressVerdict[] = proof.by_address.map((a) => {
    const s = sigBy.get(a.address);
    const failed = failedBy.get(a.address) ?? 0;
    return {
      address: a.address,
      amount: a.amount,
      amount_sats: a.amount_sats,
      outputs: a.outputs,
      outputs_failed: failed,
      outputs_ok: failed === 0,
      ownership: s === undefined ? "claimed-only" : s.valid ? "proven" : "unproven",
      ...(s ? { detail: s.detail } : {}),
    };
  });
  // the proven total from the outputs that held, never from the document's own figures
  const provenBy = new Set(addresses.filter((a) => a.ownership === "proven").map((a) => a.address));
  const provenSats = proof.outputs.reduce(
    (s, x, i) => (provenBy.has(x.matched) && c.verdicts[i]?.ok ? s + BigInt(x.amount_sats) : s),
    0n,
  );
  const total = proof.outputs.reduce((s, x) => s + BigInt(x.amount_sats), 0n);
  return {
    challenge,
    addresses,
    ownership: {
      proven_sats: provenSats.toString(),
      claimed_only_sats: (total - provenSats).toString(),
      proven_addresses: addresses.filter((a) => a.ownership === "proven").length,
      addresses: addresses.length,
    },
  };
}

export async function verifyProof(
  client: JsonRpcClient,
  proof: Proof,
  o: VerifyOptions = {},
  onEvent: (e: VerifyEvent) => void = () => {},
  signal?: AbortSignal,
): Promise<VerifyReport> {
  const c: Ctx = {
    client,
    proof,
    o,
    onEvent,
    signal,
    failures: [],
    cannot: [],
    tip: -1,
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
  };
  const { digest, totals } = checkDocument(c);
  const node = await checkNode(c);
  c.nodeOk = node.ok === true;
  interrupted(c);
  let block: VerifyReport["block"] = {
    ok: null,
    height: proof.height,
    hash: proof.block_hash,
    detail: "not checked: the node cannot check this proof",
  };
  let attribution: VerifyReport["attribution"] = { ok: null, detail: "not checked" };
  let walked: VerifyReport["walked"] = { blocks: 0 };
  if (node.ok) {
    block = await checkBlock(c);
    interrupted(c);
    attribution = await checkAttribution(c);
    interrupted(c);
    await checkExistence(c);
    interrupted(c);
    walked = await checkUnspent(c, block.ok === true);
    for (const v of c.verdicts)
      if (v.state === "failed")
        c.failures.push(`output ${v.txid}:${v.vout} (${v.amount}, ${v.matched}): ${v.detail}`);
      else if (v.state === "unknown")
        c.cannot.push(`output ${v.txid}:${v.vout} (${v.amount}, ${v.matched}): ${v.detail}`);
  }
  const { challenge, addresses, ownership } = checkOwnership(c);
  const findings: Findings = { failures: c.failures, cannot_say: c.cannot };
  const verdict = verdictOf(findings);
  const unit = unitOf(proof);
  const summary =
    verdict === "holds"
      ? `${proof.total.amount} ${unit} in ${counted(proof.total.outputs, "output")} unspent at height ${proof.height.toLocaleString("en")} (block ${proof.block_hash.slice(0, 12)}…), ${ownership.proven_addresses} of ${counted(addresses.length, "address")} proven owned`
      : verdict === "fails"
        ? `the proof does not hold: ${counted(c.failures.length, "failing item")}`
        : `cannot say whether the proof holds: ${c.cannot[0]}`;
  return {
    format: proof.format,
    verdict,
    holds: verdict === "holds",
    claims: {
      created_at: proof.created_at,
      challenge: proof.challenge,
      ...(proof.min_conf === undefined ? {} : { min_conf: proof.min_conf }),
      excluded_outputs: proof.excluded?.length ?? 0,
      quorum: quorumClaim(proof.quorum),
    },
    challenge,
    node,
    digest,
    block,
    attribution,
    outputs: node.ok ? c.verdicts : [],
    addresses,
    totals,
    ownership,
    walked,
    summary,
    failures: c.failures,
    cannot_say: c.cannot,
  };
}
