/**
 * `chaingw solvency --liabilities commitment.json --reserves ASSET=PROOF[#ID]... [--verify]`: the committed
 * liabilities held against reserve proofs, read (and verified) as `reserves report` reads them.
 */
import { readFileSync } from "node:fs";
import type { Command } from "commander";
import type { GlobalFlags } from "../../config/config.js";
import { UsageError } from "../../errors/index.js";
import type { Backing, SolvencyReport } from "../../liabilities/solvency.js";
import { escapeDeep } from "../../util/escape.js";
import { collect } from "../options.js";
import type { Run } from "../run.js";

export interface SolvencyOptions {
  liabilities: string;
  reserves: string[];
  verify: boolean;
  urlFor: string[];
  html?: string;
}

export function declareSolvency(program: Command, run: Run): void {
  program
    .command("solvency")
    .description("hold committed liabilities against reserve proofs: per asset coverage and one verdict")
    .requiredOption("--liabilities <file>", "the commitment.json of liabilities build")
    .requiredOption(
      "--reserves <asset=proof[#id]>",
      "a reserve proof backing a liability asset (repeatable); #id picks an EVM proof's asset: native or the token address",
      collect,
    )
    .option("--verify", "re-check every reserve proof against its chain first")
    .option("--url-for <group=url>", "with --verify: the node for a chain group (repeatable)", collect)
    .option("--html <file>", "also write the self-contained report page with the solvency table")
    .addHelpText(
      "after",
      "\nExit 0 every asset covered by reserves that hold; 1 an asset not covered (shortfall named) or a reserve proof that does not hold; 3 a node could not say; 2 bad input.",
    )
    .action(async (o: Partial<SolvencyOptions>, command: Command) =>
      runSolvency(
        {
          liabilities: o.liabilities!,
          reserves: o.reserves ?? [],
          verify: Boolean(o.verify),
          urlFor: o.urlFor ?? [],
          html: o.html,
        },
        run,
        command.optsWithGlobals() as GlobalFlags,
      ),
    );
}

