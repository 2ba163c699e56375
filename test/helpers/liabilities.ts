/**
 * For solvency tests: a liabilities commitment built by the real `chaingw liabilities build` from CSV rows, and
 * a reserve proof of one address signed by litecoind's wallet (`signmessage`).
 */
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

/**
 * `chaingw reserves scan ADDRESS --proof dir/name.json --challenge CHALLENGE --signatures dir/name.csv`, the
 * signature made by the node's wallet over `challenge`; returns the proof's path. `url` carries credentials.
 */
export async function signedLtcProof(
  node: { rpc<T>(method: string, params: unknown[]): Promise<T> },
  url: string,
  dir: string,
  name: string,
  address: string,
  challenge: string,
): Promise<string> {
  const sig = await node.rpc<string>("signmessage", [address, challenge]);
  const sigs = join(dir, `${name}.csv`);
  writeFileSync(sigs, `${address},${sig}\n`);
  const proof = join(dir, `${name}.json`);
  const r = await runCli(
    ["reserves", "scan", address, "--proof", proof, "--challenge", challenge, "--signatures", sigs],
    { env: { CHAINGW_URL: url } },
  );
  expect(r.exitCode, r.stderr).toBe(0);
  return proof;
}
