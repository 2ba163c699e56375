/** `reserves verify`'s verdicts as people read them: the UTXO proof's checks and the EVM proof's. */
import type { ProofReport } from "../../formats/registry.js";
import { style, table } from "../../output/human.js";
import type { QuorumNode } from "../../proof/document.js";
import type { EvmVerifyReport } from "../../reserves/evm/balances-verify.js";
import type { VerifyReport } from "../../reserves/utxo/verify.js";
import { csvTable } from "../../util/csv.js";
import { amountOf } from "../../util/units.js";
import { renderClaims, renderFindings, renderQuorum } from "./verdict.js";

/** A reserves verifier's report, whichever proof it is of (the UTXO proof's lists outputs). */
export const renderProofReport = (
  r: ProofReport & { quorum?: { k: number; nodes: QuorumNode[] } },
  color: boolean,
): string => ("outputs" in r ? renderVerify(r, color) : renderEvmVerify(r, color));

/** A check's mark: ok, FAILS, or "--" when it was not made. */
const markOf =
  (st: ReturnType<typeof style>) =>
  (ok: boolean | null): string =>
    ok === null ? "--" : ok ? st.good("ok") : st.bad("FAILS");

export function renderVerify(
  r: VerifyReport & { quorum?: { k: number; nodes: QuorumNode[] } },
  color: boolean,
): string {
  const st = style(color);
  const mark = markOf(st);
  const nodeMark = (ok: boolean | null) => (ok === null ? "--" : ok ? st.good("ok") : "CANNOT SAY");
  const lines: string[] = [];
  lines.push(
    ...renderClaims({
      created_at: r.claims.created_at,
      challenge: r.claims.challenge,
      min_conf: r.claims.min_conf,
      excluded_outputs: r.claims.excluded_outputs || undefined,
      quorum: r.claims.quorum ?? undefined,
    }),
  );
  lines.push(...renderQuorum(r, color));
  if (r.challenge.required !== null) lines.push(`challenge  ${mark(r.challenge.ok)}  ${r.challenge.detail}`);
  lines.push(
    `digest     ${mark(r.digest.ok)}  ${r.digest.ok ? r.digest.claimed : `claimed ${r.digest.claimed}, content ${r.digest.computed}`}`,
  );
  lines.push(`node       ${nodeMark(r.node.ok)}  ${r.node.detail}`);
  if (r.node.ok) {
    lines.push(`block      ${mark(r.block.ok)}  ${r.block.detail}`);
    lines.push(`scripts    ${mark(r.attribution.ok)}  ${r.attribution.detail}`);
  }
  lines.push(
    `totals     ${mark(r.totals.ok)}  ${r.totals.amount} (${r.totals.amount_sats} base units) in ${r.totals.outputs} outputs`,
  );
  if (r.walked.blocks)
    lines.push(
      `walked     ${r.walked.blocks} blocks (${r.walked.from}..${r.walked.to}) for outputs spent since the proof`,
    );
  lines.push("");
  const rows = r.outputs.map((v) => [
    `${v.txid.slice(0, 16)}…:${v.vout}`,
    v.amount,
    v.matched.length > 48 ? `${v.matched.slice(0, 45)}...` : v.matched,
    v.ok
      ? v.state === "spent-after"
        ? `ok, spent at ${v.spentAt}`
        : "ok, unspent now"
      : v.state === "unknown"
        ? `CANNOT SAY: ${v.detail}`
        : st.bad(`FAILS: ${v.detail}`),
  ]);
  if (rows.length) lines.push(table(["output", "amount", "matched", "verdict"], rows, color), "");
  if (r.node.ok) {
    const arows = r.addresses.map((a) => [
      a.address.length > 48 ? `${a.address.slice(0, 45)}...` : a.address,
      a.amount,
      a.outputs_ok ? String(a.outputs) : st.bad(`${a.outputs_failed} of ${a.outputs} FAIL`),
      a.ownership === "proven"
        ? st.good("proven owned")
        : a.ownership === "unproven"
          ? st.bad("signature FAILS")
          : a.ownership === "cannot-say"
            ? "CANNOT SAY"
            : "claimed only",
    ]);
    if (arows.length) lines.push(table(["address", "amount", "outputs", "ownership"], arows, color), "");
  }
  lines.push(...renderFindings(r, color));
  return lines.join("\n");
}

