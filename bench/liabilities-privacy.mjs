// What liabilities proofs reveal, measured on real builds (issue 38 item 5; docs/liabilities.md "What it
// hides"): for each build (N customers, --split k) every customer's proof is extracted with `proof --all`,
// then, from proofs alone:
//   - one proof: the leaf count L = 2^h bounds the number of customers n within 2× (L/2k < n ≤ L/k);
//   - C colluding proofs (default 50, LIAB_COLLUDE): the share of their level-0 siblings that are not all
//     zero estimates the share of real leaves, so n ≈ share × L / k; the error over 2,000 random sets of C;
//   - a neighbour: how often a proof's level-0 sibling is one part of one other customer's balance, and which
//     share of that balance the part is (median, 10th-90th percentile).
// Every customer holds a non-zero balance here (no zero-balance customer to hide among the padding).
import { spawnSync } from "node:child_process";
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { banner, CHAINGW, loadNote, table } from "./lib.mjs";

const COLLUDE = Number(process.env.LIAB_COLLUDE ?? 50);
const TRIALS = 2000;
const dir = mkdtempSync(join(tmpdir(), "chaingw-bench-privacy-"));
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;
// [customers, split]: the same fill (n·k / L ≈ 0.73) at k = 1, 2, 4, and k = 2 at fills ≈ 0.52 and 0.98
const CASES = [
  [12_000, 1],
  [12_000, 2],
  [12_000, 4],
  [8_500, 2],
  [16_000, 2],
];

banner(`liabilities privacy: ${COLLUDE} colluding proofs, ${TRIALS} random sets per build`);

let x = 987654321;
const rnd = () => {
  x = (x * 1103515245 + 12345) % 2 ** 31;
  return x / 2 ** 31;
};

function run(args) {
  const r = spawnSync(CHAINGW[0], [...CHAINGW.slice(1), ...args], {
    env,
    encoding: "utf8",
    maxBuffer: 1 << 30,
  });
  if (r.status !== 0) throw new Error(`${args.join(" ")}: ${r.stderr}`);
  return r.stdout;
}

async function balances(file, n) {
  const out = createWriteStream(file);
  out.write("customer_id,asset,amount\n");
  for (let c = 0; c < n; c++)
    out.write(`c${c},BTC,${1 + Math.floor(rnd() * 1e4)}.${Math.floor(rnd() * 1e8)}\n`);
  out.end();
  await new Promise((ok) => out.once("finish", ok));
}

const pct = (v, q) => v.slice().sort((a, b) => a - b)[Math.min(v.length - 1, Math.floor(q * v.length))];
const rows = [];
writeAssets();
for (const [n, k] of CASES) {
  const input = join(dir, `b-${n}-${k}.csv`);
  await balances(input, n);
  const out = join(dir, `build-${n}-${k}`);
  run([
    "liabilities",
    "build",
    "--input",
    input,
    "--assets",
    join(dir, "assets.csv"),
    "--out",
    out,
    "--split",
    String(k),
  ]);
  const proofs = run(["liabilities", "proof", "--out", out, "--all"])
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));
  const L = JSON.parse(readFileSync(join(out, "commitment.json"), "utf8")).leaves;
  // leaf index → its owner's balance (base units), from the proofs (the auditor's view, to score a neighbour)
  const ownerTotal = new Map();
  for (const p of proofs) for (const l of p.leaves) ownerTotal.set(l.index, BigInt(p.balances[0].base_units));
  // per proof: its level-0 siblings (index, non-zero?, part of the neighbour's balance)
  const seen = proofs.map((p) =>
    p.leaves.map((l) => {
      const sib = l.index ^ 1;
      const s = BigInt(l.path[0].sums[0]);
      return { sib, real: s !== 0n, share: s === 0n ? 0 : Number(s) / Number(ownerTotal.get(sib) ?? 1n) };
    }),
  );
  // C colluding customers: n estimated from the share of their level-0 siblings that are not zero
  const errors = [];
  for (let t = 0; t < TRIALS; t++) {
    const sibs = new Map();
    for (let i = 0; i < COLLUDE; i++)
      for (const s of seen[Math.floor(rnd() * proofs.length)]) sibs.set(s.sib, s.real);
    const real = [...sibs.values()].filter(Boolean).length / sibs.size;
    errors.push((real * L) / k / n - 1);
  }
  const abs = errors.map(Math.abs);
  const sibReal = seen.flat().filter((s) => s.real);
  const shares = sibReal.map((s) => s.share);
  rows.push([
    n.toLocaleString("en"),
    String(k),
    `${L.toLocaleString("en")} (fill ${((n * k) / L).toFixed(2)})`,
    `${Math.floor(L / (2 * k)) + 1}…${L / k}`,
    `±${(100 * pct(abs, 0.5)).toFixed(1)} % / ±${(100 * pct(abs, 0.95)).toFixed(1)} %`,
    `${((100 * sibReal.length) / seen.flat().length).toFixed(0)} %`,
    `${((100 * seen.filter((s) => s.some((y) => y.real)).length) / seen.length).toFixed(0)} %`,
    `${pct(shares, 0.5).toFixed(2)} (${pct(shares, 0.1).toFixed(2)}…${pct(shares, 0.9).toFixed(2)})`,
  ]);
  rmSync(out, { recursive: true, force: true });
}
table(
  [
    "customers",
    "split",
    "leaves",
    "one proof: n in",
    `${COLLUDE} proofs: n's error, median / 95th pct`,
    "level-0 sibling a neighbour's part (per leaf)",
    "proofs with one",
    "part ÷ neighbour's balance, median (10-90 %)",
  ],
  rows,
);
console.log(loadNote());
rmSync(dir, { recursive: true, force: true });

function writeAssets() {
  spawnSync("sh", ["-c", `printf 'asset,decimals\\nBTC,8\\n' > ${join(dir, "assets.csv")}`]);
}
