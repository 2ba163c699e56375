// Issue 14 #8: `chaingw batch` against an endpoint that refuses connections (a freshly closed loopback
// port). Before the fix 8,000 lines took ~16 s: each entry was sent alone 3 times with backoff. Now the
// first pass that is refused everywhere fails the rest of the run at once. Time and peak RSS for 1,000 and
// 8,000 lines, arrays (default) and single calls (--batch-size 1), next to chaingw's own start
// (`--version`), all interleaved; medians.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  banner,
  CHAINGW,
  dur,
  fmt,
  freePort,
  loadNote,
  peakRss,
  ratio,
  runOnce,
  table,
  target,
  tempDir,
  timeInterleaved,
} from "./lib.mjs";

const N = Math.max(3, Number(process.env.BENCH_DEAD_RUNS ?? 7));
banner("batch against a refused port (issue 14 #8)");

const dir = tempDir("chaingw-bench-dead-");
const lines = (n) =>
  Array.from({ length: n }, (_, i) => JSON.stringify({ method: "getblockhash", params: [i] })).join("\n") +
  "\n";
const files = new Map([1_000, 8_000].map((n) => [n, join(dir, `dead-${n}.jsonl`)]));
for (const [n, f] of files) writeFileSync(f, lines(n));
// nothing listens: the port was free a moment ago
const url = `http://127.0.0.1:${await freePort()}/`;

const batch = (n, size) => [...CHAINGW, "--url", url, "batch", files.get(n), "--batch-size", String(size)];
const cases = [{ name: "chaingw --version", argv: [...CHAINGW, "--version"] }];
for (const n of files.keys())
  for (const size of [250, 1])
    cases.push({
      name: `${n.toLocaleString("en")} lines, --batch-size ${size}`,
      argv: batch(n, size),
      opts: { allowFail: true },
    });

// every line answered with the reason, exit 3: checked once before timing
for (const c of cases.slice(1)) {
  const r = runOnce(c.argv, { ...c.opts, capture: true });
  const out = String(r.stdout).trimEnd().split("\n");
  const n = Number(c.name.split(" ")[0].replace(",", ""));
  const allRefused = out.length === n && out.every((l) => /connection refused"/.test(l));
  if (r.status !== 3 || !allRefused) throw new Error(`${c.name}: exit ${r.status}, ${out.length} lines`);
}

const t = timeInterleaved(cases, N);
const start = t.get("chaingw --version").median;
const rows = [];
for (const c of cases) {
  const s = t.get(c.name);
  const mem = c.name.startsWith("chaingw") ? undefined : await peakRss(c.argv, c.opts);
  rows.push([c.name, fmt(s.median), ratio(s.median, start), mem ? mem.mb.toFixed(1) : "", mem?.how ?? ""]);
}
console.log(`median of ${N} interleaved runs; peak RSS of one run each`);
table(["run", "median ms", "× chaingw start", "peak RSS MB", "measured by"], rows);
const worst = Math.max(...cases.slice(1).map((c) => t.get(c.name).median));
console.log(`  ${target(worst < 5000, `8,000 lines to a refused port in seconds: slowest ${dur(worst)}`)}`);
console.log(`  ${loadNote()}`);
