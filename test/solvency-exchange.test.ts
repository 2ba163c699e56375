/**
 * `solvency` over an exchange's package (issue 47), end to end on real nodes: an HTX-layout address file whose
 * LTC row litecoind signed (signmessage, Litecoin's magic) and whose ETH row `cast wallet sign` signed
 * (EIP-191), both over HTX's fixed text "huobi"; liabilities as chaingw's commitment (`liabilities build`) or
 * as an exchange's inclusion proof (CoinEx's format, whose root binds its totals; OKX v1's does not) built here
 * to a chosen root. Each forgery — liabilities above the reserves, a
 * row's amount inflated, a row moved to another chain, a coin owed that no row backs, the root not given from
 * outside, the exchange's fixed text not accepted — next to the honest control that is SOLVENT.
 */

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { sha256 } from "@noble/hashes/sha2.js";
import { base58check } from "@scure/base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SolvencyReport } from "../src/judge/report.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import {
  BROKEN_WORDS,
  CHART_TEXT,
  type ChartText,
  domOf,
  layoutIn,
  SQUEEZED_CODE,
  screenshot,
} from "./helpers/chromium.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";
import { sumRootProof } from "./helpers/sum-root.js";
import { deployToken, mint } from "./helpers/tokens.js";

const CAST = new URL("../node_modules/.bin/cast", import.meta.url).pathname;
const K0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const MESSAGE = "huobi";

let dir: string;
let ltc: LitecoinNode;
let anvil: AnvilNode;
let addr: string;
let ltcSig: string;
let ethSig: string;
let ltcHeight: number;
let ethHeight: number;
/** A0's balance at ethHeight, in ETH (18 places, as text) */
let ethBalance: string;
/** a P2SH-P2WPKH address holding 1 LTC (litecoind's "Q…", version 58), its signature (signmessagewithprivkey) */
let p2sh: string;
let p2shSig: string;
let n = 0;

/** an amount of ETH written the one way: coin units with all 18 places */
const eth18 = (t: string) => {
  const [w, f = ""] = t.split(".");
  return `${w}.${f.padEnd(18, "0")}`;
};

const write = (name: string, text: string) => {
  const p = join(dir, `${n++}-${name}`);
  writeFileSync(p, text);
  return p;
};

/** the date a root was published for (--liabilities-date): now, within --max-gap of both nodes' blocks */
const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, "Z");
/** a date `days` before now */
const daysAgo = (days: number) =>
  new Date(Date.now() - days * 86400_000).toISOString().replace(/\.\d{3}Z$/, "Z");

/** the root given from outside, its date (now unless given), the exchange's text accepted, and `more` */
const rooted = (root: string, date = now(), ...more: string[]) => [
  "--root",
  root,
  "--liabilities-date",
  date,
  "--challenge",
  MESSAGE,
  ...more,
];

/** The exchange's address file in HTX's layout: the LTC row and the ETH row, each cell replaceable. */
function addressFile(o: { ltc?: string; ethCoin?: string; eth?: string } = {}): string {
  const ltcAmount = o.ltc ?? "2";
  const eth = o.eth ?? ethBalance;
  return write(
    "reserves.csv",
    [
      "coin,snapshot height,balance",
      `LTC,${ltcHeight},${ltcAmount}`,
      `${o.ethCoin ?? "ETH"},${ethHeight},${eth}`,
      "",
      "coin,address,snapshot height,balance,message,signature",
      `LTC,${addr},${ltcHeight},${ltcAmount},${MESSAGE},${ltcSig}`,
      `${o.ethCoin ?? "ETH"},${A0},${ethHeight},${eth},${MESSAGE},${ethSig}`,
      "",
    ].join("\n"),
  );
}

/** chaingw's commitment of customers owing `owed` (asset → amount), built by `liabilities build`. */
async function commitment(owed: Record<string, string>, challenge?: string): Promise<string> {
  const out = join(dir, `${n++}-snap`);
  const decimals: Record<string, number> = { LTC: 8, ETH: 18, USDT: 6, USDX: 6 };
  const input = write(
    "balances.csv",
    ["customer_id,asset,amount", ...Object.entries(owed).map(([a, v], i) => `c${i},${a},${v}`), ""].join(
      "\n",
    ),
  );
  const assets = write(
    "assets.csv",
    ["asset,decimals", ...Object.keys(owed).map((a) => `${a},${decimals[a]}`), ""].join("\n"),
  );
  const r = await runCli([
    "liabilities",
    "build",
    "--input",
    input,
    "--assets",
    assets,
    "--out",
    out,
    ...(challenge ? ["--challenge", challenge] : []),
  ]);
  expect(r.exitCode, r.stderr).toBe(0);
  return join(out, "commitment.json");
}

/** `t` as a regular expression matches it, character for character. */
const literally = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** An exchange's inclusion proof to chosen totals (test/helpers/sum-root.ts), written in the test's directory. */
const sumRoot = (mine: Record<string, string>, sibling: Record<string, string>) =>
  sumRootProof(mine, sibling, (text) => write("merkle_proof_file.json", text));

type Report = SolvencyReport;
type Coin = Required<Report["assets"][number]>;

/**
 * What the test networks' coins are (the one identity rule: a well-known asset only on its mainnet, any other
 * network declared): LTC litecoind's regtest, ETH anvil's own coin — for each the liabilities owe and `more`
 * does not declare itself.
 */
function declared(liabilities: string, more: readonly string[]): string[] {
  const text = readFileSync(liabilities, "utf8");
  return [
    ["LTC", "litecoin-regtest"],
    ["ETH", "anvil"],
  ].flatMap(([asset, net]) =>
    text.includes(`"${asset}"`) && !more.some((m) => m.startsWith(`${asset}=`))
      ? ["--backing", `${asset}=${net}`]
      : [],
  );
}

/** `solvency` of the package on the test's two nodes (the LTC rows on litecoind, the ETH rows on anvil) */
const args = (reserves: string, liabilities: string, more: readonly string[] = []) => [
  "--network",
  "regtest",
  "solvency",
  ...declared(liabilities, more),
  "--reserves",
  reserves,
  "--liabilities",
  liabilities,
  "--node",
  `LTC=${ltc.authUrl}`,
  "--node",
  `ETH=${anvil.url}`,
];

async function solvency(reserves: string, liabilities: string, ...more: string[]) {
  const r = await runCli([...args(reserves, liabilities, more), "--json", ...more]);
  const report = (r.exitCode === 2 ? undefined : JSON.parse(r.stdout)) as Report;
  return { ...r, report, coin: (a: string) => report.assets.find((c) => c.asset === a) as Coin };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-solvency-exchange-"));
  trackDir(dir);
  [ltc, anvil] = await Promise.all([startLitecoind({ blocks: 101 }), startAnvil()]);
  addr = await ltc.rpc<string>("getnewaddress", ["", "legacy"]);
  ltcSig = await ltc.rpc<string>("signmessage", [addr, MESSAGE]);
  p2sh = await ltc.rpc<string>("getnewaddress", ["", "p2sh-segwit"]);
  const key = await ltc.rpc<string>("dumpprivkey", [p2sh]);
  p2shSig = await ltc.rpc<string>("signmessagewithprivkey", [key, MESSAGE]);
  // one transaction: a second send could spend the first's output
  await ltc.rpc("sendmany", ["", { [addr]: 2, [p2sh]: 1 }]);
  await ltc.mine(1);
  ltcHeight = await ltc.rpc<number>("getblockcount");
  ethSig = execFileSync(CAST, ["wallet", "sign", "--private-key", K0, MESSAGE], { encoding: "utf8" }).trim();
  await anvil.rpc("anvil_mine", ["0x2"]);
  ethHeight = Number(await anvil.rpc<string>("eth_blockNumber"));
  const wei = BigInt(await anvil.rpc<string>("eth_getBalance", [A0, `0x${ethHeight.toString(16)}`]));
  ethBalance = `${wei / 10n ** 18n}.${(wei % 10n ** 18n).toString().padStart(18, "0")}`.replace(/\.?0+$/, "");
});

afterAll(async () => {
  await Promise.all([ltc?.stop(), anvil?.stop()]);
});