export async function runSolvency(o: SolvencyOptions, run: Run, flags: GlobalFlags): Promise<void> {
  const { parseCommitment } = await import("../../liabilities/commitment.js");
  let text: string;
  try {
    text = readFileSync(o.liabilities, "utf8");
  } catch (e) {
    throw new UsageError(
      `--liabilities ${o.liabilities}: cannot read it (${(e as NodeJS.ErrnoException).code ?? e})`,
    );
  }
  const commitment = parseCommitment(text, o.liabilities);
  const wanted = o.reserves.map((v) => {
    const m = /^([^=]+)=([^#]+)(?:#(.+))?$/.exec(v);
    if (!m) throw new UsageError(`--reserves ${JSON.stringify(v)}: expected ASSET=PROOF or ASSET=PROOF#ID`);
    const asset = commitment.assets.find((a) => a.asset === m[1]);
    if (!asset)
      throw new UsageError(
        `--reserves ${v}: the liabilities have no asset ${m[1]} (they have ${commitment.assets.map((a) => a.asset).join(", ")})`,
      );
    return { asset, file: m[2], id: m[3]?.toLowerCase() };
  });
  const { loadReserveProofs } = await import("../proofs.js");
  const files = [...new Set(wanted.map((w) => w.file))];
  const { proofs, read } = await loadReserveProofs(run, files, flags, o, "solvency");
  const backings: Backing[] = wanted.map((w) => {
    const i = files.indexOf(w.file);
    const r = read[i];
    const entry = proofs[i];
    if (r.utxo) {
      if (w.id)
        throw new UsageError(
          `--reserves ${w.asset.asset}=${w.file}#${w.id}: a UTXO proof has one asset; drop #${w.id}`,
        );
      if (w.asset.decimals !== 8)
        throw new UsageError(
          `--reserves ${w.asset.asset}=${w.file}: the proof's ${entry.assets[0].symbol} has 8 decimals, the liabilities' ${w.asset.asset} ${w.asset.decimals}`,
        );
      return { asset: w.asset.asset, file: w.file, utxo: r.utxo, entry };
    }
    const ids = r.evm!.assets.map((a) => a.id);
    const id = w.id ?? (ids.length === 1 ? ids[0] : undefined);
    const a = r.evm!.assets.find((x) => x.id === id);
    if (!a)
      throw new UsageError(
        `--reserves ${w.asset.asset}=${w.file}${w.id ? `#${w.id}` : ""}: name one of the proof's assets with #ID: ${ids.join(", ")}`,
      );
    if (a.decimals !== w.asset.decimals)
      throw new UsageError(
        `--reserves ${w.asset.asset}=${w.file}#${id}: the proof's ${a.symbol ?? id} has ${a.decimals ?? "unknown"} decimals, the liabilities' ${w.asset.asset} ${w.asset.decimals}`,
      );
    return { asset: w.asset.asset, file: w.file, id, evm: r.evm, entry };
  });
  const { solvency } = await import("../../liabilities/solvency.js");
  const report = solvency(commitment, backings, o.verify);
  if (o.html !== undefined) {
    const { combine } = await import("../../reserves/combined.js");
    const { reportHtml } = await import("../render/html.js");
    const { writeAtomic } = await import("../files.js");
    const reservesReport = combine(proofs, o.verify, `chaingw solvency ${process.argv.slice(3).join(" ")}`);
    writeAtomic(o.html, reportHtml(reservesReport, new Date(), await solvencyHtml(report)), "--html");
  }
  run.out(run.machine ? JSON.stringify(report, null, 2) : await renderSolvency(escapeDeep(report)));
  if (o.html !== undefined && !run.machine) run.out(`report page written to ${o.html}`);
  const { exitCodeOfVerdict } = await import("../../reserves/verdict.js");
  const { SOLVENCY_VERDICT } = await import("../../liabilities/solvency.js");
  run.exitCode = exitCodeOfVerdict(SOLVENCY_VERDICT[report.verdict]);
}

const WORD: Record<SolvencyReport["verdict"], string> = {
  solvent: "SOLVENT",
  "not-solvent": "NOT SOLVENT",
  "cannot-say": "CANNOT SAY",
};

export async function renderSolvency(r: SolvencyReport): Promise<string> {
  const { table } = await import("../../output/human.js");
  const out = [`${WORD[r.verdict]}: ${r.summary}`, ""];
  out.push(
    table(
      ["asset", "liabilities", "reserves", "proven owned", "coverage", "status"],
      r.assets.map((a) => [
        a.asset,
        a.liabilities.amount,
        a.reserves.amount,
        a.proven_owned ?? "no signatures",
        a.coverage,
        a.shortfall ? `short ${a.shortfall}` : a.status,
      ]),
      false,
    ),
    "",
  );
  for (const a of r.assets) {
    if (!a.proofs.length) out.push(`${a.asset}: no reserve proof backs it`);
    for (const p of a.proofs)
      out.push(
        `${a.asset}: ${p.file}${p.id ? `#${p.id}` : ""}: ${p.reserves} (${p.check})${p.summary ? `: ${p.summary}` : ""}`,
      );
    for (const x of a.overlap) out.push(`${a.asset}: overlap: ${x}`);
  }
  out.push(
    `liabilities: root ${r.commitment.root}${r.commitment.label ? `, ${r.commitment.label}` : ""}, digest ${r.commitment.digest_ok ? "matches" : "DOES NOT MATCH"}`,
  );
  return out.join("\n");
}

async function solvencyHtml(r: SolvencyReport): Promise<string> {
  const { esc } = await import("../render/html.js");
  const rows = r.assets
    .map(
      (a) =>
        `<tr data-asset="${esc(a.asset)}" data-status="${esc(a.status)}"><td>${esc(a.asset)}</td><td class="num">${esc(a.liabilities.amount)}</td><td class="num">${esc(a.reserves.amount)}</td><td>${esc(a.proven_owned ?? "no signatures")}</td><td class="num">${esc(a.coverage)}</td><td>${esc(a.shortfall ? `short ${a.shortfall}` : a.status)}</td></tr>`,
    )
    .join("\n");
  return `<h2>Solvency: ${esc(WORD[r.verdict])}</h2>
<p id="solvency-verdict" data-verdict="${esc(r.verdict)}">${esc(WORD[r.verdict])}: ${esc(r.summary)}</p>
<table id="solvency">
<tr><th>asset</th><th>liabilities</th><th>reserves</th><th>proven owned</th><th>coverage</th><th>status</th></tr>
${rows}
</table>
<p class="muted">Liabilities root <code>${esc(r.commitment.root)}</code>${r.commitment.label ? `, ${esc(r.commitment.label)}` : ""}; commitment digest <code>${esc(r.commitment.digest)}</code> ${r.commitment.digest_ok ? "matches" : "<b>DOES NOT MATCH</b>"}.</p>
`;
}
