/**
 * Hostile input: property-based tests with fast-check over every method of the registry and
 * every param position. In process (thousands of runs): buildParams + fromOptions + refine either
 * accept, or throw a one-line UsageError naming the parameter; nothing else. Through the built CLI (a
 * few hundred processes, two at a time): invalid ⇒ exit 2 with 0 hits on a counting fault server in
 * front of a real upstream (litecoind, anvil, the TRON fixture); never a crash. Batch and reserves
 * --file input too. Totals are printed for the README.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseLine } from "../src/batch/input.js";
import { UsageError } from "../src/errors/index.js";
import { stringifyLossless } from "../src/json/lossless.js";
import { registry } from "../src/methods/index.js";
import { buildParams } from "../src/methods/params.js";
import type { Group, MethodDef } from "../src/methods/types.js";
import { type FaultServer, startFaultServer } from "./fixtures/faults.js";
import { startTronFixture, type TronFixture } from "./fixtures/tron.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { type CliResult, runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { BY_COUNT } from "./helpers/procs.js";

const STACK = /^\s+at /m;
const stats = {
  inProcess: 0,
  inProcessRejected: 0,
  batchValues: 0,
  rawLines: 0,
  cli: 0,
  cliRejected: 0,
  batchLines: 0,
  reservesLines: 0,
  crashes: 0,
};
const crashes: string[] = [];

/** Hostile text: random and unicode strings, numbers, JSON fragments, near-valid hex, huge inputs, leading dashes. */
const HEX = [..."0123456789abcdefABCDEF"];
const hostile = (opts: { huge: boolean; nul: boolean }) =>
  fc
    .oneof(
      fc.string({ maxLength: 80 }),
      fc.string({ unit: "grapheme", maxLength: 40 }),
      fc.string({ unit: "binary", maxLength: 40 }),
      fc.integer().map(String),
      fc.double().map(String),
      fc.bigInt().map(String),
      fc.json(),
      fc.jsonValue().map((v) => JSON.stringify(v)),
      fc
        .tuple(
          fc.constantFrom("", "0x", "0X", "41", "T", " ", "0x0x"),
          fc.array(fc.constantFrom(...HEX, "g", "z", " ", "-"), { maxLength: 70 }).map((a) => a.join("")),
        )
        .map(([p, s]) => p + s),
      fc.integer({ min: 0, max: 70 }).map((n) => `0x${"a".repeat(n)}`),
      fc.constantFrom(
        "latest",
        "pending",
        "safe",
        "earliest",
        "finalized",
        "PENDING",
        "start",
        "status",
        "abort",
        "true",
        "false",
        "null",
        "[]",
        "{}",
        "-1",
        "1e3",
        "0x",
        "NaN",
        "Infinity",
        "__proto__",
        "constructor",
        '{"__proto__":{"a":1}}',
        '["addr(x)"]',
        '[{"desc":"addr(x)","range":-1}]',
        '{"to":"0x1"}',
        '{"date":"0x"}',
        "2147483648",
        "9007199254740993",
        "٣",
        "１２",
        "0\u0000",
        "\u202e",
        " 1",
        "1 ",
        "",
      ),
      fc.integer({ min: 1, max: 100_000 }).map((n) => "[".repeat(n) + "]".repeat(n)),
      fc.integer({ min: 1, max: 50_000 }).map((n) => '{"a":'.repeat(n) + "1" + "}".repeat(n)),
      ...(opts.huge
        ? [
            fc
              .tuple(
                fc.constantFrom("a", "0", "f", "[", "{", "\u00e9", '"'),
                fc.integer({ min: 50_000, max: 100_000 }),
              )
              .map(([c, n]) => c.repeat(c.length === 1 && c.charCodeAt(0) > 127 ? n / 2 : n)),
          ]
        : []),
      fc.string({ maxLength: 30 }).map((s) => `-${s}`),
      fc.string({ maxLength: 30 }).map((s) => `--${s}`),
    )
    // argv: no NUL byte, and one argument is at most 128 KiB (Linux MAX_ARG_STRLEN)
    .map((s) => (opts.nul ? s : s.replace(/\u0000/g, "")))
    .filter((s) => opts.nul || Buffer.byteLength(s) <= 100_000);

