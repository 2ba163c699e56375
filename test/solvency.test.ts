/**
 * `chaingw solvency`: liabilities built by `liabilities build` held against real reserve proofs — a UTXO
 * proof from litecoind -regtest (one address signs) and an EVM balances proof from anvil (a 6-decimals token):
 * covered, exactly at the limit and one base unit over it, uncovered, an output in two proofs counted once,
 * `--verify` catching a reserve proof the chain no longer backs, a node that cannot say, and the HTML page in
 * headless chromium.
 */
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../src/proof/jcs.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";
import { deployToken, mint } from "./helpers/tokens.js";

let ltc: LitecoinNode;
let anvil: AnvilNode;
let dir: string;
let ltcProof: string;
let ltcProofA: string;
let evmProof: string;
let token: string;
let ltcUrl: string;
const CHALLENGE = "solvency audit";
const holders = [1, 2, 3].map((i) => `0x${i.toString(16).padStart(40, "0")}`);
const amounts = [5_000_000n, 2_500_001n, 1n]; // 7.500002 USDX

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-solvency-"));
  trackDir(dir);
  [ltc, anvil] = await Promise.all([startLitecoind({ blocks: 110 }), startAnvil()]);
  ltcUrl = ltc.url.replace("://", `://${ltc.user}:${ltc.password}@`);
  const a = await ltc.rpc<string>("getnewaddress", ["", "legacy"]);
  const b = await ltc.rpc<string>("getnewaddress", ["", "bech32"]);
  await ltc.rpc("sendtoaddress", [a, 1.23456789]);
  await ltc.rpc("sendtoaddress", [b, 0.5]);
  await ltc.rpc("generatetoaddress", [1, await ltc.rpc<string>("getnewaddress", ["", "bech32"])]);
  const sig = await ltc.rpc<string>("signmessage", [a, CHALLENGE]);
  writeFileSync(join(dir, "sigs.csv"), `${a},${sig}\n`);
  ltcProof = join(dir, "ltc.json");
  ltcProofA = join(dir, "ltc-a.json");
  const env = { env: { CHAINGW_URL: ltcUrl } };
  const sigs = ["--challenge", CHALLENGE, "--signatures", join(dir, "sigs.csv")];
  const u = await runCli(["reserves", "scan", a, b, "--proof", ltcProof, ...sigs], env);
  expect(u.exitCode, u.stderr).toBe(0);
  const ua = await runCli(["reserves", "scan", a, "--proof", ltcProofA], env);
  expect(ua.exitCode, ua.stderr).toBe(0);
  token = await deployToken(anvil.rpc, "Token", { symbol: "USDX", decimals: 6 });
  await mint(anvil.rpc, token, holders, amounts);
  evmProof = join(dir, "evm.json");
  const e = await runCli(
    ["reserves", "balances", ...holders, "--native", "--token", token, "--proof", evmProof],
    {
      env: { CHAINGW_URL: anvil.url },
    },
  );
  expect(e.exitCode, e.stderr).toBe(0);
  writeFileSync(join(dir, "assets.csv"), "asset,decimals\nLTC,8\nUSDX,6\n");
}, 120_000);

afterAll(async () => {
  await Promise.all([ltc?.stop(), anvil?.stop()]);
});

/** liabilities: LTC and USDX totals spread over a few customers */
async function liabilities(name: string, ltcTotal: string, usdx: string): Promise<string> {
  const rows = [
    "customer_id,asset,amount",
    `c1,LTC,${ltcTotal}`,
    "c2,USDX,0.000001",
    `c3,USDX,${usdx}`,
    "c4,LTC,0",
  ];
  writeFileSync(join(dir, `${name}.csv`), rows.join("\n"));
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
  ]);
  expect(r.exitCode, r.stderr).toBe(0);
  return join(out, "commitment.json");
}

