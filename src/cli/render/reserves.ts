/** Renderers of a reserves report: human (table + summary), JSON (one stable shape), CSV. */

import { style, table } from "../../output/human.js";
import { nodeName } from "../../reserves/claims.js";
import { formatCoins } from "../../reserves/utxo/amount.js";
import type { Report } from "../../reserves/utxo/report.js";
import { csvField } from "../../util/csv.js";

const ZERO_COINS = formatCoins(0n);

export function reportJson(r: Report, indent = 0): string {
  const s = r.scan;
  // every amount is already an exact decimal string, so the native printer loses nothing (and is fast)
  return JSON.stringify(
    {
      proof: r.crossCheck?.verdict === "mismatch" ? "disputed" : "complete",
      chain: r.chain,
      height: s.height,
      bestblock: s.bestblock,
      endpoint: r.endpoint,
      started_at: r.startedAt.toISOString(),
      duration_ms: r.durationMs,
      mempool_included: false,
      addresses_asked: r.addressesAsked,
      descriptors_asked: r.descriptorsAsked,
      duplicates_removed: r.duplicatesRemoved,
      addresses_with_funds: r.addressesWithFunds,
      outputs: s.unspents.length,
      total_amount: formatCoins(s.totalSats),
      total_sats: s.totalSats.toString(),
      node_total_amount: s.nodeTotal,
      utxo_set_entries_scanned: s.txouts,
      chunks: r.chunks,
      chunk_note: r.chunkNote,
      unspents: s.unspents.map((u) => ({
        txid: u.txid,
        vout: u.vout,
        address: u.address ?? null,
        desc: u.desc,
        scriptPubKey: u.scriptPubKey,
        amount: u.amount,
        sats: u.sats.toString(),
        height: u.height,
      })),
      // with --by-address only: most addresses of a long list hold nothing, and 10,000 rows of zeros would
      // be most of every report (their strings are constants, not BigInt formatting)
      by_address: r.holdings?.map((h) => ({
        address: h.key,
        outputs: h.outputs,
        amount: h.sats === 0n ? ZERO_COINS : formatCoins(h.sats),
        sats: h.sats.toString(),
      })),
      cross_check: r.crossCheck && {
        endpoint: r.crossCheck.endpoint,
        verdict: r.crossCheck.verdict,
        height: r.crossCheck.height,
        bestblock: r.crossCheck.bestblock,
        outputs: r.crossCheck.outputs,
        total_amount: formatCoins(r.crossCheck.totalSats),
        total_sats: r.crossCheck.totalSats.toString(),
        detail: r.crossCheck.detail,
      },
      quorum: r.quorum,
    },
    null,
    indent,
  );
}

/** JSON Lines (`--format jsonl`): one object a line per unspent output, the CSV's rows as JSON. */
export function reportJsonLines(r: Report): string {
  return r.scan.unspents
    .map(
      (u) =>
        `${JSON.stringify({ txid: u.txid, vout: u.vout, address: u.address ?? null, desc: u.desc, amount: u.amount, sats: u.sats.toString(), height: u.height })}\n`,
    )
    .join("");
}

/** One row per unspent output. */
export function reportCsv(r: Report): string {
  const rows = [["txid", "vout", "address", "descriptor", "amount", "sats", "height"].join(",")];
  for (const u of r.scan.unspents)
    rows.push(
      [u.txid, u.vout, u.address ?? "", u.desc, u.amount, u.sats.toString(), u.height]
        .map(csvField)
        .join(","),
    );
  return rows.join("\n") + "\n";
}

/**
 * What the proof carries beside the scan's total. With --min-conf: its outputs and those left out (each
 * named `txid:vout`, marked in the table). With --signatures: each signature and whether it checked out.
 */
export interface ProofTotals {
  minConf?: number;
  kept: { sats: bigint; outputs: number };
  excluded: { sats: bigint; outputs: number; outpoints?: ReadonlySet<string> };
  signatures?: { address: string; valid: boolean; format: string; detail: string }[];
  /** base units held by addresses whose signature checked out */
  provenSats?: bigint;
}

