import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { Run } from "../src/cli/run.js";

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

  /** the escapes every JSON output gets (Run.out's escapeJsonText) */
  const esc = (t: string) =>
    t.replace(
      /[\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );

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
