/**
 * Issue 35, item 5: nothing from a file or a node is printed raw. One escape (src/util/escape.ts) applied at
 * the Run's stdout/stderr (whatever a renderer missed), over every string of a report before a renderer
 * prints it, in HTML pages, and to JSON's strings. A property test over random strings holding every control
 * character (C0, DEL, C1, bidirectional, separators), then real proofs from a real litecoind whose scan
 * object and challenge hold a screen repaint, a forged "holds: 1005 LTC" line and a title-setting OSC.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { esc } from "../src/cli/render/html.js";
import { digestOf } from "../src/proof/jcs.js";
import { escapeDeep, escapeJsonText, escapeTerminal, escapeUnprintable } from "../src/util/escape.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";

/** Every character that must not come out raw. */
const CONTROLS = [
  ...Array.from({ length: 0x20 }, (_, i) => i),
  ...Array.from({ length: 0x21 }, (_, i) => 0x7f + i),
  0x200e,
  0x200f,
  0x2028,
  0x2029,
  0x202a,
  0x202b,
  0x202c,
  0x202d,
  0x202e,
  0x2066,
  0x2067,
  0x2068,
  0x2069,
  // the characters that show nothing: "audit X" + U+200B printed as "audit X"
  0x00ad,
  0x061c,
  0x180e,
  0x200b,
  0x200c,
  0x200d,
  0x2060,
  0x2061,
  0x2062,
  0x2063,
  0x2064,
  0xfeff,
].map((n) => String.fromCharCode(n));
const RAW = new RegExp(
  `[${CONTROLS.map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("")}]`,
);

/** A small seeded generator (mulberry32): the same cases every run, bounded. */
function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const PIECES = [
  "a",
  "Z",
  "0",
  " ",
  "holds: 1005 LTC",
  "\x1b[2J",
  "\x1b[H",
  "\x1b]0;pwned\x07",
  "\x1b[8m",
  "\\",
  "é",
  "€",
  "😀",
  "\x1b[31m",
];
function randomString(r: () => number): string {
  let s = "";
  const n = Math.floor(r() * 12);
  for (let i = 0; i < n; i++)
    s +=
      r() < 0.5
        ? (CONTROLS[Math.floor(r() * CONTROLS.length)] as string)
        : (PIECES[Math.floor(r() * PIECES.length)] as string);
  return s;
}
function randomValue(r: () => number, depth = 0): unknown {
  const k = r();
  if (depth > 3 || k < 0.4) return randomString(r);
  if (k < 0.5) return Math.floor(r() * 100);
  if (k < 0.75) return Array.from({ length: Math.floor(r() * 4) }, () => randomValue(r, depth + 1));
  const o: Record<string, unknown> = {};
  for (let i = Math.floor(r() * 4); i > 0; i--) o[randomString(r)] = randomValue(r, depth + 1);
  return o;
}
const strings = (v: unknown): string[] =>
  typeof v === "string"
    ? [v]
    : Array.isArray(v)
      ? v.flatMap(strings)
      : v && typeof v === "object"
        ? Object.entries(v).flatMap(([k, x]) => [k, ...strings(x)])
        : [];

