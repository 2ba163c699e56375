/**
 * `chaingw reserves verify FILE`: a proof checked against the node now. Either format: the UTXO proof
 * (digest, block, every output existed and was unspent at the proof's height, signatures) or the EVM
 * balances proof (every balance re-read at its block, metadata, signatures). One verdict, one exit table.
 */
import type { Command } from "commander";
import type { GlobalFlags } from "../../../config/config.js";
import { UsageError } from "../../../errors/index.js";
import type { Proof, QuorumNode } from "../../../proof/document.js";
import type { EvmVerifyReport } from "../../../reserves/evm/balances-verify.js";
import type { VerifyReport } from "../../../reserves/utxo/verify.js";
import type { Run } from "../../run.js";

export interface VerifyFlags {
  signatures?: string;
  challenge?: string;
  quorum?: string;
}

export function declareVerify(reserves: Command, run: Run): void {
  reserves
    .command("verify")
    .description(
      "check a proof file against the node now: digest, block, every output existed and was unspent at the proof's height, signatures",
    )
    .argument("<file>", "the proof document ('-' = stdin)")
    .option(
      "--signatures <file>",
      "address,signature lines to check over the proof's challenge (instead of the proof's own)",
    )
    .option(
      "--challenge <text>",
      "the challenge the signatures must be over: a proof signed over another text does not hold",
    )
    .option(
      "--quorum <k>",
      "verify on K distinct nodes (--url once per node): holds only when every node says it holds",
    )
    .addHelpText(
      "after",
      [
        "",
        "Exit codes: 0 the proof holds; 1 it does not (a check the chain answered went against it, each",
        "item named); 2 the file is not a proof (the field and why; nothing sent); 3 cannot say (the node is",
        "behind the proof, of another kind or network, lacks the data, or did not answer).",
        "The proof's own claims (created_at, the challenge) are printed as claims; --challenge requires one.",
        "Works on any node of the chain, without -txindex; blocks above the proof's height are walked only for",
        "outputs spent since.",
      ].join("\n"),
    )
    .action(async (file: string, _o: unknown, command: Command) => {
      await runVerify(run, file, command.optsWithGlobals() as GlobalFlags, command.opts());
    });
}

export async function runVerify(run: Run, file: string, flags: GlobalFlags, o: VerifyFlags): Promise<void> {
  if (run.format === "csv")
    throw new UsageError("--format csv is not available for reserves verify (human or json)");
  if (o.challenge !== undefined && o.challenge.trim() === "")
    throw new UsageError("--challenge: empty; give the text the signatures must be over");
  const [{ progress }, { contextFor }, files, { exitCodeOfVerdict }, render] = await Promise.all([
    import("../../../output/progress.js"),
    import("../../context.js"),
    import("../../files.js"),
    import("../../../reserves/verdict.js"),
    import("../../render/verify.js"),
  ]);
  const { asUsage, quorumOf, readSignatures, readText } = files;
  const text = readText(file, "reserves verify");
  // the proof family's second format (EVM and EVM-compat balances) has its own reader and checks
  const { formatOf, EVM_PROOF_FORMAT } = await import("../../../proof/evm-document.js");
  if (formatOf(text) === EVM_PROOF_FORMAT) {
    return verifyEvmFile(run, file, text, flags, { ...o, quorum: quorumOf(o.quorum) });
  }
  const { readProof } = await import("../../../proof/document.js");
  const proof: Proof = await asUsage(file, () => readProof(text));
  const signatures = o.signatures === undefined ? undefined : await readSignatures(o.signatures);
  const k = quorumOf(o.quorum);
  const ctx = contextFor(run, flags, "utxo", { pooled: true });
  const { verifyProof } = await import("../../../reserves/utxo/verify.js");
  const bar = progress({ plainEveryMs: undefined });
  run.clearProgress = () => bar.clear();
  let report: VerifyReport & { quorum?: { k: number; nodes: QuorumNode[] } };
  try {
    const once = (client: typeof ctx.client) =>
      verifyProof(
        client,
        proof,
        { signatures, challenge: o.challenge },
        (e) =>
          bar.update(
            e.type === "walk"
              ? `walking blocks ${e.height.toLocaleString("en")} of ${e.tip.toLocaleString("en")} for ${e.pending} output${e.pending === 1 ? "" : "s"} spent since the proof`
              : e.text,
          ),
        ctx.signal,
      );
    if (k === undefined) report = await once(ctx.client);
    else {
      const { verifyOnQuorum, describeUtxoNode } = await import("../../../reserves/quorum.js");
      const q = await verifyOnQuorum(ctx.client, k, describeUtxoNode, once);
      report = { ...q.report, holds: q.report.verdict === "holds", quorum: { k, nodes: q.nodes } };
    }
  } finally {
    bar.stop();
    run.clearProgress = undefined;
  }
  if (run.machine) run.out(JSON.stringify(report, null, 2));
  else run.out(render.renderVerify(report, ctx.color));
  run.exitCode = exitCodeOfVerdict(report.verdict);
}

/** The EVM balances proof's checks: every balance re-read at the proof's block. */
/** `reserves verify FILE` for an EVM balances proof: verdict lines, mismatches, exit 0/1/3. */
async function verifyEvmFile(
  run: Run,
  file: string,
  text: string,
  flags: GlobalFlags,
  o: { signatures?: string; challenge?: string; quorum?: number } = {},
): Promise<void> {
  const [{ progress }, { contextFor }, files, { exitCodeOfVerdict }, { renderEvmVerify }, { chainOf }] =
    await Promise.all([
      import("../../../output/progress.js"),
      import("../../context.js"),
      import("../../files.js"),
      import("../../../reserves/verdict.js"),
      import("../../render/verify.js"),
      import("../../../chains/index.js"),
    ]);
  const { asUsage, readAccountSignatures } = files;
  const { readEvmProof } = await import("../../../proof/evm-document.js");
  const proof = await asUsage(file, () => readEvmProof(text));
  const chain = chainOf(proof.chain.group);
  const signatures =
    o.signatures === undefined ? undefined : await readAccountSignatures(o.signatures, chain);
  const ctx = contextFor(run, { ...flags, chain: proof.chain.group }, proof.chain.group, { pooled: true });
  const { verifyEvmProof } = await import("../../../reserves/evm/balances-verify.js");
  const bar = progress({ plainEveryMs: undefined });
  run.clearProgress = () => bar.clear();
  let report: EvmVerifyReport & { quorum?: { k: number; nodes: QuorumNode[] } };
  try {
    const once = (client: typeof ctx.client) =>
      verifyEvmProof(
        client,
        proof,
        (e) => bar.update(e.type === "read" ? `re-reading balances: ${e.done} of ${e.total}` : e.text),
        ctx.signal,
        { challenge: o.challenge, signatures },
      );
    if (o.quorum === undefined) report = await once(ctx.client);
    else {
      const { verifyOnQuorum, describeEvmNode } = await import("../../../reserves/quorum.js");
      const q = await verifyOnQuorum(
        ctx.client,
        o.quorum,
        (c, ep) => describeEvmNode(c, ep, proof.block),
        once,
      );
      report = { ...q.report, holds: q.report.verdict === "holds", quorum: { k: o.quorum, nodes: q.nodes } };
    }
  } finally {
    bar.stop();
    run.clearProgress = undefined;
  }
  if (run.machine) run.out(JSON.stringify(report, null, 2));
  else run.out(renderEvmVerify(report, ctx.color));
  run.exitCode = exitCodeOfVerdict(report.verdict);
}
