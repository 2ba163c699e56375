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

import { bytesToHex } from "@noble/hashes/utils.js";
import { coinOfNode, MESSAGE_COIN_NAMES } from "../../chains/coins.js";
import { ChaingwError, RpcError } from "../../errors/index.js";
import { type JsonObject, type JsonValue, numberOf } from "../../json/lossless.js";
import { decodeProofAddress, type ProofAddress } from "../../proof/address.js";
import type { Proof, ProofOutput, ScanObject } from "../../proof/document.js";
import { ProofInputError } from "../../proof/errors.js";
import { digestOf } from "../../proof/jcs.js";
import { verifyMessage } from "../../proof/message.js";
import type { BatchOutcome } from "../../rpc/batch.js";
import type { JsonRpcClient } from "../../rpc/client.js";
import { isJsonObject } from "../../util/text.js";
import { quorumClaim, unitOf } from "../claims.js";
import {
  type ChallengeCheck,
  challengeFindings,
  checkChallenge,
  counted,
  type Finding,
  type Findings,
  signatureLines,
  type Verdict,
} from "../verdict.js";
import {
  cannotSay,
  claimedMismatch,
  claimedValidity,
  fails,
  ok,
  outcomeOf,
  runSteps,
  throwIfInterrupted,
  type VerifyContext,
  type VerifyStep,
} from "../verifier.js";
import { formatCoins, toSats } from "./amount.js";
import { readEach } from "./reads.js";

export type { VerifyOptions } from "../verifier.js";

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
  /** that block's time (its header's `time`, Unix seconds), when the node gave one */
  spentTime?: number;
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
  ownership: "proven" | "unproven" | "claimed-only" | "cannot-say";
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
  /** every step's findings, in order (`failures` and `cannot_say` are derived from them) */
  findings: Finding[];
}

export type VerifyEvent =
  | { type: "walk"; height: number; tip: number; pending: number }
  | { type: "step"; text: string };

/** blocks of verbosity 2 per array while walking (a mainnet block is megabytes) */
const WALK_BATCH = 8;
/** addresses per deriveaddresses call when a ranged descriptor is expanded */
const DERIVE_CHUNK = 10_000;

/** Node answers that mean "this node cannot tell", not "the chain says otherwise". */
const CANNOT_TELL =
  /prun|not available|not found on disk|block data|not in main chain|Method not found|not supported|disabled/i;

/**
 * A node's JSON object, or undefined: the typed guard of every answer read below. A node's error is not an
 * object of the answer (an unknown block's getblockheader error was once read as the header).
 */
const obj = (v: JsonValue | RpcError | undefined): JsonObject | undefined =>
  isJsonObject(v) ? (v as JsonObject) : undefined;
/** A member that is an array, or none. */
const list = (v: JsonValue | undefined): JsonValue[] => (Array.isArray(v) ? v : []);

/** The value of an outcome, or its error thrown unless it is a node error (which the caller judges). */
function outcomeValue(o: BatchOutcome | undefined): JsonValue | RpcError {
  if (o === undefined) return null;
  if (o instanceof RpcError) return o;
  if (o instanceof ChaingwError) throw o;
  return o.result;
}

/** One read's value (or the node's error). */
const readOne = async (client: JsonRpcClient, method: string, params: unknown[]) =>
  outcomeValue((await readEach(client, method, [params]))[0]);

/** The network part of an address's networks that a node's `chain` names ("signet" prints test addresses). */
const netOf = (chain: string): "main" | "test" | "regtest" =>
  chain === "main" ? "main" : chain === "regtest" ? "regtest" : "test";

type Ctx = VerifyContext<VerifyEvent>;

