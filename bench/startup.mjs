// Start-up (issues 6, 19, 40): what one chaingw process costs for one call, next to the floors it is held
// against and the tools people use instead. chaingw runs as a user has it: `npm pack` of this tree installed
// with `npm i -g --prefix` (the npm bin link, the package's own bin/ and dist/). Every case runs interleaved
// (round-robin) in this one run with NODE_EXTRA_CA_CERTS unset; ratios are paired: the median over rounds of
// (chaingw's run / the floor's run in the same round).
//
// The floors: `node -e 0` (node itself), and the bare CommonJS script — a .cjs file that makes the same
// JSON-RPC call with node:http and writes the answer (the fastest plain script: an ES module loads slower).
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  banner,
  fmt,
  foundryBin,
  loadNote,
  NODE,
  ROOT,
  runOnce,
  shortCmd,
  startAnvil,
  startLitecoind,
  table,
  target,
} from "./lib.mjs";

const N = Math.max(15, Number(process.env.BENCH_RUNS ?? 31));
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;
delete env.CHAINGW_CONFIG;

banner(`start-up: one call per process, installed from the tarball (${N} interleaved rounds, paired ratios)`);
const work = mkdtempSync(join(tmpdir(), "chaingw-bench-startup-"));
const ltc = await startLitecoind({ blocks: 10 });
const anvil = await startAnvil({ blocks: 10 });
try {
  // the package as a user installs it
  const tgz = execFileSync("npm", ["pack", "--silent", "--pack-destination", work], {
    cwd: ROOT,
    encoding: "utf8",
  })
    .trim()
    .split("\n")
    .pop();
  const prefix = join(work, "prefix");
  const inst = spawnSync(
    "npm",
    ["install", "-g", "--prefix", prefix, "--offline", "--no-audit", "--no-fund", join(work, tgz)],
    { encoding: "utf8" },
  );
  if (inst.status !== 0) throw new Error(`npm install of the tarball failed: ${inst.stderr}`);
  const chaingw = join(prefix, "bin", "chaingw");

  const auth = `Basic ${Buffer.from(`${ltc.auth.user}:${ltc.auth.password}`).toString("base64")}`;
  /** the bare CommonJS script: the same call with node:http, the answer written as it came */
  const floorFile = (method) => {
    const f = join(work, `floor-${method}.cjs`);
    const body = JSON.stringify({ jsonrpc: "1.0", id: 1, method, params: [] });
    writeFileSync(
      f,
      `const h=require("http");const q=h.request(${JSON.stringify(ltc.url)},{method:"POST",headers:{"content-type":"application/json",authorization:${JSON.stringify(auth)}}},r=>{let s="";r.on("data",c=>s+=c);r.on("end",()=>process.stdout.write(s))});q.end(${JSON.stringify(body)});\n`,
    );
    return f;
  };
  const url = ltc.authUrl;
  const cases = [
    { name: "node -e 0", argv: [NODE, "-e", "0"] },
    { name: "floor getblockcount", argv: [NODE, floorFile("getblockcount")] },
    { name: "chaingw getblockcount", argv: [chaingw, "--url", url, "getblockcount"] },
    { name: "chaingw --json getblockcount", argv: [chaingw, "--json", "--url", url, "getblockcount"] },
    { name: "floor getblockchaininfo", argv: [NODE, floorFile("getblockchaininfo")] },
    { name: "chaingw getblockchaininfo", argv: [chaingw, "--url", url, "getblockchaininfo"] },
    {
      name: "chaingw --json getblockchaininfo",
      argv: [chaingw, "--json", "--url", url, "getblockchaininfo"],
    },
    { name: "litecoin-cli getblockcount", argv: ["litecoin-cli", ...ltc.cliArgs, "getblockcount"] },
    { name: "chaingw eth_blockNumber", argv: [chaingw, "--url", anvil.url, "eth_blockNumber"] },
    {
      name: "cast block-number (native)",
      argv: [foundryBin("cast"), "block-number", "--rpc-url", anvil.url],
    },
    { name: "chaingw --version", argv: [chaingw, "--version"] },
  ].map((c) => ({ ...c, opts: { env } }));

  // each command must really do its job before it is timed
  for (const c of cases) {
    const out = String(runOnce(c.argv, { env, capture: true }).stdout);
    const ok =
      c.name === "node -e 0" ||
      (/version/.test(c.name)
        ? /\d+\.\d+\.\d+/.test(out)
        : /getblockchaininfo/.test(c.name)
          ? /regtest/.test(out)
          : /\d/.test(out));
    if (!ok) throw new Error(`${c.name}: unexpected output: ${out.slice(0, 300)}`);
  }
  console.log("commands:");
  for (const c of cases) console.log(`  ${c.name.padEnd(34)} ${shortCmd(c.argv).slice(0, 140)}`);

  // interleaved rounds, the order rotated each round; one warm-up round
  const ms = new Map(cases.map((c) => [c.name, []]));
  for (let r = 0; r < N + 1; r++)
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(k + r) % cases.length];
      const t = runOnce(c.argv, c.opts).ms;
      if (r > 0) ms.get(c.name).push(t);
    }
  const median = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
  };
  const m = (k) => median(ms.get(k));
  /** the median over rounds of a's run over b's run in the same round */
  const paired = (a, b) => median(ms.get(a).map((x, i) => x / ms.get(b)[i]));
  const x = (v) => `${v.toFixed(2)}×`;
  console.log("");
  table(
    ["case", "median ms", "min ms", "× node -e 0 (paired)"],
    cases.map((c) => [
      c.name,
      fmt(m(c.name)),
      fmt(Math.min(...ms.get(c.name))),
      x(paired(c.name, "node -e 0")),
    ]),
  );
  const rows = [
    ["chaingw getblockcount / bare CommonJS floor", paired("chaingw getblockcount", "floor getblockcount")],
    [
      "chaingw --json getblockcount / bare CommonJS floor",
      paired("chaingw --json getblockcount", "floor getblockcount"),
    ],
    [
      "chaingw getblockchaininfo (rendered) / bare CommonJS floor",
      paired("chaingw getblockchaininfo", "floor getblockchaininfo"),
    ],
    [
      "chaingw --json getblockchaininfo / bare CommonJS floor",
      paired("chaingw --json getblockchaininfo", "floor getblockchaininfo"),
    ],
    ["chaingw getblockcount / node -e 0", paired("chaingw getblockcount", "node -e 0")],
    ["chaingw --json getblockcount / node -e 0", paired("chaingw --json getblockcount", "node -e 0")],
    ["bare CommonJS floor / node -e 0", paired("floor getblockcount", "node -e 0")],
    ["chaingw getblockcount / litecoin-cli", paired("chaingw getblockcount", "litecoin-cli getblockcount")],
    [
      "chaingw eth_blockNumber / native cast",
      paired("chaingw eth_blockNumber", "cast block-number (native)"),
    ],
  ];
  console.log("\npaired ratios (median over rounds of the two runs of one round):");
  table(
    ["comparison", "ratio"],
    rows.map(([k, v]) => [k, x(v)]),
  );
  const worstFloor = Math.max(...rows.slice(0, 4).map(([, v]) => v));
  const worstNode = Math.max(rows[4][1], rows[5][1]);
  console.log("\ntargets (issue 40):");
  console.log(
    `  ${target(worstFloor <= 1.1, `a plain call within 1.1× the bare CommonJS round trip, human and --json: worst ${x(worstFloor)}`)}`,
  );
  console.log(`  ${target(worstNode <= 1.3, `a plain call within 1.3× node -e 0: worst ${x(worstNode)}`)}`);
  console.log(
    `  ${target(m("chaingw eth_blockNumber") < m("cast block-number (native)"), `faster than native cast: ${fmt(m("chaingw eth_blockNumber"))} vs ${fmt(m("cast block-number (native)"))} ms`)}`,
  );
  console.log(loadNote());
} finally {
  await Promise.all([ltc.stop(), anvil.stop()]);
  rmSync(work, { recursive: true, force: true });
}