/** A valid text for each param, found by trying candidates against the param's own check. */
const CANDIDATES = [
  "status",
  "1",
  "true",
  "latest",
  "none",
  "{}",
  `{"to":"0x${"22".repeat(20)}"}`,
  "11".repeat(32),
  `0x${"11".repeat(32)}`,
  '["txs"]',
  "rltc1qexample",
  `0x${"22".repeat(20)}`,
  "economical",
  "[]",
  '["addr(rltc1qexample)"]',
];
function validTexts(def: MethodDef): string[] {
  return def.params.map((p) => {
    const ok = CANDIDATES.find((c) => {
      try {
        p.check(p.fromText(c));
        return true;
      } catch {
        return false;
      }
    });
    if (ok === undefined) throw new Error(`no valid candidate for ${def.group} ${def.name} ${p.name}`);
    return ok;
  });
}

/** What runMethod does before sending; throws what it throws. */
function prepare(def: MethodDef, texts: string[]): unknown[] {
  let params = buildParams(def, texts, true);
  if (def.fromOptions) params = def.fromOptions({}, params);
  def.refine?.(params);
  return params;
}

const paramNames = (def: MethodDef) => def.params.map((p) => p.name);

describe("in process: buildParams over every method and param position", () => {
  for (const def of registry()) {
    const valid = validTexts(def);
    for (const [i, p] of def.params.entries()) {
      it(`${def.group} ${def.name} ${p.name}: accepted, or a one-line UsageError naming it`, () => {
        fc.assert(
          fc.property(hostile({ huge: true, nul: true }), fc.boolean(), (text, truncate) => {
            stats.inProcess++;
            const texts = [...valid];
            texts[i] = text;
            if (truncate) texts.length = i + 1;
            try {
              const params = prepare(def, texts);
              stringifyLossless(params); // what would be sent is serialisable
            } catch (e) {
              if (!(e instanceof UsageError)) {
                stats.crashes++;
                crashes.push(`${def.name} ${p.name} ${JSON.stringify(text.slice(0, 60))}: ${e}`);
                throw e;
              }
              stats.inProcessRejected++;
              expect(e.message).not.toContain("\n");
              expect(e.message.length).toBeLessThan(400);
              // the param at position i, or (refine, cross-param rules) another of the method's params
              expect(
                paramNames(def).some((n) => e.message.includes(n)),
                e.message,
              ).toBe(true);
            }
          }),
          { numRuns: 400, seed: 7 + i },
        );
      });
    }
  }

  it("batch values (JSON, not text) in every position: parseLine never throws; errors name the line", () => {
    const value = fc.oneof(
      fc.jsonValue({ maxDepth: 6 }),
      fc.integer({ min: 1, max: 63 }).map((n) => JSON.parse("[".repeat(n) + "]".repeat(n))),
      hostile({ huge: false, nul: true }),
    );
    for (const def of registry()) {
      fc.assert(
        fc.property(fc.array(value, { maxLength: def.params.length + 1 }), fc.nat(1000), (params, line) => {
          stats.batchValues++;
          const item = parseLine(JSON.stringify({ method: def.name, params }), line + 1, def.group);
          if (item.error) {
            expect(item.error).toBeInstanceOf(UsageError);
            expect(item.error.message.startsWith(`line ${line + 1}: `)).toBe(true);
            expect(item.error.message).not.toContain("\n");
          } else expect(item.entry?.method).toBe(def.name);
        }),
        { numRuns: 150, seed: 11 },
      );
    }
  });

  it("raw batch lines: parseLine never throws, whatever the text", () => {
    const raw = fc.oneof(
      hostile({ huge: true, nul: true }),
      fc.json(),
      fc.string({ unit: "binary", maxLength: 200 }),
    );
    fc.assert(
      fc.property(
        raw,
        fc.constantFrom<Group | undefined>(undefined, "utxo", "evm", "evm-compat"),
        (t, chain) => {
          stats.rawLines++;
          const item = parseLine(t, 1, chain);
          expect(item.entry !== undefined || item.error instanceof UsageError).toBe(true);
        },
      ),
      { numRuns: 1500, seed: 13 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Through the built CLI
// ---------------------------------------------------------------------------------------------

let ltc: LitecoinNode;
let anvil: AnvilNode;
let tron: TronFixture;
let dir: string;
/** two lanes, one counting pass-through server per group in each */
const lanes: Record<Group, FaultServer>[] = [];

beforeAll(async () => {
  [ltc, anvil, tron] = await Promise.all([startLitecoind({ blocks: 3 }), startAnvil(), startTronFixture()]);
  for (let k = 0; k < 2; k++) {
    const [u, e, c] = await Promise.all([
      startFaultServer({ upstream: { url: ltc.url, user: ltc.user, password: ltc.password } }),
      startFaultServer({ upstream: { url: anvil.url } }),
      startFaultServer({ upstream: { url: tron.url } }),
    ]);
    lanes.push({ utxo: u, evm: e, "evm-compat": c });
  }
  dir = mkdtempSync(join(tmpdir(), "chaingw-input-"));
});

afterAll(async () => {
  await Promise.all(lanes.flatMap((l) => Object.values(l).map((f) => f.stop())));
  await Promise.all([ltc?.stop(), anvil?.stop(), tron?.stop()]);
  console.log(
    `hostile input totals: in-process buildParams ${stats.inProcess} (${stats.inProcessRejected} refused), batch values ${stats.batchValues}, raw batch lines ${stats.rawLines}, CLI runs ${stats.cli} (${stats.cliRejected} exit 2), batch lines via CLI ${stats.batchLines}, reserves --file lines ${stats.reservesLines}; total ${stats.inProcess + stats.batchValues + stats.rawLines + stats.cli + stats.batchLines + stats.reservesLines} inputs, ${stats.crashes} crashes${crashes.length ? `: ${crashes.slice(0, 5).join(" | ")}` : ""}`,
  );
});

/** Runs jobs two at a time, each on its own lane of fault servers. */
async function inLanes<T>(jobs: T[], run: (job: T, lane: Record<Group, FaultServer>) => Promise<void>) {
  let next = 0;
  await Promise.all(
    lanes.map(async (lane) => {
      while (next < jobs.length) await run(jobs[next++], lane);
    }),
  );
}

function noCrash(r: CliResult, what: string) {
  if (r.exitCode > 2 || r.exitCode < 0 || STACK.test(r.stderr) || /internal error/.test(r.stderr)) {
    stats.crashes++;
    crashes.push(`${what}: exit ${r.exitCode} ${r.stderr.slice(0, 200)}`);
  }
  expect(r.stderr, what).not.toMatch(STACK);
  expect(r.stderr, what).not.toMatch(/internal error/);
}

describe("through the CLI: invalid ⇒ exit 2 and nothing sent; never a crash", () => {
  it(
    "every subcommand, every param position, hostile values (2 processes at a time)",
    async () => {
      const perPosition = 12;
      const jobs: { def: MethodDef; texts: string[]; i: number }[] = [];
      for (const def of registry()) {
        const valid = validTexts(def);
        for (const [i] of def.params.entries()) {
          const samples = fc.sample(hostile({ huge: true, nul: false }), {
            numRuns: perPosition,
            seed: 100 + i + def.name.length,
          });
          for (const s of samples) {
            const texts = [...valid];
            texts[i] = s;
            jobs.push({ def, texts, i });
          }
        }
      }
      // bare subcommands with junk options or too many params
      for (const def of registry())
        for (const s of fc.sample(hostile({ huge: false, nul: false }), { numRuns: 3, seed: 5 }))
          jobs.push({ def, texts: [...validTexts(def), s], i: def.params.length });

      await inLanes(jobs, async ({ def, texts, i }, lane) => {
        const fs = lane[def.group];
        const before = fs.hits;
        const args = [
          "--json",
          "--url",
          fs.url,
          "--retries",
          "0",
          "--request-timeout",
          "10",
          "--chain",
          def.group,
          def.name,
          ...texts,
        ];
        const r = await runCli(args);
        const hits = fs.hits - before;
        stats.cli++;
        const what = `${def.group} ${def.name} [${i}] ${JSON.stringify(texts[i]?.slice(0, 50))}`;
        noCrash(r, what);
        expect(
          [0, 1, 2, 130].includes(r.exitCode) && r.exitCode !== 130,
          `${what}: exit ${r.exitCode} ${r.stderr}`,
        ).toBe(true);
        if (r.exitCode === 2) {
          stats.cliRejected++;
          expect(hits, what).toBe(0);
          expect(r.stdout, what).toBe("");
          const msg = JSON.parse(r.stderr).error.message as string;
          expect(
            paramNames(def).some((n) => msg.includes(n)) || /option|argument|parameter/.test(msg),
            `${what}: ${msg}`,
          ).toBe(true);
        }
        if (hits > 0) expect([0, 1], what).toContain(r.exitCode);
        // where commander cannot interfere (no leading dash), the CLI agrees with the in-process check
        if (!texts.some((t) => t.startsWith("-")) && i < def.params.length) {
          let refused = false;
          try {
            prepare(def, texts);
          } catch {
            refused = true;
          }
          if (refused) {
            expect(r.exitCode, what).toBe(2);
            expect(hits, what).toBe(0);
          }
        }
      });
      expect(stats.cli).toBeGreaterThan(300);
      // bounded by its jobs, each process by the suite's hang guard (runCli): not by the clock
    },
    BY_COUNT,
  );

  it("batch: bad lines reported with their line number, good lines not lost, one output line per input line, in order", async () => {
    const hash = await ltc.rpc<string>("getblockhash", [1]);
    const good = [
      '{"method":"getblockchaininfo"}',
      `{"method":"getblockheader","params":["${hash}"]}`,
      '{"method":"getblockstats","params":[1,["txs"]]}',
    ];
    const bad = hostile({ huge: false, nul: false })
      .map((s) => s.replace(/[\r\n\u2028\u2029]/g, " ").trim())
      .filter((s) => s !== "" && !s.startsWith("#"));
    const line = fc.oneof(
      fc.constantFrom(...good),
      bad,
      bad.map((s) => `{"method":"getblock","params":[${JSON.stringify(s)}]}`),
    );
    const inputs = fc.sample(fc.array(line, { minLength: 5, maxLength: 40 }), { numRuns: 12, seed: 21 });
    await inLanes(inputs, async (ls, lane) => {
      const fs = lane.utxo;
      const r = await runCli(["batch", "--url", fs.url, "--retries", "0"], { input: `${ls.join("\n")}\n` });
      stats.batchLines += ls.length;
      noCrash(r, `batch ${ls.length} lines`);
      const out = r.stdout.split("\n").filter(Boolean);
      expect(out).toHaveLength(ls.length);
      out.forEach((o, k) => {
        const parsed = JSON.parse(o);
        const isGood = good.includes(ls[k]);
        expect(parsed.id).toBe(k + 1);
        if (isGood) expect(parsed.result, o).toBeDefined();
        else if (parsed.error?.code === "usage")
          expect(parsed.error.message).toMatch(new RegExp(`^line ${k + 1}: `));
      });
      const anyBad = out.some((o) => JSON.parse(o).error?.code === "usage");
      expect(r.exitCode).toBe(anyBad ? 2 : out.some((o) => JSON.parse(o).error) ? 1 : 0);
    });
  });

  it("reserves --file with hostile lines: exit 2 naming the lines, nothing sent", async () => {
    const bad = hostile({ huge: false, nul: false }).map((s) => s.replace(/[\r\n\u2028\u2029]/g, " "));
    const inputs = fc.sample(fc.array(bad, { minLength: 1, maxLength: 30 }), { numRuns: 10, seed: 31 });
    let k = 0;
    await inLanes(inputs, async (ls, lane) => {
      const fs = lane.utxo;
      const f = join(dir, `addrs-${k++}.txt`);
      writeFileSync(f, `${ls.join("\n")}\n`);
      const before = fs.hits;
      const r = await runCli(["--url", fs.url, "reserves", "scan", "--file", f]);
      stats.reservesLines += ls.length;
      noCrash(r, `reserves --file ${ls.length} lines`);
      expect(r.exitCode, r.stderr).toBe(2);
      expect(fs.hits - before).toBe(0);
      const meaningful = ls.some((l) => l.trim() !== "" && !l.trim().startsWith("#"));
      if (meaningful) expect(r.stderr).toMatch(/line \d+|nothing to scan/);
    });
  });

  it("no crash anywhere", () => {
    expect(crashes).toEqual([]);
  });
});
