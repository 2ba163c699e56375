/**
 * `chaingw solvency --reserves ADDRESS-FILE --liabilities FILE [--root HEX] [--node NET=URL]… [--challenge TEXT]`:
 * an exchange's package — its address/signature file (any layout the registry reads) judged as `reserves
 * verify` judges it, against liabilities totals per coin: a chaingw commitment's, or the root node of an
 * exchange's inclusion proof, taken only with the root published elsewhere (`--root`). The rules:
 * src/exchange/ownership/solvency.ts; docs/exchange-proofs.md, "An exchange's solvency".
 */
import type { GlobalFlags } from "../../config/config.js";
import { UsageError } from "../../errors/index.js";
import type { ChainNode } from "../../exchange/ownership/balances.js";
import type { OwnershipFile } from "../../exchange/ownership/read.js";
import type { RowResult } from "../../exchange/ownership/report.js";
import type { ExchangeLiabilities, RowBackings, SnapshotTime } from "../../exchange/ownership/solvency.js";
import type { RowSink } from "../../exchange/ownership/verify.js";
import type { AddressFileModule } from "../../formats/registry.js";
import { escapeDeep } from "../../util/escape.js";
import type { Run } from "../run.js";

export interface ExchangeSolvencyOptions {
  liabilities: string;
  reserves: string;
  root?: string;
  liabilitiesDate?: string;
  node: string[];
  token: string[];
  /** `ASSET=NETWORK[:TOKEN]`: what the liabilities' asset names are, for the rows */
  backing: string[];
  /** `24h`: how far a snapshot's block time may be from the liabilities' date */
  maxGap: string;
  challenge?: string;
  /** --stand-in NETWORK: a devnet on that network's chain id is read as standing in for it (nodes.ts) */
  standIn?: string[];
  html?: string;
  report?: string;
  auditor?: string;
  entity?: string;
  period?: string;
}

/** Whether `--reserves FILE` (no ASSET=) names an exchange's address file: its module, else undefined. */
export async function addressFileOf(text: string): Promise<AddressFileModule | undefined> {
  const { detectFormat } = await import("../../formats/registry.js");
  const f = detectFormat(text, "reserves");
  const m = f ? await f.load() : undefined;
  return m?.kind === "address-file" ? m : undefined;
}

/**
 * The root's totals, each at its significant places ("1.50" states one, "1.5"): which places the coin is
 * written at is solvency's to choose (exchange/ownership/places.ts). A total that is no amount: exit 2.
 */
async function rootTotals(totals: { asset: string; amount: string }[], file: string) {
  const [{ parseDec }, { significant }] = await Promise.all([
    import("../../exchange/liabilities/decimal.js"),
    import("../../exchange/ownership/holdings.js"),
  ]);
  return totals.map((t) => {
    const d = parseDec(t.amount);
    if (!d || d.units < 0n)
      throw new UsageError(`--liabilities ${file}: the root's ${t.asset} total ${t.amount} is not an amount`);
    const x = significant({ units: d.units, scale: d.scale });
    return { asset: t.asset, decimals: x.scale, base_units: x.units };
  });
}

/**
 * chaingw's commitment as the liabilities: its totals, created, root and challenge under its digest — and its
 * totals against its root (commitment-totals.ts: v2's root, v1's children it carries, or the tree.bin beside it).
 */
