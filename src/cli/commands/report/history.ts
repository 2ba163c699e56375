/**
 * `chaingw report history DIR… --out DIR`: audits' packages side by side in time. Each package's manifest is
 * verified first (a changed one: exit 1 naming it, nothing written); then per asset the proven and claimed
 * coverage at each audit: index.html (an inline SVG chart per asset), history.csv and MANIFEST.sha256.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { ChaingwError, UsageError } from "../../../errors/index.js";
import type { Run } from "../../run.js";

export function declareReportHistory(report: Command, run: Run): void {
  report
    .command("history")
    .description(
      "several audits' packages side by side: per asset the proven and claimed coverage at each audit",
    )
    .argument(
      "<dirs...>",
      "the packages (solvency --report DIR), any order: they are ordered by the liabilities' date",
    )
    .requiredOption(
      "--out <dir>",
      "a new or empty folder: index.html (a chart per asset), history.csv, MANIFEST.sha256",
    )
    .addHelpText(
      "after",
      "\nExit 0 written; 1 a package's manifest does not hold (named; nothing written); 2 not a package, or --out holds files.",
    )
    .action(async (dirs: string[], o: { out: string }) => runReportHistory(run, dirs, o.out));
}

export async function runReportHistory(run: Run, dirs: string[], out: string): Promise<void> {
  const [
    { checkManifest },
    { checkReport, PACKAGE_FORMAT },
    { assetRows, auditFacts },
    { historyCsv, historyPage },
    { writeAtomic },
    { escapeDeep },
  ] = await Promise.all([
    import("./verify.js"),
    import("../solvency-report.js"),
    import("../../render/solvency-rows.js"),
    import("../../render/history.js"),
    import("../../files.js"),
    import("../../../util/escape.js"),
  ]);
  checkReport({ report: out });
  const audits = dirs.map((dir) => {
    const c = checkManifest(dir);
    const bad = c.files.filter((f) => f.status !== "ok");
    if (bad.length)
      throw new ChaingwError(
        `${dir}: the package's manifest does not hold (${bad.map((f) => `${f.status}: ${f.name}`).join(", ")}); nothing was written`,
      );
    let doc: {
      format?: unknown;
      scope?: {
        audit_id?: string;
        period?: string;
        made_at?: string;
        entity?: string;
        auditor?: string;
      };
      report?: never;
    };
    try {
      doc = JSON.parse(readFileSync(join(dir, "solvency.json"), "utf8"));
    } catch (e) {
      throw new UsageError(`${dir}/solvency.json: not JSON (${(e as Error).message})`);
    }
    if (doc.format !== PACKAGE_FORMAT || !doc.report || !doc.scope?.audit_id)
      throw new UsageError(
        `${dir}/solvency.json: not a report package's (format ${JSON.stringify(doc.format)}, expected "${PACKAGE_FORMAT}")`,
      );
    const facts = auditFacts(doc.report);
    const date = facts.liabilities_date ?? doc.scope.made_at ?? "";
    return {
      dir,
      audit_id: doc.scope.audit_id,
      label: doc.scope.period ?? date,
      ...(typeof doc.scope.entity === "string" ? { entity: doc.scope.entity } : {}),
      ...(typeof doc.scope.auditor === "string" ? { auditor: doc.scope.auditor } : {}),
      date,
      dated: facts.liabilities_date !== undefined && facts.liabilities_date !== null,
      verdict: (doc.report as { verdict: string }).verdict,
      assets: assetRows(doc.report),
    };
  });
  const seen = new Map<string, string>();
  for (const a of audits) {
    const before = seen.get(a.audit_id);
    if (before)
      throw new UsageError(`${a.dir} is the audit ${a.audit_id} again (${before}): give each audit once`);
    seen.set(a.audit_id, a.dir);
  }
  // one entity's audits over time: packages naming two entities (--entity) are not one history
  const named = audits.filter((a) => a.entity !== undefined);
  const other = named.find((a) => a.entity !== named[0]?.entity);
  if (other && named[0])
    throw new UsageError(
      `${other.dir} is an audit of ${JSON.stringify(other.entity)}, ${named[0].dir} of ${JSON.stringify(named[0].entity)} (--entity): a history is one entity's audits; give each entity's packages apart`,
    );
  // by the liabilities' date; audits of one second by their label (--period)
  audits.sort((x, y) => x.date.localeCompare(y.date) || x.label.localeCompare(y.label));
  const shown = escapeDeep(audits);
  mkdirSync(out, { recursive: true });
  const files: [string, string][] = [
    ["history.csv", `${historyCsv(shown)}\n`],
    ["index.html", historyPage(shown)],
  ];
  for (const [name, text] of files) writeAtomic(join(out, name), text, "--out");
  writeAtomic(
    join(out, "MANIFEST.sha256"),
    files.map(([name, text]) => `${createHash("sha256").update(text).digest("hex")}  ${name}`).join("\n") +
      "\n",
    "--out",
  );
  run.print(
    { out, audits: audits.map((a) => ({ dir: a.dir, audit_id: a.audit_id, date: a.date })) },
    () =>
      `history of ${audits.length} audits written to ${out}: index.html, history.csv (${audits.reduce((n, a) => n + a.assets.length, 0)} rows), MANIFEST.sha256`,
  );
}
