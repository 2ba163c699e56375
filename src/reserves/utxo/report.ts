/**
 * From the node's scan result to a reserves report: every check a proof needs (complete scan, well-formed
 * outputs, no outpoint twice, BigInt sum equal to the node's own total), then the data the renderers
 * print. Data only; rendering is in render.ts.
 */

import { IntegrityError } from "../../errors/index.js";
import { JsonNumber, type JsonObject, type JsonValue } from "../../json/lossless.js";
import type { Quorum } from "../../proof/document.js";
import { formatCoins, toSats } from "./amount.js";
import type { Plan } from "./input.js";

export interface Unspent {
  txid: string;
  vout: number;
  /** the address asked for, when the output was found through addr(...) */
  address?: string;
  /** the node's descriptor for the output, checksum removed */
  desc: string;
  scriptPubKey?: string;
  /** exact decimal text as the node sent it */
  amount: string;
  sats: bigint;
  height: number | null;
  /** the creating block's hash, where the node gives it (Bitcoin Core 28+; Core 0.21 does not) */
  blockHash?: string;
}

/** One checked scan (one chunk, or one endpoint for a cross-check). */
export interface CheckedScan {
  height: number;
  bestblock: string;
  /** UTXO-set entries the node walked (`txouts`) */
  txouts: number | null;
  unspents: Unspent[];
  totalSats: bigint;
  /** the node's total_amount text */
  nodeTotal: string;
}

const HEX64 = /^[0-9a-f]{64}$/;

function int(v: JsonValue | undefined): number | null {
  if (!(v instanceof JsonNumber) || !/^\d+$/.test(v.raw)) return null;
  const n = Number(v.raw);
  return Number.isSafeInteger(n) ? n : null;
}

