/**
 * The face of `reserves balances` (EVM and EVM-compat holdings at one block) and of `reserves verify` for
 * its proofs: flags into options, events into progress, the proof document into tables, CSV or JSON.
 */

import { type Chain, chainOf, type GroupName } from "../chains/index.js";
import type { GlobalFlags } from "../config/config.js";
import { UsageError } from "../errors/index.js";
import { csvField } from "../output/csv.js";
import { style, table } from "../output/human.js";
import { progress } from "../output/progress.js";
import type { QuorumNode } from "../proof/document.js";
import type { EvmProof } from "../proof/evm-document.js";
import type { EvmVerifyReport } from "../reserves/balances-verify.js";
import { exitCodeOfVerdict } from "../reserves/verdict.js";
import { groupDigits } from "../util/units.js";
import { contextFor, type Run } from "./context.js";
import { asUsage, checkWritable, quorumOf, readSignatures, writeAtomic } from "./files.js";
import { renderClaims, renderFindings, renderQuorum } from "./render-verdict.js";

export interface BalancesFlags {
  file?: string;
  token?: string[];
  native?: boolean;
  block?: string;
  proof?: string;
  csv?: string;
  challenge?: string;
  signatures?: string;
  quorum?: string;
}

/** The group of a balances run: --chain / env / profile, else evm; a group without EVM traits is exit 2. */
export function evmGroupOf(group: GroupName | undefined): GroupName {
  const g = group ?? chainOf("evm").name;
  if (!chainOf(g).evm)
    throw new UsageError(
      `reserves balances reads EVM-style chains (--chain evm or evm-compat), not ${g}; use reserves scan`,
    );
  return g;
}

export async function reservesBalances(run: Run, args: string[], flags: GlobalFlags, o: BalancesFlags) {
  if (run.format === "jsonl")
    throw new UsageError("--format jsonl is not available for reserves balances (human, json or csv)");
  if (o.proof === "-" && (run.format === "csv" || o.csv === "-"))
    throw new UsageError("--proof - and CSV on stdout both want stdout; give one a file");
  const { chainFromFlags } = await import("../config/config.js");
  const group = evmGroupOf(chainFromFlags(flags, run.env));
  const chain = chainOf(group);
  const { planBalances, readBalancesProof } = await import("../reserves/balances.js");
  if (o.signatures !== undefined && o.challenge === undefined)
    throw new UsageError(
      "--signatures needs --challenge: the signatures are checked over the challenge text",
    );
  if (o.challenge !== undefined && o.challenge.trim() === "")
    throw new UsageError("--challenge: empty; give the text the custodian signed");
  const signatures =
    o.signatures === undefined ? undefined : await readAccountSignatures(o.signatures, chain);
  const options = {
    chain,
    args,
    file: o.file,
    tokens: o.token ?? [],
    native: o.native,
    block: o.block,
    challenge: o.challenge,
    signatures,
  };
  // the whole input is checked before a client exists: bad input is exit 2 with nothing sent
  await planBalances(options);
  checkWritable(o.proof, "--proof");
  checkWritable(o.csv, "--csv");
  const k = quorumOf(o.quorum);
  const ctx = contextFor(run, { ...flags, chain: group }, group, { pooled: true });
  const quorum = k === undefined ? undefined : await import("../reserves/quorum.js");
  const eps =
    quorum && k !== undefined ? quorum.quorumEndpoints(ctx.client, k, "reserves balances") : undefined;
  const bar = progress({ plainEveryMs: undefined });
  run.clearProgress = () => bar.clear();
  let result: Awaited<ReturnType<typeof readBalancesProof>>;
  try {
    result = await readBalancesProof(
      quorum && eps ? quorum.clientOn(ctx.client, eps[0]!) : ctx.client,
      options,
      (e) => {
        if (e.type === "step") bar.update(e.text);
        else if (e.type === "read")
          bar.update(`reading balances: ${e.done.toLocaleString("en")} of ${e.total.toLocaleString("en")}`);
        else bar.note(`${e.why}; reading again (attempt ${e.attempt + 1})`);
      },
      ctx.signal,
    );
    if (quorum && eps)
      result = {
        ...result,
        proof: await quorum.agreeOnEvmProof(ctx.client, eps, result.proof, (t) => bar.update(t), ctx.signal),
      };
  } finally {
    bar.stop();
    run.clearProgress = undefined;
  }
  const { proof } = result;
  const text = `${JSON.stringify(proof, null, 2)}\n`;
  if (o.proof !== undefined && o.proof !== "-") writeAtomic(o.proof, text, "--proof");
  const csvTo = run.format === "csv" ? "-" : o.csv;
  if (csvTo !== undefined && csvTo !== "-") writeAtomic(csvTo, balancesCsv(proof), "--csv");
  if (o.proof === "-" || run.format === "json") run.out(text);
  else if (csvTo === "-") run.out(balancesCsv(proof));
  else {
    run.out(balancesHuman(proof, ctx.color));
    if (result.duplicates)
      run.out(
        `(${result.duplicates} repeated address${result.duplicates === 1 ? "" : "es"} in the input counted once)`,
      );
    if (o.proof !== undefined) run.out(`proof written to ${o.proof}: digest ${proof.digest}`);
  }
}

