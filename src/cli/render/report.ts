/** `reserves report`'s summary as people read it: the verdict line, one row per proof and asset, the files. */
import { style, table } from "../../output/human.js";
import type { CombinedReport } from "../../reserves/combined.js";
import { csvTable } from "../../util/csv.js";
import { amountOf } from "../../util/units.js";

const VERDICT_TEXT: Record<CombinedReport["verdict"], string> = {
  holds: "HOLDS",
  fails: "FAILS",
  "cannot-say": "CANNOT SAY",
  "not-verified": "NOT VERIFIED",
};

/** The proven share: the verifier's, or marked as the document's own claim when nothing re-derived it. */
export const provenCell = (
  a: CombinedReport["proofs"][number]["assets"][number],
  verified: boolean,
): string =>
  a.proven_share === null
    ? "no signatures"
    : verified
      ? a.proven_share
      : `${a.proven_share} (claimed, not verified)`;

export function renderReport(r: CombinedReport, color: boolean): string {
  const st = style(color);
  const v = `${VERDICT_TEXT[r.verdict]}: ${r.summary}`;
  const out = [r.verdict === "holds" ? st.good(v) : r.verdict === "fails" ? st.bad(v) : v, ""];
  const rows = r.proofs.flatMap((p) =>
    p.assets.map((a) => [
      p.chain,
      a.symbol,
      `${p.block.toLocaleString("en")}${p.snapshot === "latest-only" ? " (head)" : ""}`,
      amountOf(a.total, a.decimals ?? 0),
      `${a.holders} of ${a.addresses}`,
      provenCell(a, p.verify !== undefined),
      p.verify ? VERDICT_TEXT[p.verify.verdict].toLowerCase() : p.digest_ok ? "digest ok" : "DIGEST FAILS",
    ]),
  );
  out.push(
    table(["chain", "asset", "height/block", "total", "holders", "proven owned", "verdict"], rows, color),
    "",
  );
  for (const p of r.proofs) {
    out.push(
      `${p.file}: ${p.format}, block ${p.block_hash}, digest ${p.digest} ${p.digest_ok ? "(matches)" : "(DOES NOT MATCH the content)"}`,
    );
    if (p.verify) out.push(`  ${p.verify.summary}`);
  }
  out.push("", `re-verify: ${r.command}`);
  return out.join("\n");
}

/** `reserves report --format csv`: its table, one row per proof and asset, amounts in coin units and base units. */
export const reportCsv = (r: CombinedReport): string =>
  csvTable(
    [
      "file",
      "chain",
      "asset",
      "contract",
      "block",
      "total",
      "total_base_units",
      "decimals",
      "holders",
      "addresses",
      "proven_owned",
      "proven_share",
      "verdict",
      "code",
    ],
    r.proofs.flatMap((p) =>
      p.assets.map((a) => [
        p.file,
        p.chain,
        a.symbol,
        a.contract ?? "",
        p.block,
        amountOf(a.total, a.decimals ?? 0),
        a.total_base_units,
        a.decimals ?? "",
        a.holders,
        a.addresses,
        a.proven === null ? "" : amountOf(a.proven, a.decimals ?? 0),
        a.proven_share ?? "",
        p.verify ? p.verify.verdict : p.digest_ok ? "not-verified" : "digest-fails",
        // what decides it, stable (docs/finding-codes.md)
        p.verify ? p.verify.code : p.digest_ok ? "not-verified" : "digest-fails",
      ]),
    ),
  );
