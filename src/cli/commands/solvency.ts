/**
 * `chaingw solvency --liabilities commitment.json --reserves ASSET=PROOF[#ID]... [--verify]`: the committed
 * liabilities held against reserve proofs, read (and verified) as `reserves report` reads them.
 */
import type { Command } from "commander";
import type { GlobalFlags } from "../../config/config.js";
import { UsageError } from "../../errors/index.js";
import type { ExchangeLiabilities } from "../../exchange/ownership/solvency.js";
import type { Commitment } from "../../liabilities/commitment.js";
import type { Backing, ExchangeOwed, SolvencyReport } from "../../liabilities/solvency.js";
import type { CombinedReport, ReadProof } from "../../reserves/combined.js";
import { escapeDeep } from "../../util/escape.js";
import { amountText } from "../../util/units.js";
import { BACKING_ALIASES, BACKING_NETWORKS, OWNERSHIP_PUBLISHERS, WELL_KNOWN_ASSETS } from "../help-lists.js";
import { NODE_OPTION, type NodeChoice, type NodeUsed, STAND_IN_OPTION, URL_FOR_OPTION } from "../nodes.js";
import { collect, takesCsv, WALK_OPTION } from "../options.js";

/** --max-gap's default: the reserves' block and the liabilities' count on the same day (docs/proofs.md) */
const DEFAULT_MAX_GAP = "24h";

import type { Run } from "../run.js";

export interface SolvencyOptions {
  liabilities: string;
  reserves: string[];
  verify: boolean;
  urlFor: string[];
  html?: string;
  /** `ASSET=NETWORK[:TOKEN]`, repeatable */
  backing: string[];
  /** the audit's challenge (equal to the commitment's, when it has one) */
  challenge?: string;
  /** how far apart the liabilities' created and each reserve snapshot's block may be: `24h` */
  maxGap?: string;
  /** an exchange's package: the nodes its address file's balances are re-read on, token contracts, the root */
  node?: string[];
  token?: string[];
  root?: string;
  /** an exchange's inclusion proof as --liabilities: the date its root was published for (RFC 3339) */
  liabilitiesDate?: string;
  /** the report package's folder and its scope */
  report?: string;
  auditor?: string;
  entity?: string;
  period?: string;
  /** --walk: a UTXO proof's spend walk's most blocks, with --verify */
  walk?: string;
  /** --stand-in NETWORK: a devnet on that network's chain id is read as standing in for it (nodes.ts) */
  standIn?: string[];
}