const solvency = (commitment: string, ...args: string[]) =>
  runCli(
    [
      "solvency",
      "--liabilities",
      commitment,
      "--reserves",
      `LTC=${ltcProof}`,
      "--reserves",
      `USDX=${evmProof}#${token}`,
      ...args,
    ],
    { env: { CHAINGW_URL: "http://127.0.0.1:9/" } },
  );
const VERIFY = () => ["--verify", "--url-for", `utxo=${ltcUrl}`, "--url-for", `evm=${anvil.url}`];

describe("solvency", () => {
  it("covered: per asset liabilities, reserves, proven owned share and coverage; exit 0", async () => {
    const c = await liabilities("covered", "1.5", "7");
    const r = await solvency(c);
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    expect(r.stdout.split("\n")[0]).toMatch(/^SOLVENT: every asset covered \(2\)/);
    expect(r.stdout).toMatch(/LTC .* 1\.5 .* 1\.73456789 .* 71\.17% .* 115\.64% .* covered/);
    expect(r.stdout).toMatch(/USDX .* 7\.000001 .* 7\.500002 .* no signatures .* 107\.14% .* covered/);
    const j = await runCli([
      "--json",
      "solvency",
      "--liabilities",
      c,
      "--reserves",
      `LTC=${ltcProof}`,
      "--reserves",
      `USDX=${evmProof}#${token}`,
    ]);
    const doc = JSON.parse(j.stdout);
    expect(doc.verdict).toBe("solvent");
    expect(doc.assets[0]).toMatchObject({
      asset: "LTC",
      reserves: { base_units: "173456789" },
      liabilities: { base_units: "150000000" },
    });
  });

  it("exactly at the limit holds; one base unit more fails naming the shortfall", async () => {
    const at = await solvency(await liabilities("limit", "1.73456789", "7.500001"));
    expect(at.exitCode, at.stdout).toBe(0);
    expect(at.stdout).toMatch(/LTC .* 100\.00% .* covered/);
    const over = await solvency(await liabilities("over", "1.7345679", "7.500001"));
    expect(over.exitCode).toBe(1);
    expect(over.stdout.split("\n")[0]).toBe("NOT SOLVENT: LTC not covered: short 0.00000001 LTC");
  });

  it("uncovered, and an asset with no reserves at all", async () => {
    const c = await liabilities("uncovered", "1", "100");
    const r = await solvency(c);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain("USDX not covered: short 92.499999 USDX");
    const none = await runCli(["solvency", "--liabilities", c, "--reserves", `LTC=${ltcProof}`]);
    expect(none.exitCode).toBe(1);
    expect(none.stdout).toContain("USDX not covered: short 100.000001 USDX (no reserves)");
    expect(none.stdout).toContain("USDX: no reserve proof backs it");
  });

  it("an output in two proofs backing one asset counts once and is named", async () => {
    const c = await liabilities("overlap", "1.7", "1");
    const r = await runCli([
      "solvency",
      "--liabilities",
      c,
      "--reserves",
      `LTC=${ltcProof}`,
      "--reserves",
      `LTC=${ltcProofA}`,
      "--reserves",
      `USDX=${evmProof}#${token}`,
    ]);
    expect(r.exitCode, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/LTC .* 1\.73456789 /);
    expect(r.stdout).toMatch(
      /LTC: overlap: [0-9a-f]{64}:\d+ is in .*ltc\.json and .*ltc-a\.json: counted once/,
    );
  });

  it("bad input exits 2: unknown asset, decimals that differ, no #ID for a proof of several assets", async () => {
    const c = await liabilities("bad", "1", "1");
    const bad = async (args: string[], msg: string) => {
      const r = await runCli(["solvency", "--liabilities", c, ...args]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toContain(msg);
    };
    await bad(["--reserves", `BTC=${ltcProof}`], "the liabilities have no asset BTC");
    await bad(["--reserves", `USDX=${ltcProof}`], "has 8 decimals, the liabilities' USDX 6");
    await bad(["--reserves", `USDX=${evmProof}`], "name one of the proof's assets with #ID: native");
    await bad(["--reserves", `LTC=${evmProof}#native`], "has 18 decimals, the liabilities' LTC 8");
  });

  it("--verify: holds against the chains; a reserve proof the chain does not back fails; a dead node cannot say", async () => {
    const c = await liabilities("verify", "1.5", "7");
    const ok = await solvency(c, ...VERIFY());
    expect(ok.exitCode, ok.stdout + ok.stderr).toBe(0);
    expect(ok.stdout).toContain("reserves verified against their chains now");
    // a forged balance, re-digested so only the chain can tell
    const d = JSON.parse(readFileSync(evmProof, "utf8"));
    const usd = d.assets.find((a: { id: string }) => a.id === token);
    usd.balances[2].base_units = "1000000001";
    usd.balances[2].amount = "1000.000001";
    usd.total.base_units = (5_000_000n + 2_500_001n + 1_000_000_001n).toString();
    usd.total.amount = "1007.500002";
    d.digest = digestOf(d);
    const forged = join(dir, "forged.json");
    writeFileSync(forged, JSON.stringify(d));
    const big = await liabilities("big", "1.5", "1000");
    const offline = await runCli([
      "solvency",
      "--liabilities",
      big,
      "--reserves",
      `LTC=${ltcProof}`,
      "--reserves",
      `USDX=${forged}#${token}`,
    ]);
    expect(offline.exitCode).toBe(0); // the document alone covers it
    const f = await runCli([
      "solvency",
      "--liabilities",
      big,
      "--reserves",
      `LTC=${ltcProof}`,
      "--reserves",
      `USDX=${forged}#${token}`,
      ...VERIFY(),
    ]);
    expect(f.exitCode).toBe(1);
    expect(f.stdout.split("\n")[0]).toBe("NOT SOLVENT: USDX: a reserve proof does not hold");
    const dead = await solvency(
      c,
      "--verify",
      "--url-for",
      "utxo=http://127.0.0.1:9/",
      "--url-for",
      `evm=${anvil.url}`,
      "--retries",
      "0",
    );
    expect(dead.exitCode, dead.stdout + dead.stderr).toBe(3);
    // the reserve verifier stops at the node that cannot answer: exit 3 naming it, no verdict printed
    expect(dead.stderr).toContain("127.0.0.1:9");
    expect(dead.stdout).not.toContain("SOLVENT");
  }, 60_000);

  it("--html: the report page with the solvency table, in headless chromium", async () => {
    const chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].find(existsSync);
    expect(chromium).toBeTruthy();
    const page = join(dir, "solvency.html");
    const r = await solvency(await liabilities("html", "1.5", "100"), "--html", page);
    expect(r.exitCode).toBe(1);
    const html = readFileSync(page, "utf8");
    expect(html).not.toMatch(/<script|<link|@import|url\(|src="http/i);
    const profile = mkdtempSync(join(tmpdir(), "chaingw-chromium-"));
    trackDir(profile);
    const res = await execa(
      chromium as string,
      [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--no-first-run",
        `--user-data-dir=${profile}`,
        "--dump-dom",
        "--virtual-time-budget=2000",
        `file://${page}`,
      ],
      { timeout: 60_000, reject: false },
    );
    const dom = res.stdout;
    expect(dom).toContain('id="solvency-verdict" data-verdict="not-solvent"');
    expect(dom).toMatch(/<tr data-asset="LTC" data-status="covered">.*1\.73456789.*115\.64%/);
    expect(dom).toMatch(/<tr data-asset="USDX" data-status="not-covered">.*short 92\.499999/);
    expect(dom).toContain('id="totals"');
    expect(dom.indexOf('id="solvency"')).toBeLessThan(dom.indexOf('id="totals"'));
  }, 90_000);
});