const assetName = (r: EvmVerifyReport, id: string) => r.assets.find((a) => a.id === id)?.symbol ?? id;
const decimalsOf = (r: EvmVerifyReport, id: string) => r.assets.find((a) => a.id === id)?.decimals ?? 0;

export function renderEvmVerify(
  r: EvmVerifyReport & { quorum?: { k: number; nodes: QuorumNode[] } },
  color: boolean,
): string {
  const st = style(color);
  const mark = markOf(st);
  const lines = [
    ...renderClaims({
      created_at: r.claims.created_at,
      ...(r.challenge.text !== null ? { challenge: r.challenge.text } : {}),
      quorum: r.claims.quorum ?? undefined,
    }),
    ...renderQuorum(r, color),
    `digest     ${mark(r.digest.ok)}  ${r.digest.ok ? r.digest.claimed : `claimed ${r.digest.claimed}, content ${r.digest.computed}`}`,
    `inputs     ${mark(r.inputs.ok)}  ${r.inputs.detail}`,
    `chain      ${r.chain.ok === null ? "CANNOT SAY" : mark(r.chain.ok)}  ${r.chain.detail}`,
    `block      ${mark(r.block.ok)}  ${r.block.detail}`,
    `metadata   ${mark(r.metadata.ok)}  ${r.metadata.detail}`,
    `balances   ${mark(r.balances.ok)}  ${r.balances.detail}`,
    // which tokens read the native coin: told, or CANNOT SAY for solvency (the proof's balances hold either way)
    ...(r.tracking.probed === true && !r.tracking.unknown
      ? [`tracking   ${st.good("ok")}  ${r.tracking.detail}`]
      : r.tracking.unknown
        ? [`tracking   CANNOT SAY  ${r.tracking.detail} (solvency counts no such token as proven)`]
        : []),
    ...(r.challenge.required !== null ? [`challenge  ${mark(r.challenge.ok)}  ${r.challenge.detail}`] : []),
    "",
  ];
  if (r.ownership.addresses.length) {
    lines.push(
      table(
        ["address", "ownership", "form"],
        r.ownership.addresses.map((a) => [
          a.address,
          a.ownership === "proven"
            ? st.good("proven")
            : a.ownership === "unproven"
              ? st.bad("signature FAILS")
              : "CANNOT SAY",
          a.format,
        ]),
        color,
      ),
      "",
      table(
        ["asset", "proven owned", "share"],
        r.ownership.proven.map((p) => [
          assetName(r, p.asset),
          amountOf(p.amount, decimalsOf(r, p.asset)),
          p.share,
        ]),
        color,
      ),
      "",
    );
  }
  lines.push(
    table(
      ["asset", "decimals", "total", "re-read", "differ"],
      r.assets.map((a) => [
        a.symbol ?? a.id,
        a.metadata_ok === false ? st.bad(`${a.decimals ?? "none"} FAILS`) : String(a.decimals ?? "none"),
        amountOf(a.total, a.decimals ?? 0),
        String(a.checked),
        String(a.mismatches),
      ]),
      color,
    ),
    "",
  );
  lines.push(...renderFindings(r, color));
  return lines.join("\n");
}

/**
 * `reserves verify --format csv` of chaingw's own proofs: the UTXO proof's outputs, one row each, as judged;
 * the EVM proof's assets, one row each (total, how many balances were re-read and differ, proven owned).
 */
export function proofReportCsv(r: ProofReport): string {
  if ("outputs" in r)
    return csvTable(
      ["txid", "vout", "matched", "amount", "verdict", "state", "spent_at", "detail"],
      r.outputs.map((v) => [
        v.txid,
        v.vout,
        v.matched,
        amountOf(v.amount, 8),
        v.ok ? "ok" : v.state === "unknown" ? "cannot-say" : "fails",
        v.state,
        v.spentAt ?? "",
        v.detail,
      ]),
    );
  return csvTable(
    ["asset", "symbol", "decimals", "total", "total_base_units", "re_read", "differ", "proven_owned"],
    r.assets.map((a) => {
      const proven = r.ownership.proven.find((p) => p.asset === a.id);
      return [
        a.id,
        a.symbol ?? "",
        a.decimals ?? "",
        amountOf(a.total, a.decimals ?? 0),
        a.total_base_units,
        a.checked,
        a.mismatches,
        proven ? amountOf(proven.amount, a.decimals ?? 0) : "",
      ];
    }),
  );
}