/** What the steps learn and fill in: the node, each output's verdict, and the report's sections. */
interface State {
  proof: Proof;
  verdicts: OutputVerdict[];
  /** the node's coin (a coin table id whose messages are read: "bitcoin", "litecoin"), known after the node step */
  coin?: string;
  tip: number;
  /** the node can check this proof (its kind, network, coin and height are right) */
  nodeOk: boolean;
  /** per matched text: the sats and outputs the proof attributes to it */
  subtotals: Map<string, { sats: bigint; outputs: number }>;
  digest: VerifyReport["digest"];
  totals: VerifyReport["totals"];
  node: VerifyReport["node"];
  block: VerifyReport["block"];
  attribution: VerifyReport["attribution"];
  walked: VerifyReport["walked"];
  challenge: ChallengeCheck;
  addresses: AddressVerdict[];
  ownership: VerifyReport["ownership"];
}

function failOutput(s: State, i: number, why: string): void {
  const v = s.verdicts[i];
  if (!v || v.state === "failed") return;
  v.ok = false;
  v.state = "failed";
  v.detail = why;
}

function unknownOutput(s: State, i: number, why: string): void {
  const v = s.verdicts[i];
  if (!v || v.state === "failed" || v.state === "unknown") return;
  v.ok = false;
  v.state = "unknown";
  v.detail = why;
}

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
  if (node.chain !== proof.chain)
    return cannot(
      `the node is on the "${node.chain}" network, the proof on "${proof.chain}": this node cannot check it; ask a ${proof.chain} node`,
    );
  if (s.coin === undefined)
    return cannot(
      `the node's chain (genesis block ${typeof genesis === "string" ? genesis : "unknown"}) calling itself "${sub || "nothing"}" is not a ${MESSAGE_COIN_NAMES} chain, whose addresses chaingw decodes`,
    );
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
    // the node knows the proof's block on a branch that is not active: walk back to the active chain
    for (let i = 0; i < 100_000 && numberOf(cur.confirmations) === -1; i++) {
      const prev = cur.previousblockhash;
      if (typeof prev !== "string") break;
      const v = obj(await readOne(client, "getblockheader", [prev, true]));
      if (!v) break;
      cur = v;
    }
    const common = numberOf(cur.height);
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
  s: State,
  desc: string,
  range: [number, number] | undefined,
): Promise<{ scripts: Set<string> } | { why: string }> {
  const bare = desc.replace(/#[a-z0-9]{8}$/, "");
  const addr = /^addr\(([^()]+)\)$/.exec(bare);
  if (addr?.[1] !== undefined) {
    const a = chainAddress(s, addr[1]);
    return "why" in a ? a : { scripts: new Set([bytesToHex(a.scriptPubKey)]) };
  }
  const raw = /^raw\(([0-9a-fA-F]+)\)$/.exec(bare);
  if (raw?.[1] !== undefined) return { scripts: new Set([raw[1].toLowerCase()]) };
  const info = await readOne(c.client, "getdescriptorinfo", [bare]);
  if (info instanceof RpcError) return { why: `getdescriptorinfo: ${info.rpcMessage}` };
  const full = obj(info)?.descriptor;
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
    for (const a of list(v)) {
      const d = typeof a === "string" ? chainAddress(s, a) : { why: "not an address" };
      if ("why" in d) return d;
      scripts.add(bytesToHex(d.scriptPubKey));
    }
  }
  return { scripts };
}

/** An address decoded with the node's chain's rules: one this network's nodes print, or why not. */
function chainAddress(s: State, text: string): ProofAddress | { why: string } {
  let a: ProofAddress;
  try {
    a = decodeProofAddress(text);
  } catch (e) {
    if (e instanceof ProofInputError) return { why: `${text} is not an address: ${e.reason}` };
    throw e;
  }
  const net = netOf(s.proof.chain);
  if (!a.networks.some((n) => n.chain === s.coin && n.net === net))
    return {
      why: `${text} is not an address of ${s.coin} ${s.proof.chain} (it is one of ${a.networks.map((n) => `${n.chain} ${n.net}`).join(", ")})`,
    };
  return a;
}

/**
 * 4. Each output's script is exactly what the proof attributes it to: an address's script (decoded with the
 * chain's rules), or one the matched descriptor produces; and it is among what the scan objects produce.
 */