export function declareSolvency(program: Command, run: Run): void {
  takesCsv(program.command("solvency"))
    .description("hold committed liabilities against reserve proofs: per asset coverage and one verdict")
    .requiredOption("--liabilities <file>", "the commitment.json of liabilities build")
    .requiredOption(
      "--reserves <asset=proof[#id]>",
      "a reserve proof backing a liability asset (repeatable); #id picks an EVM proof's asset: native or the token address",
      collect,
    )
    .option(
      "--backing <asset=network[:token]>",
      `what backs a liabilities asset (repeatable): NETWORK a genesis block hash (64 hex), evm:<chain id>, or one of ${BACKING_NETWORKS} (${BACKING_ALIASES} too); TOKEN a contract address. Default: the well-known table (${WELL_KNOWN_ASSETS} on mainnets). An exchange's address file: its rows by the network their --node answers for and the contract --token names`,
      collect,
    )
    .option("--verify", "re-check every reserve proof against its chain first (nothing is proven without it)")
    .option(
      "--challenge <text>",
      "the audit's challenge, when the commitment has none (else it must equal the commitment's): reserves prove only when signed over this exact text",
    )
    .option(
      "--max-gap <duration>",
      `how far a reserve snapshot's block time may be from the liabilities' date (an exchange's root: --liabilities-date) (s, m, h or d; default ${DEFAULT_MAX_GAP}); beyond it the reserves prove nothing for them`,
    )
    .option(
      NODE_OPTION.flags,
      `with --verify (an exchange's address file: its NET rows re-read at the snapshot): ${NODE_OPTION.help}`,
      collect,
    )
    .option(URL_FOR_OPTION.flags, URL_FOR_OPTION.help, collect)
    .option(STAND_IN_OPTION.flags, STAND_IN_OPTION.help, collect)
    .option(WALK_OPTION.flags, `with --verify: ${WALK_OPTION.help}`)
    .option(
      "--token <symbol=address>",
      "an exchange's address file: a token's contract for its SYMBOL rows (repeatable)",
      collect,
    )
    .option(
      "--root <hex>",
      "an exchange's inclusion proof as --liabilities: the root the exchange published elsewhere (without it: cannot say)",
    )
    .option(
      "--liabilities-date <time>",
      "an exchange's inclusion proof as --liabilities: the date (RFC 3339) its root was published for, which its files do not state (without it: cannot say for reserves within --max-gap)",
    )
    .option("--html <file>", "also write the self-contained report page with the solvency table")
    .option(
      "--report <dir>",
      "also write the audit's package to a new or empty folder: index.html, solvency.json, solvency.csv, rows.csv, the documents read (inputs/) and MANIFEST.sha256 (chaingw report verify DIR)",
    )
    .option("--auditor <name>", "the report package's scope: who audits")
    .option("--entity <name>", "the report package's scope: whose reserves and liabilities")
    .option("--period <text>", "the report package's scope: the period audited (2026-11)")
    .addHelpText(
      "after",
      "\nProven for these liabilities: signed over the audit's challenge (the commitment's, or --challenge), re-read on chain by --verify at a block within --max-gap of the commitment's created, and not spent by then. No challenge anywhere: nothing is proven.\nExit 0 every asset covered by proven reserves; 1 an asset covered only by claimed reserves (NOT PROVEN SOLVENT), not covered or a reserve proof that does not hold (NOT SOLVENT); 3 a node could not say; 2 bad input. See docs/proofs.md.",
    )
    .action(async (o: Partial<SolvencyOptions>, command: Command) =>
      runSolvency(
        {
          liabilities: o.liabilities!,
          reserves: o.reserves ?? [],
          verify: Boolean(o.verify),
          urlFor: o.urlFor ?? [],
          html: o.html,
          backing: o.backing ?? [],
          challenge: o.challenge,
          maxGap: o.maxGap,
          node: o.node,
          token: o.token,
          root: o.root,
          liabilitiesDate: o.liabilitiesDate,
          report: o.report,
          auditor: o.auditor,
          entity: o.entity,
          period: o.period,
          walk: o.walk,
          standIn: o.standIn,
        },
        run,
        command.optsWithGlobals() as GlobalFlags,
      ),
    );
}