/** A signature file for an account chain: every address of this chain's forms (else exit 2 naming the line). */
async function readAccountSignatures(path: string, chain: Chain) {
  const lines = await readSignatures(path);
  const { accountOf } = await import("../reserves/evm-ownership.js");
  for (const l of lines)
    try {
      accountOf(chain, l.address);
    } catch (e) {
      throw new UsageError(`${path}: line ${l.line}: ${(e as Error).message}; nothing was sent`);
    }
  return lines;
}

/** The chain's display of an address beside the hex (TRON's T-form), else the hex. */
function shown(proof: EvmProof, hex: string): string {
  const t = chainOf(proof.chain.group).evm?.displayAddress?.(hex);
  return t ? `${t} (${hex})` : hex;
}

const assetLabel = (a: EvmProof["assets"][number]) =>
  a.id === "native" ? (a.symbol as string) : `${a.symbol ?? "(no symbol)"} ${a.id}`;

/** The block line first, one table per asset (address, amount), then the totals. */
export function balancesHuman(proof: EvmProof, color: boolean): string {
  const st = style(color);
  const out: string[] = [];
  const network = proof.chain.network ?? `chain id ${proof.chain.chain_id}`;
  out.push(
    `block ${proof.block.number.toLocaleString("en")} (${proof.block.hash}) on ${network} [${proof.chain.group}], ${proof.snapshot === "pinned" ? "every read pinned to this block" : "read at the head (latest-only chain), the same block before and after"}`,
  );
  for (const a of proof.assets) {
    out.push(
      "",
      st.key(
        `${assetLabel(a)}${a.decimals === null ? " — decimals() gave no answer: base units" : `, ${a.decimals} decimals`}`,
      ),
    );
    out.push(
      table(
        ["address", "amount", "base units"],
        a.balances.map((b) => [shown(proof, b.address), groupDigits(b.amount), b.base_units]),
        color,
      ),
    );
  }
  if (proof.ownership) {
    const sigs = proof.ownership.signatures;
    out.push("", st.key(`ownership: signatures over "${proof.challenge}"`));
    out.push(
      table(
        ["address", "signature", "form"],
        sigs.map((x) => [
          shown(proof, x.address),
          x.valid ? st.good("valid") : st.bad("NOT VALID"),
          x.format,
        ]),
        color,
      ),
    );
  }
  if (proof.quorum)
    out.push(
      "",
      `quorum: ${proof.quorum.k} nodes answered every read alike: ${proof.quorum.nodes.map((n, i) => `node ${i + 1} (${n.client}, chain id ${n.chain})`).join("; ")}`,
    );
  out.push("", st.key("totals"));
  out.push(
    table(
      ["asset", "total", "base units", "holders", ...(proof.ownership ? ["proven owned"] : [])],
      proof.assets.map((a, k) => [
        assetLabel(a),
        groupDigits(a.total.amount),
        a.total.base_units,
        `${a.holders} of ${proof.addresses.length}`,
        ...(proof.ownership ? [groupDigits(proof.ownership.proven[k]?.amount ?? "0")] : []),
      ]),
      color,
    ),
  );
  return out.join("\n");
}

