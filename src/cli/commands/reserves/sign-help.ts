/**
 * `chaingw reserves sign-help --challenge TEXT --file ADDRESSES [--template FILE]`: per address the command
 * that signs the challenge with its custodian's tool, and the signatures file `--signatures` reads.
 */
import type { Command } from "commander";
import type { GlobalFlags } from "../../../config/config.js";
import { UsageError } from "../../../errors/index.js";
import { MESSAGE_COIN_IDS } from "../../help-lists.js";
import { takesCsv } from "../../options.js";
import type { Run } from "../../run.js";

export interface SignHelpFlags {
  challenge?: string;
  file?: string;
  template?: string;
  form?: string;
  coin?: string;
}

export function declareSignHelp(reserves: Command, run: Run): void {
  takesCsv(reserves.command("sign-help"))
    .description(
      "per address, the command that signs the audit's challenge with its custodian's tool, and the signatures file to fill",
    )
    .argument("[addresses...]", "addresses (Bitcoin-family, 0x… EVM, T… TRON)")
    .requiredOption("--challenge <text>", "the text every address's key signs")
    .option("-f, --file <path>", "addresses one per line ('-' = stdin); blank lines and # comments ignored")
    .option("--template <file>", "write the signatures file to fill: an address,signature line per address")
    .option(
      "--form <name>",
      "chaingw (default: what reserves scan/balances --signatures read) or okx (OKX's address file: its EVM digest)",
    )
    .option(
      "--coin <id>",
      `where an address's prefix is shared (test networks): the coin whose wallet holds the key (${MESSAGE_COIN_IDS})`,
    )
    .addHelpText(
      "after",
      "\nThe global --network narrows a shared prefix to one network. Then: chaingw reserves scan ADDR… --challenge TEXT --signatures FILE (reserves balances for EVM and TRON accounts). --format csv prints the table.",
    )
    .action(async (addresses: string[], o: SignHelpFlags, command: Command) => {
      await runSignHelp(run, addresses, o, command.optsWithGlobals() as GlobalFlags);
    });
}

export async function runSignHelp(
  run: Run,
  args: string[],
  o: SignHelpFlags,
  flags: GlobalFlags,
): Promise<void> {
  const [{ SIGN_FORMS, signWays, signatureTemplate }, { readAddressList }, { checkWritable, writeAtomic }] =
    await Promise.all([
      import("../../../reserves/sign-help.js"),
      import("../../../reserves/address-list.js"),
      import("../../files.js"),
    ]);
  const challenge = o.challenge ?? "";
  if (challenge.trim() === "") throw new UsageError("--challenge: empty; give the text every address signs");
  const form = o.form ?? "chaingw";
  if (!(SIGN_FORMS as readonly string[]).includes(form))
    throw new UsageError(
      `--form ${JSON.stringify(form)}: not a form chaingw knows (${SIGN_FORMS.join(" or ")})`,
    );
  if (form === "okx" && o.template !== undefined)
    throw new UsageError(
      "--template with --form okx: OKX-form signatures go in OKX's address file, which chaingw's --signatures do not read; leave --template out",
    );
  if (o.coin !== undefined) {
    const { MESSAGE_COINS } = await import("../../../chains/coins.js");
    if (!MESSAGE_COINS.some((c) => c.id === o.coin))
      throw new UsageError(
        `--coin ${JSON.stringify(o.coin)}: not one of ${MESSAGE_COINS.map((c) => c.id).join(", ")}`,
      );
  }
  checkWritable(o.template, "--template");
  const list: { address: string; at: string }[] = [];
  readAddressList(args, o.file, (address, n, source) =>
    list.push({ address, at: source === undefined ? `argument ${n}` : `${source}: line ${n}` }),
  );
  if (!list.length) throw new UsageError("no addresses: give them as arguments or with --file");
  const ways = signWays(list, {
    challenge,
    form: form as (typeof SIGN_FORMS)[number],
    coin: o.coin,
    network: flags.network,
  });
  const template = form === "okx" ? undefined : signatureTemplate(challenge, ways);
  if (o.template !== undefined && template !== undefined) writeAtomic(o.template, template, "--template");
  const { renderSignHelp, signHelpCsv } = await import("../../render/sign-help.js");
  if (run.format === "csv") return run.out(signHelpCsv(ways));
  run.print({ challenge, form, addresses: ways, ...(template ? { template } : {}) }, () =>
    renderSignHelp(ways, challenge, template, o.template),
  );
}