/** `addr(rltc1q...)#abcd1234` → `rltc1q...`; other descriptors lose only the checksum. */
function splitDesc(desc: string): { desc: string; address?: string } {
  const d = desc.replace(/#[a-z0-9]{8}$/, "");
  const m = /^addr\(([^()]+)\)$/.exec(d);
  return m ? { desc: d, address: m[1] } : { desc: d };
}

/**
 * Checks one `scantxoutset start` result. A result whose `success` is not `true` (an aborted scan carries
 * a partial total that looks real) is never a proof.
 */
export function checkScan(result: JsonValue, label: string): CheckedScan {
  const fail = (what: string): never => {
    throw new IntegrityError(`${label}: ${what}; not a proof of reserves`);
  };
  if (result === null || typeof result !== "object" || Array.isArray(result) || result instanceof JsonNumber)
    fail("the scan answered with something other than an object");
  const r = result as JsonObject;
  if (r.success !== true) {
    const partial =
      r.total_amount instanceof JsonNumber
        ? ` (its partial total ${r.total_amount.raw} is not reserves)`
        : "";
    throw new IntegrityError(
      `${label}: scan did not complete (success: ${JSON.stringify(r.success ?? null)})${partial}; nothing was proven`,
      {
        hint: "The scan was aborted or interrupted on the node. Run it again; nothing from this run may be reported.",
      },
    );
  }
  const height = int(r.height);
  if (height === null) fail("the result has no block height");
  const bestblock = typeof r.bestblock === "string" ? r.bestblock : "";
  if (!HEX64.test(bestblock)) fail("the result has no best block hash");
  if (!Array.isArray(r.unspents)) fail("the result has no unspents list");
  let nodeTotalSats = 0n;
  const nodeTotal = r.total_amount instanceof JsonNumber ? r.total_amount.raw : "";
  try {
    nodeTotalSats = toSats(r.total_amount, "total_amount");
  } catch (e) {
    fail((e as Error).message);
  }
  const seen = new Set<string>();
  const unspents: Unspent[] = [];
  let sum = 0n;
  (r.unspents as JsonValue[]).forEach((u, i) => {
    const o = (u ?? {}) as JsonObject;
    const txid = typeof o.txid === "string" ? o.txid : "";
    const vout = int(o.vout);
    if (!HEX64.test(txid) || vout === null) fail(`unspent ${i} has no valid txid/vout`);
    const key = `${txid}:${vout}`;
    if (seen.has(key)) fail(`outpoint ${key} is listed twice`);
    seen.add(key);
    let sats = 0n;
    try {
      sats = toSats(o.amount, `amount of ${key}`);
    } catch (e) {
      fail((e as Error).message);
    }
    const h = int(o.height);
    if (h !== null && h > (height as number))
      fail(`output ${key} has height ${h}, above the scan height ${height}`);
    sum += sats;
    const d = splitDesc(typeof o.desc === "string" ? o.desc : "");
    unspents.push({
      txid,
      vout: vout as number,
      ...d,
      scriptPubKey: typeof o.scriptPubKey === "string" ? o.scriptPubKey : undefined,
      amount: (o.amount as JsonNumber).raw,
      sats,
      height: h,
      ...(typeof o.blockhash === "string" && HEX64.test(o.blockhash) ? { blockHash: o.blockhash } : {}),
    });
  });
  // deterministic order for tables and CSV: oldest first
  unspents.sort(
    (a, b) => (a.height ?? 0) - (b.height ?? 0) || a.txid.localeCompare(b.txid) || a.vout - b.vout,
  );
  if (sum !== nodeTotalSats)
    throw new IntegrityError(
      `${label}: the outputs add up to ${formatCoins(sum)} (${sum} base units) but the node's total_amount is ${nodeTotal}; not a proof of reserves`,
    );
  return { height: height as number, bestblock, txouts: int(r.txouts), unspents, totalSats: sum, nodeTotal };
}

/** Several chunks of one plan must come from one tip; merged they are one scan. */
export function mergeChunks(chunks: CheckedScan[], label: string): CheckedScan {
  if (chunks.length === 1) return chunks[0];
  const tips = new Set(chunks.map((c) => `${c.height} ${c.bestblock}`));
  if (tips.size > 1)
    throw new IntegrityError(
      `${label}: the chain moved between chunks (${[...tips].join(" / ")}); the totals are not at one block, run again`,
    );
  const seen = new Set<string>();
  const unspents: Unspent[] = [];
  for (const c of chunks)
    for (const u of c.unspents) {
      const k = `${u.txid}:${u.vout}`;
      if (!seen.has(k)) {
        seen.add(k);
        unspents.push(u);
      }
    }
  const totalSats = unspents.reduce((a, u) => a + u.sats, 0n);
  return { ...chunks[0], unspents, totalSats, nodeTotal: formatCoins(totalSats) };
}

export interface Holding {
  /** address, or descriptor for outputs found through a descriptor */
  key: string;
  outputs: number;
  sats: bigint;
}

export interface CrossCheck {
  endpoint: string;
  height: number;
  bestblock: string;
  totalSats: bigint;
  outputs: number;
  verdict: "agrees" | "different-tip" | "mismatch";
  detail: string;
}

export interface Report {
  chain?: string;
  endpoint: string;
  startedAt: Date;
  durationMs: number;
  addressesAsked: number;
  descriptorsAsked: number;
  duplicatesRemoved: number;
  chunks: number;
  chunkNote?: string;
  scan: CheckedScan;
  /** per-address subtotals, made only when asked for (--by-address): 10,000 rows cost */
  holdings?: Holding[];
  addressesWithFunds: number;
  crossCheck?: CrossCheck;
  /** --quorum: the nodes that scanned alike */
  quorum?: Quorum;
  /** the input as planned (for a proof document) */
  plan?: Plan;
}

/** Per-address subtotals: every address asked (zero when it holds nothing), then funded descriptors. */
export function holdings(plan: Plan, scan: CheckedScan): Holding[] {
  const by = new Map<string, Holding>();
  for (const a of plan.addresses) by.set(a.address, { key: a.address, outputs: 0, sats: 0n });
  for (const u of scan.unspents) {
    const key = u.address ?? u.desc;
    let h = by.get(key);
    if (!h) {
      h = { key, outputs: 0, sats: 0n };
      by.set(key, h);
    }
    h.outputs++;
    h.sats += u.sats;
  }
  return [...by.values()];
}

export function compareScans(primary: CheckedScan, other: CheckedScan, endpoint: string): CrossCheck {
  const base = {
    endpoint,
    height: other.height,
    bestblock: other.bestblock,
    totalSats: other.totalSats,
    outputs: other.unspents.length,
  };
  if (primary.bestblock !== other.bestblock)
    return {
      ...base,
      verdict: "different-tip",
      detail: `different tips: ${primary.height} ${primary.bestblock} here, ${other.height} ${other.bestblock} there; totals at different blocks are not comparable (${formatCoins(other.totalSats)} there)`,
    };
  const key = (u: Unspent) => `${u.txid}:${u.vout}:${u.sats}`;
  const mine = new Set(primary.unspents.map(key));
  const same =
    primary.totalSats === other.totalSats &&
    other.unspents.length === mine.size &&
    other.unspents.every((u) => mine.has(key(u)));
  return same
    ? { ...base, verdict: "agrees", detail: `same tip, same ${other.unspents.length} outputs, same total` }
    : {
        ...base,
        verdict: "mismatch",
        detail: `same tip ${other.height} but ${formatCoins(other.totalSats)} in ${other.unspents.length} outputs there against ${formatCoins(primary.totalSats)} in ${primary.unspents.length} here`,
      };
}
