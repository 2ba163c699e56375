/** `chaingw liabilities build --input balances.csv --assets assets.csv --out DIR`: commit the liabilities. */
import type { Command } from "commander";
import { UsageError } from "../../../errors/index.js";
import { parseWhole } from "../../../util/text.js";
import type { Run } from "../../run.js";

export interface BuildCommandOptions {
  input: string;
  assets: string;
  out: string;
  split?: string;
  label?: string;
  memory?: string;
  json: boolean;
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
    .option("--memory <MB>", "the memory the build may use, whatever the number of customers (default 2048)")
    .addHelpText(
      "after",
      "\nWrites commitment.json (publish it), customers.csv (PRIVATE: every customer's secret), customers.idx and tree.bin.\nBad input: exit 2 naming the line, nothing written.",
    )
    .action(async (o: Omit<BuildCommandOptions, "json">) => runBuild({ ...o, json: run.machine }, run));
}

export async function runBuild(o: BuildCommandOptions, io: Pick<Run, "out" | "err">): Promise<void> {
  let split: number | undefined;
  if (o.split !== undefined) {
    if (!/^\d+$/.test(o.split))
      throw new UsageError(`--split ${o.split}: a whole number of leaves per customer`);
    split = Number(o.split);
  }
  const memory =
    o.memory === undefined ? undefined : parseWhole("--memory", o.memory, 0, 64, 1 << 20) * 1024 ** 2;
  const { buildStreamed } = await import("../../../liabilities/stream.js");
  const r = await buildStreamed({
    input: o.input,
    assets: o.assets,
    out: o.out,
    split,
    label: o.label,
    memory,
  });
  const c = r.commitment;
  if (o.json) {
    io.out(
      JSON.stringify(
        { commitment: c, customers: r.customers, files: r.files, tree_bytes: r.treeBytes },
        null,
        2,
      ),
    );
    return;
  }
  io.out(
    [
      `liabilities: ${r.customers} customers in ${c.leaves} leaves (height ${c.height})${c.label ? `, ${c.label}` : ""}`,
      `root ${c.root}`,
      ...c.totals.map((t) => `  ${t.asset} ${t.amount}`),
      `wrote ${r.files.commitment} (publish it), ${r.files.customers} (private: secrets), ${r.files.index}, ${r.files.tree}`,
    ].join("\n"),
  );
}
