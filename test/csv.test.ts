/** One CSV escaping for every command that writes CSV (issue 23): RFC 4180, CR included. */
import { describe, expect, it } from "vitest";
import { csvField } from "../src/output/csv.js";

describe("csvField", () => {
  it("quotes a field holding a quote, a comma, a CR or an LF, and doubles its quotes", () => {
    expect(csvField("plain")).toBe("plain");
    expect(csvField('say "hi"')).toBe('"say ""hi"""');
    expect(csvField("a,b")).toBe('"a,b"');
    expect(csvField("line\rfeed")).toBe('"line\rfeed"');
    expect(csvField("line\nfeed")).toBe('"line\nfeed"');
    expect(csvField(null)).toBe("");
    expect(csvField(undefined)).toBe("");
    expect(csvField(12)).toBe("12");
  });
});
