import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { linesOf } from "../src/batch/input.js";
import { trackDir } from "./helpers/procs.js";

// The batch input reader on its own: regular files are read in 256 KB chunks, so lines and multi-byte
// characters straddle chunk boundaries.

async function readAll(path: string): Promise<string[]> {
  const out: string[] = [];
  for await (const block of linesOf(path)) out.push(...block);
  return out;
}

describe("linesOf", () => {
  it("gives back every line of a file several chunks long, multi-byte characters across chunk edges intact", async () => {
    const dir = mkdtempSync(join(tmpdir(), "chaingw-lines-"));
    trackDir(dir);
    // 3-byte and 4-byte UTF-8 characters at every offset mod 4, ~1.2 MB in all
    const lines = Array.from(
      { length: 20_000 },
      (_, i) => `{"id":${i},"note":"${"€😀".repeat(i % 7)}${"x".repeat(i % 4)}"}`,
    );
    const f = join(dir, "in.jsonl");
    writeFileSync(f, lines.join("\r\n") + "\nlast line without newline");
    expect(await readAll(f)).toEqual([...lines, "last line without newline"]);
  });

  it("a line of several megabytes among short ones comes back whole", async () => {
    const dir = mkdtempSync(join(tmpdir(), "chaingw-lines-"));
    trackDir(dir);
    const long = `{"method":"x","params":["${"a".repeat(3_000_000)}"]}`;
    const f = join(dir, "long.jsonl");
    writeFileSync(f, `first\n${long}\nlast\n`);
    const got = await readAll(f);
    expect(got).toHaveLength(3);
    expect(got[0]).toBe("first");
    expect(got[1]).toBe(long);
    expect(got[2]).toBe("last");
  });

  it("a missing file or a directory is a usage error naming the path", async () => {
    await expect(readAll("/nonexistent/x.jsonl")).rejects.toThrow(
      /cannot read \/nonexistent\/x\.jsonl: ENOENT/,
    );
    await expect(readAll(tmpdir())).rejects.toThrow(/EISDIR/);
  });
});
