/**
 * The exchanges' inclusion-proof tests' shared parts: the published files of test/fixtures/exchange/liabilities/,
 * tampered copies written to a temp dir, `liabilities verify` through the real bin with its --json read.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect } from "vitest";
import { runCli } from "./cli.js";

export const FIX = join(__dirname, "..", "fixtures", "exchange", "liabilities");
export const fixture = (name: string) => join(FIX, name);
export const text = (name: string) => readFileSync(fixture(name), "utf8");

/** A temp dir for tampered copies, and `tampered(name, edit)`: the fixture edited (it must change), written there. */
export function tamperer(prefix: string) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let n = 0;
  const tampered = (name: string, edit: (t: string) => string): string => {
    const t = text(name);
    const out = edit(t);
    expect(out).not.toBe(t);
    const file = join(dir, `${n++}-${name}`);
    writeFileSync(file, out);
    return file;
  };
  return { dir, tampered, next: () => n++ };
}

/** `chaingw liabilities verify …`, its stdout parsed when it is JSON. */
export const verify = async (...args: string[]) => {
  const r = await runCli(["liabilities", "verify", ...args]);
  return { ...r, json: r.stdout.trim().startsWith("{") ? JSON.parse(r.stdout) : undefined };
};

export type Finding = { status: string; step: string; at?: string; text: string };
export const failures = (j: { findings: Finding[] }) => j.findings.filter((f) => f.status === "fails");

/** The run does not hold (exit 1) for exactly one failure: its step, where (text or matcher) and part of its text. */
export function failsOnce(
  r: { exitCode: number; json?: { findings: Finding[] } },
  step: string,
  at: unknown,
  part: string,
): void {
  expect(r.exitCode).toBe(1);
  expect(failures(r.json!)).toEqual([
    expect.objectContaining({ step, at, text: expect.stringContaining(part) }),
  ]);
}
