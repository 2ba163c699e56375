#!/usr/bin/env node
// EVM reserves on a throwaway anvil: `chaingw reserves balances` over N addresses × (ETH + 3 tokens) at one
// pinned block, side by side with curl sending the same eth_getBalance/eth_call reads as one raw JSON-RPC
// batch array (the ceiling: no checks, no proof). Prints medians and the ratio.
// Usage: node scripts/build.mjs && node bench/evm-reserves.mjs [--addresses 5000] [--runs 3]
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { encodeData, from as fnFrom } from "ox/AbiFunction";
import { encode, from as paramsFrom } from "ox/AbiParameters";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg("addresses", 5000);
const RUNS = arg("runs", 3);
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = join(ROOT, "bin", "chaingw");
const env = { ...process.env };
// users' machines lack this variable; it adds ~60 ms to every Node start here
delete env.NODE_EXTRA_CA_CERTS;

const native = join(ROOT, "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil");
const port = 20000 + Math.floor(Math.random() * 20000);
const url = `http://127.0.0.1:${port}/`;
const anvil = spawn(
  existsSync(native) ? native : join(ROOT, "node_modules/.bin/anvil"),
  ["--port", String(port), "--silent"],
  {
    stdio: "ignore",
  },
);
const dir = mkdtempSync(join(tmpdir(), "chaingw-bench-evm-"));
process.on("exit", () => {
  anvil.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});
let id = 1;
async function rpc(method, params = []) {
  for (let i = 0; ; i++) {
    try {
      const r = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: id++, method, params }),
      });
      const j = await r.json();
      if (j.error) throw new Error(`${method}: ${j.error.message}`);
      return j.result;
    } catch (e) {
      if (i > 100 || /: /.test(e.message)) throw e;
      await new Promise((ok) => setTimeout(ok, 50));
    }
  }
}
const FROM = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
async function send(tx) {
  const h = await rpc("eth_sendTransaction", [{ from: FROM, gas: "0x1c9c380", ...tx }]);
  for (;;) {
    const r = await rpc("eth_getTransactionReceipt", [h]);
    if (r) return r;
    await new Promise((ok) => setTimeout(ok, 10));
  }
}
const code = JSON.parse(readFileSync(join(ROOT, "test/fixtures/token/token.json"), "utf8")).contracts.Token;
const holders = Array.from(
  { length: N },
  (_, i) => `0x${createHash("sha256").update(`bench ${i}`).digest("hex").slice(0, 40)}`,
);
const tokens = [];
const MINT = fnFrom("function mint(address[] to, uint256[] amounts)");
for (const [sym, dec] of [
  ["USDX", 6],
  ["WBTX", 8],
  ["DAIX", 18],
]) {
  const r = await send({ data: code + encode(paramsFrom(["string", "uint8"]), [sym, dec]).slice(2) });
  tokens.push(r.contractAddress);
  for (let i = 0; i < N; i += 250) {
    const to = holders.slice(i, i + 250);
    await send({
      to: r.contractAddress,
      data: encodeData(MINT, [to, to.map((_, k) => BigInt(i + k) * 1_000_003n + 7n)]),
    });
  }
}
await rpc("evm_mine");
const block = await rpc("eth_blockNumber");
writeFileSync(join(dir, "list.txt"), `${holders.join("\n")}\n`);

// the same reads as one raw array: eth_getBalance and balanceOf for every holder at the block
const calls = [];
for (const a of holders) calls.push({ method: "eth_getBalance", params: [a, block] });
for (const t of tokens)
  for (const a of holders)
    calls.push({
      method: "eth_call",
      params: [{ to: t, data: `0x70a08231${a.slice(2).padStart(64, "0")}` }, block],
    });
// in arrays of 250, 4 in flight, as chaingw sends them (anvil refuses one body of megabytes: broken pipe)
const envs = calls.map((c, i) => ({ jsonrpc: "2.0", id: i + 1, ...c }));
const files = [];
for (let i = 0; i < envs.length; i += 250) {
  const f = join(dir, `batch-${i}.json`);
  writeFileSync(f, JSON.stringify(envs.slice(i, i + 250)));
  files.push(f);
}

const time = (cmd, args) => {
  const t = process.hrtime.bigint();
  const r = spawnSync(cmd, args, { env, stdio: ["ignore", "ignore", "pipe"], maxBuffer: 1 << 30 });
  if (r.status !== 0) console.error(cmd, r.status, String(r.stderr).slice(0, 300));
  if (r.status !== 0) throw new Error(`${cmd} failed: ${r.stderr}`);
  return Number(process.hrtime.bigint() - t) / 1e6;
};
const cg = [
  BIN,
  "--url",
  url,
  "reserves",
  "balances",
  "-f",
  join(dir, "list.txt"),
  "--native",
  ...tokens.flatMap((t) => ["--token", t]),
  "--block",
  String(Number(block)),
  "--json",
];
const curl = ["-sS", "-Z", "--parallel-max", "4"];
files.forEach((f, i) => {
  if (i) curl.push("--next");
  curl.push("-o", "/dev/null", "-H", "content-type: application/json", "--data-binary", `@${f}`, url);
});
const a = [];
const b = [];
time(process.execPath, cg);
time("curl", curl);
for (let i = 0; i < RUNS; i++) {
  a.push(time(process.execPath, cg));
  b.push(time("curl", curl));
}
const med = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const reads = calls.length;
const proof = JSON.parse(execFileSync(process.execPath, cg, { env, maxBuffer: 1 << 30 }).toString());
console.log(
  `\nEVM reserves: ${N.toLocaleString("en")} addresses × (ETH + ${tokens.length} tokens) = ${reads.toLocaleString("en")} reads at block ${Number(block)}, median of ${RUNS}`,
);
console.log(`  chaingw reserves balances (proof, totals, pinned-block checks): ${med(a).toFixed(0)} ms`);
console.log(`  curl -Z, the same reads as raw arrays of 250, 4 in flight:      ${med(b).toFixed(0)} ms`);
console.log(
  `  ratio: ${(med(a) / med(b)).toFixed(2)}×  (totals: ${proof.assets.map((x) => `${x.total.amount} ${x.symbol}`).join(", ")})`,
);