async function checkAttribution(c: Ctx, s: State): Promise<Finding[]> {
  const { proof } = s;
  c.onEvent({
    type: "step",
    text: `checking what ${counted(proof.scan_objects.length, "scan object")} produce`,
  });
  const out: Finding[] = [];
  const scanned = new Set<string>();
  const unexpanded: string[] = [];
  for (const [k, so] of proof.scan_objects.entries()) {
    const { desc, range } = descOf(so);
    if (!isDescriptor(desc)) {
      const a = chainAddress(s, desc);
      if ("why" in a) {
        out.push(fails("attribution", `scan object ${desc}: ${a.why}`, `scan_objects[${k}]`));
        continue;
      }
      scanned.add(bytesToHex(a.scriptPubKey));
      continue;
    }
    const e = await expandDescriptor(c, s, desc, range);
    if ("why" in e) unexpanded.push(`${desc}: ${e.why}`);
    else for (const x of e.scripts) scanned.add(x);
    throwIfInterrupted(c.signal);
  }
  // descriptors the outputs are attributed to, each expanded once
  const matchedDesc = new Map<string, Set<string> | string>();
  for (const x of proof.outputs)
    if (isDescriptor(x.matched) && !matchedDesc.has(x.matched)) {
      const e = await expandDescriptor(c, s, x.matched, undefined);
      matchedDesc.set(x.matched, "why" in e ? e.why : e.scripts);
    }
  const before = s.verdicts.filter((v) => !v.ok).length;
  for (const [i, x] of proof.outputs.entries()) {
    const e = matchedDesc.get(x.matched);
    if (e !== undefined) {
      if (typeof e === "string") unknownOutput(s, i, `its descriptor cannot be expanded by the node (${e})`);
      else if (!e.has(x.script_pubkey))
        failOutput(s, i, `its script ${x.script_pubkey} is not what ${x.matched} produces`);
    } else {
      const a = chainAddress(s, x.matched);
      if ("why" in a) failOutput(s, i, a.why);
      else if (bytesToHex(a.scriptPubKey) !== x.script_pubkey)
        failOutput(
          s,
          i,
          `its script ${x.script_pubkey} is not the script of ${x.matched} (${bytesToHex(a.scriptPubKey)}): the output is not that address's`,
        );
    }
    if (s.verdicts[i]?.state !== "unspent" || scanned.has(x.script_pubkey)) continue;
    if (unexpanded.length)
      unknownOutput(
        s,
        i,
        `its script is produced by none of the scan objects the node could expand (${unexpanded.join("; ")})`,
      );
    else failOutput(s, i, `its script ${x.script_pubkey} is produced by none of the proof's scan objects`);
  }
  const bad = s.verdicts.filter((v) => !v.ok).length - before;
  s.attribution = bad
    ? { ok: false, detail: `${counted(bad, "output")} not attributed as the proof says` }
    : {
        ok: true,
        detail: `every output's script is its address's or descriptor's, and among what the ${counted(proof.scan_objects.length, "scan object")} produce`,
      };
  // each output's own failure is the `outputs` step's finding
  if (s.attribution.ok) out.push(ok("attribution", s.attribution.detail, "outputs"));
  return out;
}

/** 5. Each output existed: its block on the active chain, the transaction in it with that amount and script. */
async function checkExistence(c: Ctx, s: State): Promise<Finding[]> {
  const { client } = c;
  const { proof } = s;
  c.onEvent({ type: "step", text: `checking ${counted(proof.outputs.length, "output")}` });
  const heights = [...new Set(proof.outputs.map((x) => x.height))];
  const hashes = await readEach(
    client,
    "getblockhash",
    heights.map((h) => [h]),
  );
  const activeAt = new Map<number, JsonValue | RpcError>();
  for (const [i, h] of heights.entries()) activeAt.set(h, outcomeValue(hashes[i]));
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
  for (const [i, x] of proof.outputs.entries()) {
    const active = activeAt.get(x.height);
    if (active instanceof RpcError) {
      unknownOutput(s, i, `getblockhash ${x.height}: ${active.rpcMessage}`);
      continue;
    }
    if (active !== x.block_hash) {
      failOutput(
        s,
        i,
        `block ${x.height} on the node's active chain is ${String(active)}, not ${x.block_hash}`,
      );
      continue;
    }
    const tx = outcomeValue(txByKey.get(`${x.txid} ${x.block_hash}`));
    if (tx instanceof RpcError) {
      if (CANNOT_TELL.test(tx.rpcMessage))
        unknownOutput(s, i, `the node cannot read block ${x.block_hash} (${tx.rpcMessage})`);
      else failOutput(s, i, `the transaction is not in block ${x.block_hash} (${tx.rpcMessage})`);
      continue;
    }
    const vout = list(obj(tx)?.vout).find((v) => numberOf(obj(v)?.n) === x.vout);
    const why = outputMismatch(x, obj(vout));
    if (why) failOutput(s, i, why);
  }
  return [];
}

