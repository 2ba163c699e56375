// Issue 60 item 4: `chaingw batch` of 10,000 calls beside one raw JSON-RPC batch (curl), for several
// builds side by side in one run (BATCH_REFS=ref,ref,...; "dist" = the current dist/). Interleaved.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  blockHashes,
  buildCopy,
  fmt,
  loadNote,
  NODE,
  ratio,
  removeDir,
  runOnce,
  startAnvil,
  startLitecoind,
  stats,
  table,
  tempDir,
} from "./lib.mjs";

const BLOCKS = 2000;
const CALLS = 10_000;
const N = Number(process.env.BENCH_BULK_RUNS ?? 9);
const refs = (process.env.BATCH_REFS ?? "dist").split(",");
const builds = refs.map((r) => ({ ref: r, ...(r === "dist" ? buildCopy() : buildCopy(r)) }));
const dir = tempDir("chaingw-bench-bisect-");
const jsonl = (n, mk) => Array.from({ length: n }, (_, i) => JSON.stringify(mk(i))).join("\n") + "\n";
const raw = (n, mk) =>
  JSON.stringify(Array.from({ length: n }, (_, i) => ({ jsonrpc: "2.0", id: i, ...mk(i) })));
const which = (process.env.BATCH_CHAINS ?? "ltc,eth").split(",");
const [ltc, anvil] = await Promise.all([
  which.includes("ltc") ? startLitecoind({ blocks: BLOCKS }) : null,
  which.includes("eth") ? startAnvil({ blocks: BLOCKS }) : null,
]);
try {
  const chains = [];
  if (ltc) {
    const hashes = await blockHashes(ltc, BLOCKS);
    const hdr = (i) => ({ method: "getblockheader", params: [hashes[i % BLOCKS]] });
    writeFileSync(join(dir, "ltc.jsonl"), jsonl(CALLS, hdr));
    writeFileSync(join(dir, "ltc.json"), raw(CALLS, hdr));
    chains.push({
      name: "litecoind getblockheader",
      base: ["--url", ltc.authUrl, "batch", join(dir, "ltc.jsonl")],
      curl: [
        "curl",
        "-sf",
        "-u",
        `${ltc.auth.user}:${ltc.auth.password}`,
        "-H",
        "content-type: application/json",
        "--data-binary",
        `@${join(dir, "ltc.json")}`,
        ltc.url,
      ],
    });
  }
  if (anvil) {
    const blk = (i) => ({
      method: "eth_getBlockByNumber",
      params: ["0x" + ((i % BLOCKS) + 1).toString(16), false],
    });
    writeFileSync(join(dir, "eth.jsonl"), jsonl(CALLS, blk));
    writeFileSync(join(dir, "eth.json"), raw(CALLS, blk));
    chains.push({
      name: "anvil eth_getBlockByNumber",
      base: ["--chain", "evm", "--url", anvil.url, "batch", join(dir, "eth.jsonl")],
      curl: [
        "curl",
        "-sf",
        "-H",
        "content-type: application/json",
        "--data-binary",
        `@${join(dir, "eth.json")}`,
        anvil.url,
      ],
    });
  }
  for (const c of chains) {
    const cases = [
      ...builds.map((b) => ({
        name: `chaingw batch @ ${b.ref}`,
        argv: [NODE, join(b.dir, "bin/chaingw"), ...c.base],
      })),
      { name: "curl raw batch", argv: c.curl },
    ];
    for (const k of cases) {
      const o = String(runOnce(k.argv, { capture: true }).stdout);
      if (k.name.startsWith("chaingw") && o.trimEnd().split("\n").length !== CALLS)
        throw new Error(`${k.name}: wrong output`);
    }
    // wall and CPU (user + system, every thread; GNU time) of each case, round-robin: under load the
    // wall is mostly waiting for a core, the CPU much less so
    const wall = new Map(cases.map((k) => [k.name, []]));
    const cpu = new Map(cases.map((k) => [k.name, []]));
    for (let r = 0; r <= N; r++) {
      for (let j = 0; j < cases.length; j++) {
        const k = cases[(j + r) % cases.length];
        const o = runOnce(["/usr/bin/time", "-f", "%U %S", ...k.argv]);
        const [u, sy] = o.stderr.trim().split("\n").pop().split(" ").map(Number);
        if (r > 0) {
          wall.get(k.name).push(o.ms);
          cpu.get(k.name).push((u + sy) * 1000);
        }
      }
    }
    const res = new Map([...wall].map(([k, v]) => [k, stats(v)]));
    const cres = new Map([...cpu].map(([k, v]) => [k, stats(v)]));
    const ceil = res.get("curl raw batch").median;
    console.log(`\n${c.name} ×${CALLS} (median of ${N} interleaved):`);
    table(
      ["case", "wall median ms", "min", "max", "× curl", "CPU median ms", "CPU min"],
      cases.map((k) => {
        const s = res.get(k.name);
        const c = cres.get(k.name);
        return [
          k.name,
          fmt(s.median),
          fmt(s.min),
          fmt(s.max),
          ratio(s.median, ceil),
          fmt(c.median),
          fmt(c.min),
        ];
      }),
    );
    // per-round ratio (each round's chaingw over the same round's curl)
    for (const k of cases.slice(0, -1)) {
      const a = res.get(k.name).samples,
        b = res.get("curl raw batch").samples;
      const rr = a.map((x, i) => x / b[i]).sort((x, y) => x - y);
      console.log(
        `  ${k.name}: per-round ratio median ${rr[rr.length >> 1].toFixed(2)}× (${rr[0].toFixed(2)}-${rr[rr.length - 1].toFixed(2)})`,
      );
    }
  }
  console.log("\n" + loadNote());
} finally {
  await Promise.all([ltc?.stop(), anvil?.stop()]);
  removeDir(dir);
  for (const b of builds) removeDir(b.dir);
}