async function commitmentLiabilities(
  file: string,
  text: string,
  root: string | undefined,
  date: string | undefined,
): Promise<ExchangeLiabilities> {
  for (const [flag, given] of [
    ["--root", root],
    ["--liabilities-date", date],
  ] as const)
    if (given !== undefined)
      throw new UsageError(
        `${flag}: the liabilities are chaingw's commitment, whose root and created are in it under its digest; leave ${flag} out`,
      );
  const { parseCommitment, commitmentFaults } = await import("../../liabilities/commitment.js");
  const c = parseCommitment(text, file);
  const faults = commitmentFaults(c);
  // its totals against its root: v2's root, v1's children it carries or the tree.bin beside it (commitment-totals.ts)
  const [{ commitmentTotals }, { totalsStatus, totalsWords }] = await Promise.all([
    import("../../liabilities/commitment-totals.js"),
    import("../../judge/words.js"),
  ]);
  const bound = faults.length ? undefined : commitmentTotals(c, file);
  const status = bound && totalsStatus(bound);
  return {
    source: `${file} (chaingw commitment)`,
    totals: c.assets.map((a, i) => ({
      asset: a.asset,
      decimals: a.decimals,
      base_units: BigInt(c.totals[i]?.base_units ?? "0"),
      // the commitment states each asset's decimals: the places its amounts are written at
      known: true,
    })),
    date: c.created,
    root: c.root,
    ...(c.challenge === undefined ? {} : { challenge: c.challenge }),
    ...(faults.length
      ? { fails: `the commitment was edited: ${faults[0]}` }
      : status === "fails"
        ? { fails: totalsWords(bound!) }
        : status === "cannot-say"
          ? { cannot_say: totalsWords(bound!) }
          : {}),
    commitment: { digest: c.digest, ...(c.label ? { label: c.label } : {}) },
  };
}

/**
 * The liabilities' totals per coin: a chaingw commitment, or an exchange's inclusion proof with --root (and
 * the date given for its root, --liabilities-date).
 */
export async function liabilitiesOf(
  file: string,
  text: string,
  root: string | undefined,
  date?: string,
): Promise<ExchangeLiabilities> {
  const [{ detectFormat }, { COMMITMENT_FORMAT }, { isRfc3339 }] = await Promise.all([
    import("../../formats/registry.js"),
    import("../../liabilities/format.js"),
    import("../../liabilities/read.js"),
  ]);
  if (root !== undefined && !/^(0x)?[0-9a-fA-F]+$/.test(root))
    throw new UsageError(`--root ${JSON.stringify(root)}: not hex`);
  if (date !== undefined && !isRfc3339(date))
    throw new UsageError(
      `--liabilities-date ${JSON.stringify(date)}: not an RFC 3339 date-time (2026-11-28T16:00:00Z)`,
    );
  if (text.includes(`"${COMMITMENT_FORMAT}"`)) return commitmentLiabilities(file, text, root, date);
  const f = detectFormat(text, "liabilities");
  if (!f || f.name === "chaingw-liabilities")
    throw new UsageError(
      `--liabilities ${file}: neither chaingw's commitment nor an exchange's inclusion proof the registry reads`,
    );
  const m = await f.load();
  const out = await m.verify(
    text,
    {
      file,
      root,
      readFile: () => {
        throw new UsageError(
          `--liabilities ${file}: ${f.title} needs a second file, which solvency does not take`,
        );
      },
    },
    f,
  );
  if (out.kind !== "inclusion") throw new UsageError(`--liabilities ${file}: not an inclusion proof`);
  const check = out.check;
  if (!check.totals?.length)
    throw new UsageError(
      `--liabilities ${file}: ${f.title} states no per-coin totals at its root (${check.sum_binding === "none" ? "its tree carries no sums" : "none in the file"}): nothing to hold reserves against`,
    );
  const totals = await rootTotals(check.totals, file);
  const failed = check.findings.find((x) => x.status === "fails");
  const binding =
    check.sum_binding === "total"
      ? `; ${f.name}'s nodes bind only their children's total: the root's total can be understated without any customer noticing`
      : "";
  return {
    source: `${file} (${f.name} inclusion proof, its root's totals)${binding}`,
    totals,
    date: date ?? null,
    root: check.root,
    ...(failed
      ? { fails: `${failed.at ? `${failed.at}: ` : ""}${failed.text}` }
      : check.totals_binding === "ambiguous"
        ? {
            cannot_say: `${f.name}'s root does not bind the totals it carries (${check.totals_unbound}): the same root holds other totals, so none is taken as what is owed`,
          }
        : check.root_source !== "given"
          ? {
              cannot_say: `the root ${check.root} is the one written in the file itself: consistent with its own root; give the published root (--root HEX)`,
            }
          : {}),
  };
}