function outputMismatch(x: ProofOutput, v: JsonObject | undefined): string | undefined {
  if (!v) return "the transaction has no such output";
  let sats: bigint;
  try {
    sats = toSats(v.value, "value");
  } catch {
    return "the node's output has no readable value";
  }
  if (sats.toString() !== x.amount_sats)
    return `the output holds ${formatCoins(sats)}, the proof says ${x.amount}`;
  const spk = obj(v.scriptPubKey)?.hex;
  if (spk !== x.script_pubkey)
    return `the output's script is ${String(spk)}, the proof says ${x.script_pubkey}`;
  return undefined;
}

/**
 * The height of each best block the gettxout answers were read at (one, unless the tip moved between them),
 * by block hash: a number, or why the node did not say.
 */
async function bestHeights(c: Ctx, outs: BatchOutcome[]): Promise<Map<string, number | string>> {
  const hashes = [
    ...new Set(
      outs.flatMap((o) => {
        const b = obj(outcomeValue(o))?.bestblock;
        return typeof b === "string" ? [b] : [];
      }),
    ),
  ];
  const heads = hashes.length
    ? await readEach(
        c.client,
        "getblockheader",
        hashes.map((h) => [h, true]),
      )
    : [];
  return new Map(
    hashes.map((h, i): [string, number | string] => {
      const head = outcomeValue(heads[i]);
      if (head instanceof RpcError) return [h, `getblockheader: ${head.rpcMessage}`];
      const n = numberOf(obj(head)?.height);
      return [h, n !== undefined && Number.isSafeInteger(n) ? n : "getblockheader gave no height"];
    }),
  );
}

