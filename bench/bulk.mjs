// Issue 6, bulk: 10,000 calls in one chaingw process (`chaingw batch`) against the practical ceiling
// (the same calls as ONE raw JSON-RPC batch array sent by curl) and against a shell loop of the
// native one-shot clients (litecoin-cli, cast). Plus peak memory of `chaingw batch` at 1k/10k/50k.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  banner,
  blockHashes,
  CHAINGW,
  dur,
  fmt,
  foundryBin,
  loadNote,
  peakRss,
  postTimed,
  ratio,
  removeDir,
  runOnce,
  startAnvil,
  startLitecoind,
  stats,
  table,
  target,
  tempDir,
  timeInterleaved,
} from "./lib.mjs";

const BLOCKS = 2000;
const CALLS = 10_000;
const LOOP = Number(process.env.BENCH_LOOP ?? 200); // one-shot client loop length, extrapolated to CALLS
const N = Math.max(3, Number(process.env.BENCH_BULK_RUNS ?? 7)); // final interleaved runs
const SWEEP_N = 3; // runs per setting in the sweep
const SWEEP = [
  [1, 100],
  [2, 100],
  [4, 100],
  [8, 100],
  [2, 250],
  [4, 250],
  [2, 500],
  [4, 500],
  [2, 1000],
  [4, 1000],
];

const dir = tempDir("chaingw-bench-bulk-");
const file = (name, text) => {
  const p = join(dir, name);
  writeFileSync(p, text);
  return p;
};
const jsonl = (n, mk) => {
  let s = "";
  for (let i = 0; i < n; i++) s += JSON.stringify(mk(i)) + "\n";
  return s;
};
const rawBatch = (n, mk) =>
  JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: "2.0", id: i, ...mk(i) })));

/** chaingw batch output: CALLS lines, every one a result, none an error. */
function checkLines(buf, n, what) {
  const lines = String(buf).trimEnd().split("\n");
  if (lines.length !== n) throw new Error(`${what}: ${lines.length} lines, expected ${n}`);
  for (const l of [lines[0], lines[n >> 1], lines[n - 1]]) {
    const o = JSON.parse(l);
    if (o.error || !o.result) throw new Error(`${what}: bad line ${l.slice(0, 200)}`);
  }
  const errors = lines.filter((l) => l.includes('"error"')).length;
  if (errors) throw new Error(`${what}: ${errors} error lines`);
}
function checkArray(buf, n, what) {
  const a = JSON.parse(String(buf));
  if (!Array.isArray(a) || a.length !== n || a.some((x) => x.error || !x.result))
    throw new Error(`${what}: raw batch answer is not ${n} results: ${String(buf).slice(0, 200)}`);
}

const flags = ([c, b]) => ["--concurrency", String(c), "--batch-size", String(b)];
const label = ([c, b]) => `--concurrency ${c} --batch-size ${b}`;

/**
 * One chain: sweep settings, then default vs best vs curl ceiling interleaved, then a one-shot loop.
 * Returns rows for the summary.
 */
