/**
 * `reserves verify FILE --json` of a large address file writes each window of judged rows out as it comes (a
 * temporary file past a bound) and keeps only the counts, sums and verdict: what the user reads is the same
 * report as JSON.stringify of the whole (compact, and `--json --pretty` indented as JSON.stringify indents),
 * a repeat across windows is still caught, and nothing is left in the temporary directory.
 */
import { mkdirSync, mkdtempSync, readdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { getBytes, keccak256, toUtf8Bytes, Wallet } from "ethers";
import { beforeAll, describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { trackDir } from "./helpers/procs.js";

const MESSAGE = "I am an OKX address";
const HEADER =
  "coin,Network,Snapshot Height,address,amount,message,signature1,signature2,redeem script/ public key, eoa1, eoa2";
const K0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
/** more than one window of rows (10,000), and ~2.5 M characters of rows: more than is kept in memory (1 Mi) */
const ROWS = 12_002;

let dir: string;
let file: string;
let signer: Wallet;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-exchange-stream-"));
  trackDir(dir);
  signer = new Wallet(K0);
  // OKX's EVM form: personal_sign over the 32 bytes of keccak256(message)
  const sig = signer.signMessageSync(getBytes(keccak256(toUtf8Bytes(MESSAGE))));
  const rows = [`ETH,ETH,21000000,${signer.address},1.5,${MESSAGE},${sig},,,,`];
  // unsigned rows: most without a balance (not counted), every 1,000th with one (fails)
  for (let i = 1; i < ROWS - 1; i++)
    rows.push(
      `ETH,ETH,21000000,0x${i.toString(16).padStart(40, "0")},${i % 1000 ? "0" : "2.25"},${MESSAGE},,,,,`,
    );
  // the signed row's address again, in the second window: its balance would count twice
  rows.push(`ETH,ETH,21000000,${signer.address.toLowerCase()},1.5,${MESSAGE},${sig},,,,`);
  file = join(dir, "okx.csv");
  writeFileSync(file, `${HEADER}\n${rows.join("\n")}\n`);
});

describe("a large address file's report, its rows written as they are judged", () => {
  it("--json and --json --pretty are JSON.stringify's text of one report, a repeat across windows caught, no file left behind", async () => {
    const tmp = join(dir, "tmp");
    mkdirSync(tmp);
    const env = { TMPDIR: tmp };
    const streamed = await runCli(["reserves", "verify", file, "--json"], { env });
    const pretty = await runCli(["reserves", "verify", file, "--json", "--pretty"], { env });
    expect(streamed.stderr).toBe("");
    expect(pretty.stderr).toBe("");
    expect(streamed.exitCode).toBe(1);
    expect(pretty.exitCode).toBe(1);
    const report = JSON.parse(streamed.stdout);
    // both written in pieces as the rows were judged: the bytes JSON.stringify makes of the one report,
    // compact and indented by two spaces
    expect(streamed.stdout === `${JSON.stringify(JSON.parse(pretty.stdout))}\n`).toBe(true);
    expect(pretty.stdout === `${JSON.stringify(report, null, 2)}\n`).toBe(true);
    expect(report.rows).toHaveLength(ROWS);
    expect(report.findings).toHaveLength(ROWS);
    expect(report.counts).toMatchObject({ rows: ROWS, failed: 1, signed: 1, unsigned: ROWS - 2 });
    expect(report.amounts.ETH).toMatchObject({
      signed: "1.500000000000000000",
      failed: "1.500000000000000000",
      unsigned: "27.000000000000000000",
    });
    expect(report.rows[0]).toMatchObject({ line: 2, status: "signed" });
    expect(report.rows.at(-1)).toMatchObject({
      line: ROWS + 1,
      status: "failed",
      reason: "the same ETH address as line 2, listed again with an amount: its balance would count twice",
    });
    expect(report.summary_text).toMatch(/^the file does not hold: 12001 rows failed or unsigned/);
    expect(readdirSync(tmp)).toEqual([]);

    // --format csv: a line per row, written as they were judged, each the row the JSON report lists
    const csv = await runCli(["reserves", "verify", file, "--format", "csv"], { env });
    expect(csv.stderr).toBe("");
    expect(csv.exitCode).toBe(1);
    const lines = csv.stdout.split("\n");
    expect(lines.at(-1)).toBe("");
    expect(lines[0]).toBe(
      "line,coin,network,address,amount,base_units,result,form,chain_balance,chain_block,reason",
    );
    expect(lines).toHaveLength(ROWS + 2);
    const mismatched = report.rows.filter(
      (r: { line: number; status: string }, k: number) =>
        !(lines[k + 1] as string).startsWith(`${r.line},ETH,ETH,`) ||
        !(lines[k + 1] as string).includes(`,${r.status},`),
    );
    expect(mismatched).toEqual([]);
    expect(lines.at(-2)).toContain(
      `1.500000000000000000,1500000000000000000,failed,,,,"the same ETH address as line 2, listed again`,
    );
    expect(readdirSync(tmp)).toEqual([]);
  });
});