/** 6. Unspent at the proof's height: unspent now, or spent in a block above it (walked upward). */
async function checkUnspent(c: Ctx, s: State): Promise<Finding[]> {
  const { client } = c;
  const { proof } = s;
  const blockOk = s.block.ok === true;
  const outs = await readEach(
    client,
    "gettxout",
    proof.outputs.map((x) => [x.txid, x.vout, false]),
  );
  const bestAt = await bestHeights(c, outs);
  const pending = new Map<string, number>();
  for (const [i, x] of proof.outputs.entries()) {
    const v = s.verdicts[i];
    if (!v?.ok) continue;
    const u = outcomeValue(outs[i]);
    if (u instanceof RpcError) {
      unknownOutput(s, i, `gettxout: ${u.rpcMessage}`);
      continue;
    }
    if (u === null) {
      pending.set(`${x.txid}:${x.vout}`, i);
      continue;
    }
    // the unspent output the node holds under this txid:vout was created where its confirmations say: a
    // duplicated pre-BIP34 coinbase's later twin is not the proof's output (its own was spent before the twin)
    const t = obj(u);
    const conf = numberOf(t?.confirmations) ?? Number.NaN;
    const best = bestAt.get(String(t?.bestblock));
    if (typeof best !== "number" || !Number.isSafeInteger(conf) || conf < 1) {
      unknownOutput(
        s,
        i,
        `gettxout: the node's confirmations (${String(t?.confirmations)}) at ${String(t?.bestblock)} do not say where it was created${typeof best === "string" ? ` (${best})` : ""}`,
      );
      continue;
    }
    const created = best - conf + 1;
    if (created !== x.height)
      failOutput(
        s,
        i,
        `the node's unspent ${x.txid}:${x.vout} was created at height ${created} (${counted(conf, "confirmation")} at height ${best}), not at the proof's height ${x.height}: another transaction of the same id (a duplicated coinbase's twin), not the proof's output`,
      );
    else v.detail = "unspent now";
  }
  const walked: VerifyReport["walked"] = { blocks: 0 };
  s.walked = walked;
  let unreadable: string | undefined;
  if (pending.size && blockOk) {
    walked.from = proof.height + 1;
    for (let h = walked.from; h <= s.tip && pending.size && !unreadable; h += WALK_BATCH) {
      throwIfInterrupted(c.signal);
      const span = Array.from({ length: Math.min(WALK_BATCH, s.tip - h + 1) }, (_, k) => h + k);
      c.onEvent({ type: "walk", height: h, tip: s.tip, pending: pending.size });
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
        const answer = outcomeValue(b);
        const block = obj(answer);
        const height = span[k] ?? h + k;
        if (!block || !Array.isArray(block.tx)) {
          unreadable = `block ${height}: ${answer instanceof RpcError ? answer.rpcMessage : "no transactions in the answer"}`;
          break;
        }
        for (const tx of block.tx)
          for (const vin of list(obj(tx)?.vin)) {
            const input = obj(vin);
            if (!input) continue;
            const key = `${String(input.txid)}:${numberOf(input.vout)}`;
            const i = pending.get(key);
            const v = i === undefined ? undefined : s.verdicts[i];
            if (!v) continue;
            pending.delete(key);
            v.state = "spent-after";
            v.spentAt = height;
            const time = numberOf(block.time);
            if (time !== undefined) v.spentTime = time;
            v.detail = `spent at height ${height}, above the proof's height`;
          }
        walked.blocks++;
        walked.to = height;
      }
    }
  }
  for (const i of pending.values()) {
    if (unreadable)
      unknownOutput(
        s,
        i,
        `spent since, and the node cannot read the blocks above the proof to say when (${unreadable})`,
      );
    else if (blockOk)
      failOutput(
        s,
        i,
        `spent, and not in any block above the proof's height (up to ${s.tip}): it was spent at or before height ${proof.height}`,
      );
    else failOutput(s, i, "spent since, and the chains part: not checked above the proof's height");
  }
  return [];
}

/** 7. Each output's verdict of steps 4-6, one finding for each that failed or could not be checked. */
function outputFindings(_c: Ctx, s: State): Finding[] {
  const out: Finding[] = [];
  for (const v of s.verdicts) {
    const at = `output ${v.txid}:${v.vout}`;
    const text = `${at} (${v.amount}, ${v.matched}): ${v.detail}`;
    if (v.state === "failed") out.push(fails("outputs", text, at));
    else if (v.state === "unknown") out.push(cannotSay("outputs", text, at));
  }
  if (out.length === 0)
    out.push(
      ok("outputs", `${counted(s.verdicts.length, "output")} existed and were unspent at the proof's height`),
    );
  return out;
}

/** 8. Ownership: signatures over the challenge, for addresses of this chain that the proof credits. */
function checkOwnership(c: Ctx, s: State): Finding[] {
  const { proof } = s;
  const o = c.options;
  const challenge = checkChallenge(proof.challenge, o.challenge);
  s.challenge = challenge;
  const out: Finding[] = challengeFindings(challenge).filter((f) => f.status === "fails");
  const sigBy = judgeSignatureLines(c, s, challenge.ok === false, out);
  if (challenge.ok !== false) {
    const claimed = claimedValidity(proof.ownership?.signatures, o.signatures);
    for (const [address, was] of claimed) {
      const now = sigBy.get(address);
      const f = now && !now.cannotJudge && claimedMismatch(address, was, now.valid);
      if (f) out.push(f);
    }
  }
  const addresses = addressVerdicts(s, sigBy);
  for (const a of addresses)
    if (a.ownership === "proven")
      out.push(ok("ownership", `${a.address}: ${a.detail ?? "proven"}`, a.address));
  return out;
}