/** One row per address and asset, then nothing else: amounts exact text. */
export function balancesCsv(proof: EvmProof): string {
  const rows = ["block,block_hash,asset,symbol,decimals,address,amount,base_units"];
  for (const a of proof.assets)
    for (const b of a.balances)
      rows.push(
        [
          String(proof.block.number),
          proof.block.hash,
          a.id,
          a.symbol ?? "",
          a.decimals === null ? "" : String(a.decimals),
          b.address,
          b.amount,
          b.base_units,
        ]
          .map(csvField)
          .join(","),
      );
  return `${rows.join("\n")}\n`;
}

/** `reserves verify FILE` for an EVM balances proof: verdict lines, mismatches, exit 0/1/3. */
export async function verifyEvmFile(
  run: Run,
  file: string,
  text: string,
  flags: GlobalFlags,
  o: { signatures?: string; challenge?: string; quorum?: number } = {},
): Promise<void> {
  const { readEvmProof } = await import("../proof/evm-document.js");
  const proof = await asUsage(file, () => readEvmProof(text));
  const chain = chainOf(proof.chain.group);
  const signatures =
    o.signatures === undefined ? undefined : await readAccountSignatures(o.signatures, chain);
  const ctx = contextFor(run, { ...flags, chain: proof.chain.group }, proof.chain.group, { pooled: true });
  const { verifyEvmProof } = await import("../reserves/balances-verify.js");
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
      const { verifyOnQuorum, describeEvmNode } = await import("../reserves/quorum.js");
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

const assetName = (r: EvmVerifyReport, id: string) => r.assets.find((a) => a.id === id)?.symbol ?? id;

export function renderEvmVerify(
  r: EvmVerifyReport & { quorum?: { k: number; nodes: QuorumNode[] } },
  color: boolean,
): string {
  const st = style(color);
  const mark = (ok: boolean | null) => (ok === null ? "--" : ok ? st.good("ok") : st.bad("FAILS"));
  const lines = [
    ...renderClaims({
      created_at: r.claims.created_at,
      ...(r.challenge.text !== null ? { challenge: r.challenge.text } : {}),
      quorum: r.claims.quorum ?? undefined,
    }),
    ...renderQuorum(r, color),
    `digest     ${mark(r.digest.ok)}  ${r.digest.ok ? r.digest.claimed : `claimed ${r.digest.claimed}, content ${r.digest.computed}`}`,
    `inputs     ${mark(r.inputs.ok)}  ${r.inputs.detail}`,
    `chain      ${r.chain.ok === null ? "CANNOT SAY" : mark(r.chain.ok)}  ${r.chain.detail}`,
    `block      ${mark(r.block.ok)}  ${r.block.detail}`,
    `metadata   ${mark(r.metadata.ok)}  ${r.metadata.detail}`,
    `balances   ${mark(r.balances.ok)}  ${r.balances.detail}`,
    ...(r.challenge.required !== null ? [`challenge  ${mark(r.challenge.ok)}  ${r.challenge.detail}`] : []),
    "",
  ];
  if (r.ownership.addresses.length) {
    lines.push(
      table(
        ["address", "ownership", "form"],
        r.ownership.addresses.map((a) => [
          a.address,
          a.ownership === "proven"
            ? st.good("proven")
            : a.ownership === "unproven"
              ? st.bad("signature FAILS")
              : "CANNOT SAY",
          a.format,
        ]),
        color,
      ),
      "",
      table(
        ["asset", "proven owned", "share"],
        r.ownership.proven.map((p) => [assetName(r, p.asset), groupDigits(p.amount), p.share]),
        color,
      ),
      "",
    );
  }
  lines.push(
    table(
      ["asset", "decimals", "total", "re-read", "differ"],
      r.assets.map((a) => [
        a.symbol ?? a.id,
        a.metadata_ok === false ? st.bad(`${a.decimals ?? "none"} FAILS`) : String(a.decimals ?? "none"),
        groupDigits(a.total),
        String(a.checked),
        String(a.mismatches),
      ]),
      color,
    ),
    "",
  );
  lines.push(...renderFindings(r, color));
  return lines.join("\n");
}
