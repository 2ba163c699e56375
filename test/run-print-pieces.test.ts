import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { Run } from "../src/cli/run.js";
import { JsonArraySpool } from "../src/util/spool.js";

/** What a run printed to its stdout (a stream of our own, read whole). */
function printed(format: "json" | "jsonl", value: unknown, pretty = false): string {
  const out = new PassThrough();
  const chunks: Buffer[] = [];
  out.on("data", (c: Buffer) => chunks.push(c));
  const run = new Run(format, {}, out);
  run.pretty = pretty;
  run.print(value, () => "human");
  return Buffer.concat(chunks).toString("utf8");
}

/** the escapes every JSON output gets (Run.out's escapeJsonText) */
const esc = (t: string) =>
  t.replace(
    /[\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );

describe("Run.print of a report with a long array (written in pieces)", () => {
  const rows = Array.from({ length: 2_501 }, (_, i) => ({
    line: i + 2,
    address: i === 7 ? "0xabc\u007f\u202e\u0085" : `0x${i.toString(16)}`,
    amount: i % 3 ? `${i}.5` : null,
    skipped: undefined,
    owners: i === 9 ? [{ address: "a", proven: true }] : undefined,
  }));
  const report = {
    format: "okx-2024",
    verdict: "cannot-say",
    gone: undefined,
    counts: { rows: rows.length },
    rows,
    holes: [1, undefined, () => 0, 3],
    findings: Array.from({ length: 1_200 }, (_, i) => ({ step: "signature", at: `line ${i}` })),
    summary_text: "tail",
  };

  it("prints the bytes JSON.stringify gives, escaped as any JSON output, then one newline", () => {
    const text = printed("json", report);
    // the whole text, as print wrote it before
    expect(text).toBe(`${esc(JSON.stringify(report))}\n`);
    expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(report)));
    expect(text).toContain("0xabc\\u007f\\u202e\\u0085");
  });

  it("--pretty and a value without a long array are printed whole, as before", () => {
    expect(printed("json", report, true)).toBe(`${esc(JSON.stringify(report, null, 2))}\n`);
    const small = { rows: [1, 2, 3], a: undefined };
    expect(printed("json", small)).toBe('{"rows":[1,2,3]}\n');
  });
});

describe("Run.print of a report whose rows were spooled as they were judged (reserves verify --json)", () => {
  it("the same bytes as the rows kept in an array, past the memory bound (a temporary file, unlinked once open)", () => {
    const own = mkdtempSync(join(tmpdir(), "chaingw-spool-test-"));
    const before = process.env.TMPDIR;
    process.env.TMPDIR = own;
    try {
      // ~6 MB of rows: more than the 1 Mi characters kept in memory; two- and four-byte characters and
      // characters JSON output escapes, so that a piece read back from the file ends inside one somewhere
      const rows = Array.from({ length: 30_000 }, (_, i) => ({
        line: i + 2,
        coin: i % 7 ? "ETH" : "USDT-TRC20",
        reason: `${"é".repeat(i % 13)}${"🙂".repeat(i % 5)} signed\u0085 ${"x".repeat(150)}`,
        amount: i % 3 ? `${i}.5` : null,
      }));
      const spool = new JsonArraySpool();
      for (let w = 0; w < rows.length; w += 7_000) spool.push(rows.slice(w, w + 7_000));
      expect(spool.length).toBe(rows.length);
      // the temporary file is unlinked once open (read through its descriptor): none left even if killed
      expect(readdirSync(own)).toEqual([]);
      const kept = printed("json", { verdict: "fails", rows, summary_text: "tail" });
      const spooled = printed("json", { verdict: "fails", rows: spool, summary_text: "tail" });
      expect(spooled.length).toBe(kept.length);
      expect(spooled === kept).toBe(true);
      // a spooled array is never a value for JSON.stringify: it is written in pieces or not at all
      expect(() => JSON.stringify({ rows: spool })).toThrow(/spooled/);
      spool.close();
      expect(readdirSync(own)).toEqual([]);
      // a small one stays in memory: no file at all
      const small = new JsonArraySpool();
      small.push([{ a: 1 }, { b: "é" }]);
      expect(readdirSync(own)).toEqual([]);
      expect(printed("json", { rows: small })).toBe('{"rows":[{"a":1},{"b":"é"}]}\n');
      small.close();

      // --pretty: the rows spooled indented, every other member indented where it stands; an empty spooled
      // array is [], as JSON.stringify(report, null, 2) writes them all
      const indented = new JsonArraySpool(true);
      for (let w = 0; w < rows.length; w += 7_000) indented.push(rows.slice(w, w + 7_000));
      const empty = new JsonArraySpool(true);
      const around = {
        verdict: "fails",
        counts: { rows: rows.length, per: { ETH: ["1.5", "0"] }, none: [], nothing: {} },
        gone: undefined,
        rows: indented,
        findings: empty,
        summary_text: "tail\u2028",
      };
      const whole = { ...around, rows, findings: [] };
      expect(readdirSync(own)).toEqual([]);
      const prettySpooled = printed("json", around, true);
      expect(prettySpooled === printed("json", whole, true)).toBe(true);
      expect(prettySpooled === `${esc(JSON.stringify(whole, null, 2))}\n`).toBe(true);
      indented.close();
      empty.close();
    } finally {
      if (before === undefined) delete process.env.TMPDIR;
      else process.env.TMPDIR = before;
      rmSync(own, { recursive: true, force: true });
    }
  });
});