export function reportHuman(r: Report, opts: { color: boolean; proof?: ProofTotals; unit?: string }): string {
  const st = style(opts.color);
  // the coin's ticker where the addresses say which coin it is
  const unit = opts.unit ?? "coins";
  const s = r.scan;
  const out: string[] = [];
  if (r.holdings) {
    out.push(
      table(
        ["address or descriptor", "outputs", "amount"],
        r.holdings.map((h) => [h.key, String(h.outputs), formatCoins(h.sats)]),
        opts.color,
      ),
    );
  } else if (s.unspents.length) {
    // with --min-conf, an output the proof leaves out says so on its own row
    const left = opts.proof?.minConf === undefined ? undefined : opts.proof.excluded.outpoints;
    const head = ["txid:vout", "address or descriptor", "amount", "height"];
    out.push(
      table(
        left ? [...head, "in the proof"] : head,
        s.unspents.map((u) => {
          const row = [
            `${u.txid}:${u.vout}`,
            u.address ?? u.desc,
            u.amount,
            u.height === null ? "" : String(u.height),
          ];
          if (left)
            row.push(
              left.has(`${u.txid}:${u.vout}`) ? `not counted (< ${opts.proof?.minConf} conf)` : "counted",
            );
          return row;
        }),
        opts.color,
      ),
    );
  } else out.push(st.dim("(no unspent outputs found)"));

  const lines: [string, string][] = [
    [
      "addresses asked",
      `${r.addressesAsked}${r.duplicatesRemoved ? ` (${r.duplicatesRemoved} duplicate${r.duplicatesRemoved === 1 ? "" : "s"} removed)` : ""}`,
    ],
  ];
  if (r.descriptorsAsked) lines.push(["descriptors asked", String(r.descriptorsAsked)]);
  lines.push(
    ["addresses with funds", String(r.addressesWithFunds)],
    ["unspent outputs", String(s.unspents.length)],
    [
      opts.proof ? "total found" : "total",
      `${formatCoins(s.totalSats)} ${unit} = ${s.totalSats} base units${opts.proof ? " (every output the scan found)" : ""}`,
    ],
    ["node total_amount", `${s.nodeTotal} ${st.good("(equals the sum of the outputs)")}`],
    ...minConfRows(opts.proof, unit),
    ...signatureRows(opts.proof, st, unit),
    ["at block", `${s.height} ${s.bestblock}`],
    ["chain", r.chain ?? "(not reported)"],
    ["endpoint", r.endpoint],
    ["started", r.startedAt.toISOString()],
    ["duration", `${(r.durationMs / 1000).toFixed(2)} s`],
  );
  if (s.txouts !== null)
    lines.push(["outputs the node walked", `${s.txouts} (its whole set of unspent outputs)`]);
  if (r.chunks > 1) lines.push(["chunks", `${r.chunks}: ${r.chunkNote ?? ""}`]);
  if (r.crossCheck) {
    const c = r.crossCheck;
    const v =
      c.verdict === "agrees"
        ? st.good("agrees")
        : c.verdict === "mismatch"
          ? st.bad("MISMATCH")
          : "inconclusive";
    lines.push(["cross-check", `${v}: ${c.endpoint}: ${c.detail}`]);
  }
  if (r.quorum)
    lines.push([
      "quorum",
      `${st.good(`${r.quorum.k} nodes agree`)}: ${r.quorum.nodes.map((n, i) => nodeName(n, i)).join("; ")}`,
    ]);
  const w = Math.max(...lines.map(([k]) => k.length));
  out.push(
    "",
    st.key("Proof of reserves: scan complete"),
    ...lines.map(([k, v]) => `  ${k.padEnd(w)}  ${v}`),
    st.dim(
      "  Confirmed outputs in the UTXO set at the block above (the tip when the scan started); mempool not included.",
    ),
  );
  return out.join("\n");
}

/** The proof's total under --min-conf, named as the one the proof carries, and what it leaves out. */
function minConfRows(p: ProofTotals | undefined, unit: string): [string, string][] {
  if (p?.minConf === undefined) return [];
  const outs = (n: number) => `${n} output${n === 1 ? "" : "s"}`;
  return [
    [
      "total in the proof",
      `${formatCoins(p.kept.sats)} ${unit} = ${p.kept.sats} base units in ${outs(p.kept.outputs)} with at least ${p.minConf} confirmations (--min-conf ${p.minConf}): the total the proof carries`,
    ],
    [
      "left out",
      `${formatCoins(p.excluded.sats)} ${unit} in ${outs(p.excluded.outputs)} with fewer confirmations (listed in the proof's "excluded", not counted)`,
    ],
  ];
}

/** With --signatures: how many checked out, the total they prove, and each signature's word. */
function signatureRows(
  p: ProofTotals | undefined,
  st: ReturnType<typeof style>,
  unit: string,
): [string, string][] {
  const sigs = p?.signatures;
  if (!sigs) return [];
  const good = sigs.filter((x) => x.valid).length;
  const rows: [string, string][] = [
    [
      "signatures",
      `${good} of ${sigs.length} check out over the challenge; they prove ${formatCoins(p.provenSats ?? 0n)} ${unit} = ${p.provenSats ?? 0n} base units (the rest is claimed, not proven)`,
    ],
  ];
  for (const x of sigs)
    rows.push([
      "",
      x.valid
        ? `${st.good("checks out")}  ${x.address} (${x.format})`
        : `${st.bad("does not")}  ${x.address}: ${x.detail}`,
    ]);
  return rows;
}