type SignatureJudged = { valid: boolean; detail: string; cannotJudge?: true };

/**
 * Every signature line (the document's and --signatures) judged over the proof's challenge, with the node's
 * coin's magic: a finding for each that fails or cannot be judged on a credited address, added to `out`; the
 * judgement of each credited address kept, by address.
 */
function judgeSignatureLines(
  c: Ctx,
  s: State,
  otherChallenge: boolean,
  out: Finding[],
): Map<string, SignatureJudged> {
  const { proof } = s;
  const lines = signatureLines(c.options.signatures, proof.ownership?.signatures);
  const credited = new Set(proof.by_address.map((a) => a.address));
  const sigBy = new Map<string, SignatureJudged>();
  for (const l of lines) {
    if (otherChallenge) {
      // one failure above says why; none of these signatures proves anything for this audit
      sigBy.set(l.address, { valid: false, detail: "over another challenge than the required one" });
      continue;
    }
    if (proof.challenge === null) {
      out.push(
        fails(
          "ownership",
          `signature for ${l.address}: the proof has no challenge to check it against`,
          l.address,
        ),
      );
      continue;
    }
    let r: SignatureJudged;
    const a = s.nodeOk ? chainAddress(s, l.address) : undefined;
    if (a && "why" in a) r = { valid: false, detail: a.why };
    else
      try {
        // the node's coin decides the message magic (a shared test-network prefix does not)
        r = verifyMessage(l.address, l.signature, proof.challenge, { coin: s.coin });
      } catch (e) {
        r = { valid: false, detail: (e as Error).message };
      }
    sigBy.set(l.address, r);
    if (r.cannotJudge && credited.has(l.address))
      out.push(
        cannotSay(
          "ownership",
          `signature for ${l.address}: a form chaingw cannot judge: ${r.detail}`,
          l.address,
        ),
      );
    else if (r.cannotJudge) sigBy.delete(l.address);
    else if (!r.valid)
      out.push(
        fails(
          "ownership",
          `signature for ${l.address} does not verify over the challenge: ${r.detail}`,
          l.address,
        ),
      );
    else if (!credited.has(l.address))
      // harmless: a signature proves ownership of nothing the proof counts
      sigBy.delete(l.address);
  }
  return sigBy;
}

/**
 * Each credited address's verdict (its outputs, its signature) and the proven total, from the outputs that
 * held, never from the document's own figures; both kept on the state.
 */
function addressVerdicts(s: State, sigBy: Map<string, SignatureJudged>): AddressVerdict[] {
  const { proof } = s;
  const failedBy = new Map<string, number>();
  for (const v of s.verdicts) if (!v.ok) failedBy.set(v.matched, (failedBy.get(v.matched) ?? 0) + 1);
  const addresses: AddressVerdict[] = proof.by_address.map((a) => {
    const sig = sigBy.get(a.address);
    const failed = failedBy.get(a.address) ?? 0;
    return {
      address: a.address,
      amount: a.amount,
      amount_sats: a.amount_sats,
      outputs: a.outputs,
      outputs_failed: failed,
      outputs_ok: failed === 0,
      ownership:
        sig === undefined
          ? "claimed-only"
          : sig.valid
            ? "proven"
            : sig.cannotJudge
              ? "cannot-say"
              : "unproven",
      ...(sig ? { detail: sig.detail } : {}),
    };
  });
  const provenBy = new Set(addresses.filter((a) => a.ownership === "proven").map((a) => a.address));
  const provenSats = proof.outputs.reduce(
    (t, x, i) => (provenBy.has(x.matched) && s.verdicts[i]?.ok ? t + BigInt(x.amount_sats) : t),
    0n,
  );
  const total = proof.outputs.reduce((t, x) => t + BigInt(x.amount_sats), 0n);
  s.addresses = addresses;
  s.ownership = {
    proven_sats: provenSats.toString(),
    claimed_only_sats: (total - provenSats).toString(),
    proven_addresses: addresses.filter((a) => a.ownership === "proven").length,
    addresses: addresses.length,
  };
  return addresses;
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
    walked: { blocks: 0 },
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
