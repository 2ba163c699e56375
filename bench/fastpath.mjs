#!/usr/bin/env node
// Issue 27, the fast path: before/after, side by side in one run, for --version, a plain call, --help,
// reserves scan and call, with a bare node:http round trip as the floor of a plain call. "Before" is a
// commit built from git (BENCH_BEFORE, default 96d4c1e: the last build with one 0.95 MB bundle); "after"
// is dist/ as built now. NODE_EXTRA_CA_CERTS is unset for every run (users' machines lack it).
// Usage: npm run build && node bench/fastpath.mjs   (BENCH_RUNS, default 21)
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  banner,
  buildCopy,
  CHAINGW,
  fmt,
  loadNote,
  NODE,
  ROOT,
  ratio,
  startAnvil,
  startLitecoind,
  table,
  target,
  timeInterleaved,
} from "./lib.mjs";

const N = Math.max(11, Number(process.env.BENCH_RUNS ?? 21));
const BEFORE = process.env.BENCH_BEFORE ?? "96d4c1e";
const env = { ...process.env, XDG_CONFIG_HOME: "/nonexistent/chaingw-bench" };
delete env.NODE_EXTRA_CA_CERTS;
const opts = { env };

banner(`fast path: before (${BEFORE}) and after, median of ${N} interleaved runs`);
const before = [NODE, join(buildCopy(BEFORE).dir, "bin/chaingw")];
const ltc = await startLitecoind({ blocks: 101 });
const anvil = await startAnvil();
try {
  const addr = await ltc.rpc("getnewaddress", ["", "bech32"]);
  const token = JSON.parse(readFileSync(join(ROOT, "test/fixtures/token/token.json"), "utf8")).contracts
    .Token;
  const ctor =
    "0".repeat(62) + "40" + "0".repeat(62) + "12" + "0".repeat(63) + "3" + "544b4e".padEnd(64, "0");
  const hash = await anvil.rpc("eth_sendTransaction", [
    { from: "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", data: token + ctor, gas: "0x1c9c380" },
  ]);
  let receipt = null;
  for (let i = 0; i < 200 && !receipt; i++) receipt = await anvil.rpc("eth_getTransactionReceipt", [hash]);
  const contract = receipt.contractAddress;
  const userpass = `${ltc.auth.user}:${ltc.auth.password}`;
  const body = JSON.stringify({ jsonrpc: "1.0", id: 1, method: "getblockchaininfo", params: [] });
  const floor = `const h=require("http");const q=h.request(${JSON.stringify(ltc.url)},{method:"POST",headers:{"content-type":"application/json",authorization:${JSON.stringify(`Basic ${Buffer.from(userpass).toString("base64")}`)}}},r=>{let s="";r.on("data",c=>s+=c);r.on("end",()=>process.stdout.write(s))});q.end(${JSON.stringify(body)})`;
  const commands = {
    "--version": ["--version"],
    "plain call (getblockchaininfo)": ["--url", ltc.authUrl, "getblockchaininfo"],
    "--help": ["--help"],
    "reserves scan (1 address)": ["--url", ltc.authUrl, "reserves", "scan", addr],
    "call (symbol())": ["--rpc-url", anvil.url, "call", contract, "symbol()(string)"],
  };
  const cases = [{ name: "floor", argv: [NODE, "-e", floor], opts }];
  for (const [name, args] of Object.entries(commands)) {
    cases.push({ name: `before ${name}`, argv: [...before, ...args], opts });
    cases.push({ name: `after ${name}`, argv: [...CHAINGW, ...args], opts });
  }
  const m = timeInterleaved(cases, N);
  const med = (k) => m.get(k).median;
  table(
    ["command", "before ms", "after ms", "after ÷ before"],
    Object.keys(commands).map((k) => [
      k,
      fmt(med(`before ${k}`)),
      fmt(med(`after ${k}`)),
      ratio(med(`after ${k}`), med(`before ${k}`)),
    ]),
  );
  const plain = "plain call (getblockchaininfo)";
  console.log(`\nbare node:http round trip (the floor): ${fmt(med("floor"))} ms`);
  console.log(
    `plain call ÷ floor: before ${ratio(med(`before ${plain}`), med("floor"))}, after ${ratio(med(`after ${plain}`), med("floor"))}`,
  );
  console.log(
    target(
      med(`after ${plain}`) <= 1.1 * med("floor"),
      `a plain call ≤ 1.1× the bare node:http round trip: ${ratio(med(`after ${plain}`), med("floor"))}`,
    ),
  );
  const slower = Object.keys(commands).filter((k) => med(`after ${k}`) > med(`before ${k}`) * 1.05);
  console.log(
    target(
      slower.length === 0,
      `no command slower than before (5% noise allowed)${slower.length ? `: ${slower.join(", ")}` : ""}`,
    ),
  );
  console.log(loadNote());
} finally {
  await ltc.stop();
  await anvil.stop();
}
