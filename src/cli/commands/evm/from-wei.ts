/** `chaingw from-wei AMOUNT [UNIT]`: base units (wei; sun) → an amount in a unit, exactly. */
import type { Command } from "commander";
import { baseUnit, coinUnit, unitOf } from "../../../chains/units.js";
import { UsageError } from "../../../errors/index.js";
import { formatUnits } from "../../../util/units.js";
import { refuseCsv } from "../../options.js";
import type { Run } from "../../run.js";
import { offlineChain, paramUsage } from "./common.js";
import { type EvmFlags, evmFlags } from "./options.js";

export function declareFromWei(program: Command, run: Run): void {
  program
    .command("from-wei")
    .description("base units (wei; sun) → an amount in a unit, exactly")
    .argument("<amount>", "base units: decimal or 0x hex")
    .argument("[unit]", "ether (default), gwei, wei; trx (default), sun on --chain evm-compat")
    .action((amount: string, unit: string | undefined, _o: unknown, command: Command) =>
      runFromWei(run, amount, unit, evmFlags(command)),
    );
}

export async function runFromWei(run: Run, amount: string, unitName: string | undefined, flags: EvmFlags) {
  refuseCsv(run, "from-wei");
  const chain = offlineChain(run, flags, "from-wei");
  const unit =
    unitName === undefined ? coinUnit(chain) : paramUsage("from-wei", () => unitOf(chain, unitName));
  const t = amount.trim();
  if (!/^(\d{1,100}|0x[0-9a-fA-F]{1,100})$/.test(t))
    throw new UsageError(
      `from-wei: amount: expected ${baseUnit(chain).name} as a whole number (decimal or 0x hex), got ${JSON.stringify(amount.slice(0, 40))}`,
    );
  const text = formatUnits(BigInt(t), unit.decimals);
  run.print(text, () => text);
}
