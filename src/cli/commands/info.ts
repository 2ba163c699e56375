/** `chaingw info`: the command (light) and its action (imports the workflow on use). */
import type { Command } from "commander";
import { chainFromFlags, type GlobalFlags } from "../../config/config.js";
import { UsageError } from "../../errors/index.js";
import type { Run } from "../context.js";

export function declareInfo(program: Command, run: Run): void {
  program
    .command("info")
    .description(
      "a node at a glance (bitcoin-cli -getinfo): chain, blocks, headers, sync, peers, version, fees, mempool; on an EVM node chain id, head, syncing, gas price, client",
    )
    .action(async (_o: unknown, command: Command) => {
      const flags = command.optsWithGlobals() as GlobalFlags;
      if (run.format === "csv")
        throw new UsageError("--format csv is not available for info (json, jsonl or human)");
      const { groupOf } = await import("../../chains/index.js");
      const { nodeInfo } = await import("../../info/run.js");
      const { contextFor } = await import("../context.js");
      const { stringifyLossless } = await import("../../json/lossless.js");
      const given = chainFromFlags(flags, run.env);
      const ctx = contextFor(run, flags, given ?? "utxo");
      const chain = groupOf(ctx.settings.chain ?? given ?? "utxo");
      const info = await nodeInfo(ctx.client, chain, ctx.settings.scanTimeoutMs);
      if (run.machine) {
        const out = info.errors.length ? { ...info.fields, errors: info.errors } : info.fields;
        run.out(stringifyLossless(out, run.pretty ? 2 : 0));
        return;
      }
      const { renderInfo } = await import("../render/info.js");
      run.out(renderInfo(info.fields, chain, ctx.color));
      for (const e of info.errors) run.err(`chaingw: warning: ${e}`);
    });
}
