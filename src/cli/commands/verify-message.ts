/** `chaingw verify-message ADDRESS SIGNATURE MESSAGE`: a signed message checked offline, on every chain. */
import type { Command } from "commander";
import { MESSAGE_COINS, MESSAGE_COINS_SLASH } from "../help-lists.js";
import type { Run } from "../run.js";

export function declareVerifyMessage(program: Command, run: Run): void {
  program
    .command("verify-message")
    .description(
      "check a signed message offline: legacy (BIP-137 and Electrum/Trezor segwit), BIP-322 simple or multisig full, EIP-191 (EVM), TIP-191 (TRON signMessageV2)",
    )
    .argument("<address>", `${MESSAGE_COINS} address (the network comes from its form), 0x… or T…`)
    .argument(
      "<signature>",
      `base64 for ${MESSAGE_COINS_SLASH} (BIP-322: smp or ful prefix), 0x + 130 hex digits for EVM and TRON`,
    )
    .argument("<message>", "the signed text")
    .addHelpText(
      "after",
      "\nPrints true or false. Exit 0 valid, 1 not valid, 2 not an address or a signature.",
    )
    .action((address: string, signature: string, message: string) =>
      runVerifyMessage(run, address, signature, message),
    );
}

/** True/false and exit 0/1; 2 for input that is not an address or a signature. */
export async function runVerifyMessage(run: Run, address: string, signature: string, message: string) {
  const [{ verifyMessage }, { asUsage }] = await Promise.all([
    import("../../proof/message.js"),
    import("../files.js"),
  ]);
  const r = await asUsage("verify-message", () => verifyMessage(address, signature, message));
  run.print(r, () => String(r.valid));
  // for a person, what was checked beside the answer (the JSON holds it)
  if (!run.machine) run.err(`chaingw: ${r.format}: ${r.detail}`);
  if (!r.valid) run.exitCode = 1;
}
