/**
 * Issue 55, item 3 through an exchange's address file, across a UTXO chain and an EVM chain: LTC on Litecoin
 * (litecoind -regtest, its clock set with setmocktime) and wrapped LTC on anvil (a solc-compiled token,
 * declared as LTC with --backing), in HTX's layout, the LTC row signed by litecoind (signmessage), the wLTC
 * rows by `cast wallet sign`, all over "huobi". The story's clock (base = now + 600):
 *  - base+100, anvil block hW: A0 and A1 hold 5 wLTC each;
 *  - base+200, anvil block hW+1: A0's 5 wLTC leave for the bridge (unwrapped);
 *  - base+300, Litecoin's tip: the bridge releases 5 LTC to the exchange's address X.
 * Against 10 LTC owed:
 *  - the forgery: X's 5 LTC at the tip and A0's 5 wLTC at hW — the same coins, once wrapped and once not,
 *    never both held at one moment. A0's row is read before the audit's moment (base+300) and anvil made a block
 *    since (hW+1, base+200): CANNOT SAY (exit 3), never SOLVENT;
 *  - the honest control in the same run: X's 5 LTC and A1's 5 wLTC at hW+1, anvil's last block before the
 *    moment: SOLVENT (exit 0).
 * (The own-proof path's story of the same bridge is test/solvency-moment.test.ts; two EVM chains through an
 * address file, test/solvency-exchange-moment.test.ts.)
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { buildCommitment } from "./helpers/liabilities.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";
import { deployToken, mint, move } from "./helpers/tokens.js";

const CAST = new URL("../node_modules/.bin/cast", import.meta.url).pathname;
const MESSAGE = "huobi";
/** anvil's dev keys 0 and 2, and their addresses */
const K = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
];
const A = ["0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc"];
const BRIDGE = "0x00000000000000000000000000000000000b1d9e";

let dir: string;
let ltc: LitecoinNode;
let anvil: AnvilNode;
let wltc: string;
let x: string;
let xSig: string;
let sig: string[];
let ltcHeight: number;
/** anvil's block where A0 and A1 hold 5 wLTC each (base+100), and the next, A0's gone (base+200) */
let hW: number;
let commitment: string;
let n = 0;

const write = (name: string, text: string) => {
  const p = join(dir, `${n++}-${name}`);
  writeFileSync(p, text);
  return p;
};

/** HTX's layout: X's 5 LTC at Litecoin's tip, and the wLTC row of A[a] at anvil's block `h`. */
function file(a: number, h: number): string {
  return write(
    "reserves.csv",
    [
      "coin,snapshot height,balance",
      `LTC,${ltcHeight},5`,
      `WLTC-ETH,${h},5`,
      "",
      "coin,address,snapshot height,balance,message,signature",
      `LTC,${x},${ltcHeight},5,${MESSAGE},${xSig}`,
      `WLTC-ETH,${A[a]},${h},5,${MESSAGE},${sig[a]}`,
      "",
    ].join("\n"),
  );
}

/** `solvency` of the file on both nodes, the bridge's wLTC declared as LTC; `--json` and `more` */
const args = (reserves: string, ...more: string[]) => [
  "--network",
  "regtest",
  "solvency",
  "--reserves",
  reserves,
  "--liabilities",
  commitment,
  "--node",
  `LTC=${ltc.authUrl}`,
  "--node",
  `ETH=${anvil.url}`,
  "--token",
  `WLTC=${wltc}`,
  "--backing",
  "LTC=litecoin-regtest",
  "--backing",
  `LTC=anvil:${wltc}`,
  "--challenge",
  MESSAGE,
  "--json",
  ...more,
];