function benchChain({ title, chaingwBase, reqFile, curlArgv, loopArgv, loopName }) {
  console.log(`\n--- ${title} ---`);
  // correctness first
  checkLines(runOnce([...chaingwBase, "batch", reqFile], { capture: true }).stdout, CALLS, "chaingw batch");
  checkArray(runOnce(curlArgv, { capture: true }).stdout, CALLS, "curl");

  const sweepCases = SWEEP.map((s) => ({
    name: label(s),
    argv: [...chaingwBase, "batch", reqFile, ...flags(s)],
  }));
  const sweep = timeInterleaved(sweepCases, SWEEP_N, { warmup: 0 });
  console.log(`sweep (median of ${SWEEP_N} interleaved runs each):`);
  table(
    ["chaingw batch setting", "median ms"],
    sweepCases.map((c) => [c.name, fmt(sweep.get(c.name).median)]),
  );
  const best = SWEEP.reduce((a, b) => (sweep.get(label(b)).median < sweep.get(label(a)).median ? b : a));

  const cases = [
    {
      name: "chaingw batch (default: --concurrency 4 --batch-size 250)",
      argv: [...chaingwBase, "batch", reqFile],
    },
    {
      name: `chaingw batch (best: ${label(best)})`,
      argv: [...chaingwBase, "batch", reqFile, ...flags(best)],
    },
    { name: "curl, one raw batch array (ceiling)", argv: curlArgv },
  ];
  const res = timeInterleaved(cases, N);
  const loopRuns = [];
  for (let i = 0; i < 3; i++) loopRuns.push(runOnce(loopArgv).ms);
  const loop = stats(loopRuns).median;
  const loopX = (loop * CALLS) / LOOP;

  const dflt = res.get(cases[0].name).median;
  const bst = res.get(cases[1].name).median;
  const ceil = res.get(cases[2].name).median;
  console.log(
    `\n${CALLS.toLocaleString("en")} calls (median of ${N} interleaved runs; loop: median of 3 runs of ${LOOP} calls ×${CALLS / LOOP}):`,
  );
  table(
    ["case", "wall", "calls/s", "× ceiling", "loop ÷ this"],
    [
      ...cases.map((c) => {
        const s = res.get(c.name).median;
        return [c.name, dur(s), Math.round((CALLS / s) * 1000), ratio(s, ceil), ratio(loopX, s)];
      }),
      [
        `${loopName} loop (${LOOP} calls, extrapolated)`,
        dur(loopX),
        Math.round((CALLS / loopX) * 1000),
        ratio(loopX, ceil),
        "1.00×",
      ],
    ],
  );
  console.log(
    "  " + target(dflt <= 1.5 * ceil, `default within 1.5× of the raw ceiling: ${ratio(dflt, ceil)}`),
  );
  console.log(
    "  " + target(bst <= 1.5 * ceil, `best setting within 1.5× of the raw ceiling: ${ratio(bst, ceil)}`),
  );
  console.log(
    "  " +
      target(loopX >= 50 * dflt, `default ≥ 50× faster than the ${loopName} loop: ${ratio(loopX, dflt)}`),
  );
  return { title, dflt, best: label(best), bst, ceil, loopX, loopName };
}

