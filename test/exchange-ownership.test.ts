/**
 * `reserves verify` on exchanges' published address/signature files (OKX's three layouts, HTX's): every real
 * signature in the real files verifies or is named with the reason it cannot be judged, and tampered copies
 * (one byte of a signature, a multisig signed twice by one key, an address that does not decode, a signature
 * reused from an older file) fail naming the row, each next to the honest file that holds. Files:
 * test/fixtures/exchange/ownership/SOURCES.md.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";

const DIR = join(__dirname, "fixtures", "exchange", "ownership");
const fixture = (name: string) => join(DIR, name);
const text = (name: string) => readFileSync(fixture(name), "utf8");
const tmp = mkdtempSync(join(tmpdir(), "chaingw-exchange-"));
/** a tampered copy of a fixture, written beside the others in a temporary directory */
const tampered = (name: string, edit: (t: string) => string): string => {
  const path = join(tmp, `tampered-${name}`);
  const t = text(name);
  const e = edit(t);
  expect(e).not.toBe(t);
  writeFileSync(path, e);
  return path;
};

interface Row {
  line: number;
  coin: string;
  address: string;
  amount: string | null;
  base_units: string | null;
  proven: boolean | null;
  signed?: boolean;
  status: string;
  reason: string;
  form?: string;
  wallet?: number;
  owners?: { address: string; proven: boolean }[];
}
interface Report {
  format: string;
  verdict: string;
  findings: { status: string; step: string; at?: string; text: string }[];
  counts: Record<string, number>;
  file_units: string;
  amounts: Record<string, Record<string, string>>;
  amounts_base_units: Record<string, Record<string, string>>;
  rows: Row[];
}

async function verify(file: string, ...args: string[]) {
  const r = await runCli(["reserves", "verify", file, "--json", ...args]);
  return { ...r, report: (r.exitCode === 2 ? undefined : JSON.parse(r.stdout)) as Report };
}
const rowAt = (r: Report, line: number) => r.rows.find((x) => x.line === line) as Row;