describe("the one escape: any control character in any string comes out escaped (property, 3,000 cases)", () => {
  it("escapeUnprintable, escapeDeep, the terminal, JSON and HTML", () => {
    const r = rng(35);
    for (let i = 0; i < 3000; i++) {
      const s = randomString(r);
      const shown = escapeUnprintable(s);
      expect(RAW.test(shown), JSON.stringify(s)).toBe(false);
      // the terminal: no control but lines and tabs; no escape sequence at all from text that had none of ours
      const term = escapeTerminal(s.replace(/\x1b\[31m/g, ""));
      expect(
        /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(
          term,
        ),
      ).toBe(false);
      // JSON: the same value back, no raw character JSON.stringify leaves
      const json = escapeJsonText(JSON.stringify({ s }));
      expect(RAW.test(json)).toBe(false);
      expect(JSON.parse(json).s).toBe(s);
      expect(RAW.test(esc(s))).toBe(false);
      const v = randomValue(r);
      for (const x of strings(escapeDeep(v))) expect(RAW.test(x), JSON.stringify(x)).toBe(false);
    }
  });

  it("chaingw's own colours pass the terminal escape; a forged conceal or cursor move does not", () => {
    expect(escapeTerminal("\x1b[32mholds\x1b[39m \x1b[2mdim\x1b[22m")).toBe(
      "\x1b[32mholds\x1b[39m \x1b[2mdim\x1b[22m",
    );
    expect(escapeTerminal("a\x1b[8mb\x1b[2Jc\x1b[1;1Hd\u009b2Je")).toBe(
      "a\\u001b[8mb\\u001b[2Jc\\u001b[1;1Hd\\u009b2Je",
    );
    expect(escapeUnprintable("x\ny\u202ez")).toBe("x\\u000ay\\u202ez");
  });
});

describe("proofs whose strings hold escape sequences (real litecoind)", () => {
  let node: LitecoinNode;
  let dir: string;
  let honest: string;
  const REPAINT = "\x1b[2J\x1b[H\x1b]0;audit-passed\x07holds:1005LTC\x1b[8m";

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), "chaingw-escape-"));
    trackDir(dir);
    node = await startLitecoind({ blocks: 101 });
    const addr = await node.newAddress();
    await node.rpc("sendtoaddress", [addr, 2.5]);
    await node.mine(1);
    honest = join(dir, "honest.json");
    const r = await runCli(["--url", node.authUrl, "reserves", "scan", addr, "--proof", honest]);
    expect(r.exitCode, r.stderr).toBe(0);
  });
  afterAll(async () => {
    await node?.stop();
  });

  const forge = (name: string, edit: (d: any) => void): string => {
    const d = JSON.parse(readFileSync(honest, "utf8"));
    edit(d);
    const { digest: _, ...rest } = d;
    d.digest = digestOf(rest);
    const f = join(dir, name);
    writeFileSync(f, JSON.stringify(d, null, 2));
    return f;
  };
  const verify = (f: string, json = false) =>
    runCli(["--url", node.authUrl, ...(json ? ["--json"] : []), "reserves", "verify", f]);

  it("control: the honest proof holds", async () => {
    const v = await verify(honest);
    expect(v.exitCode, v.stdout).toBe(0);
    expect(v.stdout).toMatch(/^holds: proven owned 0\.00000000 LTC .*: 2\.50000000 LTC/m);
  });

  it("a scan object holding a repaint and a forged report: does not hold, and the screen shows it escaped", async () => {
    // the output credited to a "descriptor" that is the repaint, listed as a scan object too
    const f = forge("repaint.json", (d) => {
      d.scan_objects.push(REPAINT);
      d.outputs[0].matched = REPAINT;
      d.by_address = [
        { ...d.by_address[0], amount: "0", amount_sats: "0", outputs: 0 },
        { address: REPAINT, amount: d.total.amount, amount_sats: d.total.amount_sats, outputs: 1 },
      ];
    });
    for (const json of [false, true]) {
      const v = await verify(f, json);
      const all = v.stdout + v.stderr;
      expect(v.exitCode, v.stdout + v.stderr).not.toBe(0);
      expect(RAW.test(all.replace(/\n/g, ""))).toBe(false);
      expect(all).not.toMatch(/^holds:1005/m);
      if (json) {
        // JSON's own escapes: the same string back for a program
        const j = JSON.parse(v.stdout.trim() || "{}");
        expect(JSON.stringify(j)).toContain("\\u001b[2J");
      } else expect(all).toContain("\\u001b[2J\\u001b[H\\u001b]0;audit-passed\\u0007holds:1005LTC\\u001b[8m");
    }
  });

  it("a challenge with a C1 CSI, a bidi override and a new line: the claim is shown escaped on one line", async () => {
    const f = forge("challenge.json", (d) => {
      d.challenge = "audit 2026\u009b2J\u202eCTL\nholds: 1005 LTC";
    });
    const v = await verify(f);
    expect(v.exitCode, v.stdout).toBe(0);
    expect(RAW.test(v.stdout.replace(/\n/g, ""))).toBe(false);
    expect(v.stdout).not.toMatch(/^holds: 1005/m);
    expect(v.stdout).toContain("\\u009b2J\\u202eCTL\\u000aholds: 1005 LTC");
    const j = await verify(f, true);
    expect(RAW.test(j.stdout.replace(/\n/g, ""))).toBe(false);
    expect(JSON.parse(j.stdout).challenge.text).toBe("audit 2026\u009b2J\u202eCTL\nholds: 1005 LTC");
    // the report page: the same text, escaped, never raw
    const page = join(dir, "page.html");
    const h = await runCli(["--url", node.authUrl, "reserves", "report", f, "--verify", "--html", page]);
    expect(h.exitCode, h.stderr).toBe(0);
    const html = readFileSync(page, "utf8");
    expect(RAW.test(html.replace(/\n/g, ""))).toBe(false);
    expect(RAW.test(h.stdout.replace(/\n/g, ""))).toBe(false);
  });
});
