/** `chaingw liabilities build --input balances.csv --assets assets.csv --out DIR`: commit the liabilities. */
import type { Command } from "commander";
import { UsageError } from "../../../errors/index.js";
import { parseWhole } from "../../../util/text.js";
import { amountText } from "../../../util/units.js";
import type { Run } from "../../run.js";

export interface BuildCommandOptions {
  input: string;
  assets: string;
  out: string;
  split?: string;
  label?: string;
  /** the audit's challenge: the text reserves must be signed over to count for these liabilities */
  challenge?: string;
  memory?: string;
  /** v1 (one tree, every asset's sum in every node) or v2 (a tree per asset over its holders: sparse) */
  construction?: string;
  /** without a TTY, a line on stderr as each phase ends (on a TTY a spinner says the phase) */
  progress?: boolean;
}

export function declareBuild(parent: Command, run: Run): void {
  parent
    .command("build")
    .description("commit a balances export to a Merkle-sum tree: commitment.json, customers file, tree file")
    .requiredOption("--input <file>", "balances CSV: customer_id,asset,amount (a header line; # comments)")
    .requiredOption("--assets <file>", "assets CSV: asset,decimals (a header line)")
    .requiredOption("--out <dir>", "directory to write the build to (created; must not hold a build)")
    .option("--split <k>", "leaves per customer, each balance split at random across them (default 2)")
    .option("--label <text>", 'published with the commitment, e.g. "snapshot 2026-11-30"')
    .option(
      "--challenge <text>",
      "the audit's challenge, written into the commitment: solvency counts reserves as proven only when signed over this exact text",
    )
    .option(
      "--memory <MB>",
      "the memory the build may use, whatever the number of customers (default 2048, at least 400)",
    )
    .option(
      "--construction <v1|v2>",
      "v1 (default): one tree, every node every asset's sum; v2: a tree per asset over its holders — work, disk and proofs grow with the holdings, for hundreds of assets",
    )
    .option("--progress", "without a TTY: a line on stderr as each phase ends (time, memory, work files)")
    .addHelpText(
      "after",
      "\nWrites commitment.json (publish it), customers.csv (PRIVATE: every customer's secret), customers.idx and tree.bin.\nBad input: exit 2 naming the line, nothing written. Disk: see docs/liabilities.md (~56 GB at 100 M customers × 3 assets).",
    )
    .action(async (o: BuildCommandOptions) => runBuild(o, run));
}

export async function runBuild(
  o: BuildCommandOptions,
  io: Pick<Run, "out" | "err" | "print" | "machine">,
): Promise<void> {
  if (o.challenge !== undefined) {
    const { challengeFault } = await import("../../../liabilities/commitment.js");
    const why = challengeFault(o.challenge);
    if (why) throw new UsageError(`--challenge ${why}`);
  }
  const { buildStreamed, DEFAULT_MEMORY, MIN_MEMORY_MB } = await import("../../../liabilities/stream.js");
  let split: number | undefined;
  if (o.split !== undefined) {
    if (!/^\d+$/.test(o.split))
      throw new UsageError(`--split ${o.split}: a whole number of leaves per customer`);
    split = Number(o.split);
  }
  // below it the processes' own share (~320 MB: V8 heaps, code, garbage between collections) leaves the
  // buckets nothing, and the bound would be a wish
  const memory =
    o.memory === undefined
      ? undefined
      : parseWhole("--memory", o.memory, 0, MIN_MEMORY_MB, 1 << 20) * 1024 ** 2;
  if (o.construction !== undefined && o.construction !== "v1" && o.construction !== "v2")
    throw new UsageError(`--construction ${o.construction}: v1 or v2`);
  const construction = o.construction === "v2" ? 2 : 1;
  const { progress } = await import("../../../output/progress.js");
  // --json keeps stderr quiet unless --progress asks for the lines
  const bar = io.machine && !o.progress ? undefined : progress({ plainEveryMs: o.progress ? 0 : undefined });
  bar?.update("liabilities build: reading the balances");
  let r: Awaited<ReturnType<typeof buildStreamed>>;
  try {
    r = await buildStreamed({
      input: o.input,
      assets: o.assets,
      out: o.out,
      split,
      label: o.label,
      challenge: o.challenge,
      memory,
      construction,
      onPhase: (e) =>
        bar?.update(
          `liabilities build: ${e.phase} at ${(e.ms / 1000).toFixed(1)} s, peak memory ${mb(peakRss())}, work files ${mb(e.workBytes)}`,
        ),
      // how far a long phase has come: the buckets still on disk
      onTick: (e) =>
        bar?.update(
          `liabilities build: at ${(e.ms / 1000).toFixed(0)} s, peak memory ${mb(peakRss())}, work files ${mb(e.workBytes)}: ${Object.entries(
            e.files,
          )
            .map(([kind, n]) => `${n} ${kind}`)
            .join(", ")}`,
        ),
    });
  } finally {
    bar?.stop();
  }
  const c = r.commitment;
  const peak = peakRss();
  const summary = {
    commitment: c,
    customers: r.customers,
    files: r.files,
    tree_bytes: r.treeBytes,
    peak_rss_bytes: peak,
    peak_work_bytes: r.peakWorkBytes,
  };
  io.print(summary, () =>
    [
      `liabilities: ${r.customers} customers in ${c.leaves} leaves (${c.trees ? `${c.trees.length} trees, the tallest ${c.height} high` : `height ${c.height}`})${c.label ? `, ${c.label}` : ""}`,
      `root ${c.root}`,
      `audit challenge ${c.challenge === undefined ? "none (solvency will prove nothing for these liabilities without --challenge)" : JSON.stringify(c.challenge)}, created ${c.created}`,
      ...c.totals.map(
        (t, i) => `  ${t.asset} ${amountText(BigInt(t.base_units), c.assets[i]?.decimals ?? 0)}`,
      ),
      `wrote ${r.files.commitment} (publish it), ${r.files.customers} (private: secrets), ${r.files.index}, ${r.files.tree}`,
      `peak memory ${mb(peak)} (--memory ${mb(memory ?? DEFAULT_MEMORY)}), peak disk ${mb(r.peakWorkBytes ?? 0)} of work and output files`,
    ].join("\n"),
  );
}

/** The process's peak resident memory so far, bytes (the worker threads are in it). */
const peakRss = () => process.resourceUsage().maxRSS * 1024;
const mb = (bytes: number) => `${Math.round(bytes / 1024 ** 2)} MB`;
