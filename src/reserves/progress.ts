/**
 * Scan progress on stderr: an ora spinner on a TTY; with `--progress` and no TTY, one plain line every
 * few seconds (logs, CI); otherwise nothing. stdout stays for the report.
 */
import { writeErr } from "../cli/signals.js";
import { canSpin } from "../output/spinner.js";
import type { ProgressTick } from "./scan.js";

export interface ProgressView {
  tick(t: ProgressTick): void;
  /** a line that must be seen (waiting for a busy slot, a second scan starting) */
  note(text: string): void;
  stop(): void;
}

/** A note on stderr when there is no view to show it in. */
export const stderrNote: Pick<ProgressView, "note"> = { note: (t) => writeErr(`chaingw: ${t}`) };

const quiet: ProgressView = { tick() {}, note: stderrNote.note, stop() {} };

/**
 * Core 0.21 keeps the last scan's percentage until a new scan has expanded its descriptors, so "100%"
 * while `start` is still out means "preparing" as often as "finishing".
 */
const tickText = (label: string, t: ProgressTick) =>
  `scanning the UTXO set on ${label}: ${t.progress === null ? "waiting for the node" : t.progress >= 100 ? "100% (preparing or finishing)" : `${t.progress}%`}, ${Math.round(t.elapsedMs / 1000)} s`;

/**
 * @param lineEveryMs interval of plain lines when not on a TTY; undefined = no plain lines
 */
export async function progressView(label: string, lineEveryMs: number | undefined): Promise<ProgressView> {
  if (canSpin()) {
    const { default: ora } = await import("ora");
    const spinner = ora({ stream: process.stderr, text: `scanning the UTXO set on ${label}` }).start();
    return {
      tick: (t) => {
        spinner.text = tickText(label, t);
      },
      note: (text) => {
        spinner.info(text);
        spinner.start(`scanning the UTXO set on ${label}`);
      },
      stop: () => spinner.stop(),
    };
  }
  if (lineEveryMs === undefined) return quiet;
  let last = 0;
  return {
    tick: (t) => {
      if (t.elapsedMs - last < lineEveryMs) return;
      last = t.elapsedMs;
      process.stderr.write(`chaingw: ${tickText(label, t)}\n`);
    },
    note: quiet.note,
    stop() {},
  };
}
