/**
 * `solvency --verify` on chaingw's own proofs weighs what could not be told (issue 55, item 1: the judge's
 * status rule, src/judge/status.ts over the ledger's sums, src/judge/holding.ts): an asset is CANNOT SAY only
 * where its holdings whose node could not say, were they proven, would cover it; short even then, the claims
 * decide — NOT PROVEN SOLVENT (exit 1), never "cannot say". On real litecoind -regtest and anvil, signatures by
 * litecoind's signmessage and `cast wallet sign`, in one invocation:
 *  - LTC: 0.3 LTC signed over the audit's challenge in an output spent above the proof's height beyond
 *    `--walk 1` (so its node "cannot say"), beside 1 LTC whose proof holds but is signed over another text
 *    (claimed only); 1 LTC owed — 0.3 could not cover it even if proven: NOT PROVEN SOLVENT;
 *  - ETH: a signed proof whose node answers like a non-archive node (a loopback proxy over anvil: "missing trie
 *    node" for state below the head) — 10,000 ETH that might be proven against 1 owed: CANNOT SAY;
 *  - the verdict is the worse, NOT PROVEN SOLVENT, exit 1; with 0.3 LTC owed instead, the unknown 0.3 could
 *    cover it and LTC is CANNOT SAY too: exit 3;
 *  - an address no signature names is never "might be proven", whatever its node says: one proof of X (0.3,
 *    signed, its node cannot say) and Z (1 LTC, unsigned), 1 LTC owed: NOT PROVEN SOLVENT (before: the whole
 *    1.3 weighed as unknown, CANNOT SAY); 0.3 owed: CANNOT SAY.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entryProxy, type RawServer } from "./fixtures/forward.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { buildCommitment, signedLtcProof } from "./helpers/liabilities.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";

const CAST = join(new URL("../", import.meta.url).pathname, "node_modules/.bin/cast");
const K0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const CH = "Exchange W: proof of reserves audit 2026-12-07";
const OTHER = "Exchange V: proof of reserves audit 2026-12-07";

let ltc: LitecoinNode;
let anvil: AnvilNode;
let archiveless: RawServer;
let dir: string;
let ltcUrl: string;
const proof: Record<string, string> = {};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-solvency-weighed-"));
  trackDir(dir);
  [ltc, anvil] = await Promise.all([startLitecoind({ blocks: 110 }), startAnvil()]);
  ltcUrl = ltc.authUrl;
  const [X, Y, Z] = await Promise.all([1, 2, 3].map(() => ltc.rpc<string>("getnewaddress", ["", "legacy"])));
  await ltc.rpc("sendtoaddress", [X, 0.3]);
  await ltc.rpc("sendtoaddress", [Y, 1]);
  await ltc.rpc("sendtoaddress", [Z, 1]);
  await ltc.mine(1);
  proof.X = await signedLtcProof(ltc, ltcUrl, dir, "X", X as string, CH);
  proof.Y = await signedLtcProof(ltc, ltcUrl, dir, "Y", Y as string, OTHER);
  // one proof of X (signed over the audit's challenge) and Z (no signature at all)
  writeFileSync(join(dir, "XZ.csv"), `${X},${await ltc.rpc<string>("signmessage", [X, CH])}\n`);
  proof.XZ = join(dir, "XZ.json");
  const xz = await runCli(
    [
      "reserves",
      "scan",
      X as string,
      Z as string,
      "--proof",
      proof.XZ,
      "--challenge",
      CH,
      "--signatures",
      join(dir, "XZ.csv"),
    ],
    { env: { CHAINGW_URL: ltcUrl } },
  );
  expect(xz.exitCode, xz.stderr).toBe(0);
  // X's coin is spent three blocks above the proofs' height: --walk 1 does not reach it
  await ltc.mine(2);
  const [u] = await ltc.rpc<{ txid: string; vout: number }[]>("listunspent", [1, 9_999_999, [X]]);
  const raw = await ltc.rpc<string>("createrawtransaction", [
    [{ txid: u!.txid, vout: u!.vout }],
    { [await ltc.newAddress()]: 0.299 },
  ]);
  const signed = await ltc.rpc<{ hex: string }>("signrawtransactionwithwallet", [raw]);
  await ltc.rpc("sendrawtransaction", [signed.hex]);
  await ltc.mine(1);
  // A0's ether, signed over the audit's challenge; then anvil moves on a block
  const sig = execFileSync(CAST, ["wallet", "sign", "--private-key", K0, CH], { encoding: "utf8" }).trim();
  writeFileSync(join(dir, "E.csv"), `${A0},${sig}\n`);
  proof.E = join(dir, "E.json");
  const e = await runCli(
    [
      "reserves",
      "balances",
      A0,
      "--native",
      "--proof",
      proof.E,
      "--challenge",
      CH,
      "--signatures",
      join(dir, "E.csv"),
    ],
    { env: { CHAINGW_URL: anvil.url } },
  );
  expect(e.exitCode, e.stderr).toBe(0);
  await anvil.rpc("evm_mine", []);
  // a node without the state below its head (a non-archive geth), in front of anvil
  archiveless = await entryProxy(async (c) => {
    const head = Number(await anvil.rpc<string>("eth_blockNumber"));
    const blk = c.params?.[c.params.length - 1];
    // the block asked by number, or by hash (EIP-1898, as reserves verify pins its reads since 319d4c9)
    const at =
      typeof blk === "string" && blk.startsWith("0x")
        ? Number(blk)
        : blk !== null && typeof blk === "object" && "blockHash" in blk
          ? Number(
              (
                await anvil.rpc<{ number: string }>("eth_getBlockByHash", [
                  (blk as { blockHash: string }).blockHash,
                  false,
                ])
              ).number,
            )
          : undefined;
    if (c.method === "eth_getBalance" && at !== undefined && at < head)
      return {
        jsonrpc: "2.0",
        id: c.id,
        error: { code: -32000, message: "missing trie node 5e1c4b1b0e8f (path ) <nil>" },
      };
    return { jsonrpc: "2.0", id: c.id, result: await anvil.rpc(c.method, c.params ?? []) };
  });
  writeFileSync(join(dir, "assets.csv"), "asset,decimals\nLTC,8\nETH,18\n");
});

afterAll(async () => {
  await archiveless?.close();
  await Promise.all([ltc?.stop(), anvil?.stop()]);
});

let built = 0;
const owed = (ltcOwed: string) => buildCommitment(dir, `l${built++}`, [`c0,LTC,${ltcOwed}`, "c1,ETH,1"], CH);
const solvency = (c: string, ...more: string[]) =>
  runCli(
    [
      "solvency",
      "--liabilities",
      c,
      "--reserves",
      `LTC=${proof.X}`,
      "--reserves",
      `LTC=${proof.Y}`,
      "--reserves",
      `ETH=${proof.E}#native`,
      "--backing",
      "LTC=litecoin-regtest",
      "--backing",
      "ETH=anvil",
      "--verify",
      "--url-for",
      `utxo=${ltcUrl}`,
      "--url-for",
      `evm=${archiveless.url}`,
      "--walk",
      "1",
      ...more,
    ],
    { env: { CHAINGW_URL: "http://127.0.0.1:9/" } },
  );

describe("an asset's unknown holdings are weighed against what it owes", () => {
  it("LTC whose unknown 0.3 could not cover 1 owed: NOT PROVEN SOLVENT; ETH whose unknown 10,000 could cover 1: CANNOT SAY — one invocation, exit 1; 0.3 LTC owed: CANNOT SAY, exit 3", async () => {
    const c = await owed("1");
    const j = await solvency(c, "--json");
    expect(j.stderr).toBe("");
    expect(j.exitCode, j.stdout).toBe(1);
    const rep = JSON.parse(j.stdout);
    expect(rep.verdict).toBe("unproven");
    const status = Object.fromEntries(rep.assets.map((a: any) => [a.asset, a.status]));
    expect(status).toEqual({ LTC: "claimed-only", ETH: "cannot-say" });
    const text = await solvency(c);
    expect(text.exitCode).toBe(1);
    const first = text.stdout.split("\n")[0];
    expect(first).toMatch(
      /^NOT PROVEN SOLVENT: LTC covered only by claimed reserves: proven 0\.00000000 of 1\.00000000 LTC \(0\.00%\)/,
    );
    expect(first).toContain("ETH: a node could not say whether its reserves hold");
    // the node's own words for each: the walk's cap, the missing state
    expect(text.stdout).toContain("the most --walk 1 reads");
    expect(text.stdout).toContain("missing trie node");
    // 0.3 owed: the same unknown 0.3 could cover it, so LTC is cannot say as well
    const close = await solvency(await owed("0.3"), "--json");
    expect(close.exitCode, close.stdout).toBe(3);
    const r = JSON.parse(close.stdout);
    expect(r.verdict).toBe("cannot-say");
    expect(Object.fromEntries(r.assets.map((a: any) => [a.asset, a.status]))).toEqual({
      LTC: "cannot-say",
      ETH: "cannot-say",
    });
  });

  it("an address no signature names is never weighed as might-be-proven: X 0.3 signed (cannot say) and Z 1 unsigned in one proof, 1 LTC owed: NOT PROVEN SOLVENT, exit 1; 0.3 owed: CANNOT SAY, exit 3", async () => {
    const ltcOnly = (amount: string) => buildCommitment(dir, `z${built++}`, [`c0,LTC,${amount}`], CH);
    const run = (c: string) =>
      runCli(
        [
          "solvency",
          "--liabilities",
          c,
          "--reserves",
          `LTC=${proof.XZ}`,
          "--backing",
          "LTC=litecoin-regtest",
          "--verify",
          "--url-for",
          `utxo=${ltcUrl}`,
          "--walk",
          "1",
          "--json",
        ],
        { env: { CHAINGW_URL: "http://127.0.0.1:9/" } },
      );
    const short = await run(await ltcOnly("1"));
    expect(short.stderr).toBe("");
    expect(short.exitCode, short.stdout).toBe(1);
    const a = JSON.parse(short.stdout);
    expect(a.verdict).toBe("unproven");
    expect(a.assets[0]).toMatchObject({
      asset: "LTC",
      status: "claimed-only",
      claimed: { amount: "1.30000000" },
    });
    const close = await run(await ltcOnly("0.3"));
    expect(close.exitCode, close.stdout).toBe(3);
    expect(JSON.parse(close.stdout).assets[0]).toMatchObject({ asset: "LTC", status: "cannot-say" });
  });
});