export async function runSolvency(o: SolvencyOptions, run: Run, flags: GlobalFlags): Promise<void> {
  (await import("./solvency-report.js")).checkReport(o);
  // an exchange's package: --reserves FILE (no ASSET=) naming its address file
  const plain = o.reserves.filter((v) => !v.includes("="));
  if (plain.length) return runPackage(o, run, flags, plain[0] as string);
  if (o.token?.[0] !== undefined)
    throw new UsageError(
      "--token is for an exchange's address file (--reserves ADDRESS-FILE); chaingw's own proofs name their tokens' contracts",
    );
  const { commitment, exchange, assets } = await liabilitiesFor(o);
  const wanted = wantedOf(o.reserves, assets);
  const { backingRules } = await import("./solvency-backing.js");
  const rules = backingRules(o.backing, assets);
  const { loadReserveProofs, verifyReserveProofs } = await import("../proofs.js");
  const files = [...new Set(wanted.map((w) => w.file))];
  // every file read first; what cannot be joined refused before anything is sent; then verified
  const loaded = await loadReserveProofs(
    run,
    files,
    flags,
    { ...o, node: o.node ?? [], verify: false, verifyLater: o.verify },
    "solvency",
  );
  const { read } = loaded;
  // an exchange's totals in the decimals of the proofs that back each coin
  const owed = exchange && inDecimalsOfProofs(exchange, assets, wanted, files, read);
  const { snapshotConflicts, judgeSolvency } = await import("../../liabilities/solvency.js");
  const conflicts = snapshotConflicts(backingsOf(wanted, files, read, loaded.proofs), o.verify);
  if (conflicts.length) throw new UsageError(`--reserves: ${conflicts[0]}`, { details: conflicts.slice(1) });
  const { challengeFault } = await import("../../liabilities/commitment.js");
  const why = o.challenge === undefined ? undefined : challengeFault(o.challenge);
  if (why) throw new UsageError(`--challenge ${why}`);
  const { parseSpan } = await import("../../util/text.js");
  const gapText = o.maxGap ?? DEFAULT_MAX_GAP;
  const maxGap = { text: gapText, seconds: parseSpan("--max-gap", gapText) };
  // each proof is verified on its own terms (its own challenge); whether that is the audit's, solvency says
  const used: NodeUsed[] = [];
  const proofs = o.verify
    ? await verifyReserveProofs(
        run,
        read,
        flags,
        loaded.nodes,
        undefined,
        used,
        o.walk,
        await (await import("../nodes.js")).standInsOf(o.standIn),
      )
    : loaded.proofs;
  // its totals against its root: v2's root, v1's children it carries or the tree.bin beside it (commitment-totals.ts)
  const { commitmentTotals } = await import("../../liabilities/commitment-totals.js");
  const { report: judged, holdings } = judgeSolvency({
    ...(commitment
      ? { commitment, commitmentTotals: commitmentTotals(commitment, o.liabilities) }
      : { exchange: owed }),
    backings: backingsOf(wanted, files, read, proofs),
    verified: o.verify,
    rules,
    challenge: o.challenge,
    maxGap,
    now: new Date(),
  });
  // which node answered for which chain, in every form of the verdict (text, --json, --html, the package)
  const report: SolvencyReport = used.length ? { ...judged, nodes: used } : judged;
  if (o.html !== undefined) await writeHtml(o, o.html, report, proofs, loaded.nodes);
  const { writtenBeside } = await import("./solvency-report.js");
  // the package's rows.csv lists each output and balance as the judge judged it (judgeSolvency's lines)
  const written = await writtenBeside(
    o,
    report,
    [{ path: o.liabilities, role: "liabilities" }, ...files.map((f) => ({ path: f, role: "reserves" }))],
    holdings,
  );
  const [{ printSolvency }, { renderSolvency }] = await Promise.all([
    import("../render/solvency-rows.js"),
    import("../render/solvency.js"),
  ]);
  await printSolvency(run, report, () => renderSolvency(escapeDeep(report)), written);
  const { exitCodeOfVerdict } = await import("../../reserves/verdict.js");
  const { SOLVENCY_VERDICT } = await import("../../liabilities/solvency.js");
  run.exitCode = exitCodeOfVerdict(SOLVENCY_VERDICT[report.verdict]);
}

