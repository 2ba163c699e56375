/** `chaingw reserves abort`: abort a running scan on the configured endpoints; wait until each confirms. */
import type { Command } from "commander";
import type { GlobalFlags } from "../../../config/config.js";
import { TransportError } from "../../../errors/index.js";
import { DEFAULT_ABORT_WAIT_S } from "../../../reserves/defaults.js";
import { parseDuration } from "../../../util/text.js";
import type { Run } from "../../run.js";

export function declareAbort(reserves: Command, run: Run): void {
  reserves
    .command("abort")
    .description("abort a running scan on the configured endpoints and wait until each node confirms")
    .option(
      "--abort-wait <seconds>",
      `how long to wait for the node to confirm (default ${DEFAULT_ABORT_WAIT_S})`,
    )
    .action(async (_o: unknown, command: Command) => {
      await runAbort(run, command.optsWithGlobals() as GlobalFlags, command.opts());
    });
}

export async function runAbort(run: Run, flags: GlobalFlags, o: { abortWait?: string }): Promise<void> {
  const boundMs = parseDuration("--abort-wait", o.abortWait, DEFAULT_ABORT_WAIT_S, "positive");
  const [{ contextFor }, { reservesAbort }] = await Promise.all([
    import("../../context.js"),
    import("../../../reserves/utxo/slot.js"),
  ]);
  const ctx = contextFor(run, flags, "utxo");
  const rows = (await reservesAbort(ctx.client, boundMs, ctx.settings.chain)).map((r) =>
    r.error !== undefined
      ? { endpoint: r.endpoint, was_running: false, node_scanning: null, aborts_sent: 0, error: r.error }
      : {
          endpoint: r.endpoint,
          was_running: r.answer!.wasRunning,
          node_scanning: r.answer!.nodeScanning,
          aborts_sent: r.answer!.aborts,
          confirmed: r.answer!.nodeScanning === false,
          statement: r.answer!.statement,
        },
  );
  run.print(rows, () =>
    rows
      .map(
        (r) =>
          `${r.endpoint}: ${r.error ? `no answer (${r.error})` : (r as { statement: string }).statement}`,
      )
      .join("\n"),
  );
  if (rows.some((r) => !r.error && r.node_scanning !== false))
    throw new TransportError(`the node still reports a scan after ${boundMs / 1000} s (or did not answer)`);
}
