/**
 * Solvency's per-asset rows in one shape, read from either report `solvency --json` prints (chaingw's own
 * proofs' `assets`, an exchange's files' `coins`): the CSV of `--format csv` and the report package's tables
 * and chart read these, so the two judges' reports are drawn one way. Amounts stay the report's exact
 * decimal text, in the asset's units.
 */
import type { ExchangeSolvencyReport } from "../../exchange/ownership/solvency.js";
import type { SolvencyReport } from "../../liabilities/solvency.js";
import { csvTable } from "../../util/csv.js";
import { escapeDeep } from "../../util/escape.js";
import type { Run } from "../run.js";

export type AnySolvencyReport = SolvencyReport | ExchangeSolvencyReport;

export interface AssetRow {
  asset: string;
  decimals: number;
  liabilities: string;
  proven: string;
  claimed: string;
  /** proven ÷ liabilities, claimed ÷ liabilities: "112.50%", or "n/a" */
  proven_coverage: string;
  claimed_coverage: string;
  status: string;
  /** what proven reserves miss, in the asset's units; null when covered */
  shortfall: string | null;
}

export function assetRows(r: AnySolvencyReport): AssetRow[] {
  if ("coins" in r)
    return r.coins.map((c) => ({
      asset: c.asset,
      decimals: c.decimals,
      liabilities: c.liabilities,
      proven: c.proven,
      claimed: c.claimed,
      proven_coverage: c.proven_ratio,
      claimed_coverage: c.claimed_ratio,
      status: c.status,
      shortfall: c.shortfall,
    }));
  return r.assets.map((a) => ({
    asset: a.asset,
    decimals: a.decimals,
    liabilities: a.liabilities.amount,
    proven: a.proven.amount,
    claimed: a.claimed.amount,
    proven_coverage: a.coverage,
    claimed_coverage: a.claimed_coverage,
    status: a.status,
    shortfall: a.shortfall,
  }));
}

const HEAD = [
  "asset",
  "decimals",
  "liabilities",
  "proven",
  "claimed",
  "proven_coverage",
  "claimed_coverage",
  "status",
  "shortfall",
] as const;

/** `solvency --format csv` and the package's solvency.csv: one row per asset, the verdict's words in `status`. */
export const solvencyCsv = (r: AnySolvencyReport): string =>
  csvTable(
    [...HEAD],
    assetRows(r).map((a) => HEAD.map((h) => a[h])),
  );

/**
 * Either judge's report in the run's format: its JSON, the per-asset CSV (`--format csv`), or the text; the
 * page's path said after the text.
 */
export async function printSolvency(
  run: Run,
  report: AnySolvencyReport,
  human: () => Promise<string>,
  html: string | undefined,
): Promise<void> {
  if (run.format === "csv") return run.out(solvencyCsv(escapeDeep(report)));
  run.out(run.machine ? run.json(report) : await human());
  if (html !== undefined && !run.machine) run.out(`report page written to ${html}`);
}