/** `--reserves ASSET=PROOF[#ID]` each read against the liabilities' assets. */
function wantedOf(reserves: string[], assets: { asset: string; decimals: number }[]): Wanted[] {
  return reserves.map((v) => {
    const m = /^([^=]+)=([^#]+)(?:#(.+))?$/.exec(v);
    if (!m) throw new UsageError(`--reserves ${JSON.stringify(v)}: expected ASSET=PROOF or ASSET=PROOF#ID`);
    const asset = assets.find((a) => a.asset === m[1]);
    if (!asset)
      throw new UsageError(
        `--reserves ${v}: the liabilities have no asset ${m[1]} (they have ${assets.map((a) => a.asset).join(", ")})`,
      );
    return { asset, file: m[2] as string, id: m[3]?.toLowerCase() };
  });
}

/** An exchange's package: `--reserves FILE` naming its address file, given alone, judged by solvency-exchange.ts. */
async function runPackage(o: SolvencyOptions, run: Run, flags: GlobalFlags, file: string): Promise<void> {
  const [{ readText }, { addressFileOf, runExchangeSolvency }] = await Promise.all([
    import("../files.js"),
    import("./solvency-exchange.js"),
  ]);
  const text = readText(file, "--reserves");
  const m = await addressFileOf(text);
  if (!m)
    throw new UsageError(
      `--reserves ${file}: expected ASSET=PROOF[#ID], or an exchange's address file (the layouts of ${OWNERSHIP_PUBLISHERS})`,
    );
  if (o.reserves.length > 1)
    throw new UsageError(
      `--reserves ${file} is an exchange's address file: give it alone (its rows are every coin's reserves), not beside ${o.reserves.find((v) => v !== file)}`,
    );
  for (const [flag, given] of [
    ["--verify", o.verify || undefined],
    ["--url-for", o.urlFor.length ? o.urlFor[0] : undefined],
    ["--walk", o.walk],
  ] as const)
    if (given !== undefined)
      throw new UsageError(
        `${flag}: an exchange's address file is judged with --node NET=URL (its rows re-read at the snapshot) and its coins by --backing or chaingw's tables; leave ${flag} out`,
      );
  return runExchangeSolvency(
    {
      liabilities: o.liabilities,
      reserves: file,
      root: o.root,
      liabilitiesDate: o.liabilitiesDate,
      node: o.node ?? [],
      token: o.token ?? [],
      backing: o.backing,
      maxGap: o.maxGap ?? DEFAULT_MAX_GAP,
      challenge: o.challenge,
      standIn: o.standIn,
      html: o.html,
      report: o.report,
      auditor: o.auditor,
      entity: o.entity,
      period: o.period,
    },
    run,
    flags,
    m,
    text,
  );
}

/** `--html FILE`: the reserves report page with solvency's verdict at its head, and the command to run it again. */
async function writeHtml(
  o: SolvencyOptions,
  html: string,
  report: SolvencyReport,
  proofs: CombinedReport["proofs"],
  nodes: readonly NodeChoice[],
): Promise<void> {
  const { combine } = await import("../../reserves/combined.js");
  const { reportHtml } = await import("../render/html.js");
  const { writeAtomic } = await import("../files.js");
  const { shellQuote } = await import("../../util/text.js");
  const { nodeArgs } = await import("../proofs.js");
  // the command another person runs to judge the same files against the same nodes (credentials masked)
  const again = [
    "chaingw solvency --verify --liabilities",
    shellQuote(o.liabilities),
    ...o.reserves.map((v) => `--reserves ${shellQuote(v)}`),
    ...(o.root === undefined ? [] : [`--root ${shellQuote(o.root)}`]),
    ...(o.liabilitiesDate === undefined ? [] : [`--liabilities-date ${shellQuote(o.liabilitiesDate)}`]),
    ...o.backing.map((v) => `--backing ${shellQuote(v)}`),
    ...(o.challenge === undefined ? [] : [`--challenge ${shellQuote(o.challenge)}`]),
    ...(o.maxGap === undefined ? [] : [`--max-gap ${shellQuote(o.maxGap)}`]),
    ...(o.walk === undefined ? [] : [`--walk ${shellQuote(o.walk)}`]),
    ...(await nodeArgs(nodes, o.standIn)),
  ].join(" ");
  const reservesReport = combine(proofs, o.verify, again);
  const [{ VERDICT_WORD }, { solvencyHtml }] = await Promise.all([
    import("../render/solvency-rows.js"),
    import("../render/solvency.js"),
  ]);
  const lead = {
    text: VERDICT_WORD[report.verdict],
    verdict: report.verdict,
    summary: report.summary,
    tone: report.verdict === "solvent" ? "good" : report.verdict === "cannot-say" ? "unknown" : "bad",
  } as const;
  writeAtomic(
    html,
    // which node answered for which chain, as the text's last line says it
    reportHtml(
      { ...reservesReport, ...(report.nodes ? { nodes: report.nodes } : {}) },
      new Date(),
      await solvencyHtml(escapeDeep(report)),
      lead,
    ),
    "--html",
  );
}

type Wanted = { asset: { asset: string; decimals: number }; file: string; id?: string };

/**
 * `--liabilities` read: chaingw's commitment, or an exchange's inclusion proof whose root node carries the
 * totals (counted only with `--root`, the root published elsewhere; dated only by `--liabilities-date`).
 */
async function liabilitiesFor(o: SolvencyOptions): Promise<{
  assets: { asset: string; decimals: number }[];
  commitment?: Commitment;
  exchange?: ExchangeLiabilities;
}> {
  const [{ readText }, { COMMITMENT_FORMAT }] = await Promise.all([
    import("../files.js"),
    import("../../liabilities/format.js"),
  ]);
  const text = readText(o.liabilities, "--liabilities");
  const { liabilitiesOf } = await import("./solvency-exchange.js");
  if (text.includes(`"${COMMITMENT_FORMAT}"`)) {
    // --root and --liabilities-date refused, as for an exchange's address file
    if (o.root !== undefined || o.liabilitiesDate !== undefined)
      await liabilitiesOf(o.liabilities, text, o.root, o.liabilitiesDate);
    const { parseCommitment } = await import("../../liabilities/commitment.js");
    const commitment = parseCommitment(text, o.liabilities);
    return { assets: commitment.assets, commitment };
  }
  const exchange = await liabilitiesOf(o.liabilities, text, o.root, o.liabilitiesDate);
  // each coin's decimals are the proofs' (inDecimalsOfProofs), once they are read
  return { assets: exchange.totals.map((t) => ({ asset: t.asset, decimals: t.decimals })), exchange };
}

/**
 * An exchange's totals in the decimals of the proofs that back each coin (a UTXO proof's 8, an EVM asset's
 * own): exact when the root has no more places; else rounded up, which the source says (the reserves must
 * cover the whole amount owed). A coin no proof backs keeps the root's places. `assets` take the decimals.
 */
function inDecimalsOfProofs(
  x: ExchangeLiabilities,
  assets: { asset: string; decimals: number }[],
  wanted: Wanted[],
  files: string[],
  read: ReadProof[],
): ExchangeOwed {
  const rounded: string[] = [];
  const totals = x.totals.map((t, k) => {
    const w = wanted.find((v) => v.asset.asset === t.asset);
    const r = w && read[files.indexOf(w.file)];
    const ids = r?.evm?.assets.map((a) => a.id) ?? [];
    const id = w?.id ?? (ids.length === 1 ? ids[0] : undefined);
    const d = r?.utxo ? 8 : (r?.evm?.assets.find((a) => a.id === id)?.decimals ?? t.decimals);
    (assets[k] as { decimals: number }).decimals = d;
    if (d >= t.decimals)
      return { ...t, decimals: d, base_units: t.base_units * 10n ** BigInt(d - t.decimals) };
    const unit = 10n ** BigInt(t.decimals - d);
    const up = (t.base_units + unit - 1n) / unit;
    if (up * unit !== t.base_units)
      rounded.push(`${t.asset}'s total rounded up to ${d} places, the proofs' (${amountText(up, d)})`);
    return { ...t, decimals: d, base_units: up };
  });
  return { ...x, totals, source: [x.source, ...rounded].join("; ") };
}

/** Each `--reserves` as a backing of its asset: the proof read (and its check); a wrong #ID or decimals: exit 2. */
function backingsOf(
  wanted: Wanted[],
  files: string[],
  read: ReadProof[],
  proofs: CombinedReport["proofs"],
): Backing[] {
  return wanted.map((w) => {
    const i = files.indexOf(w.file);
    const r = read[i] as ReadProof;
    const entry = proofs[i] as CombinedReport["proofs"][number];
    if (r.utxo) {
      if (w.id)
        throw new UsageError(
          `--reserves ${w.asset.asset}=${w.file}#${w.id}: a UTXO proof has one asset; drop #${w.id}`,
        );
      if (w.asset.decimals !== 8)
        throw new UsageError(
          `--reserves ${w.asset.asset}=${w.file}: the proof's ${entry.assets[0]?.symbol} has 8 decimals, the liabilities' ${w.asset.asset} ${w.asset.decimals}`,
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
}
