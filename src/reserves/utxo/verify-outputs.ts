/**
 * The UTXO proof's output steps (verify.ts runs them): 4. attribution (each output's script is its
 * address's or descriptor's, and among what the scan objects produce), 5. existence (in its block, with
 * that amount and script), 6. unspent at the proof's height (unspent now, or spent in a block above it,
 * walked upward), 7. each output's verdict as one finding.
 */
import { bytesToHex } from "@noble/hashes/utils.js";
import { coinNetworkLabel, coinOf, sentenceList } from "../../chains/coins.js";
import { RpcError } from "../../errors/index.js";
import { type JsonObject, type JsonValue, numberOf } from "../../json/lossless.js";
import { decodeProofAddress, type ProofAddress } from "../../proof/address.js";
import type { ProofOutput, ScanObject } from "../../proof/document.js";
import { ProofInputError } from "../../proof/errors.js";
import type { BatchOutcome } from "../../rpc/batch.js";
import { DEFAULT_WALK_BLOCKS } from "../defaults.js";
import { counted, type Finding } from "../verdict.js";
import { cannotSay, fails, ok, throwIfInterrupted } from "../verifier.js";
import { formatCoins, toSats } from "./amount.js";
import { readEach } from "./reads.js";
import {
  CANNOT_TELL,
  type Ctx,
  DERIVE_CHUNK,
  failOutput,
  list,
  netOf,
  obj,
  outcomeValue,
  readOne,
  type State,
  unknownOutput,
  WALK_BATCH,
} from "./verify-state.js";

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
/** "Dogecoin", "Litecoin regtest": the one naming function's words for a coin id's network */
const labelOf = (id: string | undefined, net: string): string => {
  const coin = id === undefined ? undefined : coinOf(id);
  return coin ? coinNetworkLabel(coin, net) : `${id} ${net}`;
};

export function chainAddress(s: State, text: string): ProofAddress | { why: string } {
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
      why: `${text} is not an address of ${labelOf(s.coin, net)}, the node's (it is one of ${sentenceList(a.networks.map((n) => labelOf(n.chain, n.net)))})`,
    };
  return a;
}

/**
 * 4. Each output's script is exactly what the proof attributes it to: an address's script (decoded with the
 * chain's rules), or one the matched descriptor produces; and it is among what the scan objects produce.
 */
export async function checkAttribution(c: Ctx, s: State): Promise<Finding[]> {
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
export async function checkExistence(c: Ctx, s: State): Promise<Finding[]> {
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

/**
 * 6. Unspent at the proof's height: unspent now, or spent in a block above it, walked upward — at most
 * `--walk` blocks (verify's option; reserves/defaults.ts), so a small proof claiming an old height does not
 * make verify read the chain. An output not found is "fails" only where the walk reached the tip.
 */
export async function checkUnspent(c: Ctx, s: State): Promise<Finding[]> {
  const { proof } = s;
  const blockOk = s.block.ok === true;
  const pending = await unspentNow(c, s);
  s.walked = { blocks: 0, limit: c.options.walkBlocks ?? DEFAULT_WALK_BLOCKS };
  // a block mined since the node step may hold the spend gettxout saw: the walk goes up to a tip read after
  // gettxout answered, so it reaches every block the answer can stand on
  if (pending.size && blockOk) await tipAfterReads(c, s);
  const unreadable = pending.size && blockOk ? await walkUp(c, s, pending) : undefined;
  const { limit } = s.walked;
  const short = proof.height + limit < s.tip;
  for (const i of pending.values()) {
    if (unreadable)
      unknownOutput(
        s,
        i,
        `spent since, and the node cannot read the blocks above the proof to say when (${unreadable})`,
      );
    else if (blockOk && short)
      unknownOutput(
        s,
        i,
        `spent since, and ${limit === 0 ? "no block above the proof's height walked (--walk 0" : `not in the ${counted(limit, "block")} walked above the proof's height (heights ${proof.height + 1} to ${proof.height + limit}, the most --walk ${limit} reads`}; the tip is ${s.tip}): cannot say whether it was spent after the proof's height; --walk ${s.tip - proof.height} walks to the tip`,
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

/** The node's tip read again (getblockcount), where it moved up since the node step: the walk's end. */
async function tipAfterReads(c: Ctx, s: State): Promise<void> {
  const n = await readOne(c.client, "getblockcount", []);
  const tip = n instanceof RpcError ? undefined : numberOf(n);
  if (tip !== undefined && Number.isSafeInteger(tip) && tip > s.tip) s.tip = tip;
}

/**
 * gettxout of every output still ok: unspent now where created at the proof's height; the spent ones
 * (`txid:vout` → output index) left for the walk.
 */
async function unspentNow(c: Ctx, s: State): Promise<Map<string, number>> {
  const { client } = c;
  const { proof } = s;
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
  return pending;
}

/**
 * The blocks above the proof's height walked upward while some output is unaccounted for, up to the tip or
 * `walked.limit` blocks, whichever comes first: each spent one found is "spent-after" (and leaves `pending`).
 * Gives why a block could not be read, if one could not.
 */
async function walkUp(c: Ctx, s: State, pending: Map<string, number>): Promise<string | undefined> {
  const { client } = c;
  const walked = s.walked;
  let unreadable: string | undefined;
  walked.from = s.proof.height + 1;
  // bounded by --walk, not by the chain: at most `limit` blocks, whatever height the proof claims
  const end = Math.min(s.tip, s.proof.height + walked.limit);
  for (let h = walked.from; h <= end && pending.size && !unreadable; h += WALK_BATCH) {
    throwIfInterrupted(c.signal);
    const span = Array.from({ length: Math.min(WALK_BATCH, end - h + 1) }, (_, k) => h + k);
    c.onEvent({ type: "walk", height: h, tip: end, pending: pending.size });
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
          const median = numberOf(block.mediantime);
          if (median !== undefined) v.spentMedian = median;
          v.detail = `spent at height ${height}, above the proof's height`;
        }
      walked.blocks++;
      walked.to = height;
    }
  }
  return unreadable;
}

/** 7. Each output's verdict of steps 4-6, one finding for each that failed or could not be checked. */
export function outputFindings(_c: Ctx, s: State): Finding[] {
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
