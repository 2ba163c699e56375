#!/usr/bin/env node
// `reserves verify` of an exchange's address file WITH nodes (issue 60 items 2 and 5): the bench file of
// bench/exchange-scale.mjs (70 % ETH rows, ethers; 30 % USDT-on-TRON rows, TronWeb v2; every row its own key)
// at 1 k, 10 k and 50 k rows, its ETH rows' balances read from anvil (--chain-id 1, each address given its
// claimed balance by anvil_setBalance, the snapshot height the block mined after) and its TRON rows' from the
// loopback TRON fixture (test/fixtures/tron.ts, bundled by esbuild: java-tron's JSON-RPC answers, the head
// as the snapshot). Each node behind a counting proxy (a real loopback HTTP server): HTTP requests and
// JSON-RPC calls chaingw sends, per 1,000 rows (the aim: at most 20 requests). chaingw timed as a user runs
// it, by /usr/bin/time (wall, CPU of every thread, peak RSS); the nodes' CPU is not chaingw's.
// Usage: node scripts/build.mjs && nice -n 10 node bench/exchange-nodes.mjs [--sizes 1000,10000,50000]
import { execFileSync, spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { banner, CHAINGW, loadNote, table } from "./lib.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const SIZES = arg("sizes", "1000,10000,50000").split(",").map(Number);
const MOST = Math.max(...SIZES);
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const USDT = "TXYZopYRdj2D9XRtbG411XZZ3kM5VkAeBf"; // the fixture's TRC-20 (Nile USDT's address)
const dir = mkdtempSync(join(tmpdir(), "chaingw-bench-nodes-"));

// the bench file of exchange-scale.mjs (made by it, kept in the temp directory)
const base = join(tmpdir(), `chaingw-bench-okx-${Math.max(MOST, 100000)}.csv`);
if (!existsSync(base))
  execFileSync(process.execPath, [join(ROOT, "bench/exchange-scale.mjs"), "--sizes", String(MOST)], {
    stdio: "inherit",
  });
const source = existsSync(base) ? base : join(tmpdir(), `chaingw-bench-okx-${MOST}.csv`);
const lines = readFileSync(source, "utf8").split("\n");

// the TRON fixture, bundled from its TypeScript
const tronJs = join(dir, "tron.mjs");
execFileSync(
  join(ROOT, "node_modules/.bin/esbuild"),
  [join(ROOT, "test/fixtures/tron.ts"), "--bundle", "--platform=node", "--format=esm", `--outfile=${tronJs}`],
  { stdio: "inherit" },
);
const { startTronFixture } = await import(pathToFileURL(tronJs).href);
const tron = await startTronFixture({ chainId: "0x2b6653dc" });

const anvilBin = join(ROOT, "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil");
const port = 20000 + Math.floor(Math.random() * 20000);
const anvilUrl = `http://127.0.0.1:${port}/`;
const anvil = spawn(
  existsSync(anvilBin) ? anvilBin : join(ROOT, "node_modules/.bin/anvil"),
  ["--port", String(port), "--host", "127.0.0.1", "--chain-id", "1", "--silent"],
  { stdio: "ignore" },
);
process.on("exit", () => {
  anvil.kill("SIGKILL");
  rmSync(dir, { recursive: true, force: true });
});

let id = 1;
async function rpc(url, body) {
  for (let i = 0; ; i++) {
    try {
      const r = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return await r.json();
    } catch (e) {
      if (i > 100) throw e;
      await new Promise((ok) => setTimeout(ok, 50));
    }
  }
}
const call = async (method, params = []) => {
  const j = await rpc(anvilUrl, { jsonrpc: "2.0", id: id++, method, params });
  if (j.error) throw new Error(`${method}: ${j.error.message}`);
  return j.result;
};

/** a loopback proxy in front of `upstream` that counts HTTP requests and the JSON-RPC calls in them */
function countingProxy(upstream) {
  const u = new URL(upstream);
  const count = { requests: 0, calls: 0, largest: 0 };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks);
      count.requests++;
      try {
        const j = JSON.parse(body.toString("utf8"));
        const n = Array.isArray(j) ? j.length : 1;
        count.calls += n;
        count.largest = Math.max(count.largest, n);
      } catch {
        count.calls++;
      }
      const up = request(
        {
          host: u.hostname,
          port: u.port,
          path: u.pathname,
          method: "POST",
          agent: false,
          headers: { "content-type": "application/json", "content-length": body.length },
        },
        (r) => {
          res.writeHead(r.statusCode ?? 502, {
            "content-type": r.headers["content-type"] ?? "application/json",
          });
          r.pipe(res);
        },
      );
      up.on("error", () => {
        res.writeHead(502);
        res.end();
      });
      up.end(body);
    });
  });
  // idle connections kept a minute, as nodes' own servers do (geth 120 s): Node's default of 5 s closes a
  // socket chaingw may be reusing after a pause of judging (a reset, which it does not retry for every method)
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 61_000;
  return new Promise((ok) =>
    server.listen(0, "127.0.0.1", () =>
      ok({
        url: `http://127.0.0.1:${server.address().port}${u.pathname}`,
        count,
        close: () => server.close(),
      }),
    ),
  );
}