describe("an exchange's address file against chaingw's commitment", () => {
  it("covered: SOLVENT once the auditor accepts the exchange's text; without --challenge NOT PROVEN SOLVENT, naming the text", async () => {
    const reserves = addressFile();
    const liab = await commitment({ LTC: "1.5", ETH: "5000" });
    const ok = await solvency(reserves, liab, "--challenge", MESSAGE);
    expect(ok.stderr).toBe("");
    expect(ok.report.verdict).toBe("solvent");
    expect(ok.exitCode).toBe(0);
    expect(ok.coin("LTC")).toMatchObject({
      liabilities: { amount: "1.50000000" },
      proven: { amount: "2.00000000" },
      claimed: { amount: "2.00000000" },
      coverage: "133.33%",
      claimed_coverage: "133.33%",
      shortfall: null,
      status: "covered",
    });
    expect(ok.coin("ETH")).toMatchObject({ proven: { amount: eth18(ethBalance) }, status: "covered" });
    // both snapshots: the reserves' height and block time, the liabilities' date, the gap
    expect(ok.coin("LTC").snapshots).toEqual([
      {
        network: "LTC",
        kind: "height",
        height: ltcHeight,
        below_tip: null,
        block_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        gap_seconds: expect.any(Number),
        gap: expect.stringMatching(/ (after|before) the liabilities' date$/),
        within_max_gap: true,
      },
    ]);
    expect(ok.report.audit.created).toMatch(/^\d{4}-\d\d-\d\dT/);
    expect(ok.report.audit.gap).toMatch(/ (after|before) the liabilities' date$/);

    const fixed = await solvency(reserves, liab);
    expect(fixed.report.verdict).toBe("unproven");
    expect(fixed.exitCode).toBe(1);
    expect(fixed.report.audit.challenge).toBeNull();
    expect(fixed.report.challenges).toEqual([{ text: MESSAGE, files: [reserves], for_this_audit: false }]);
    expect(fixed.coin("LTC")).toMatchObject({
      proven: { amount: "0.00000000" },
      claimed: { amount: "2.00000000" },
      status: "claimed-only",
    });
    const human = await runCli(args(reserves, liab));
    expect(human.stdout).toContain(
      `reserves: the rows sign "huobi", the exchange's own text, not an audit's challenge: nothing is proven for the audit until you accept it (--challenge TEXT)`,
    );
    expect(human.stdout).toMatch(/^NOT PROVEN SOLVENT: LTC covered only by claimed reserves/);
  });

  it("short: liabilities above the reserves are NOT SOLVENT for that coin, the shortfall named; the honest amount SOLVENT", async () => {
    const r = await solvency(
      addressFile(),
      await commitment({ LTC: "3", ETH: "5000" }),
      "--challenge",
      MESSAGE,
    );
    expect(r.report.verdict).toBe("not-solvent");
    expect(r.exitCode).toBe(1);
    expect(r.coin("LTC")).toMatchObject({
      status: "not-covered",
      shortfall: "1.00000000",
      coverage: "66.67%",
    });
    expect(r.coin("ETH").status).toBe("covered");
    expect(r.report.summary).toContain(
      "LTC not covered: short 1.00000000 LTC (claimed reserves 2.00000000 of 3.00000000)",
    );
  });

  it("a row whose node cannot answer: its coin CANNOT SAY (exit 3), not NOT SOLVENT; the same file through anvil SOLVENT", async () => {
    // a loopback node that answers every request 503: the ETH row's balance cannot be re-read
    let hits = 0;
    const down = createServer((_req, res) => {
      hits++;
      res.writeHead(503, { "content-type": "text/plain" }).end("service unavailable");
    });
    await new Promise<void>((ok) => down.listen(0, "127.0.0.1", ok));
    const url = `http://127.0.0.1:${(down.address() as AddressInfo).port}`;
    try {
      const liab = await commitment({ LTC: "1.5", ETH: "5000" });
      const file = addressFile();
      const honest = await solvency(file, liab, "--challenge", MESSAGE);
      expect(honest.report.verdict).toBe("solvent");
      expect(honest.exitCode).toBe(0);
      const r = await runCli([
        ...args(file, liab).map((a) => (a === `ETH=${anvil.url}` ? `ETH=${url}` : a)),
        "--challenge",
        MESSAGE,
        "--json",
      ]);
      const report = JSON.parse(r.stdout) as Report;
      const eth = report.assets.find((c) => c.asset === "ETH") as Coin;
      // before: the unread row was dropped, ETH 'not covered' (nothing claimed), NOT SOLVENT exit 1
      expect(eth.status).toBe("cannot-say");
      expect(report.assets.find((c) => c.asset === "LTC")?.status).toBe("covered");
      expect(report.verdict).toBe("cannot-say");
      expect(r.exitCode).toBe(3);
      expect(hits).toBeGreaterThan(0);
    } finally {
      down.close();
    }
  });

  it("an inflated row (20 LTC claimed, 2 on chain): the row fails and counts nothing; NOT SOLVENT beside the honest file", async () => {
    const liab = await commitment({ LTC: "1.5", ETH: "5000" });
    const r = await solvency(addressFile({ ltc: "20" }), liab, "--challenge", MESSAGE);
    expect(r.report.verdict).toBe("not-solvent");
    expect(r.coin("LTC")).toMatchObject({
      proven: { amount: "0.00000000" },
      claimed: { amount: "0.00000000" },
      status: "not-covered",
    });
    expect(r.coin("LTC").not_counted).toEqual([
      expect.objectContaining({
        coin: "LTC",
        status: "failed",
        why: expect.stringContaining("less than the 20.00000000 claimed"),
      }),
    ]);
    expect((await solvency(addressFile(), liab, "--challenge", MESSAGE)).report.verdict).toBe("solvent");
  });

  it("a row moved to another chain (the ETH row relabelled ETH-BSC, its signature intact): not counted as ETH", async () => {
    const r = await solvency(
      addressFile({ ethCoin: "ETH-BSC" }),
      await commitment({ LTC: "1.5", ETH: "5000" }),
      "--challenge",
      MESSAGE,
    );
    expect(r.report.verdict).toBe("not-solvent");
    expect(r.coin("ETH")).toMatchObject({
      proven: { amount: "0.000000000000000000" },
      status: "not-covered",
    });
    expect(r.coin("ETH").not_counted[0]?.why).toContain(
      "ETH-BSC is a token whose contract is not named on BNB Smart Chain (--token SYMBOL=ADDRESS), not the native coin of anvil (chain id 31337) (--backing ETH): not counted as ETH",
    );
  });

  it("a row's finding is one: its code and words the same in --json, the text and the package's rows.csv (the ETH row relabelled ETH-BSC, not counted; the LTC row proven)", async () => {
    const file = addressFile({ ethCoin: "ETH-BSC" });
    const liab = await commitment({ LTC: "1.5", ETH: "5000" });
    const json = await solvency(file, liab, "--challenge", MESSAGE);
    const [row] = json.coin("ETH").not_counted;
    // not counted, the row still shows its address and what it claims (they were left out: "", 0)
    expect(row).toMatchObject({
      line: 7,
      coin: "ETH-BSC",
      address: A0,
      claimed: eth18(ethBalance),
      status: "signed",
      code: "not-the-asset",
    });
    const why = row?.why as string;
    expect(why).toMatch(
      /^ETH-BSC is a token whose contract is not named on BNB Smart Chain .*: not counted as ETH$/,
    );
    const [proven] = json.coin("LTC").rows;
    expect(proven).toMatchObject({ line: 6, code: "row-proven" });
    const pkg = join(dir, "finding-package");
    const text = await runCli([...args(file, liab), "--challenge", MESSAGE, "--report", pkg]);
    expect(text.exitCode).toBe(1);
    expect(text.stdout).toContain(
      `ETH: line 7 ETH-BSC ${A0}: claimed ${eth18(ethBalance)}, NOT COUNTED (signed): ${why}\n`,
    );
    const rows = readFileSync(join(pkg, "rows.csv"), "utf8").trimEnd().split("\n");
    const q = (t: string) => `"${t.replaceAll('"', '""')}"`;
    const eth = rows.find((x) => x.startsWith("ETH,line 7,"));
    expect(eth).toContain(`,${A0},${eth18(ethBalance)},0.${"0".repeat(18)},not counted,`);
    expect(eth?.endsWith(`,not counted,${q(`signed: ${why}`)},not-the-asset`)).toBe(true);
    expect(rows).toContain(
      `LTC,line 6,LTC (its own chain),${addr},2.00000000,2.00000000,proven,${q(proven?.why as string)},row-proven`,
    );
    // the page, in Chromium, lists the same finding: its code on the row, the address and what it claims,
    // its words in the cell
    const d = await domOf(join(pkg, "index.html"));
    const tr = /<tr data-code="not-the-asset">(.*?)<\/tr>/s.exec(d)?.[1] ?? "";
    expect(tr).toBe(
      `<td>ETH</td><td>line 7</td><td>BSC</td><td><code>${A0}</code></td><td class="num">${eth18(ethBalance)}</td><td class="num">0.${"0".repeat(18)}</td><td>not counted</td><td>signed: ${why.replaceAll("&", "&amp;").replaceAll("<", "&lt;").replaceAll(">", "&gt;")}</td>`,
    );
  });

  it("a coin owed that no reserve row backs (USDT): NOT SOLVENT for it; the others covered", async () => {
    const r = await solvency(
      addressFile(),
      await commitment({ LTC: "1.5", ETH: "5000", USDT: "10" }),
      "--challenge",
      MESSAGE,
    );
    expect(r.report.verdict).toBe("not-solvent");
    expect(r.coin("USDT")).toMatchObject({
      status: "not-covered",
      shortfall: "10.000000",
      why: "USDT not covered: short 10.000000 USDT (no reserves count for it)",
    });
    expect(r.coin("LTC").status).toBe("covered");
  });

  it("the commitment's own challenge is the audit's: another --challenge is exit 2; the commitment's alone SOLVENT", async () => {
    const liab = await commitment({ LTC: "1.5", ETH: "5000" }, MESSAGE);
    expect((await solvency(addressFile(), liab)).report.verdict).toBe("solvent");
    const other = await solvency(addressFile(), liab, "--challenge", "OKX audit 2026");
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain("the commitment's challenge is");
  });
});

describe("an exchange's address file against an exchange's liabilities root (CoinEx's format)", () => {
  it("covered with the root given from outside: SOLVENT; the root from the file alone: CANNOT SAY; another root: NOT SOLVENT", async () => {
    const { file, root } = sumRoot({ LTC: "1", ETH: "3000" }, { LTC: "0.5", ETH: "2000" });
    const dated = ["--liabilities-date", now(), "--challenge", MESSAGE];
    const given = await solvency(addressFile(), file, "--root", root, ...dated);
    expect(given.report.verdict).toBe("solvent");
    expect(given.exitCode).toBe(0);
    expect(given.coin("LTC")).toMatchObject({
      liabilities: { amount: "1.50000000" },
      proven: { amount: "2.00000000" },
    });
    expect(given.coin("ETH")).toMatchObject({
      liabilities: { amount: "5000.000000000000000000" },
      status: "covered",
    });
    expect(given.report.exchange_liabilities).toMatchObject({ root, date: dated[1] });

    const own = await solvency(addressFile(), file, ...dated);
    expect(own.report.verdict).toBe("cannot-say");
    expect(own.exitCode).toBe(3);
    // covered as the file's own root states them, but what is owed is not known: each coin cannot say
    expect(own.coin("ETH")).toMatchObject({ proven: given.coin("ETH").proven, status: "cannot-say" });
    expect(own.coin("LTC").why).toBe(
      "LTC: what is owed cannot be said (the liabilities' totals are not relied on); proven 2.00000000 LTC against the 1.50000000 they state",
    );
    expect(own.report.exchange_liabilities?.note).toContain(
      "consistent with its own root; give the published root",
    );

    const other = await solvency(addressFile(), file, "--root", "cd".repeat(32), ...dated);
    expect(other.report.verdict).toBe("not-solvent");
    expect(other.exitCode).toBe(1);
    expect(other.report.summary).toContain("the liabilities do not hold");
  });

  it("short against the root's totals: NOT SOLVENT, the LTC shortfall named", async () => {
    const { file, root } = sumRoot({ LTC: "2", ETH: "3000" }, { LTC: "1", ETH: "2000" });
    const r = await solvency(addressFile(), file, ...rooted(root));
    expect(r.report.verdict).toBe("not-solvent");
    expect(r.coin("LTC")).toMatchObject({
      liabilities: { amount: "3.00000000" },
      status: "not-covered",
      shortfall: "1.00000000",
    });
  });

  it("a root that writes LTC's total as \"1.5\": written at LTC's 8 places in the table, the words, --format csv, the chart and the rows (1.50000000), not at the file's 1; a total of 9 places is written at 9 and said so, never rounded", async () => {
    const reserves = addressFile();
    const { file, root } = sumRoot({ LTC: "1", ETH: "3000" }, { LTC: "0.5", ETH: "2000" });
    expect(readFileSync(file, "utf8")).toContain('"LTC":"1.5"');
    const text = await runCli([...args(reserves, file), ...rooted(root)]);
    expect(text.exitCode, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/│ LTC +│ 1\.50000000 +│ 2\.00000000 +│ 2\.00000000 +│ 133\.33% /);
    expect(text.stdout).toMatch(/LTC: line \d+ LTC \S+: 2\.00000000 proven/);
    expect(text.stdout).not.toContain("places, not rounded");
    const json = await solvency(reserves, file, ...rooted(root));
    expect(json.coin("LTC")).toMatchObject({ decimals: 8, liabilities: { amount: "1.50000000" } });
    expect(json.coin("LTC").places).toBeUndefined();
    const csv = await runCli([...args(reserves, file), ...rooted(root), "--format", "csv"]);
    expect(csv.stdout).toMatch(
      /^LTC,8,1\.50000000,2\.00000000,2\.00000000,133\.33%,133\.33%,covered,covered,$/m,
    );
    const html = join(dir, "places.html");
    expect((await runCli([...args(reserves, file), ...rooted(root, now(), "--html", html)])).exitCode).toBe(
      0,
    );
    const chart = /<svg [^>]*data-asset="LTC"[\s\S]*?<\/svg>/.exec(readFileSync(html, "utf8"))?.[0] ?? "";
    expect(chart).toContain("1.50000000");
    expect(chart).not.toMatch(/>[^<]*\b1\.5\b(?!0)/);

    // more places than LTC has: the exchange's total is written whole, and the finding says so
    const nine = sumRoot({ LTC: "1.000000001", ETH: "3000" }, { LTC: "0.5", ETH: "2000" });
    const over = await runCli([...args(reserves, nine.file), ...rooted(nine.root)]);
    expect(over.stdout).toMatch(/│ LTC +│ 1\.500000001 +│ 2\.000000000 +│ 2\.000000000 +│/);
    expect(over.stdout).toContain(
      "LTC: the liabilities' total states 9 places, more than LTC's 8: every LTC amount is written at 9 places, not rounded",
    );
    const overJson = await solvency(reserves, nine.file, ...rooted(nine.root));
    expect(overJson.coin("LTC")).toMatchObject({
      decimals: 9,
      liabilities: { amount: "1.500000001", base_units: "1500000001" },
      places:
        "LTC: the liabilities' total states 9 places, more than LTC's 8: every LTC amount is written at 9 places, not rounded",
    });
  });

  it("--html writes the report package's page alone (one template, page()): in Chromium at 1280 and 390 px the verdict, a chart per coin, the table, the nodes, each document with its SHA-256, nothing off the side", async () => {
    const { file, root } = sumRoot({ LTC: "1", ETH: "3000" }, { LTC: "0.5", ETH: "2000" });
    const html = join(dir, "solvency.html");
    const reserves = addressFile();
    const r = await solvency(reserves, file, ...rooted(root, now(), "--html", html));
    expect(r.exitCode).toBe(0);
    const text = readFileSync(html, "utf8");
    // self-contained as every page is: the one CSP, the viewport, no request of any kind
    expect(text).toContain(
      `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">`,
    );
    expect(text).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
    expect(text).not.toMatch(/<script|<link|@import|url\(|src="http/i);
    const d = await domOf(html);
    expect(d).toMatch(/<p class="verdict" id="verdict" data-verdict="solvent">SOLVENT: /);
    expect(d).toMatch(/<tr data-asset="LTC" data-status="covered">/);
    // the status in the words the text uses (the code stays in data-status and the CSV)
    expect(d).toMatch(/<tr data-asset="LTC" data-status="covered">.*<td>covered \(proven\)<\/td>/);
    expect([...d.matchAll(/<svg [^>]*data-asset="([^"]+)"/g)].map((m) => m[1])).toEqual(["LTC", "ETH"]);
    // the nodes read, as the text's last line names them; the scope without the package's own fields
    expect(d).toMatch(/<tr data-field="nodes"><th>nodes<\/th><td>LTC .*ETH .*<\/td><\/tr>/);
    expect(d).toContain('<tr data-field="challenge"><th>challenge</th>');
    expect(d).not.toContain('data-field="auditor"');
    // each document named as it was given, with its SHA-256
    const sha = (f: string) => createHash("sha256").update(readFileSync(f)).digest("hex");
    for (const f of [file, reserves]) {
      expect(d).toContain(`<code>${f}</code>`);
      expect(d).toContain(`<code>${sha(f)}</code>`);
    }
    expect(d).toContain("--report DIR</code> writes them beside this page");
    for (const width of [390, 1280]) {
      const l = await layoutIn(
        html,
        width,
        `({ fits: [...d.querySelectorAll(".scroll")].map((s) => s.getBoundingClientRect().right <= d.documentElement.clientWidth + 0.5), broken: ${BROKEN_WORDS} })`,
      );
      expect(l.scroll, `${width} px`).toBeLessThanOrEqual(l.viewport);
      const more = l.more as { fits: boolean[]; broken: string[] };
      expect(more.fits.every(Boolean)).toBe(true);
      // a table's words stay whole (it scrolls sideways instead): it read "reserve|s.json", "ARBITRU|M"
      expect(more.broken, `${width} px`).toEqual([]);
      await screenshot(html, width, "solvency-exchange-html");
    }
  });
});

describe("chaingw's own reserve proofs against an exchange's liabilities root (CoinEx's format)", () => {
  const AUDIT = "exchange audit 2026-11";
  let ltcProof: string;
  let evmProof: string;

  beforeAll(async () => {
    const ltcSigs = write("ltc-sigs.csv", `${addr},${await ltc.rpc<string>("signmessage", [addr, AUDIT])}\n`);
    ltcProof = join(dir, "own-ltc.json");
    const sigs = ["--challenge", AUDIT, "--signatures"];
    const u = await runCli(["reserves", "scan", addr, "--proof", ltcProof, ...sigs, ltcSigs], {
      env: { CHAINGW_URL: ltc.authUrl },
    });
    expect(u.exitCode, u.stderr).toBe(0);
    const sig = execFileSync(CAST, ["wallet", "sign", "--private-key", K0, AUDIT], { encoding: "utf8" });
    evmProof = join(dir, "own-evm.json");
    const evmSigs = write("evm-sigs.csv", `${A0},${sig.trim()}\n`);
    const e = await runCli(["reserves", "balances", A0, "--native", "--proof", evmProof, ...sigs, evmSigs], {
      env: { CHAINGW_URL: anvil.url },
    });
    expect(e.exitCode, e.stderr).toBe(0);
  });

  interface Asset {
    asset: string;
    liabilities: { amount: string };
    proven: { amount: string };
    coverage: string;
    claimed_coverage: string;
    shortfall: string | null;
    status: string;
    snapshots: { block_time: string | null; gap: string | null; within_max_gap: boolean | null }[];
    proofs: { not_for_this_audit?: string; check: string }[];
  }
  /** `solvency --verify` of the two proofs (LTC, ETH) against the root file, with `more` */
  async function own(liabilities: string, ...more: string[]) {
    const r = await runCli([
      "solvency",
      "--liabilities",
      liabilities,
      "--reserves",
      `LTC=${ltcProof}`,
      "--reserves",
      `ETH=${evmProof}#native`,
      "--backing",
      "LTC=litecoin-regtest",
      "--backing",
      "ETH=anvil",
      "--challenge",
      AUDIT,
      "--verify",
      "--url-for",
      `utxo=${ltc.authUrl}`,
      "--url-for",
      `evm=${anvil.url}`,
      ...more,
    ]);
    const json = more.includes("--json") && r.exitCode !== 2;
    const report = json ? JSON.parse(r.stdout) : undefined;
    return {
      ...r,
      report,
      asset: (a: string) => report.assets.find((x: Asset) => x.asset === a) as Asset,
    };
  }

  it("covered with the root and its date given from outside: SOLVENT, per coin the ratios, snapshots and gap; --html alike", async () => {
    const { file, root } = sumRoot({ LTC: "1", ETH: "3000" }, { LTC: "0.5", ETH: "2000" });
    const html = join(dir, "own-solvency.html");
    const ok = await own(file, "--root", root, "--liabilities-date", now(), "--json", "--html", html);
    expect(ok.stderr).toBe("");
    expect(ok.report.verdict).toBe("solvent");
    expect(ok.exitCode).toBe(0);
    expect(ok.asset("LTC")).toMatchObject({
      liabilities: { amount: "1.50000000" },
      proven: { amount: "2.00000000" },
      coverage: "133.33%",
      claimed_coverage: "133.33%",
      shortfall: null,
      status: "covered",
    });
    expect(ok.asset("ETH")).toMatchObject({
      liabilities: { amount: "5000.000000000000000000" },
      status: "covered",
    });
    expect(ok.asset("LTC").snapshots[0]).toMatchObject({
      block_time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      gap: expect.stringMatching(/ (after|before) the liabilities' date$|^at the liabilities' date$/),
      within_max_gap: true,
    });
    expect(ok.report.exchange_liabilities).toMatchObject({ root, date: expect.any(String) });
    expect(ok.report.commitment).toBeUndefined();
    expect(readFileSync(html, "utf8")).toContain('data-verdict="solvent"');
    const human = await own(file, "--root", root, "--liabilities-date", now());
    expect(human.stdout).toMatch(/^SOLVENT: every asset covered \(2\)/);
    expect(human.stdout).toContain(`(coinex inclusion proof, its root's totals)`);
  });

  it("the root not given from outside: CANNOT SAY (exit 3); another root: NOT SOLVENT (exit 1); the given root SOLVENT", async () => {
    const { file, root } = sumRoot({ LTC: "1", ETH: "3000" }, { LTC: "0.5", ETH: "2000" });
    const date = ["--liabilities-date", now(), "--json"];
    const self = await own(file, ...date);
    expect(self.report.verdict).toBe("cannot-say");
    expect(self.exitCode).toBe(3);
    expect(self.report.assets.map((a: { status: string }) => a.status)).toEqual(["cannot-say", "cannot-say"]);
    expect(self.report.summary).toContain("consistent with its own root; give the published root");
    const other = await own(file, "--root", "cd".repeat(32), ...date);
    expect(other.report.verdict).toBe("not-solvent");
    expect(other.exitCode).toBe(1);
    expect(other.report.summary).toMatch(/^the liabilities do not hold/);
    expect((await own(file, "--root", root, ...date)).report.verdict).toBe("solvent");
  });

  it("a coin owed that no reserve proof backs (USDT), and a root owing more LTC than proven: NOT SOLVENT for each", async () => {
    const { file, root } = sumRoot(
      { LTC: "2", ETH: "3000", USDT: "7" },
      { LTC: "0.5", ETH: "2000", USDT: "3" },
    );
    const r = await own(file, "--root", root, "--liabilities-date", now(), "--json");
    expect(r.report.verdict).toBe("not-solvent");
    expect(r.exitCode).toBe(1);
    expect(r.asset("USDT")).toMatchObject({ status: "not-covered", shortfall: "10" });
    expect(r.asset("LTC")).toMatchObject({
      status: "not-covered",
      shortfall: "0.50000000",
      coverage: "80.00%",
    });
    expect(r.asset("ETH").status).toBe("covered");
  });

  it("the root's date not given: CANNOT SAY, naming --liabilities-date; given 3 days off: beyond --max-gap, NOT PROVEN SOLVENT", async () => {
    const { file, root } = sumRoot({ LTC: "1", ETH: "3000" }, { LTC: "0.5", ETH: "2000" });
    const undated = await own(file, "--root", root, "--json");
    expect(undated.report.verdict).toBe("cannot-say");
    expect(undated.exitCode).toBe(3);
    expect(undated.report.audit.created).toBeNull();
    expect(undated.asset("LTC").proofs[0]?.not_for_this_audit).toContain(
      "the liabilities state no date (--liabilities-date gives the one their root was published for)",
    );
    const old = daysAgo(3);
    const late = await own(file, "--root", root, "--liabilities-date", old, "--json");
    expect(late.report.verdict).toBe("unproven");
    expect(late.exitCode).toBe(1);
    expect(late.asset("LTC")).toMatchObject({ status: "claimed-only", proven: { amount: "0.00000000" } });
    expect(late.asset("LTC").snapshots[0]?.within_max_gap).toBe(false);
    expect(
      (await own(file, "--root", root, "--liabilities-date", old, "--max-gap", "4d", "--json")).report
        .verdict,
    ).toBe("solvent");
  });

  it("bad input, nothing judged: --root or --liabilities-date beside a commitment, a date that is not RFC 3339 (exit 2)", async () => {
    const liab = await commitment({ LTC: "1.5", ETH: "5000" }, AUDIT);
    const root = await own(liab, "--root", "ab".repeat(32));
    expect(root.exitCode).toBe(2);
    expect(root.stderr).toContain("--root: the liabilities are chaingw's commitment");
    const date = await own(liab, "--liabilities-date", now());
    expect(date.exitCode).toBe(2);
    expect(date.stderr).toContain("--liabilities-date: the liabilities are chaingw's commitment");
    const { file, root: r } = sumRoot({ LTC: "1", ETH: "3000" }, { LTC: "0.5", ETH: "2000" });
    const bad = await own(file, "--root", r, "--liabilities-date", "yesterday");
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain('--liabilities-date "yesterday": not an RFC 3339 date-time');
  });
});

describe("--backing for an exchange's rows: what the liabilities' asset names are, by chain and contract", () => {
  let real: string;
  let fake: string;
  let usdxHeight: number;
  /** A0's ether at usdxHeight: the file's one snapshot of the chain (one snapshot per chain) */
  let usdxEth: string;

  beforeAll(async () => {
    // the token the auditor names, and one the exchange deployed and minted itself under the same symbol
    real = await deployToken(anvil.rpc, "Token", { symbol: "USDX", decimals: 6 });
    fake = await deployToken(anvil.rpc, "Token", { symbol: "USDX", decimals: 6 });
    await mint(anvil.rpc, real, [A0], [7_000_000n]);
    await mint(anvil.rpc, fake, [A0], [7_000_000n]);
    usdxHeight = Number(await anvil.rpc<string>("eth_blockNumber"));
    const wei = BigInt(await anvil.rpc<string>("eth_getBalance", [A0, `0x${usdxHeight.toString(16)}`]));
    usdxEth = `${wei / 10n ** 18n}.${(wei % 10n ** 18n).toString().padStart(18, "0")}`.replace(/\.?0+$/, "");
  });

  /** the HTX-layout file with a USDX row on the ETH network (A0, its signature over "huobi") */
  const withUsdx = () =>
    write(
      "reserves-usdx.csv",
      [
        "coin,snapshot height,balance",
        `LTC,${ltcHeight},2`,
        `ETH,${usdxHeight},${usdxEth}`,
        `USDX-ETH,${usdxHeight},7`,
        "",
        "coin,address,snapshot height,balance,message,signature",
        `LTC,${addr},${ltcHeight},2,${MESSAGE},${ltcSig}`,
        `ETH,${A0},${usdxHeight},${usdxEth},${MESSAGE},${ethSig}`,
        `USDX-ETH,${A0},${usdxHeight},7,${MESSAGE},${ethSig}`,
        "",
      ].join("\n"),
    );

  it("USDX declared as the anvil token it is (--backing USDX=anvil:TOKEN): counted and proven, SOLVENT; undeclared: not counted", async () => {
    const liab = await commitment({ LTC: "1.5", ETH: "5000", USDX: "6.5" });
    const file = withUsdx();
    const token = ["--token", `USDX=${real}`, "--challenge", MESSAGE];
    const ok = await solvency(file, liab, ...token, "--backing", `USDX=anvil:${real}`);
    expect(ok.stderr).toBe("");
    expect(ok.report.verdict).toBe("solvent");
    expect(ok.exitCode).toBe(0);
    expect(ok.coin("USDX")).toMatchObject({
      liabilities: { amount: "6.500000" },
      proven: { amount: "7.000000" },
      coverage: "107.69%",
      status: "covered",
    });
    // ETH, anvil's own coin, declared by the test's defaults (--backing ETH=anvil)
    expect(ok.coin("ETH").status).toBe("covered");
    // the declared token named as trusted in the verdict
    expect(ok.report.trusted).toEqual([
      `the token at ${real.toLowerCase()} on anvil (chain id 31337) as USDX`,
    ]);
    expect(ok.report.summary).toContain(
      "trusted as declared (--backing), not checked to be what they are declared",
    );
    // every coin declared: LTC by its node's genesis (litecoin-regtest), ETH as anvil's own coin
    const all = ["--backing", "LTC=litecoin-regtest", "--backing", "ETH=anvil"];
    const declared = await solvency(file, liab, ...token, "--backing", `USDX=anvil:${real}`, ...all);
    expect(declared.report.verdict).toBe("solvent");
    expect(declared.coin("LTC")).toMatchObject({ proven: { amount: "2.00000000" }, status: "covered" });
    // ETH declared as Ethereum's ether: the anvil row is not it
    const mainnet = await solvency(file, liab, ...token, "--backing", "ETH=ethereum");
    expect(mainnet.coin("ETH").status).toBe("not-covered");
    expect(mainnet.coin("ETH").not_counted[0]?.why).toContain(
      "ETH is the own coin of anvil (chain id 31337), not ether on Ethereum (--backing ETH)",
    );
    const bare = await solvency(file, liab, ...token);
    expect(bare.report.verdict).toBe("not-solvent");
    expect(bare.coin("USDX")).toMatchObject({ proven: { amount: "0.000000" }, status: "not-covered" });
    expect(bare.coin("USDX").not_counted[0]?.why).toContain(
      "nothing backs USDX: it is not a well-known asset; declare what does with --backing USDX=NETWORK[:TOKEN]",
    );
  });

  it("the row read at another contract (the exchange's own USDX): proven on chain, but not the declared token: not counted, NOT SOLVENT", async () => {
    const liab = await commitment({ LTC: "1.5", ETH: "5000", USDX: "6.5" });
    const r = await solvency(
      withUsdx(),
      liab,
      "--token",
      `USDX=${fake}`,
      "--challenge",
      MESSAGE,
      "--backing",
      `USDX=anvil:${real}`,
    );
    expect(r.report.verdict).toBe("not-solvent");
    expect(r.exitCode).toBe(1);
    expect(r.coin("USDX")).toMatchObject({
      proven: { amount: "0.000000" },
      claimed: { amount: "0.000000" },
      status: "not-covered",
    });
    expect(r.coin("USDX").not_counted).toEqual([
      expect.objectContaining({
        coin: "USDX-ETH",
        status: "proven",
        why: `USDX-ETH is the token at ${fake.toLowerCase()} on anvil (chain id 31337), not the token at ${real.toLowerCase()} on anvil (chain id 31337) (--backing USDX): not counted as USDX`,
      }),
    ]);
    // declared on another chain (Ethereum's id): the anvil row is not it either
    const eth = await solvency(
      withUsdx(),
      liab,
      "--token",
      `USDX=${real}`,
      "--challenge",
      MESSAGE,
      "--backing",
      `USDX=ethereum:${real}`,
    );
    expect(eth.coin("USDX").status).toBe("not-covered");
  });

  it("a --backing that names no network, or an asset the liabilities do not owe: exit 2 by name", async () => {
    const liab = await commitment({ LTC: "1.5", ETH: "5000", USDX: "6.5" });
    const net = await runCli([...args(withUsdx(), liab), "--backing", "USDX=anvill"]);
    expect(net.exitCode).toBe(2);
    expect(net.stderr).toContain('--backing "USDX=anvill": "anvill" is not a network');
    const asset = await runCli([...args(withUsdx(), liab), "--backing", "FOO=anvil"]);
    expect(asset.exitCode).toBe(2);
    expect(asset.stderr).toContain("--backing FOO=anvil: the liabilities have no asset FOO");
  });
});

describe("--max-gap over an exchange's address file, as over chaingw's own proofs", () => {
  const root = () => sumRoot({ LTC: "1", ETH: "3000" }, { LTC: "0.5", ETH: "2000" });
  const dated = (r: { root: string }, date: string, ...more: string[]) => rooted(r.root, date, ...more);

  it("within the default 24h: SOLVENT; 3 days apart: each proven row claimed only, NOT PROVEN SOLVENT naming the gap; --max-gap 4d: SOLVENT", async () => {
    const r = root();
    expect((await solvency(addressFile(), r.file, ...dated(r, now()))).report.verdict).toBe("solvent");
    const late = await solvency(addressFile(), r.file, ...dated(r, daysAgo(3)));
    expect(late.report.verdict).toBe("unproven");
    expect(late.exitCode).toBe(1);
    expect(late.report.audit.max_gap).toBe("24h");
    expect(late.coin("LTC")).toMatchObject({
      proven: { amount: "0.00000000" },
      claimed: { amount: "2.00000000" },
      status: "claimed-only",
    });
    expect(late.coin("LTC").snapshots[0]).toMatchObject({
      gap: expect.stringMatching(/^(3 d|2 d 23 h) after the liabilities' date$/),
      within_max_gap: false,
    });
    expect(late.coin("LTC").why).toMatch(
      /not proven for this audit: line \d+: its snapshot's block is (3 d|2 d 23 h) after the liabilities' date: beyond --max-gap 24h/,
    );
    const human = await runCli([...args(addressFile(), r.file), ...dated(r, daysAgo(3))]);
    expect(human.stdout).toContain(", BEYOND --max-gap 24h");
    const wide = await solvency(addressFile(), r.file, ...dated(r, daysAgo(3), "--max-gap", "4d"));
    expect(wide.report.verdict).toBe("solvent");
  });

  it("beyond the gap and short of it by the claims too: NOT SOLVENT; the root undated: CANNOT SAY naming --liabilities-date; a commitment dated by its created", async () => {
    const short = sumRoot({ LTC: "2", ETH: "3000" }, { LTC: "1", ETH: "2000" });
    const r = await solvency(addressFile(), short.file, ...dated(short, daysAgo(3)));
    expect(r.report.verdict).toBe("not-solvent");
    expect(r.coin("LTC")).toMatchObject({ status: "not-covered", shortfall: "3.00000000" });
    const undated = await solvency(addressFile(), root().file, "--root", root().root, "--challenge", MESSAGE);
    expect(undated.report.verdict).toBe("cannot-say");
    expect(undated.exitCode).toBe(3);
    expect(undated.coin("LTC").why).toContain(
      "the liabilities state no date (--liabilities-date gives the one",
    );
    // a commitment's created is the date: built now, within the gap
    const liab = await commitment({ LTC: "1.5", ETH: "5000" });
    expect((await solvency(addressFile(), liab, "--challenge", MESSAGE)).report.verdict).toBe("solvent");
  });

  it("each typed finding is one (issue 55 item 1): beyond-max-gap, liabilities-undated and row-failed — its code and numbers in --json, its words and code the same in the text line and rows.csv", async () => {
    const r = root();
    const cases = [
      {
        code: "beyond-max-gap",
        file: addressFile(),
        more: dated(r, daysAgo(3)),
        finding: { code: "beyond-max-gap", line: 6, max_gap: "24h", max_gap_seconds: 86400 },
      },
      {
        code: "liabilities-undated",
        file: addressFile(),
        more: ["--root", r.root, "--challenge", MESSAGE],
        finding: { code: "liabilities-undated", line: 6 },
      },
      {
        code: "row-failed",
        file: addressFile({ ltc: "20" }),
        more: dated(r, now()),
        // the balance and its block as the verifier read them (reserves verify's balance.value, balance.block)
        finding: { code: "row-failed", claimed: "20", read: "2.00000000", block: `height ${ltcHeight}` },
      },
    ];
    for (const c of cases) {
      const json = await solvency(c.file, r.file, ...c.more);
      const ltcCoin = json.coin("LTC");
      const [line] = c.code === "row-failed" ? ltcCoin.not_counted : ltcCoin.rows;
      expect(line, c.code).toMatchObject({ code: c.code, finding: c.finding });
      const why = line?.why as string;
      if (c.code === "beyond-max-gap") {
        const gap = (line?.finding as { gap_seconds?: number } | undefined)?.gap_seconds ?? 0;
        // the block 3 days after the date: its gap in seconds, beyond 86,400
        expect(gap).toBeGreaterThan(2 * 86400);
        expect(why).toMatch(
          /^line 6: its snapshot's block is (3 d|2 d 23 h) after the liabilities' date: beyond --max-gap 24h$/,
        );
      }
      const pkg = join(dir, `typed-${c.code}`);
      const text = await runCli([...args(c.file, r.file), ...c.more, "--report", pkg]);
      expect(text.exitCode, text.stderr).toBe(json.exitCode);
      expect(text.stdout).toContain(
        c.code === "row-failed"
          ? `LTC: line 6 LTC ${addr}: claimed 20.00000000, NOT COUNTED (failed): ${why}\n`
          : `LTC: line 6 LTC ${addr}: 2.00000000 claimed (not proven for this audit: ${why.replace("line 6: ", "")})\n`,
      );
      const rows = readFileSync(join(pkg, "rows.csv"), "utf8").trimEnd().split("\n");
      // a CSV cell is quoted where it holds a comma, a quote or a line break (util/csv.ts)
      const q = (t: string) => (/[",\n]/.test(t) ? `"${t.replaceAll('"', '""')}"` : t);
      const csv = rows.find((x) => x.startsWith("LTC,line 6,"));
      expect(csv, c.code).toMatch(
        c.code === "row-failed"
          ? new RegExp(`,not counted,${literally(q(`failed: ${why}`))},row-failed$`)
          : new RegExp(`,claimed,${literally(q(why))},${c.code}$`),
      );
    }
  });

  it("a root dated after the auditor's clock (3 h, within --max-gap): NOT PROVEN SOLVENT naming the clock, as a commitment's created; 1 h ahead (a block's allowed drift): SOLVENT", async () => {
    const r = root();
    const ahead = (h: number) => new Date(Date.now() + h * 3600_000).toISOString().replace(/\.\d{3}Z$/, "Z");
    const late = await solvency(addressFile(), r.file, ...dated(r, ahead(3)));
    expect(late.report.verdict).toBe("unproven");
    expect(late.exitCode).toBe(1);
    expect(late.report.summary).toMatch(
      /^the liabilities' root \(--liabilities-date\) is dated \S+, (2 h 59 min|3 h) after this computer's clock \(\S+\): liabilities cannot have been counted then$/,
    );
    expect(late.coin("LTC")).toMatchObject({ status: "covered" });
    expect((await solvency(addressFile(), r.file, ...dated(r, ahead(1)))).report.verdict).toBe("solvent");
  });

  it("a leap second (23:59:60Z, which RFC 3339 allows) three days back is beyond the gap as its 23:59:59Z is: NOT PROVEN SOLVENT, never a date that fits every gap", async () => {
    const r = root();
    const day = daysAgo(3).slice(0, 10);
    for (const date of [`${day}T23:59:59Z`, `${day}T23:59:60Z`]) {
      const x = await solvency(addressFile(), r.file, ...dated(r, date));
      expect(x.report.verdict, date).toBe("unproven");
      expect(x.exitCode).toBe(1);
      expect(x.report.audit.gap, date).toMatch(/^(2 d( \d+ h)?|3 d) after the liabilities' date$/);
      expect(x.coin("LTC").snapshots[0]).toMatchObject({ within_max_gap: false });
    }
  });

  it("undated, and short even were every row in time: NOT SOLVENT (not CANNOT SAY); undated and covered by those rows: CANNOT SAY", async () => {
    const short = sumRoot({ LTC: "2", ETH: "3000" }, { LTC: "1", ETH: "2000" });
    const r = await solvency(addressFile(), short.file, "--root", short.root, "--challenge", MESSAGE);
    expect(r.report.verdict).toBe("not-solvent");
    expect(r.exitCode).toBe(1);
    expect(r.coin("LTC")).toMatchObject({
      status: "not-covered",
      shortfall: "3.00000000",
      claimed: { amount: "2.00000000" },
    });
    expect(r.coin("LTC").why).toContain("the liabilities state no date");
    const covered = await solvency(addressFile(), root().file, "--root", root().root, "--challenge", MESSAGE);
    expect(covered.report.verdict).toBe("cannot-say");
    expect(covered.coin("LTC")).toMatchObject({ status: "cannot-say" });
  });

  it("a --max-gap that is not a duration: exit 2 by name", async () => {
    const r = await runCli([...args(addressFile(), root().file), "--max-gap", "soon"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("--max-gap");
  });
});

describe("one balance counts once, however the exchange names it", () => {
  /** an HTX-layout file of `rows` ([coin, address, amount, signature]) at the test's snapshots */
  const file = (rows: ([string, string, string, string] | [string, string, string, string, number])[]) => {
    const h = (coin: string) => (coin.startsWith("LTC") ? ltcHeight : ethHeight);
    return write(
      "twice.csv",
      [
        "coin,address,snapshot height,balance,message,signature",
        ...rows.map(
          ([coin, a, amount, sig, at]) => `${coin},${a},${at ?? h(coin)},${amount},${MESSAGE},${sig}`,
        ),
        "",
      ].join("\n"),
    );
  };

  it("Litecoin's P2SH written in its two versions (Q… and 2…, one script): the second row fails, NOT SOLVENT; the one row SOLVENT against what it holds", async () => {
    const v = base58check(sha256);
    const payload = v.decode(p2sh);
    expect(payload[0]).toBe(58);
    const other = v.encode(Uint8Array.of(196, ...payload.slice(1)));
    expect(other).toMatch(/^2/);
    // litecoind takes both for one script
    expect((await ltc.rpc<{ scriptPubKey: string }>("validateaddress", [other])).scriptPubKey).toBe(
      (await ltc.rpc<{ scriptPubKey: string }>("validateaddress", [p2sh])).scriptPubKey,
    );
    const liab = await commitment({ LTC: "1.5" });
    const twice = await solvency(
      file([
        ["LTC", p2sh, "1", p2shSig],
        ["LTC", other, "1", p2shSig],
      ]),
      liab,
      "--challenge",
      MESSAGE,
    );
    expect(twice.report.verdict).toBe("not-solvent");
    expect(twice.exitCode).toBe(1);
    expect(twice.coin("LTC")).toMatchObject({
      proven: { amount: "1.00000000" },
      status: "not-covered",
      shortfall: "0.50000000",
    });
    expect(twice.coin("LTC").not_counted[0]?.why).toContain("the same LTC address as line 2");
    const once = await solvency(
      file([["LTC", p2sh, "1", p2shSig]]),
      await commitment({ LTC: "1" }),
      "--challenge",
      MESSAGE,
    );
    expect(once.report.verdict).toBe("solvent");
    expect(once.coin("LTC")).toMatchObject({ proven: { amount: "1.00000000" }, status: "covered" });
  });

  it("one ETH address under two network names whose --node is one chain (ETH, ETH-ARBITRUM on one anvil): counted once, NOT SOLVENT; once owed, SOLVENT", async () => {
    const reserves = file([
      ["ETH", A0, ethBalance, ethSig],
      ["ETH-ARBITRUM", A0, ethBalance, ethSig],
    ]);
    const wei = (x: string) => {
      const [w, f = ""] = x.split(".");
      return BigInt(w as string) * 10n ** 18n + BigInt(f.padEnd(18, "0"));
    };
    const owed = (w: bigint) => `${w / 10n ** 18n}.${(w % 10n ** 18n).toString().padStart(18, "0")}`;
    const more = owed(wei(ethBalance) + 1n);
    const two = ["--node", `ARBITRUM=${anvil.url}`, "--challenge", MESSAGE];
    const r = await solvency(reserves, await commitment({ ETH: more }), ...two);
    expect(r.report.verdict).toBe("not-solvent");
    expect(r.coin("ETH")).toMatchObject({ proven: { amount: eth18(ethBalance) }, status: "not-covered" });
    expect(r.coin("ETH").not_counted).toEqual([
      {
        line: 3,
        coin: "ETH-ARBITRUM",
        network: "ARBITRUM",
        address: A0,
        claimed: eth18(ethBalance),
        status: "proven",
        code: "same-balance",
        why: expect.stringMatching(
          /^the same balance as line 2: the own coin of .*, the same address: it counts once$/,
        ),
        finding: expect.objectContaining({
          code: "same-balance",
          first: "line 2",
          firstAsset: "ETH",
          asset: "ETH",
        }),
      },
    ]);
    const ok = await solvency(reserves, await commitment({ ETH: ethBalance }), ...two);
    expect(ok.report.verdict).toBe("solvent");
  });

  it("coins moved between two of the file's heights (A0's ETH at block h1, A1's at h2 after A0 paid A1): the earlier row claimed only, NOT PROVEN SOLVENT; both rows at h2 SOLVENT", async () => {
    const K1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
    const A1 = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
    const h1 = Number(await anvil.rpc<string>("eth_blockNumber"));
    execFileSync(CAST, ["send", "--private-key", K0, "--rpc-url", anvil.url, A1, "--value", "5000ether"]);
    const h2 = Number(await anvil.rpc<string>("eth_blockNumber"));
    expect(h2).toBeGreaterThan(h1);
    const sig1 = execFileSync(CAST, ["wallet", "sign", "--private-key", K1, MESSAGE], {
      encoding: "utf8",
    }).trim();
    const wei = async (a: string, h: number) =>
      BigInt(await anvil.rpc<string>("eth_getBalance", [a, `0x${h.toString(16)}`]));
    const eth = (w: bigint) =>
      `${w / 10n ** 18n}.${(w % 10n ** 18n).toString().padStart(18, "0")}`.replace(/\.?0+$/, "");
    const [a0h1, a0h2, a1h2] = [await wei(A0, h1), await wei(A0, h2), await wei(A1, h2)];
    // the two heights' sum: 5000 ETH more than A0 and A1 ever held together
    const moved = await solvency(
      file([
        ["ETH", A0, eth(a0h1), ethSig, h1],
        ["ETH", A1, eth(a1h2), sig1, h2],
      ]),
      await commitment({ ETH: eth(a0h1 + a1h2) }),
      "--challenge",
      MESSAGE,
    );
    expect(moved.report.verdict).toBe("unproven");
    expect(moved.exitCode).toBe(1);
    expect(moved.coin("ETH")).toMatchObject({ proven: { amount: eth18(eth(a1h2)) }, status: "claimed-only" });
    expect(moved.coin("ETH").why).toContain(
      `line 2: proven at height ${h1}, but the file's latest snapshot on this chain is height ${h2}`,
    );
    const one = await solvency(
      file([
        ["ETH", A0, eth(a0h2), ethSig, h2],
        ["ETH", A1, eth(a1h2), sig1, h2],
      ]),
      await commitment({ ETH: eth(a0h2 + a1h2) }),
      "--challenge",
      MESSAGE,
    );
    expect(one.report.verdict).toBe("solvent");
  });

  it("liabilities that owe one coin under two spellings (LTC and ltc, 1.5 each): a row backs one of them, the other NOT SOLVENT; one spelling SOLVENT", async () => {
    const { file, root } = sumRoot({ LTC: "1", ltc: "1" }, { LTC: "0.5", ltc: "0.5" });
    const r = await solvency(addressFile(), file, ...rooted(root));
    expect(r.report.verdict).toBe("not-solvent");
    expect(r.coin("LTC")).toMatchObject({ proven: { amount: "2.00000000" }, status: "covered" });
    // "ltc" is no coin of the tables: written at the places its total needs (1)
    expect(r.coin("ltc")).toMatchObject({ proven: { amount: "0.0" }, status: "not-covered" });
    // the row's chain backs LTC (--backing LTC=litecoin-regtest): it is no row of ltc, which nothing backs
    expect(r.coin("ltc").why).toBe("ltc not covered: short 1.5 ltc (no reserves count for it)");
    const one = sumRoot({ LTC: "1" }, { LTC: "0.5" });
    expect((await solvency(addressFile(), one.file, ...rooted(one.root))).report.verdict).toBe("solvent");
  });
});

describe("the report package of an exchange's address file (solvency --report DIR)", () => {
  it("OKX's published package: the page's per-chain table sums the rows counted, and beside them what those not counted claim — a claim whose places are not known as written, never 0", async () => {
    const fx = join(__dirname, "fixtures", "exchange");
    const pkg = join(dir, "okx-package");
    const r = await runCli([
      "solvency",
      "--reserves",
      join(fx, "ownership", "okx_por_example_2022-11.csv"),
      "--liabilities",
      join(fx, "liabilities", "okx-v1-merkle_proof_file.json"),
      "--root",
      "ac6b39d2a0aa8112bd1aadff5e7d4b5c2b91cd54d595262ba4367f5d2db4160d",
      "--challenge",
      "I am an OKX address",
      "--report",
      pkg,
    ]);
    expect(r.exitCode, r.stderr).toBe(3);
    const html = readFileSync(join(pkg, "index.html"), "utf8");
    const table = /<table id="chains">([\s\S]*?)<\/table>/.exec(html)?.[1] ?? "";
    const rows = [...table.matchAll(/<tr>(.*?)<\/tr>/g)].map((m) =>
      [...(m[1] as string).matchAll(/<t[hd][^>]*>(.*?)<\/t[hd]>/g)].map((c) => c[1]),
    );
    expect(rows).toEqual([
      ["network", "asset", "holdings", "claimed", "proven", "not counted (claimed)"],
      ["BTC (its own chain)", "BTC", "9", "449.51400581", "0.00000000", "0.00000000"],
      [
        "ETH (its own chain)",
        "ETH",
        "6",
        "5.283448258302172760",
        "0.000000000000000000",
        "0.000000000000000000",
      ],
      ["ARBITRUM", "ETH", "3", "0.000000000000000000", "0.000000000000000000", "0.221400000000000000"],
      ["OPTIMISM", "ETH", "7", "0.000000000000000000", "0.000000000000000000", "1.397127149911950208"],
      ["TRC20", "USDT", "7", "5436.90435800", "0.00000000", "0.00000000"],
      // USDT-OPTIMISM: no contract of USDT on Optimism chaingw knows, so its places are not known (it read 0.00000000)
      ["OPTIMISM", "USDT", "1", "0.00000000", "0.00000000", "132513768 base units"],
    ]);
    // the counted rows' claims are the asset's claimed figure
    const report = JSON.parse(readFileSync(join(pkg, "solvency.json"), "utf8")).report;
    expect(report.assets.map((a: { claimed: { amount: string } }) => a.claimed.amount)).toEqual([
      "449.51400581",
      "5.283448258302172760",
      "5436.90435800",
    ]);
  });

  it("index.html in Chromium at 1280 and 390 px (the verdict, the scope, a chart per coin, nothing off the side), rows.csv a row per address, MANIFEST verified by report verify, a changed byte named", async () => {
    const reserves = addressFile();
    const liab = await commitment({ LTC: "1.5", ETH: "5000" });
    const pkg = join(dir, "exchange-package");
    const scope = ["--auditor", "Example Audit LLP", "--entity", "Example Exchange", "--period", "2026-11"];
    const r = await runCli([...args(reserves, liab), "--challenge", MESSAGE, "--report", pkg, ...scope]);
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^SOLVENT: /);
    expect(r.stdout).toMatch(
      /report package written to .*exchange-package: 6 files and MANIFEST\.sha256, which lists them; its SHA-256 [0-9a-f]{64}/,
    );
    expect(readdirSync(pkg).sort()).toEqual([
      "MANIFEST.sha256",
      "index.html",
      "inputs",
      "rows.csv",
      "solvency.csv",
      "solvency.json",
    ]);
    // the per-coin CSV and every row judged, amounts in coin units with each coin's decimals
    expect(readFileSync(join(pkg, "solvency.csv"), "utf8").trimEnd().split("\n")).toEqual([
      "asset,decimals,liabilities,proven,claimed,proven_coverage,claimed_coverage,status,code,shortfall",
      "LTC,8,1.50000000,2.00000000,2.00000000,133.33%,133.33%,covered,covered,",
      expect.stringMatching(new RegExp(`^ETH,18,5000\\.0{18},${eth18(ethBalance).replace(".", "\\.")},`)),
    ]);
    const rows = readFileSync(join(pkg, "rows.csv"), "utf8").trimEnd().split("\n");
    expect(rows).toEqual([
      "asset,source,network,address,claimed,proven,status,why,code",
      `LTC,line 6,LTC (its own chain),${addr},2.00000000,2.00000000,proven,"signed over the audit's text, the balance read at the snapshot",row-proven`,
      `ETH,line 7,ETH (its own chain),${A0},${eth18(ethBalance)},${eth18(ethBalance)},proven,"signed over the audit's text, the balance read at the snapshot",row-proven`,
    ]);
    // the page in Chromium: self-contained, the verdict, the scope, a chart per coin
    const page = join(pkg, "index.html");
    expect(readFileSync(page, "utf8")).not.toMatch(/<script|<link|@import|url\(|src="http/i);
    const d = await domOf(page);
    expect(d).toMatch(/<p class="verdict" id="verdict" data-verdict="solvent">SOLVENT: /);
    for (const [k, v] of [
      ["auditor", "Example Audit LLP"],
      ["entity", "Example Exchange"],
      ["period", "2026-11"],
      ["challenge", MESSAGE],
    ])
      expect(d).toContain(`<tr data-field="${k}"><th>${k}</th><td>${v}</td></tr>`);
    expect([...d.matchAll(/<svg [^>]*data-asset="([^"]+)"/g)].map((m) => m[1])).toEqual(["LTC", "ETH"]);
    expect(d).toMatch(/<g class="bar" data-kind="proven">.*?>2\.00000000<\/text>/);
    for (const width of [390, 1280]) {
      const l = await layoutIn(
        page,
        width,
        `({ fits: [...d.querySelectorAll(".scroll")].map((s) => s.getBoundingClientRect().right <= d.documentElement.clientWidth + 0.5), squeezed: ${SQUEEZED_CODE}, chart: ${CHART_TEXT} })`,
      );
      expect(l.scroll, `${width} px`).toBeLessThanOrEqual(l.viewport);
      const more = l.more as { fits: boolean[]; squeezed: string[]; chart: ChartText[] };
      expect(more.fits.every(Boolean)).toBe(true);
      // the rows' addresses and the documents' names and hashes: 12 characters a line or more
      expect(more.squeezed, `${width} px`).toEqual([]);
      // each coin's names and amounts (ETH's of 18 places too): 11 px or more as drawn, inside the chart
      expect(more.chart, `${width} px`).toHaveLength(12);
      expect(
        more.chart.filter((t) => t.px < 11 || !t.inside),
        `${width} px`,
      ).toEqual([]);
      await screenshot(page, width, "solvency-exchange-package");
    }
    // the manifest: report verify holds; one changed byte is named
    const ok = await runCli(["report", "verify", pkg]);
    expect(ok.exitCode, ok.stderr).toBe(0);
    expect(ok.stdout).toContain("holds: the 6 files MANIFEST.sha256 lists are unchanged");
    const csv = join(pkg, "inputs", basename(reserves));
    const bytes = readFileSync(csv);
    bytes[bytes.length - 2] ^= 1;
    writeFileSync(csv, bytes);
    const bad = await runCli(["report", "verify", pkg]);
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout).toContain("DOES NOT HOLD: 1 of the 6 files MANIFEST.sha256 lists changed or missing");
    expect(bad.stdout).toContain(`  changed: inputs/${basename(reserves)}`);
  });

  it("report history of two exchange roots that state no date: the page and history.csv say so (it showed when the package was made as the liabilities' date), each audit's label inside its chart", async () => {
    const reserves = addressFile();
    const made: string[] = [];
    for (const [ltc, period] of [
      ["1", "2026-10"],
      ["0.5", "2026-11"],
    ] as const) {
      const { file, root } = sumRoot({ LTC: ltc, ETH: "3000" }, { LTC: "0.5", ETH: "2000" });
      const pkg = join(dir, `undated-${period}`);
      const r = await runCli([
        ...args(reserves, file),
        "--root",
        root,
        "--challenge",
        MESSAGE,
        "--report",
        pkg,
        "--period",
        period,
      ]);
      expect(r.stdout).toMatch(/^CANNOT SAY: /);
      made.push(pkg);
    }
    const out = join(dir, "undated-history");
    const h = await runCli(["report", "history", ...made, "--out", out]);
    expect(h.exitCode, h.stderr).toBe(0);
    const csv = readFileSync(join(out, "history.csv"), "utf8").trimEnd().split("\n");
    expect(csv[0]).toMatch(/,package,date_is,entity,auditor$/);
    expect(csv.slice(1).map((l) => l.split(",").at(-3))).toEqual(Array(4).fill("package made"));
    const page = join(out, "index.html");
    const html = readFileSync(page, "utf8");
    expect(html).toMatch(
      /<td>not stated <small class="muted">\(placed by when the package was made, \d{4}-\d\d-\d\dT[^)]*\)<\/small><\/td>/,
    );
    // every label of every chart within its chart's width (the last one ran off the right edge: "2026-1")
    for (const width of [390, 1280]) {
      const l = await layoutIn(
        page,
        width,
        `[...d.querySelectorAll("svg[data-asset] text")].filter((t) => { const b = t.getBBox(); return b.x < 0 || b.x + b.width > t.ownerSVGElement.viewBox.baseVal.width + 0.5; }).map((t) => t.textContent)`,
      );
      expect(l.more, `${width} px`).toEqual([]);
      expect(l.scroll, `${width} px`).toBeLessThanOrEqual(l.viewport);
    }
  });
});