/** The block time of each snapshot height the rows name on a network a node reads. */
async function snapshotTimes(file: OwnershipFile, nodes: ChainNode[]): Promise<SnapshotTime[]> {
  // a row's node is the one that read its balance (`nodeOfRow`: TRON's spellings one network)
  const { nodeOfRow } = await import("../../exchange/ownership/balances.js");
  const out: SnapshotTime[] = [];
  for (const node of nodes) {
    const heights = new Set<number>();
    for (const r of file.rows) {
      if (nodeOfRow(nodes, r) !== node) continue;
      const h = r.height ?? file.summary.find((s) => s.coin === r.coin)?.height;
      if (h && /^\d+$/.test(h)) heights.add(Number(h));
    }
    for (const height of heights) {
      try {
        let time: number | null = null;
        if (node.chain.utxoScan) {
          const co = { idempotent: true, heavy: false };
          const hash = (await node.client.call("getblockhash", [height], co)).result;
          const header = (await node.client.call("getblockheader", [hash], co)).result as { time?: unknown };
          time = Number(String(header?.time)) || null;
        } else {
          const { readBlockTimed } = await import("../../reserves/evm/balances-read.js");
          time = (await readBlockTimed(node.client, node.chain, `0x${height.toString(16)}`))?.time ?? null;
        }
        // a UTXO row is re-read at its node's tip (scantxoutset): no later block then
        out.push({ network: node.network, height, time, ...(node.chain.utxoScan ? { next: null } : {}) });
      } catch (e) {
        out.push({ network: node.network, height, time: null, detail: (e as Error).message });
      }
    }
  }
  await laterBlocks(out, nodes);
  return out;
}

/**
 * One moment across chains (judge/moment.ts): a balance read at a snapshot earlier than another chain's is
 * held at the later moment only if its chain made no block between; the next block's time read where a later
 * snapshot exists (null: no next block yet; a read that fails leaves it unknown: cannot say).
 */
async function laterBlocks(out: SnapshotTime[], nodes: ChainNode[]): Promise<void> {
  const latest = Math.max(...out.map((t) => t.time ?? Number.NEGATIVE_INFINITY));
  const { readBlockTimed } = await import("../../reserves/evm/balances-read.js");
  for (const t of out) {
    const node = nodes.find((n) => n.network === t.network);
    if (t.time === null || t.time >= latest || t.next !== undefined || !node) continue;
    try {
      const b = await readBlockTimed(node.client, node.chain, `0x${(t.height + 1).toString(16)}`);
      if (b === null) t.next = null;
      else if (b.time !== undefined) t.next = b.time;
    } catch {
      // not told: the rows read there cannot be said held at the moment
    }
  }
}

/** The verifier's statuses whose why a row not counted names (solvency.ts `notCountedWhy`): kept. */
const NAMED: ReadonlySet<RowResult["status"]> = new Set(["failed", "unsigned", "unsupported"]);
/** Any other row's why and words: none kept (one empty list for every such row). */
const NO_WHY: RowResult["why"] = [];

/**
 * The address file judged as `reserves verify` judges it, each window of judged rows taken as it comes (the
 * verifier keeps none, nor their findings): a row's result without the verifier's why and words, which only a
 * row not counted names (failed, unsigned, unsupported). `challenge`: every signed row must be over it (another text
 * fails the row), as reserves verify's.
 */
