// liabilities at scale (issue 24): build N customers × 3 assets (default split 2) and hold its time against
// the floor — the same number of SHA-256 calls over same-sized inputs in a bare Node loop (node:crypto) —
// with peak memory, the tree file's size, one `liabilities proof ID`, `--all` per 1,000 proofs, and one
// `liabilities verify` beside `node -e 0`. LIAB_N (default 1,000,000), LIAB_ALL_N (default 100,000: the
// build --all is timed on).
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  banner,
  CHAINGW,
  dur,
  loadNote,
  NODE,
  peakRss,
  ratio,
  runOnce,
  table,
  timeInterleaved,
} from "./lib.mjs";

const N = Number(process.env.LIAB_N ?? 1_000_000);
const ALL_N = Number(process.env.LIAB_ALL_N ?? 100_000);
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;
const dir = mkdtempSync(join(tmpdir(), "chaingw-bench-liab-"));
const opts = { env, timeoutMs: 3_600_000 };

banner(`liabilities: ${N.toLocaleString("en")} customers × 3 assets, split 2`);

async function balances(file, n) {
  const out = createWriteStream(file);
  let x = 12345;
  let chunk = "customer_id,asset,amount\n";
  for (let c = 0; c < n; c++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    chunk += `cust-${c},BTC,${x % 1000}.${String(x % 1e8).padStart(8, "0")}\ncust-${c},USDT,${x % 100000}.${x % 1000}\ncust-${c},ETH,${x}.000000000000000001\n`;
    if (chunk.length > 1 << 20) {
      if (!out.write(chunk)) await new Promise((ok) => out.once("drain", ok));
      chunk = "";
    }
  }
  out.end(chunk);
  await new Promise((ok) => out.once("finish", ok));
}

const assets = join(dir, "assets.csv");
spawnSync("sh", ["-c", `printf 'asset,decimals\\nBTC,8\\nUSDT,6\\nETH,18\\n' > ${assets}`]);
const input = join(dir, "balances.csv");
await balances(input, N);
const out = join(dir, "build");
const build = await peakRss(
  [...CHAINGW, "liabilities", "build", "--input", input, "--assets", assets, "--out", out],
  opts,
);
const commitment = JSON.parse(spawnSync("cat", [join(out, "commitment.json")], { encoding: "utf8" }).stdout);
const L = commitment.leaves;
const inputBytes = statSync(input).size;
rmSync(input);

// the floor: the build's SHA-256 calls over same-sized inputs: HMAC per customer (2 compressions' worth:
// inner 64+id, outer 64+32), one per leaf (41 + 48 bytes), one per inner node (1 + 2 × 80 bytes)
const floorScript = `
const { createHash } = require("node:crypto");
const n = ${N}, L = ${L};
const id = Buffer.alloc(12, 1), k = Buffer.alloc(64, 2), h = Buffer.alloc(32, 3);
const leaf = Buffer.alloc(89, 4), node = Buffer.alloc(161, 5);
const t0 = process.hrtime.bigint();
for (let i = 0; i < n; i++) { const a = createHash("sha256").update(k).update(id).digest(); createHash("sha256").update(k).update(a).digest(); }
for (let i = 0; i < L; i++) createHash("sha256").update(leaf).digest();
for (let i = 1; i < L; i++) createHash("sha256").update(node).digest();
console.log(Number(process.hrtime.bigint() - t0) / 1e6);`;
const floorRun = runOnce([NODE, "-e", floorScript], { ...opts, capture: true });
const floorMs = Number(String(floorRun.stdout).trim());

const tree = statSync(join(out, "tree.bin")).size;
const proofOut = join(dir, "p.json");
const pr = spawnSync(
  CHAINGW[0],
  [...CHAINGW.slice(1), "liabilities", "proof", "--out", out, `cust-${Math.floor(N / 2)}`],
  {
    env,
    encoding: "utf8",
  },
);
spawnSync("sh", ["-c", `cat > ${proofOut}`], { input: pr.stdout });
const t = timeInterleaved(
  [
    { name: "node -e 0", argv: [NODE, "-e", "0"], opts },
    {
      name: "proof ID",
      argv: [...CHAINGW, "liabilities", "proof", "--out", out, `cust-${Math.floor(N / 3)}`],
      opts,
    },
    {
      name: "verify",
      argv: [...CHAINGW, "liabilities", "verify", proofOut, "--commitment", join(out, "commitment.json")],
      opts,
    },
  ],
  5,
);

// --all on a build of ALL_N customers
const allIn = join(dir, "all.csv");
await balances(allIn, ALL_N);
const allOut = join(dir, "all");
runOnce([...CHAINGW, "liabilities", "build", "--input", allIn, "--assets", assets, "--out", allOut], opts);
const all = runOnce([...CHAINGW, "liabilities", "proof", "--out", allOut, "--all"], opts);

table(
  ["measure", "value"],
  [
    ["input", `${N.toLocaleString("en")} customers, ${(inputBytes / 1e6).toFixed(0)} MB CSV`],
    ["leaves (padded), height", `${L.toLocaleString("en")}, ${commitment.height}`],
    ["build", dur(build.ms)],
    ["SHA-256 floor (node:crypto, same calls)", dur(floorMs)],
    ["build ÷ floor", ratio(build.ms, floorMs)],
    ["peak RSS of build", `${build.mb.toFixed(0)} MB (${build.how})`],
    ["tree.bin", `${(tree / 1e6).toFixed(0)} MB`],
    ["node -e 0 (median)", dur(t.get("node -e 0").median)],
    ["proof ID (median)", dur(t.get("proof ID").median)],
    ["verify (median)", dur(t.get("verify").median)],
    [`--all on ${ALL_N.toLocaleString("en")}: per 1,000 proofs`, dur((all.ms / ALL_N) * 1000)],
  ],
);
console.log(loadNote());
rmSync(dir, { recursive: true, force: true });