describe("OKX", () => {
  it("2022 layout: all 33 real signatures hold (9 BTC 2-of-3 P2SH/P2WSH, 17 EVM, 7 TRON v1); with no node every amount is claimed, none proven: exit 3", async () => {
    const { exitCode, report } = await verify(fixture("okx_por_example_2022-11.csv"));
    expect(report.format).toBe("okx-2022");
    // a key signing shows control of a key, not a balance: signed, amount claimed
    expect(report.counts).toMatchObject({
      rows: 33,
      proven: 0,
      signed: 33,
      failed: 0,
      unsigned: 0,
      unsupported: 0,
    });
    expect(report.rows.every((r) => r.signed === true && r.proven === null)).toBe(true);
    expect(report.verdict).toBe("cannot-say");
    expect(exitCode).toBe(3);
    expect(report.rows.filter((r) => /2-of-3/.test(r.form ?? ""))).toHaveLength(9);
    expect(rowAt(report, 16).form).toBe("TRON TRON v1 signMessage over keccak256(message)");
    expect(rowAt(report, 19).form).toBe("BTC signmessage, P2SH 2-of-3");
    expect(rowAt(report, 39).form).toBe("BTC signmessage, P2WSH 2-of-3");
    // one way to write an amount: coin units with the coin's decimals; the file's base units only in fields
    // named so (summed exactly: 449.5140 BTC in satoshis, as the file's own total says)
    expect(report.file_units).toBe("base");
    expect(report.amounts.BTC?.signed).toBe("449.51400581");
    expect(report.amounts.BTC?.proven).toBe("0.00000000");
    expect(report.amounts_base_units.BTC?.signed).toBe("44951400581");
    expect(rowAt(report, 37)).toMatchObject({
      amount: "5.000000803935811584",
      base_units: "5000000803935811584",
    });
    expect(rowAt(report, 19)).toMatchObject({ amount: "0.17263933", base_units: "17263933" });
    expect(report).not.toHaveProperty("units");
    // every summary line agrees with its rows (base units read in the coin's places), or is not compared
    const sums = report.findings.filter((f) => f.step === "summary");
    expect(sums.filter((f) => f.status === "fails")).toEqual([]);
    expect(sums.find((f) => f.at === "line 5")).toMatchObject({
      status: "ok",
      text: "ETH: 5.283400000000000000 at height 16005122, as the file claims; its 6 rows sum to 5.283448258302172760 (base units, in coins)",
    });
  });

  it("the human table names each row and the verdict", async () => {
    const r = await runCli(["reserves", "verify", fixture("okx_por_example_2022-11.csv")]);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toContain("format     okx-2022 (amounts in base units, shown in coins)");
    // one way to write an amount: coin units with the coin's decimals, never the file's base units
    expect(r.stdout).toMatch(
      /│ 37 +│ ETH +│ 0x34c5731a0cabf28a264a2b0b497207dc0bef003e +│ 5\.000000803935811584 +│/,
    );
    expect(r.stdout).toMatch(/│ ETH +│ 0\.000000000000000000 +│ 5\.283448258302172760 +│/);
    expect(r.stdout).toMatch(/│ 19 +│ BTC +│ 3QVtn5nHRxBXX7C7sKw2qdkoGqMMwFUgwF +│ 0\.17263933 +│/);
    expect(r.stdout).not.toContain("5283448258302172760");
    expect(r.stdout).not.toContain("5000000803935811584");
    // a coin whose places chaingw's tables do not know (USDT on Optimism) keeps its base units, said so
    expect(r.stdout).toContain("132513768 base units");
    // --format csv: the table, one row per row of the file, coin units beside the file's base units
    const c = await runCli(["--format", "csv", "reserves", "verify", fixture("okx_por_example_2022-11.csv")]);
    expect(c.exitCode).toBe(3);
    const rows = c.stdout.trimEnd().split("\n");
    expect(rows[0]).toBe(
      "line,coin,network,address,amount,base_units,result,form,chain_balance,chain_block,reason",
    );
    expect(rows).toHaveLength(34);
    expect(rows.find((x) => x.startsWith("37,"))).toMatch(
      /^37,ETH,,0x34c5731a0cabf28a264a2b0b497207dc0bef003e,5\.000000803935811584,5000000803935811584,signed,/,
    );
    expect(rows.find((x) => x.startsWith("17,"))).toMatch(
      /^17,USDT-OPTIMISM,[^,]*,0x[0-9a-f]{40},,132513768,signed,/,
    );
    expect(r.stdout).toContain("claim      BTC: 449.51400000 at height 763861");
    expect(r.stdout).toMatch(
      /3QVtn5nHRxBXX7C7sKw2qdkoGqMMwFUgwF.*signed, amount claimed.*BTC signmessage, P2SH 2-of-3/,
    );
    expect(r.stdout).toContain(
      "33 row(s) not proven (33 signed with the amount claimed, not re-read on chain",
    );
  });

  it("2025 audit layout: BTC and DOGE 2-of-3, DOT and ADA ed25519, OKC header digest, TRON v2 hold; STARKNET and EOS named as not supported, exit 3", async () => {
    const { exitCode, report } = await verify(fixture("okx_OKC_DTT_AUP2025.csv"));
    expect(report.format).toBe("okx-audit-2025");
    expect(report.counts).toMatchObject({ rows: 9, proven: 7, failed: 0, unsupported: 2 });
    expect(rowAt(report, 7).form).toBe("DOGE signmessage, P2SH 2-of-3");
    expect(rowAt(report, 5).form).toMatch(/^DOT ed25519, over OKX's "OKX Signed Message" header/);
    expect(rowAt(report, 6).form).toMatch(/^ADA ed25519/);
    expect(rowAt(report, 8).form).toBe('EVM keccak256 of OKX\'s "OKX Signed Message" header and the message');
    expect(rowAt(report, 9).form).toBe("TRON TRON v2 signMessageV2");
    expect(rowAt(report, 3)).toMatchObject({ proven: null, status: "unsupported" });
    expect(rowAt(report, 3).reason).toContain("STARKNET");
    expect(rowAt(report, 10).reason).toContain("EOS");
    expect(report.verdict).toBe("cannot-say");
    expect(exitCode).toBe(3);
  });

  it("2024-26 layout: a contract wallet's owners both sign, but without a node its ownership is not checked; TON and a rotated Aptos key are named", async () => {
    const { exitCode, report } = await verify(fixture("okx_por_example_2026.csv"));
    expect(report.format).toBe("okx-2024");
    const wallet = rowAt(report, 18);
    expect(wallet.owners?.map((o) => o.proven)).toEqual([true, true]);
    expect(wallet).toMatchObject({ proven: null, status: "cannot-say" });
    expect(wallet.reason).toContain("needs a node (--node NET=URL), not checked");
    expect(rowAt(report, 19).reason).toMatch(/signature verifies under key 6711ba8e.*TON/);
    expect(rowAt(report, 20).reason).toContain("rotated");
    // the example's summary block is 2022's: its ETH line is not what its rows hold, a finding
    expect(report.findings).toContainEqual({
      status: "fails",
      step: "summary",
      code: "summary-fails",
      at: "line 5",
      text: "ETH: the file's summary says 5.283400000000000000, its 3 rows sum to 0.356881257500858402: the file does not agree with itself (the summary 4.926518742499141598 more)",
    });
    expect(exitCode).toBe(1);
  });
});

describe("HTX", () => {
  it("2023-08: every real signature holds (BTC P2PKH, EVM EIP-191 and raw keccak, TRON v1 both payloads, SOL, ALGO); a contract wallet's owner rows are tied to it", async () => {
    const { exitCode, report } = await verify(fixture("huobi_por_2023-08.csv"));
    expect(report.format).toBe("htx");
    // 3: one contract wallet without a node; 2 (ALGO, SOL): signatures that verify over "6DcZbFpug1664269042",
    // none of HTX's messages; 2 stETH rows on no network named (an EVM key, on which chain?); with no node
    // the 60 signed rows' amounts are claimed, the 6 proven ones owner rows (no amount)
    expect(report.counts).toMatchObject({
      rows: 73,
      proven: 6,
      signed: 60,
      failed: 0,
      unsigned: 0,
      cannot_say: 7,
    });
    for (const line of [84, 85])
      expect(rowAt(report, line).reason).toContain(
        '"stETH" is no network chaingw knows: which chain holds the amount cannot be told',
      );
    for (const line of [95, 96])
      expect(rowAt(report, line).reason).toMatch(
        /signed .*; but signed over "6DcZbFpug1664269042", none of the messages htx files sign/,
      );
    const forms = new Set(report.rows.map((r) => r.form));
    for (const f of [
      "BTC signmessage, P2PKH",
      "EVM EIP-191 personal_sign",
      "EVM keccak256(message) signed raw (eth_sign style, no prefix)",
      "TRON TRON v1 signMessage over keccak256(message)",
      "TRON TRON v1 signMessage over the message's bytes",
      "SOL ed25519, over the message's bytes",
      "ALGO ed25519, over the message's bytes",
    ])
      expect(forms).toContain(f);
    expect(rowAt(report, 34)).toMatchObject({ wallet: 33, proven: true, signed: true });
    expect(rowAt(report, 33).owners?.map((o) => o.address)).toEqual([
      "0x6b2286fc3a9265bab3f064808022aca54de4b6ce",
      "0x3d655889d197125fb90dcb72e4a287a8410ed1b9",
    ]);
    expect(exitCode).toBe(3);
  });

  it("2026-02: the unsigned rows with a balance fail the file, each named (HTX's tool skips them)", async () => {
    const { exitCode, report } = await verify(fixture("huobi_por_2026-02.csv"));
    expect(report.counts).toMatchObject({ rows: 95, unsigned: 39, failed: 0 });
    expect(report.rows.filter((r) => r.coin === "DOGE" && r.status === "unsigned").length).toBeGreaterThan(
      10,
    );
    expect(report.verdict).toBe("fails");
    expect(exitCode).toBe(1);
    const human = await runCli(["reserves", "verify", fixture("huobi_por_2026-02.csv")]);
    expect(human.stdout).toContain("FAILS: line 45: BTC 12AxQ3mM2rwY2mwLa5qNVY65uHoQGfvSVF: unsigned");
  });

  it("--previous: the 2026-02 signatures found in the 2023-08 file fail as reused, naming the older line", async () => {
    const { report } = await verify(
      fixture("huobi_por_2026-02.csv"),
      "--previous",
      fixture("huobi_por_2023-08.csv"),
    );
    const reused = report.rows.filter((r) =>
      /^signature reused from huobi_por_2023-08.csv line \d+/.test(r.reason),
    );
    expect(reused.length).toBeGreaterThan(10);
    expect(reused.every((r) => r.proven === false && r.status === "failed")).toBe(true);
    // control: the OKX file shares no signature with HTX's: with --previous given, every row still signed
    // (amounts claimed: no node, exit 3), none failed
    const honest = await verify(
      fixture("okx_por_example_2022-11.csv"),
      "--previous",
      fixture("huobi_por_2023-08.csv"),
    );
    expect(honest.report.counts).toMatchObject({ signed: 33, failed: 0 });
    expect(honest.exitCode).toBe(3);
  });
});

describe("HTX's other snapshots (all 33 of its repository read; docs/exchange-proofs.md)", () => {
  it("2024-07: the USDT-Omni row is a Bitcoin signmessage on its Bitcoin address and holds; one byte of it changed fails; the USDT-TRC20 address listed twice fails the repeat", async () => {
    const f = "huobi_por_2024-07.csv";
    const { exitCode, report } = await verify(fixture(f));
    expect(rowAt(report, 78)).toMatchObject({
      coin: "USDT-Omni",
      signed: true,
      status: "signed",
      form: "BTC signmessage, P2PKH",
    });
    // the summary against the rows: USDT-TRC20's rows hold jUSDT's 31,700,532.98 too (no jUSDT row)
    expect(report.findings).toContainEqual(
      expect.objectContaining({
        status: "fails",
        step: "summary",
        at: "line 18",
        text: expect.stringContaining(
          "USDT-TRC20: the file's summary says 19199381.010000, its 5 rows sum to 50899913.990000",
        ),
      }),
    );
    expect(rowAt(report, 70)).toMatchObject({ status: "failed" });
    expect(rowAt(report, 70).reason).toContain("the same USDT-TRC20 address as line 61");
    expect(report.counts).toMatchObject({ rows: 56, failed: 1, unsigned: 6 });
    expect(exitCode).toBe(1);
    const t = await verify(tampered(f, (x) => x.replace("IMsrJEm070N33agIx", "IMsrJEm070N33agIy")));
    expect(rowAt(t.report, 78)).toMatchObject({ proven: false, status: "failed" });
    expect(t.report.counts.failed).toBe(2);
  });
});

describe("tampered copies fail, naming the row", () => {
  it("one byte of a signature changed (EVM, TRON, BTC multisig, ed25519)", async () => {
    const okx = "okx_por_example_2022-11.csv";
    // line 20 (EVM), line 16 (TRON), line 19 (BTC P2SH 2-of-3, first signature)
    for (const [line, from, to] of [
      [20, "0xe0f0c7b5dec0", "0xe0f0c7b5dec1"],
      [16, "0xec5f6ae72dbe", "0xec5f6ae72dbf"],
      [19, "H/hk7JW3ARn4", "H/hk7JW3ARn5"],
    ] as const) {
      const { exitCode, report } = await verify(tampered(okx, (t) => t.replace(from, to)));
      expect(exitCode).toBe(1);
      expect(rowAt(report, line)).toMatchObject({ proven: false, status: "failed" });
      expect(report.counts.failed).toBe(1);
    }
    const aup = "okx_OKC_DTT_AUP2025.csv";
    const dot = await verify(tampered(aup, (t) => t.replace("0x63b8adb6308f", "0x63b8adb6308e")));
    expect(rowAt(dot.report, 5)).toMatchObject({ proven: false, status: "failed" });
    expect(rowAt(dot.report, 5).reason).toContain("does not verify under the key");
  });

  it("a 2-of-3 signed twice by one key fails (OKX's tool passes it), the honest row holds", async () => {
    const okx = "okx_por_example_2022-11.csv";
    const line19 = text(okx).split("\n")[18] as string;
    const [sig1, sig2] = line19.split(",").slice(4, 6);
    const { exitCode, report } = await verify(
      tampered(okx, (t) => t.replace(`${sig1},${sig2}`, `${sig1},${sig1}`)),
    );
    expect(exitCode).toBe(1);
    expect(rowAt(report, 19).reason).toContain("signatures 1 and 2 are by the same key");
    expect(rowAt(report, 19).reason).toContain("a multisig signed twice by one key");
  });

  it("an address that does not decode fails (OKX's tool returns success), naming why", async () => {
    const okx = "okx_por_example_2022-11.csv";
    const { exitCode, report } = await verify(
      tampered(okx, (t) =>
        t.replace("3QVtn5nHRxBXX7C7sKw2qdkoGqMMwFUgwF", "3QVtn5nHRxBXX7C7sKw2qdkoGqMMwFUgwG"),
      ),
    );
    expect(exitCode).toBe(1);
    expect(rowAt(report, 19)).toMatchObject({ proven: false, status: "failed" });
    expect(rowAt(report, 19).reason).toBe(
      "the address does not decode as Bitcoin's: bad base58check checksum",
    );
  });

  it("an EVM or TRON address cut short fails as undecodable, not as a form chaingw does not know", async () => {
    const okx = "okx_por_example_2022-11.csv";
    const { exitCode, report } = await verify(
      tampered(okx, (t) =>
        t
          .replace("0xe7d5f0677dbc8f27fe57bc8289c0450abd198533", "0xe7d5f0677dbc8f27fe57bc8289c0450abd19853")
          .replace("TJTc3g4AuDoPxCFmTbcTJEmQwhFrTnJGNR", "TJTc3g4AuDoPxCFmTbcTJEmQwhFrTnJGN"),
      ),
    );
    expect(exitCode).toBe(1);
    expect(rowAt(report, 20)).toMatchObject({ proven: false, status: "failed" });
    expect(rowAt(report, 20).reason).toContain("not an EVM address");
    expect(rowAt(report, 16)).toMatchObject({ proven: false, status: "failed" });
    expect(rowAt(report, 16).reason).toContain("not a TRON base58 address");
  });

  it("a contract wallet whose owner's signature is another key's fails", async () => {
    const f = "okx_por_example_2026.csv";
    const { exitCode, report } = await verify(
      tampered(f, (t) =>
        t.replace(
          ",0x0cdcdb19a857c2ac24818ca4fdfe38cce071483e,0x16f01cfc",
          ",0x16f01cfc16b0b8c3400fb8e5099b0974fcc9fc12,0x16f01cfc",
        ),
      ),
    );
    expect(exitCode).toBe(1);
    expect(rowAt(report, 18)).toMatchObject({ proven: false, status: "failed" });
  });
});

describe("bad input", () => {
  it("a file of no known layout, a forced layout that is not the file's: exit 2 naming the line", async () => {
    const junk = join(tmp, "junk.csv");
    writeFileSync(junk, "coin,snapshot height,amount\nBTC,1,2\n\nfoo,bar\n1,2\n");
    const forced = await runCli(["reserves", "verify", junk, "--proof-format", "htx"]);
    expect(forced.exitCode).toBe(2);
    expect(forced.stderr).toContain("line 4: no address table header");
    const wrong = await runCli([
      "reserves",
      "verify",
      fixture("huobi_por_2023-08.csv"),
      "--proof-format",
      "okx-2022",
    ]);
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toContain("the header is htx's, not okx-2022's (--proof-format okx-2022)");
    const unknown = await runCli(["reserves", "verify", junk, "--proof-format", "nope"]);
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain("okx-2022, okx-2024, okx-audit-2025, htx");
  });
});