// every ETH row's address holds its claimed balance on anvil; the snapshot is the block mined after
const wei = (amount) => {
  const [w, f = ""] = amount.split(".");
  return BigInt(w) * 10n ** 18n + BigInt(f.padEnd(18, "0"));
};
const ethRows = lines.slice(1, MOST + 1).filter((l) => l.startsWith("ETH,"));
for (let i = 0; i < ethRows.length; i += 500) {
  const batch = ethRows.slice(i, i + 500).map((l) => {
    const c = l.split(",");
    return {
      jsonrpc: "2.0",
      id: id++,
      method: "anvil_setBalance",
      params: [c[3], `0x${wei(c[4]).toString(16)}`],
    };
  });
  const r = await rpc(anvilUrl, batch);
  const bad = r.find?.((x) => x.error);
  if (bad) throw new Error(`anvil_setBalance: ${bad.error.message}`);
}
await call("evm_mine");
const ethHeight = Number(BigInt(await call("eth_blockNumber")));
const tronHeight = tron.head();

const eth = await countingProxy(anvilUrl);
const trx = await countingProxy(tron.url);

banner(
  `exchange address file WITH nodes: ${SIZES.join(" / ")} rows (70 % ETH on anvil, 30 % USDT-TRC20 on the TRON fixture)`,
);
const out = [];
const notes = [];
for (const n of SIZES) {
  const f = join(dir, `okx-${n}.csv`);
  const rows = lines
    .slice(1, n + 1)
    .map((l) => l.replace(",21000000,", `,${l.startsWith("ETH,") ? ethHeight : tronHeight},`));
  writeFileSync(f, `${lines[0]}\n${rows.join("\n")}\n`);
  const e0 = { ...eth.count };
  const t0 = { ...trx.count };
  // the nodes' proxies and the TRON fixture answer in this process: chaingw is timed alone, as its child
  const run = await timedAsync([
    ...CHAINGW,
    "reserves",
    "verify",
    f,
    "--json",
    "--node",
    `ETH=${eth.url}`,
    "--node",
    `TRON=${trx.url}`,
    "--token",
    `USDT=${USDT}`,
    // anvil on chain id 1 and the fixture on TRON's chain id are devnets standing in for Ethereum and TRON
    // (without it they cannot say: 1b0c53d)
    "--stand-in",
    "ethereum",
    "--stand-in",
    "tron",
  ]);
  if (run.status !== 1 && run.status !== 0 && run.status !== 3)
    throw new Error(`reserves verify exited ${run.status}: ${run.stderr.slice(-2000)}`);
  const report = JSON.parse(run.stdout);
  const requests = eth.count.requests - e0.requests + trx.count.requests - t0.requests;
  const calls = eth.count.calls - e0.calls + trx.count.calls - t0.calls;
  const c = report.counts;
  // a row whose balance was not re-read: why (the first of them)
  const unread = report.rows.find((r) => r.status === "signed");
  if (unread) notes.push(`${n} rows: ${c.signed} not re-read, e.g. line ${unread.line}: ${unread.reason}`);
  out.push([
    n.toLocaleString("en"),
    `${run.wall.toFixed(2)} s`,
    `${run.cpu.toFixed(2)} s`,
    `${run.rss.toFixed(0)} MB`,
    `${eth.count.requests - e0.requests} / ${trx.count.requests - t0.requests}`,
    `${((requests * 1000) / n).toFixed(1)}`,
    `${((calls * 1000) / n).toFixed(0)}`,
    `${Math.max(eth.count.largest, trx.count.largest)}`,
    `${c.proven} proven, ${c.failed} failed, ${c.signed} signed`,
  ]);
}
table(
  [
    "rows",
    "wall",
    "CPU",
    "peak RSS",
    "requests ETH / TRON",
    "requests per 1,000 rows",
    "calls per 1,000 rows",
    "largest batch",
    "rows",
  ],
  out,
);
for (const x of notes) console.log(x);
console.log(loadNote());
eth.close();
trx.close();
await tron.stop();
process.exit(0);

/** wall, CPU and peak RSS of one process by GNU time, its output kept; this process's event loop left free */
function timedAsync(argv) {
  return new Promise((ok) => {
    const child = spawn("/usr/bin/time", ["-f", "%e %U %S %M", ...argv], {
      stdio: ["ignore", "pipe", "pipe"],
      env: Object.fromEntries(Object.entries(process.env).filter(([k]) => k !== "NODE_EXTRA_CA_CERTS")),
    });
    const so = [];
    const se = [];
    child.stdout.on("data", (d) => so.push(d));
    child.stderr.on("data", (d) => se.push(d));
    child.on("close", (status) => {
      const stderr = Buffer.concat(se).toString("utf8");
      const [wall, user, sys, rss] = stderr.trim().split("\n").at(-1).split(" ").map(Number);
      ok({
        wall,
        cpu: user + sys,
        rss: rss / 1024,
        status,
        stdout: Buffer.concat(so).toString("utf8"),
        stderr,
      });
    });
  });
}