banner(`bulk: ${CALLS.toLocaleString("en")} calls over ${BLOCKS} blocks`);
const t0 = Date.now();
const [ltc, anvil] = await Promise.all([startLitecoind({ blocks: BLOCKS }), startAnvil({ blocks: BLOCKS })]);
console.log(
  `nodes ready in ${((Date.now() - t0) / 1000).toFixed(1)} s (litecoind -regtest and anvil, ${BLOCKS} blocks each)`,
);
const summary = [];
try {
  const hashes = await blockHashes(ltc, BLOCKS);
  const hdr = (i) => ({ method: "getblockheader", params: [hashes[i % BLOCKS]] });
  const reqLtc = file("ltc-10k.jsonl", jsonl(CALLS, hdr));
  const rawLtc = file("ltc-10k.json", rawBatch(CALLS, hdr));
  const loopHashes = file("ltc-loop.txt", hashes.slice(0, LOOP).join("\n") + "\n");
  const cli = ["litecoin-cli", ...ltc.cliArgs].join(" ");
  const ltcChaingw = [...CHAINGW, "--url", ltc.authUrl];
  const basic = `${ltc.auth.user}:${ltc.auth.password}`;
  summary.push(
    benchChain({
      title: `litecoind -regtest: getblockheader ×${CALLS}`,
      chaingwBase: ltcChaingw,
      reqFile: reqLtc,
      curlArgv: [
        "curl",
        "-sf",
        "-u",
        basic,
        "-H",
        "content-type: application/json",
        "--data-binary",
        `@${rawLtc}`,
        ltc.url,
      ],
      loopArgv: [
        "bash",
        "-c",
        `while read -r h; do ${cli} getblockheader "$h" >/dev/null || exit 1; done < ${loopHashes}`,
      ],
      loopName: "litecoin-cli",
    }),
  );

  const blk = (i) => ({
    method: "eth_getBlockByNumber",
    params: ["0x" + ((i % BLOCKS) + 1).toString(16), false],
  });
  const reqEth = file("eth-10k.jsonl", jsonl(CALLS, blk));
  const rawEth = file("eth-10k.json", rawBatch(CALLS, blk));
  const loopNums = file(
    "eth-loop.txt",
    Array.from({ length: LOOP }, (_, i) => "0x" + (i + 1).toString(16)).join("\n") + "\n",
  );
  summary.push(
    benchChain({
      title: `anvil: eth_getBlockByNumber ×${CALLS}`,
      chaingwBase: [...CHAINGW, "--chain", "evm", "--url", anvil.url],
      reqFile: reqEth,
      curlArgv: [
        "curl",
        "-sf",
        "-H",
        "content-type: application/json",
        "--data-binary",
        `@${rawEth}`,
        anvil.url,
      ],
      loopArgv: [
        "bash",
        "-c",
        `while read -r n; do ${foundryBin("cast")} rpc --rpc-url ${anvil.url} eth_getBlockByNumber "$n" false >/dev/null || exit 1; done < ${loopNums}`,
      ],
      loopName: "cast (native)",
    }),
  );

  // Why chaingw sends each array on a fresh connection: one raw array of n getblockheader calls, timed from
  // here (median of 9), on a kept-alive connection and on a fresh one. Kept alive, replies of ~30-64 KB
  // stall ~40 ms on this node (libevent without TCP_NODELAY: Nagle holds the reply's tail until the
  // previous segment is ACKed, and Linux delays that ACK); a fresh connection ACKs at once.
  const probe = [];
  for (const n of [10, 50, 100, 150, 250, 500, 1000]) {
    const body = JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: "2.0", id: i, ...hdr(i) })));
    const row = [n];
    for (const fresh of [false, true]) {
      const t = [];
      let bytes = 0;
      for (let k = 0; k < 9; k++) {
        // litecoind may have dropped the idle keep-alive socket after the runs above: one retry
        const r = await postTimed(ltc.url, body, { auth: ltc.auth, fresh }).catch(() =>
          postTimed(ltc.url, body, { auth: ltc.auth, fresh }),
        );
        t.push(r.ms);
        bytes = r.bytes;
      }
      if (!fresh) row.push((bytes / 1024).toFixed(0));
      row.push(fmt(stats(t).median));
    }
    probe.push(row);
  }
  console.log("\nlitecoind: one raw batch array of n getblockheader (median of 9):");
  table(["n", "reply KB", "kept-alive ms", "fresh connection ms"], probe);

  // For scale: the same calls made one process each by chaingw itself.
  const CG_LOOP = 50;
  const cgLoop = runOnce([
    "bash",
    "-c",
    `head -n ${CG_LOOP} ${loopHashes} | while read -r h; do ${ltcChaingw.map((a) => `'${a}'`).join(" ")} getblockheader "$h" >/dev/null || exit 1; done`,
  ]).ms;
  console.log(
    `\nfor scale: a shell loop of ${CG_LOOP} one-shot \`chaingw getblockheader\` calls took ${dur(cgLoop)} → ${dur((cgLoop * CALLS) / CG_LOOP)} extrapolated to ${CALLS} (${ratio((cgLoop * CALLS) / CG_LOOP, summary[0].dflt)} the batch run)`,
  );

  // --range: the shortcut built on batch (getblockhash + getblockheader per height, 2 × BLOCKS calls).
  checkLines(
    runOnce([...ltcChaingw, "getblockheader", "--range", `1..${BLOCKS}`], { capture: true }).stdout,
    BLOCKS,
    "--range",
  );
  const range = stats(
    Array.from({ length: 5 }, () => runOnce([...ltcChaingw, "getblockheader", "--range", `1..${BLOCKS}`]).ms),
  );
  console.log(
    `chaingw getblockheader --range 1..${BLOCKS} (${2 * BLOCKS} calls): median ${fmt(range.median)} ms of 5`,
  );

  // Peak memory as the request count grows: stream in, stream out → flat.
  console.log(`\npeak RSS of \`chaingw batch\` (default settings, getblockheader; median of 3 runs each):`);
  const memRows = [];
  for (const n of [1_000, 10_000, 50_000, 200_000]) {
    const f = file(`ltc-${n}.jsonl`, jsonl(n, hdr));
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await peakRss([...ltcChaingw, "batch", f]));
    const mb = stats(runs.map((r) => r.mb)).median;
    const ms = stats(runs.map((r) => r.ms)).median;
    memRows.push([n.toLocaleString("en"), mb.toFixed(1), fmt(ms), runs[0].how]);
  }
  table(["requests", "peak RSS MB", "wall ms", "measured by"], memRows);
  const rss = memRows.map((r) => Number(r[1]));
  console.log(
    "  " +
      target(
        rss[2] <= rss[0] * 1.25,
        `flat memory: 50k uses ${ratio(rss[2], rss[0])} the RSS of 1k (≤ 1.25× counted as flat)`,
      ),
  );
  console.log(
    "  " +
      target(
        rss[3] <= rss[2] * 1.1,
        `bounded: 200k uses ${ratio(rss[3], rss[2])} the RSS of 50k (≤ 1.10×: the plateau once V8's young generation is grown)`,
      ),
  );
  console.log("\n" + loadNote());
} finally {
  await Promise.all([ltc.stop(), anvil.stop()]);
  removeDir(dir);
}
