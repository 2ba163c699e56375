/** A liabilities commitment built by the real `chaingw liabilities build` from CSV rows, for solvency tests. */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { expect } from "vitest";
import { runCli } from "./cli.js";

/**
 * Writes `rows` (customer_id,asset,amount lines, no header) to `dir/name.csv`, builds with `dir/assets.csv`
 * into `dir/name/` (with the audit's `challenge` written into the commitment, when given), and returns the
 * commitment's path.
 */
export async function buildCommitment(
  dir: string,
  name: string,
  rows: string[],
  challenge?: string,
): Promise<string> {
  writeFileSync(join(dir, `${name}.csv`), ["customer_id,asset,amount", ...rows].join("\n"));
  const out = join(dir, name);
  const r = await runCli([
    "liabilities",
    "build",
    "--input",
    join(dir, `${name}.csv`),
    "--assets",
    join(dir, "assets.csv"),
    "--out",
    out,
    "--label",
    name,
    ...(challenge === undefined ? [] : ["--challenge", challenge]),
  ]);
  expect(r.exitCode, r.stderr).toBe(0);
  return join(out, "commitment.json");
}
