/** `chaingw reserves status`: is a scan running on the configured endpoints, and how far is it. */
import type { Command } from "commander";
import type { GlobalFlags } from "../../../config/config.js";
import type { Run } from "../../run.js";

export function declareStatus(reserves: Command, run: Run): void {
  reserves
    .command("status")
    .description("is a scan running on the configured endpoints, and how far is it")
    .action(async (_o: unknown, command: Command) => {
      await runStatus(run, command.optsWithGlobals() as GlobalFlags);
    });
}

export async function runStatus(run: Run, flags: GlobalFlags): Promise<void> {
  const [{ contextFor }, { reservesStatus }] = await Promise.all([
    import("../../context.js"),
    import("../../../reserves/utxo/slot.js"),
  ]);
  const ctx = contextFor(run, flags, "utxo");
  const rows = (await reservesStatus(ctx.client, ctx.settings.chain)).map((r) =>
    r.error !== undefined
      ? { endpoint: r.endpoint, running: false, progress: null, error: r.error }
      : {
          endpoint: r.endpoint,
          running: r.answer!.running,
          progress: r.answer!.progress,
          phase: r.answer!.phase ?? null,
        },
  );
  const said = (r: (typeof rows)[number]) =>
    r.error
      ? `no answer (${r.error})`
      : !r.running
        ? "no scan running"
        : r.phase === "preparing"
          ? "scan running: preparing (expanding descriptors); the node still shows 100%, its previous scan's figure, until the pass begins"
          : `scan running, ${r.progress}% of the UTXO set`;
  run.print(rows, () => rows.map((r) => `${r.endpoint}: ${said(r)}`).join("\n"));
}
