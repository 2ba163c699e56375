/** `chaingw to-wei AMOUNT [UNIT]`: an amount in a unit → base units (wei; sun), exactly. */
import type { Command } from "commander";
import { coinUnit, unitOf } from "../../../chains/units.js";
import { parseUnits } from "../../../util/units.js";
import { refuseCsv } from "../../options.js";
import type { Run } from "../../run.js";
import { offlineChain, paramUsage } from "./common.js";
import { type EvmFlags, evmFlags } from "./options.js";

export function declareToWei(program: Command, run: Run): void {
  program
    .command("to-wei")
    .description("an amount in a unit → base units (wei; sun on the EVM-compat chain), exactly")
    .argument("<amount>", "decimal amount, e.g. 1.5")
    .argument("[unit]", "ether (default), gwei, wei; trx (default), sun on --chain evm-compat")
    .action((amount: string, unit: string | undefined, _o: unknown, command: Command) =>
      runToWei(run, amount, unit, evmFlags(command)),
    );
}

export async function runToWei(run: Run, amount: string, unitName: string | undefined, flags: EvmFlags) {
  refuseCsv(run, "to-wei");
  const chain = offlineChain(run, flags, "to-wei");
  const unit = unitName === undefined ? coinUnit(chain) : paramUsage("to-wei", () => unitOf(chain, unitName));
  const text = paramUsage("to-wei: amount", () => parseUnits(amount, unit.decimals, unit.name)).toString();
  run.print(text, () => text);
}
