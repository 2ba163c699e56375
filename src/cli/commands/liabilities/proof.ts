/** `chaingw liabilities proof --out DIR ID... | --all`: customers' inclusion proofs from a build. */
import { mkdirSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { ChaingwError, UsageError } from "../../../errors/index.js";
import type { ProofDocument } from "../../../liabilities/proof.js";
import type { Run } from "../../run.js";

export interface ProofCommandOptions {
  out: string;
  ids: string[];
  all: boolean;
  /** one file per customer in this directory (new or empty) instead of stdout */
  dir?: string;
  /** the customer's own page (one id): self-contained HTML that checks the proof in the browser */
  html?: string;
}

export function declareProof(parent: Command, run: Run): void {
  parent
    .command("proof")
    .description("print customers' inclusion proofs from a build (JSON; JSON Lines for several or --all)")
    .argument("[id...]", "customer ids")
    .requiredOption("--out <dir>", "the build's directory (as given to liabilities build)")
    .option("--all", "every customer's proof, streamed as JSON Lines")
    .option(
      "--dir <dir>",
      "write one file per customer there instead (a new or empty directory; names from the ids, escaped)",
    )
    .option(
      "--html <file>",
      "one customer's page instead: self-contained HTML that checks their inclusion in the browser (Web Crypto SHA-256, offline) and shows the root to compare with the one the exchange announced",
    )
    .addHelpText(
      "after",
      "\nExit 0; 1 when a customer id is not in the build (the others are printed); 2 bad usage.\nWith --dir: DIR/<id>.json per customer (letters, digits, _ and - kept, other bytes %XX; mode 600: a proof holds the customer's secret), each written whole or not at all.",
    )
    .action(async (ids: string[], o: { out: string; all?: boolean; dir?: string; html?: string }) =>
      runProof({ out: o.out, ids, all: Boolean(o.all), dir: o.dir, html: o.html }, run),
    );
}

export async function runProof(
  o: ProofCommandOptions,
  io: Pick<Run, "out" | "err" | "exitCode" | "print">,
): Promise<void> {
  if (o.all === o.ids.length > 0) throw new UsageError("name customer ids or --all (one of them)");
  const { ProofSource, proofFileName } = await import("../../../liabilities/proof.js");
  if (o.html !== undefined && (o.all || o.ids.length !== 1 || o.dir !== undefined))
    throw new UsageError("--html: one customer's page: name one id (not --all, several ids or --dir)");
  if (o.html !== undefined) (await import("../../files.js")).checkWritable(o.html, "--html");
  const src = new ProofSource(o.out);
  if (o.html !== undefined) {
    try {
      return await toPage(o.html, o.ids[0] as string, src, o.out, io);
    } finally {
      src.close();
    }
  }
  if (o.dir !== undefined) {
    try {
      await toFiles(o, src, proofFileName, io);
    } finally {
      src.close();
    }
    return;
  }
  try {
    if (o.all) {
      let batch: string[] = [];
      for await (const p of src.all()) {
        batch.push(JSON.stringify(p));
        if (batch.length === 256) {
          io.out(batch.join("\n"));
          batch = [];
        }
      }
      if (batch.length) io.out(batch.join("\n"));
      return;
    }
    const missing: string[] = [];
    for (const id of o.ids) {
      const p = src.proofOf(id);
      if (!p) missing.push(id);
      else io.out(o.ids.length === 1 ? JSON.stringify(p, null, 2) : JSON.stringify(p));
    }
    for (const id of missing) io.err(`chaingw: customer ${JSON.stringify(id)} is not in the build ${o.out}`);
    if (missing.length) io.exitCode = 1;
  } finally {
    src.close();
  }
}

/** `--html`: the customer's page, private (it holds their secret), written whole or not at all. */
async function toPage(
  file: string,
  id: string,
  src: import("../../../liabilities/proof.js").ProofSource,
  build: string,
  io: Pick<Run, "out" | "err" | "exitCode" | "print">,
): Promise<void> {
  const p = src.proofOf(id);
  if (!p) {
    io.err(`chaingw: customer ${JSON.stringify(id)} is not in the build ${build}`);
    io.exitCode = 1;
    return;
  }
  const [{ customerPage, PAGE_CONSTRUCTIONS }, { writeAtomic }] = await Promise.all([
    import("../../render/customer-page.js"),
    import("../../files.js"),
  ]);
  if (!(PAGE_CONSTRUCTIONS as readonly string[]).includes(p.construction))
    throw new UsageError(
      `--html: the page checks ${PAGE_CONSTRUCTIONS.join(" and ")} proofs; this build is ${p.construction} (give the JSON proof to liabilities verify)`,
    );
  writeAtomic(
    file,
    customerPage(p as ProofDocument, src.commitment.assets, src.commitment.created),
    "--html",
    {
      mode: 0o600,
    },
  );
  io.print(
    { html: file, customer: id, root: p.root },
    () =>
      `customer ${JSON.stringify(id)}'s page written to ${file} (private: it holds their secret); it checks the proof in the browser and shows the root ${p.root} to compare with the one announced`,
  );
}

/** `--dir`: each proof to its own file, whole or not at all; a summary on stdout. */
async function toFiles(
  o: ProofCommandOptions,
  src: import("../../../liabilities/proof.js").ProofSource,
  nameOf: (id: string) => string,
  io: Pick<Run, "out" | "err" | "exitCode" | "print">,
): Promise<void> {
  const dir = o.dir!;
  // checked before any proof is made: a run into a directory of an earlier one would mix two builds' proofs
  let held: string[] = [];
  try {
    if (!statSync(dir).isDirectory()) throw new UsageError(`--dir ${dir}: not a directory`);
    held = readdirSync(dir);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    if ((e as NodeJS.ErrnoException).code !== "ENOENT")
      throw new UsageError(`--dir ${dir}: cannot read it (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  if (held.length) throw new UsageError(`--dir ${dir}: holds files already; name a new or empty directory`);
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch (e) {
    throw new UsageError(`--dir ${dir}: cannot make it (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  const { writeAtomic } = await import("../../files.js");
  let written = 0;
  const write = (p: import("../../../liabilities/proof.js").AnyProof) => {
    const path = join(dir, nameOf(p.customer));
    try {
      writeAtomic(path, `${JSON.stringify(p, null, 2)}\n`, "--dir", { exclusive: true, mode: 0o600 });
    } catch (e) {
      const code = ((e as Error).cause as NodeJS.ErrnoException | undefined)?.code;
      if (code !== "EEXIST") throw e;
      throw new ChaingwError(
        `--dir: customer ${JSON.stringify(p.customer)}'s proof would be ${path}, which another customer's proof took (ids differing only in case, on a case-insensitive file system); ${written} proofs written`,
      );
    }
    written++;
  };
  const missing: string[] = [];
  if (o.all) for await (const p of src.all()) write(p);
  else
    for (const id of o.ids) {
      const p = src.proofOf(id);
      if (p) write(p);
      else missing.push(id);
    }
  for (const id of missing) io.err(`chaingw: customer ${JSON.stringify(id)} is not in the build ${o.out}`);
  if (missing.length) io.exitCode = 1;
  io.print(
    { dir, proofs: written },
    () =>
      `wrote ${written} proof${written === 1 ? "" : "s"} to ${dir} (one file per customer, private: each holds the customer's secret)`,
  );
}
