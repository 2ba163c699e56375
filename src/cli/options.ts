/** Option parsers and checks shared by the command modules (kept tiny: loaded at start-up). */
import { UsageError } from "../errors/index.js";
import type { Format } from "../output/format.js";

/** A repeatable option: every value, in order. */
export const collect = (v: string, prev: string[] | undefined): string[] => [...(prev ?? []), v];

/** Commands that print one answer (a method's result, an EVM command's values) have no CSV form. */
export function refuseCsv(run: { format: Format }, what: string): void {
  if (run.format === "csv")
    throw new UsageError(
      `--format csv is not available for ${what}; it is for \`reserves scan\` (json, jsonl or human here)`,
    );
}

/** `--quorum <k>` of the commands that read state for a proof (reserves scan, reserves balances). */
export const QUORUM_READS_HELP =
  "K distinct nodes (--url once per node) must answer every read alike; a disagreement is exit 1 naming both";