async function fileJudged(
  run: Run,
  o: ExchangeSolvencyOptions,
  flags: GlobalFlags,
  m: AddressFileModule,
  reservesText: string,
  challenge: string | undefined,
) {
  const { addressFileJudged } = await import("./reserves/verify-exchange.js");
  const results: RowResult[] = [];
  const sink: RowSink = (w) => {
    for (const r of w.rows) {
      if (!NAMED.has(r.status)) {
        r.reason = "";
        r.why = NO_WHY;
      }
      results.push(r);
    }
  };
  const judged = await addressFileJudged(
    run,
    o.reserves,
    reservesText,
    m,
    flags,
    {
      node: o.node,
      token: o.token,
      challenge,
      // solvency knows each row by the chain its node is on (the one identity rule): a node of any chain
      anyChain: true,
      standIn: o.standIn,
    },
    sink,
  );
  judged.report.rows = results;
  return judged;
}

export async function runExchangeSolvency(
  o: ExchangeSolvencyOptions,
  run: Run,
  flags: GlobalFlags,
  m: AddressFileModule,
  reservesText: string,
): Promise<void> {
  const { readText } = await import("../files.js");
  const liabText = readText(o.liabilities, "--liabilities");
  if (o.challenge === "")
    throw new UsageError("--challenge: empty; give the signed text you accept as the audit's");
  const liabilities = await liabilitiesOf(o.liabilities, liabText, o.root, o.liabilitiesDate);
  // the audit's text: the commitment's (liabilities build --challenge), else the one the auditor accepts
  if (
    o.challenge !== undefined &&
    liabilities.challenge !== undefined &&
    o.challenge !== liabilities.challenge
  )
    throw new UsageError(
      `--challenge ${JSON.stringify(o.challenge)}: the commitment's challenge is ${JSON.stringify(liabilities.challenge)}; give that one, or leave --challenge out`,
    );
  const challenge = o.challenge ?? liabilities.challenge;
  const { parseSpan } = await import("../../util/text.js");
  const maxGap = { text: o.maxGap, seconds: parseSpan("--max-gap", o.maxGap) };
  // --backing read (exit 2 on a bad value) before anything is sent
  const { backingRules } = await import("./solvency-backing.js");
  const rules = backingRules(o.backing, liabilities.totals);
  const judged = await fileJudged(run, o, flags, m, reservesText, challenge);
  const times = await snapshotTimes(judged.file, judged.nodes);
  // each row's chain as its node answers: --backing's identities, and one balance counted once
  const backings: RowBackings = {
    rules,
    nodes: judged.nodes.map((n) => ({ network: n.network, id: n.id ?? null })),
    tokens: judged.tokens,
    tronTokens: judged.tronTokens,
    network: judged.network,
  };
  const { exchangeSolvency } = await import("../../exchange/ownership/solvency.js");
  const judging = exchangeSolvency({
    source: o.reserves,
    file: judged.file,
    report: judged.report,
    liabilities,
    ...(o.challenge === undefined ? {} : { challenge: o.challenge }),
    times,
    verified: judged.nodes.length > 0,
    backings,
    maxGap,
  });
  // which node answered for which chain, in every form of the verdict (text, --json, --html, the package)
  const report = judged.used.length ? { ...judging, nodes: judged.used } : judging;
  const inputs = [
    { path: o.liabilities, role: "liabilities" },
    { path: o.reserves, role: "reserves (address file)" },
  ];
  if (o.html !== undefined) {
    // the report package's page (one template), alone: its documents named where they were read
    const [{ writeAtomic }, { pageOf }] = await Promise.all([
      import("../files.js"),
      import("./solvency-report.js"),
    ]);
    writeAtomic(o.html, await pageOf(report, inputs), "--html");
  }
  const [{ printSolvency }, { renderSolvency }, { writtenBeside }] = await Promise.all([
    import("../render/solvency-rows.js"),
    import("../render/solvency.js"),
    import("./solvency-report.js"),
  ]);
  const written = await writtenBeside(o, report, inputs);
  await printSolvency(run, report, () => renderSolvency(escapeDeep(report)), written);
  const [{ exitCodeOfVerdict }, { SOLVENCY_VERDICT }] = await Promise.all([
    import("../../reserves/verdict.js"),
    import("../../liabilities/solvency.js"),
  ]);
  run.exitCode = exitCodeOfVerdict(SOLVENCY_VERDICT[report.verdict]);
}
