/**
 * The face of `reserves report PROOF…`: UTXO and EVM proofs read (each by its format's strict reader),
 * optionally verified against their chains, and printed as one summary — text, JSON, or one self-contained
 * HTML page for the audit file.
 */
import { type GroupName, parseChainName } from "../chains/index.js";
import type { GlobalFlags } from "../config/config.js";
import { UsageError } from "../errors/index.js";
import { style, table } from "../output/human.js";
import type { CombinedReport, ReadProof } from "../reserves/combined.js";
import { exitCodeOfVerdict } from "../reserves/verdict.js";
import { groupDigits } from "../util/units.js";
import { contextFor, type Run } from "./context.js";
import { asUsage, checkWritable, readText, writeAtomic } from "./files.js";

export interface ReportFlags {
  verify?: boolean;
  urlFor?: string[];
  html?: string;
}

export type { CombinedReport } from "../reserves/combined.js";

const withoutCredentials = (u: string) => {
  try {
    const url = new URL(u);
    url.username = "";
    url.password = "";
    return url.href;
  } catch {
    return u;
  }
};

const quote = (s: string) => (/^[\w./@:=,+-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`);

/**
 * Every proof read and checked (each by its format's strict reader) before anything is sent, then, with
 * --verify, each verified against its chain (--url-for names a node per chain). `reserves report` and
 * `solvency` both read reserves through this.
 */
export async function loadReserveProofs(
  run: Run,
  files: string[],
  flags: GlobalFlags,
  o: ReportFlags,
  command: string,
): Promise<{ read: ReadProof[]; proofs: CombinedReport["proofs"]; urlFor: Map<GroupName, string> }> {
  const urlFor = new Map<GroupName, string>();
  for (const v of o.urlFor ?? []) {
    const m = /^([a-z-]+)=(.+)$/.exec(v);
    if (!m)
      throw new UsageError(
        `--url-for ${JSON.stringify(v)}: expected group=url, like evm=http://127.0.0.1:8545/`,
      );
    urlFor.set(parseChainName(m[1], "--url-for group") as GroupName, m[2] as string);
  }
  if (urlFor.size && !o.verify)
    throw new UsageError("--url-for names nodes to verify against: give --verify too");
  checkWritable(o.html, "--html");
  const { formatOf, EVM_PROOF_FORMAT, readEvmProof } = await import("../proof/evm-document.js");
  const { readProof } = await import("../proof/document.js");
  const { evmEntry, utxoEntry } = await import("../reserves/combined.js");
  // every file is read and checked before anything is sent
  const read: ReadProof[] = [];
  for (const f of files) {
    const text = readText(f, command);
    if (formatOf(text) === EVM_PROOF_FORMAT) {
      const p = await asUsage(f, () => readEvmProof(text));
      read.push({ entry: evmEntry(f, p), evm: p });
    } else {
      const p = await asUsage(f, () => readProof(text));
      read.push({ entry: utxoEntry(f, p), utxo: p });
    }
  }
  let proofs: CombinedReport["proofs"] = read.map((r) => ({ ...r.entry }));
  if (o.verify) {
    const { verifyEntry } = await import("../reserves/combined.js");
    proofs = [];
    for (const r of read) {
      const group: GroupName = r.evm ? r.evm.chain.group : "utxo";
      const url = urlFor.get(group);
      const ctx = contextFor(run, { ...flags, ...(url ? { url: [url] } : {}), chain: group }, group, {
        pooled: true,
      });
      proofs.push(await verifyEntry(ctx.client, r, ctx.signal));
    }
  }
  return { read, proofs, urlFor };
}

export async function reservesReport(run: Run, files: string[], flags: GlobalFlags, o: ReportFlags) {
  if (run.format === "csv" || run.format === "jsonl")
    throw new UsageError(
      `--format ${run.format} is not available for reserves report (human or json; --html FILE)`,
    );
  const { proofs, urlFor } = await loadReserveProofs(run, files, flags, o, "reserves report");
  const { combine } = await import("../reserves/combined.js");
  const report = combine(
    proofs,
    o.verify === true,
    // the nodes it was verified against go with it (credentials left out: they never print)
    `chaingw reserves report --verify ${[...urlFor].map(([g, u]) => `--url-for ${quote(`${g}=${withoutCredentials(u)}`)} `).join("")}${files.map(quote).join(" ")}`,
  );
  const verdict = report.verdict;
  if (o.html !== undefined) {
    const { reportHtml } = await import("./report-html.js");
    writeAtomic(o.html, reportHtml(report, new Date()), "--html");
  }
  if (run.machine) run.out(JSON.stringify(report, null, 2));
  else
    run.out(
      renderReport(
        report,
        !run.machine && Boolean(process.stdout.isTTY) && flags.color !== false && !run.env.NO_COLOR,
      ),
    );
  if (o.html !== undefined && !run.machine) run.out(`report page written to ${o.html}`);
  if (verdict !== "not-verified") run.exitCode = exitCodeOfVerdict(verdict);
}

const VERDICT_TEXT: Record<CombinedReport["verdict"], string> = {
  holds: "HOLDS",
  fails: "FAILS",
  "cannot-say": "CANNOT SAY",
  "not-verified": "NOT VERIFIED",
};

export function renderReport(r: CombinedReport, color: boolean): string {
  const st = style(color);
  const v = `${VERDICT_TEXT[r.verdict]}: ${r.summary}`;
  const out = [r.verdict === "holds" ? st.good(v) : r.verdict === "fails" ? st.bad(v) : v, ""];
  const rows = r.proofs.flatMap((p) =>
    p.assets.map((a) => [
      p.chain,
      a.symbol,
      `${p.block.toLocaleString("en")}${p.snapshot === "latest-only" ? " (head)" : ""}`,
      groupDigits(a.total),
      `${a.holders} of ${a.addresses}`,
      a.proven_share ?? "no signatures",
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
