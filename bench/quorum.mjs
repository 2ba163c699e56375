#!/usr/bin/env node
// The time cost of --quorum K (issue 25): the same proof made with K = 1, 2 and 3 nodes, side by side.
//  - UTXO: `reserves scan --proof` of N addresses on three litecoind regtest nodes holding the same chain
//    (blocks copied from the first with submitblock), K scans run side by side;
//  - EVM: `reserves balances` of N addresses on three anvil nodes sharing a genesis block (--timestamp),
//    every read made again on each other node.
// Prints medians and the ratio to K = 1. Usage: node scripts/build.mjs && node bench/quorum.mjs [--addresses 1000] [--runs 3]
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  banner,
  CHAINGW,
  dur,
  loadNote,
  ratio,
  rpcBatch,
  startAnvil,
  startLitecoind,
  table,
  tempDir,
  timeInterleaved,
} from "./lib.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const N = arg("addresses", 1000);
const RUNS = arg("runs", 3);
const env = { ...process.env, XDG_CONFIG_HOME: "/nonexistent/chaingw-bench" };
// users' machines lack this variable; it adds ~60 ms to every Node start here
delete env.NODE_EXTRA_CA_CERTS;
const dir = tempDir("chaingw-bench-quorum-");

banner(`--quorum K: the cost of K = 2 and 3 beside K = 1 (${N} addresses)`);

// UTXO: three nodes, one chain
const ltc = await Promise.all([startLitecoind({ blocks: 150 }), startLitecoind(), startLitecoind()]);
const hashes = await ltc[0].rpcBatch(Array.from({ length: 150 }, (_, i) => ["getblockhash", [i + 1]]));
const raw = await ltc[0].rpcBatch(hashes.map((h) => ["getblock", [h, 0]]));
for (const n of ltc.slice(1)) for (const b of raw) await n.rpc("submitblock", [b]);
const desc = (
  await ltc[0].rpc("getdescriptorinfo", [
    "wpkh(tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp/0/*)",
  ])
).descriptor;
const addrs = await ltc[0].rpc("deriveaddresses", [desc, [0, N - 1]]);
const ltcList = join(dir, "ltc.txt");
writeFileSync(ltcList, `${addrs.join("\n")}\n`);
const urls = ltc.flatMap((n) => ["--url", n.authUrl]);
const scanCases = [1, 2, 3].map((k) => ({
  name: `K=${k}`,
  argv: [
    ...CHAINGW,
    ...urls.slice(0, 2 * k),
    "reserves",
    "scan",
    "-f",
    ltcList,
    "--proof",
    join(dir, `ltc-${k}.json`),
    ...(k > 1 ? ["--quorum", String(k)] : []),
  ],
  opts: { env },
}));
const scan = timeInterleaved(scanCases, RUNS);

// EVM: three anvils, one genesis
const evm = await Promise.all([1, 2, 3].map(() => startAnvil({ args: ["--timestamp", "1700000000"] })));
const holders = Array.from(
  { length: N },
  (_, i) => `0x${(0x3000000000000000000000000000000000000000n + BigInt(i)).toString(16)}`,
);
for (const n of evm)
  await rpcBatch(
    n.url,
    holders.map((h, i) => ["anvil_setBalance", [h, `0x${(BigInt(i + 1) * 10n ** 15n).toString(16)}`]]),
  );
const evmList = join(dir, "evm.txt");
writeFileSync(evmList, `${holders.join("\n")}\n`);
const evmUrls = evm.flatMap((n) => ["--url", n.url]);
const evmCases = [1, 2, 3].map((k) => ({
  name: `K=${k}`,
  argv: [
    ...CHAINGW,
    ...evmUrls.slice(0, 2 * k),
    "reserves",
    "balances",
    "-f",
    evmList,
    "--proof",
    join(dir, `evm-${k}.json`),
    ...(k > 1 ? ["--quorum", String(k)] : []),
  ],
  opts: { env },
}));
const bal = timeInterleaved(evmCases, RUNS);

const row = (what, m) => {
  const one = m.get("K=1").median;
  return [1, 2, 3].map((k) => [
    what,
    `K=${k}`,
    dur(m.get(`K=${k}`).median),
    ratio(m.get(`K=${k}`).median, one),
  ]);
};
table(
  ["proof", "quorum", "median", "÷ K=1"],
  [...row(`reserves scan --proof, ${N} addresses`, scan), ...row(`reserves balances, ${N} addresses`, bal)],
);
console.log(loadNote());
await Promise.all([...ltc, ...evm].map((n) => n.stop()));
process.exit(0);
