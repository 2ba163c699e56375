/** The face of `reserves verify` and `verify-message`: files read and checked, verdicts printed. */

import type { GlobalFlags } from "../config/config.js";
import { UsageError } from "../errors/index.js";
import { style, table } from "../output/human.js";
import { progress } from "../output/progress.js";
import type { Proof, QuorumNode } from "../proof/document.js";
import { exitCodeOfVerdict } from "../reserves/verdict.js";
import type { VerifyReport } from "../reserves/verify.js";
import { contextFor, type Run } from "./context.js";
import { asUsage, quorumOf, readSignatures, readText } from "./files.js";
import { renderClaims, renderFindings, renderQuorum } from "./render-verdict.js";

export async function reservesVerify(
  run: Run,
  file: string,
  flags: GlobalFlags,
  o: { signatures?: string; challenge?: string; quorum?: string },
): Promise<void> {
  if (run.format === "csv")
    throw new UsageError("--format csv is not available for reserves verify (human or json)");
  if (o.challenge !== undefined && o.challenge.trim() === "")
    throw new UsageError("--challenge: empty; give the text the signatures must be over");
  const text = readText(file, "reserves verify");
  // the proof family's second format (EVM and EVM-compat balances) has its own reader and checks
  const { formatOf, EVM_PROOF_FORMAT } = await import("../proof/evm-document.js");
  if (formatOf(text) === EVM_PROOF_FORMAT) {
    const { verifyEvmFile } = await import("./reserves-balances.js");
    return verifyEvmFile(run, file, text, flags, { ...o, quorum: quorumOf(o.quorum) });
  }
  const { readProof } = await import("../proof/document.js");
  const proof: Proof = await asUsage(file, () => readProof(text));
  const signatures = o.signatures === undefined ? undefined : await readSignatures(o.signatures);
  const k = quorumOf(o.quorum);
  const ctx = contextFor(run, flags, "utxo", { pooled: true });
  const { verifyProof } = await import("../reserves/verify.js");
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
      const { verifyOnQuorum, describeUtxoNode } = await import("../reserves/quorum.js");
      const q = await verifyOnQuorum(ctx.client, k, describeUtxoNode, once);
      report = { ...q.report, holds: q.report.verdict === "holds", quorum: { k, nodes: q.nodes } };
    }
  } finally {
    bar.stop();
    run.clearProgress = undefined;
  }
  if (run.machine) run.out(JSON.stringify(report, null, 2));
  else run.out(renderVerify(report, ctx.color));
  run.exitCode = exitCodeOfVerdict(report.verdict);
}

function renderVerify(
  r: VerifyReport & { quorum?: { k: number; nodes: QuorumNode[] } },
  color: boolean,
): string {
  const st = style(color);
  const mark = (ok: boolean | null) => (ok === null ? "--" : ok ? st.good("ok") : st.bad("FAILS"));
  const nodeMark = (ok: boolean | null) => (ok === null ? "--" : ok ? st.good("ok") : "CANNOT SAY");
  const lines: string[] = [];
  lines.push(
    ...renderClaims({
      created_at: r.claims.created_at,
      challenge: r.claims.challenge,
      min_conf: r.claims.min_conf,
      excluded_outputs: r.claims.excluded_outputs || undefined,
      quorum: r.claims.quorum ?? undefined,
    }),
  );
  lines.push(...renderQuorum(r, color));
  if (r.challenge.required !== null) lines.push(`challenge  ${mark(r.challenge.ok)}  ${r.challenge.detail}`);
  lines.push(
    `digest     ${mark(r.digest.ok)}  ${r.digest.ok ? r.digest.claimed : `claimed ${r.digest.claimed}, content ${r.digest.computed}`}`,
  );
  lines.push(`node       ${nodeMark(r.node.ok)}  ${r.node.detail}`);
  if (r.node.ok) {
    lines.push(`block      ${mark(r.block.ok)}  ${r.block.detail}`);
    lines.push(`scripts    ${mark(r.attribution.ok)}  ${r.attribution.detail}`);
  }
  lines.push(
    `totals     ${mark(r.totals.ok)}  ${r.totals.amount} (${r.totals.amount_sats} base units) in ${r.totals.outputs} outputs`,
  );
  if (r.walked.blocks)
    lines.push(
      `walked     ${r.walked.blocks} blocks (${r.walked.from}..${r.walked.to}) for outputs spent since the proof`,
    );
  lines.push("");
  const rows = r.outputs.map((v) => [
    `${v.txid.slice(0, 16)}…:${v.vout}`,
    v.amount,
    v.matched.length > 48 ? `${v.matched.slice(0, 45)}...` : v.matched,
    v.ok
      ? v.state === "spent-after"
        ? `ok, spent at ${v.spentAt}`
        : "ok, unspent now"
      : v.state === "unknown"
        ? `CANNOT SAY: ${v.detail}`
        : st.bad(`FAILS: ${v.detail}`),
  ]);
  if (rows.length) lines.push(table(["output", "amount", "matched", "verdict"], rows, color), "");
  if (r.node.ok) {
    const arows = r.addresses.map((a) => [
      a.address.length > 48 ? `${a.address.slice(0, 45)}...` : a.address,
      a.amount,
      a.outputs_ok ? String(a.outputs) : st.bad(`${a.outputs_failed} of ${a.outputs} FAIL`),
      a.ownership === "proven"
        ? st.good("proven owned")
        : a.ownership === "unproven"
          ? st.bad("signature FAILS")
          : "claimed only",
    ]);
    if (arows.length) lines.push(table(["address", "amount", "outputs", "ownership"], arows, color), "");
  }
  lines.push(...renderFindings(r, color));
  return lines.join("\n");
}

/** `chaingw verify-message ADDRESS SIGNATURE MESSAGE`: offline; true/false, exit 0/1; 2 for bad input. */
export async function verifyMessageCommand(run: Run, address: string, signature: string, message: string) {
  const { verifyMessage } = await import("../proof/message.js");
  const r = await asUsage("verify-message", () => verifyMessage(address, signature, message));
  if (run.machine) run.out(JSON.stringify(r));
  else {
    run.out(String(r.valid));
    run.err(`chaingw: ${r.format}: ${r.detail}`);
  }
  if (!r.valid) run.exitCode = 1;
}
