// Issue 18, logs over any range: 100,000 Transfer logs from a real anvil, streamed by `chaingw logs`
// (decoded) and `eth_getLogs --split` (raw), with peak memory over a tenth, half and all of the range
// side by side: flat means the window answers, not the range, set the memory. For contrast: one plain
// eth_getLogs holding every log, and cast logs (native binary) over the same ranges.
import { readFileSync } from "node:fs";
import {
  banner,
  CHAINGW,
  dur,
  foundryBin,
  loadNote,
  peakRss,
  ROOT,
  runOnce,
  startAnvil,
  table,
} from "./lib.mjs";

const LOGS_PER_TX = 50;
const TXS = 2_000; // 100,000 logs (+1: the mint)
const TRANSFER = "Transfer(address indexed from,address indexed to,uint256 value)";
const ALICE = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const word = (n) => BigInt(n).toString(16).padStart(64, "0");
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

banner(
  `logs: ${(LOGS_PER_TX * TXS).toLocaleString("en")} Transfer logs streamed from anvil (peak RSS, median of 3)`,
);
const anvil = await startAnvil();
try {
  const { bytecode } = JSON.parse(readFileSync(`${ROOT}test/fixtures/evm/Token.json`, "utf8"));
  const deploy = await anvil.rpc("eth_sendTransaction", [
    { from: ALICE, data: bytecode + word(1000), gas: "0x1000000" },
  ]);
  let receipt = null;
  for (let i = 0; i < 200 && !receipt; i++) {
    receipt = await anvil.rpc("eth_getTransactionReceipt", [deploy]);
    if (!receipt) await sleep(25);
  }
  const token = receipt.contractAddress;
  const t0 = Date.now();
  // spam(n): n Transfer logs in one transaction (selector of spam(uint256))
  let last;
  for (let i = 0; i < TXS; i++)
    last = await anvil.rpc("eth_sendTransaction", [
      { from: ALICE, to: token, data: `0xd337892d${word(LOGS_PER_TX)}`, gas: "0x1000000" },
    ]);
  for (let i = 0; i < 400 && !(await anvil.rpc("eth_getTransactionReceipt", [last])); i++) await sleep(25);
  // under load anvil may mine two sends in one block: the ranges are fractions of the real tip
  const tip = Number(await anvil.rpc("eth_blockNumber", []));
  console.log(
    `setup: ${TXS} transactions of ${LOGS_PER_TX} logs in ${tip} blocks, ${((Date.now() - t0) / 1000).toFixed(1)} s`,
  );
  const ranges = [Math.round(tip / 10), Math.round(tip / 2), tip];
  const url = ["--url", anvil.url, "--heavy-rate", "0"];
  const span = (to) => ["--from-block", "0", "--to-block", String(to), "--address", token];
  const decoded = (to) => [...CHAINGW, ...url, "--format", "jsonl", "logs", ...span(to), TRANSFER];
  const raw = (to) => [...CHAINGW, ...url, "--format", "jsonl", "eth_getLogs", "--split", ...span(to)];
  const whole = (to) => [...CHAINGW, ...url, "--max-response", "1024", "--json", "eth_getLogs", ...span(to)];
  const cast = (to) => [foundryBin("cast"), "logs", "--rpc-url", anvil.url, "--json", ...span(to), TRANSFER];

  // every log exactly once: the lines printed per range, and for the whole range the node's total
  const counts = ranges.map(
    (to) =>
      String(runOnce(decoded(to), { capture: true }).stdout)
        .split("\n")
        .filter(Boolean).length,
  );
  const total = 1 + TXS * LOGS_PER_TX;
  console.log(
    `chaingw logs printed ${counts.map((c) => c.toLocaleString("en")).join(" / ")} lines; the node holds ${total.toLocaleString("en")} logs`,
  );
  if (counts[2] !== total) throw new Error("log count differs from the node's");

  const median = async (argv) => {
    const runs = [];
    for (let i = 0; i < 3; i++) runs.push(await peakRss(argv));
    runs.sort((a, b) => a.mb - b.mb);
    return runs[1];
  };
  const rows = [];
  for (const [name, make] of [
    ["chaingw logs (decoded, jsonl)", decoded],
    ["chaingw eth_getLogs --split (raw, jsonl)", raw],
    ["chaingw eth_getLogs, one answer (--json)", whole],
    ["cast logs --json (native)", cast],
  ]) {
    const cells = [name];
    for (const to of ranges) {
      const r = await median(make(to));
      cells.push(`${r.mb.toFixed(0)} MB, ${dur(r.ms)}`);
    }
    rows.push(cells);
  }
  table(["command", ...counts.map((c) => `${c.toLocaleString("en")} logs`)], rows);
  console.log(loadNote());
} finally {
  await anvil.stop();
}