const solvency = (reserves: string, ...more: string[]) => runCli(args(reserves, ...more));

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-solvency-exchange-bridge-"));
  trackDir(dir);
  [ltc, anvil] = await Promise.all([startLitecoind({ blocks: 101 }), startAnvil()]);
  writeFileSync(join(dir, "assets.csv"), "asset,decimals\nLTC,8\n");
  commitment = await buildCommitment(dir, "owed", ["c1,LTC,10"]);
  const base = Math.floor(Date.now() / 1000) + 600;
  // 5 wLTC (8 places, as LTC) at A0 and at A1, in anvil's block of base+100
  wltc = await deployToken(anvil.rpc, "Token", { symbol: "WLTC", decimals: 8 });
  await anvil.rpc("anvil_setNextBlockTimestamp", [base + 100]);
  await mint(anvil.rpc, wltc, A, [5n * 10n ** 8n, 5n * 10n ** 8n]);
  hW = Number(await anvil.rpc<string>("eth_blockNumber"));
  // A0's leave for the bridge in the block of base+200
  await anvil.rpc("anvil_setNextBlockTimestamp", [base + 200]);
  await move(anvil.rpc, wltc, A[0] as string, BRIDGE, 5n * 10n ** 8n);
  expect(Number(await anvil.rpc<string>("eth_blockNumber"))).toBe(hW + 1);
  // and the bridge releases 5 LTC to the exchange's X in Litecoin's block of base+300: the tip
  x = await ltc.rpc<string>("getnewaddress", ["", "legacy"]);
  xSig = await ltc.rpc<string>("signmessage", [x, MESSAGE]);
  await ltc.rpc("setmocktime", [base + 300]);
  await ltc.rpc("sendtoaddress", [x, 5]);
  await ltc.mine(1);
  ltcHeight = await ltc.rpc<number>("getblockcount");
  sig = K.map((k) =>
    execFileSync(CAST, ["wallet", "sign", "--private-key", k, MESSAGE], { encoding: "utf8" }).trim(),
  );
});

afterAll(async () => {
  await Promise.all([ltc?.stop(), anvil?.stop()]);
});

describe("an exchange's rows: one moment across a UTXO chain and an EVM chain (LTC bridged as wLTC)", () => {
  it("X's 5 LTC at the tip and A0's 5 wLTC before they left: CANNOT SAY (exit 3), never SOLVENT; A1's 5 wLTC at anvil's last block beside them: SOLVENT (exit 0)", async () => {
    const forged = await solvency(file(0, hW));
    expect(forged.stderr).toBe("");
    expect(forged.exitCode).toBe(3);
    const f = JSON.parse(forged.stdout);
    expect(f.verdict).toBe("cannot-say");
    // A0's row is read before the audit's moment, and anvil made a block since: coins moved from it count twice
    expect(forged.stdout).toMatch(
      /is before the audit's moment, [^"]+ \(Litecoin regtest's snapshot\): coins moved/,
    );
    const page = join(dir, "honest.html");
    const pkg = join(dir, "honest-package");
    const honest = await solvency(file(1, hW + 1), "--html", page, "--report", pkg);
    expect(honest.stderr).toBe("");
    expect(honest.exitCode).toBe(0);
    const h = JSON.parse(honest.stdout);
    expect(h.verdict).toBe("solvent");
    expect(honest.stdout).not.toContain("moment,");
    // which node answered for which chain, in every form of the verdict (issue 55, item 5), credentials cut
    const nodes = [
      { net: "LTC", chain: "Litecoin regtest", url: ltc.url },
      { net: "ETH", chain: "anvil (chain id 31337)", url: anvil.url },
    ];
    expect(h.nodes).toEqual(nodes);
    const words = `nodes: LTC (Litecoin regtest): ${ltc.url}; ETH (anvil (chain id 31337)): ${anvil.url}`;
    const json = readFileSync(join(pkg, "solvency.json"), "utf8");
    expect(JSON.parse(json).report.nodes).toEqual(nodes);
    // --html is the package's page alone: the same scope row
    for (const html of [page, join(pkg, "index.html")])
      expect(readFileSync(html, "utf8")).toContain(
        `<tr data-field="nodes"><th>nodes</th><td>${words.replace(/^nodes: /, "")}</td></tr>`,
      );
    for (const text of [honest.stdout, readFileSync(page, "utf8"), json])
      expect(text).not.toContain(ltc.password);
    // the declared contract named as trusted in every form of the verdict (issue 55, item 4)
    const trusted = `trusted as declared (--backing), not checked to be what they are declared: the token at ${wltc} on anvil (chain id 31337) as LTC`;
    expect(h.trusted).toEqual([`the token at ${wltc} on anvil (chain id 31337) as LTC`]);
    expect(h.summary).toContain(trusted);
    const lead = (html: string) => /data-verdict="solvent">SOLVENT: ([^<]*)</.exec(html)?.[1];
    expect(lead(readFileSync(page, "utf8"))).toContain(trusted);
    expect(lead(readFileSync(join(pkg, "index.html"), "utf8"))).toContain(trusted);
    const plain = await runCli(args(file(1, hW + 1)).filter((a) => a !== "--json"));
    expect(plain.exitCode).toBe(0);
    expect(plain.stdout.trimEnd().split("\n").at(-1)).toBe(words);
    expect(plain.stdout.split("\n")[0]).toContain(trusted);
  });
});
