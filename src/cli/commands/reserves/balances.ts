/** `chaingw reserves balances`: EVM and EVM-compat holdings of addresses at one pinned block, as a proof. */
import type { Command } from "commander";
import { type GroupName, groupOf } from "../../../chains/index.js";
import { chainFromFlags, type GlobalFlags } from "../../../config/config.js";
import { UsageError } from "../../../errors/index.js";
import { escapeDeep } from "../../../util/escape.js";
import { STAND_IN_OPTION } from "../../nodes.js";
import { collect, QUORUM_READS_HELP, takesCsv } from "../../options.js";
import type { Run } from "../../run.js";

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
  /** --stand-in NETWORK: a devnet on that network's chain id is named as standing in for it (nodes.ts) */
  standIn?: string[];
}

/** The group of a balances run: --chain / env / profile, else evm; a group without EVM traits is exit 2. */
export function evmGroupOf(group: GroupName | undefined): GroupName {
  const g = group ?? groupOf("evm").name;
  if (!groupOf(g).evm)
    throw new UsageError(
      `reserves balances reads EVM-style chains (--chain evm or evm-compat), not ${g}; use reserves scan`,
    );
  return g;
}

export function declareBalances(reserves: Command, run: Run): void {
  takesCsv(reserves.command("balances"))
    .description(
      "EVM and EVM-compat: native and token balances of addresses at ONE pinned block, totals exact, as a proof",
    )
    .argument("[addresses...]", "0x addresses (EVM-compat: also T-addresses and 41-hex)")
    .option("-f, --file <path>", "addresses one per line ('-' = stdin); blank lines and # comments ignored")
    .option("--token <address>", "a token contract (ERC-20 / TRC-20 balanceOf), repeatable", collect)
    .option("--native", "the native coin too (the default when no --token is given)")
    .option("--block <n|latest>", "the block to read at (default latest, pinned by number and hash first)")
    .option(
      "--proof <file>",
      "write the proof document (chaingw-evm-balances-proof/1) to <file> ('-' = stdout)",
    )
    .option("--csv <file>", "also write one CSV row per address and asset to <file> ('-' = stdout)")
    .option("--challenge <text>", "the text the custodian was asked to sign; kept in the proof")
    .option(
      "--signatures <file>",
      "address,signature lines over the challenge: EIP-191 (EVM), TIP-191 (TRON) or a contract wallet's EIP-1271",
    )
    .option("--quorum <k>", QUORUM_READS_HELP)
    .option(STAND_IN_OPTION.flags, STAND_IN_OPTION.help, collect)
    .addHelpText(
      "after",
      [
        "",
        "The group comes from --chain (evm or evm-compat; default evm). Every read names the pinned block; on",
        "EVM-compat (TRON's JSON-RPC serves state at the head only) the reads run at the head and the head must",
        "be the same block before and after, else they run again (4 attempts). --json prints the proof document.",
        "Exit codes: 2 bad input (the address and line named; nothing sent), 1 a chain answer (not a contract,",
        "balanceOf reverts, the head kept moving), 3 no answer or no state at that block.",
      ].join("\n"),
    )
    .action(async (addresses: string[], _o: unknown, command: Command) => {
      await runBalances(run, addresses, command.optsWithGlobals() as GlobalFlags, command.opts());
    });
}

export async function runBalances(run: Run, args: string[], flags: GlobalFlags, o: BalancesFlags) {
  if (o.proof === "-" && (run.format === "csv" || o.csv === "-"))
    throw new UsageError("--proof - and CSV on stdout both want stdout; give one a file");
  const group = evmGroupOf(chainFromFlags(flags, run.env));
  const chain = groupOf(group);
  const [{ progress }, { contextFor }, files, { planBalances, readBalancesProof }, render, { standInsOf }] =
    await Promise.all([
      import("../../../output/progress.js"),
      import("../../context.js"),
      import("../../files.js"),
      import("../../../reserves/evm/balances.js"),
      import("../../render/balances.js"),
      import("../../nodes.js"),
    ]);
  const standIns = await standInsOf(o.standIn);
  const { checkWritable, quorumOf, readAccountSignatures, writeAtomic } = files;
  const { balancesCsv, balancesHuman } = render;
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
    ...(standIns.size ? { standIns } : {}),
  };
  // the whole input is checked before a client exists: bad input is exit 2 with nothing sent
  await planBalances(options);
  checkWritable(o.proof, "--proof");
  checkWritable(o.csv, "--csv");
  const k = quorumOf(o.quorum);
  const ctx = contextFor(run, { ...flags, chain: group }, group, { pooled: true });
  const quorum = k === undefined ? undefined : await import("../../../reserves/quorum.js");
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
  // `--proof -`: the document as its file holds it; --json: compact (--pretty indents it)
  if (o.proof === "-") run.out(text);
  else if (run.format === "json") run.out(run.json(proof));
  else if (run.format === "jsonl") {
    const rows = render.balancesJsonLines(proof);
    if (rows) run.out(rows);
  } else if (csvTo === "-") run.out(balancesCsv(proof));
  else {
    run.out(balancesHuman(escapeDeep(proof), ctx.color, result.standIn));
    if (result.duplicates)
      run.out(
        `(${result.duplicates} repeated address${result.duplicates === 1 ? "" : "es"} in the input counted once)`,
      );
    if (o.proof !== undefined) run.out(`proof written to ${o.proof}: digest ${proof.digest}`);
  }
}
