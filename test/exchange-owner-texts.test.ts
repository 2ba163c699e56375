/**
 * A contract wallet's owners each sign a text (HTX lists the owners' rows under the wallet's, each with its
 * own message and signature). The judge takes one challenge per audit: the wallet is proven only when every
 * owner whose signature makes it the exchange's signed that challenge. Before, solvency took the wallet's
 * signed text from its first owner's row alone: a second owner signing another text went unseen. Real anvil
 * (chain id 59144, Linea's: a chain chaingw knows by its id alone), the Safe-style wallet of
 * test/fixtures/exchange/ownership/contracts (threshold 2), signatures by `cast wallet sign` (HTX's EVM form,
 * personal_sign over the text); the mix beside the honest control in the same test.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { buildCommitment } from "./helpers/liabilities.js";
import { trackDir } from "./helpers/procs.js";

const CAST = new URL("../node_modules/.bin/cast", import.meta.url).pathname;
/** anvil's dev keys 0 and 1 and their addresses */
const K0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const K1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const A1 = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const CHALLENGE = "huobi";
const OTHER = "htx";
const WALLET = JSON.parse(
  readFileSync(new URL("./fixtures/exchange/ownership/contracts/ownerswallet.json", import.meta.url), "utf8"),
).contracts.OwnersWallet as string;
const word = (a: string) => a.slice(2).padStart(64, "0");
const sign = (key: string, text: string) =>
  execFileSync(CAST, ["wallet", "sign", "--private-key", key, text], { encoding: "utf8" }).trim();

let dir: string;
let anvil: AnvilNode;
let wallet: string;
let height: number;

async function send(tx: Record<string, string>): Promise<string | undefined> {
  const hash = await anvil.rpc<string>("eth_sendTransaction", [{ from: A0, gas: "0x1c9c380", ...tx }]);
  for (let i = 0; i < 200; i++) {
    const r = await anvil.rpc<{ contractAddress: string | null; status: string } | null>(
      "eth_getTransactionReceipt",
      [hash],
    );
    if (r) {
      expect(r.status).toBe("0x1");
      return r.contractAddress?.toLowerCase();
    }
    await new Promise((ok) => setTimeout(ok, 25));
  }
  throw new Error("not mined");
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-owner-texts-"));
  trackDir(dir);
  anvil = await startAnvil(["--chain-id", "59144"]);
  wallet = (await send({ data: `${WALLET}${word(A0)}${word(A1)}${word("0x2")}` })) as string;
  await send({ to: wallet, value: "0x1bc16d674ec80000" });
  height = Number(BigInt(await anvil.rpc<string>("eth_blockNumber", [])));
  writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\n");
});

afterAll(async () => {
  await anvil?.stop();
});

/** HTX's layout: the wallet's row (its balance, no signature), then its owners' rows (a text and a signature each) */
function htxFile(name: string, texts: [string, string]): string {
  const p = join(dir, name);
  writeFileSync(
    p,
    [
      "coin,snapshot height,balance",
      `ETH,${height},2`,
      "",
      "coin,address,snapshot height,balance,message,signature",
      `ETH-LINEA,${wallet},${height},2,-,`,
      `ETH-LINEA,${A0},${height},,${texts[0]},${sign(K0, texts[0])}`,
      `ETH-LINEA,${A1},${height},,${texts[1]},${sign(K1, texts[1])}`,
      "",
    ].join("\n"),
  );
  return p;
}

interface Report {
  verdict: string;
  rows: { line: number; status: string; reason: string }[];
}
const verify = async (file: string, ...more: string[]) => {
  const r = await runCli(["reserves", "verify", file, "--json", "--node", `LINEA=${anvil.url}`, ...more]);
  expect(r.stderr).toBe("");
  return { exitCode: r.exitCode, report: JSON.parse(r.stdout) as Report };
};
const wallets = (r: Report) => r.rows.filter((x) => x.line === 5).map((x) => [x.status, x.reason]);

describe("a contract wallet whose two owners sign", () => {
  it("reserves verify: one text, the wallet proven; two texts (each one HTX signs), cannot say, each owner's text named", async () => {
    const same = await verify(htxFile("same.csv", [CHALLENGE, CHALLENGE]));
    expect(wallets(same.report)).toEqual([
      [
        "proven",
        `owners ${A0} and ${A1} signed; the contract names them among its 2 owners, threshold 2, at block ${height}; it holds 2.000000000000000000 at block ${height}`,
      ],
    ]);
    expect(same.exitCode).toBe(0);
    // before: proven, exit 0 — each owner's text is one HTX signs, and only the owners' rows were judged
    const mixed = await verify(htxFile("mixed.csv", [CHALLENGE, OTHER]));
    expect(wallets(mixed.report)).toEqual([
      [
        "cannot-say",
        `owners ${A0} and ${A1} signed; the contract names them among its 2 owners, threshold 2, at block ${height}; but its owners signed different texts (${A0} "huobi", ${A1} "htx"): one wallet's claim is one text its owners sign, so whose claim this is cannot be told (--challenge TEXT requires the one you expect)`,
      ],
    ]);
    expect(mixed.report.verdict).toBe("cannot-say");
    expect(mixed.exitCode).toBe(3);
    // the audit's text required: the owner who signed another fails the wallet, named
    const required = await verify(htxFile("mixed.csv", [CHALLENGE, OTHER]), "--challenge", CHALLENGE);
    expect(wallets(required.report)).toEqual([
      [
        "failed",
        `owner ${A1} signed over "htx", not the required message "huobi" (--challenge): a signature over another text shows nothing for this file`,
      ],
    ]);
    expect(required.exitCode).toBe(1);
  });

  it("solvency (the audit's challenge from the commitment): one text SOLVENT; the second owner's other text NOT SOLVENT, that owner named", async () => {
    const liab = await buildCommitment(dir, "owed", ["c1,ETH,1"], CHALLENGE);
    const solvency = (file: string) =>
      runCli([
        "solvency",
        "--reserves",
        file,
        "--liabilities",
        liab,
        "--node",
        `LINEA=${anvil.url}`,
        "--backing",
        "ETH=evm:59144",
      ]);
    const same = await solvency(htxFile("same.csv", [CHALLENGE, CHALLENGE]));
    expect(same.stderr).toBe("");
    expect(same.stdout).toContain(`ETH: line 5 ETH-LINEA ${wallet}: 2.000000000000000000 proven`);
    expect(same.stdout.split("\n")[0]).toMatch(/^SOLVENT: /);
    expect(same.exitCode).toBe(0);
    for (const texts of [
      [CHALLENGE, OTHER],
      [OTHER, CHALLENGE],
    ] as [string, string][]) {
      const r = await solvency(htxFile(`${texts.join("-")}.csv`, texts));
      const other = texts[0] === OTHER ? A0 : A1;
      expect(r.stderr).toBe("");
      // a row not counted shows its address and claim (issue 59), then why
      expect(r.stdout).toMatch(
        /^ETH: line 5 ETH-LINEA 0x[0-9a-f]{40}: claimed 2\.0{18}, NOT COUNTED \(failed\): /m,
      );
      expect(r.stdout).toContain(
        `, NOT COUNTED (failed): owner ${other} signed over "htx", not the required message "huobi" (--challenge)`,
      );
      expect(r.stdout).toContain('reserves: the rows sign "');
      expect(r.stdout.split("\n")[0]).toMatch(/^NOT SOLVENT: /);
      expect(r.exitCode).toBe(1);
    }
  });
});
