#!/usr/bin/env node
// The token probe of `reserves verify` (the tracking probe: each token's balanceOf plainly, with the native
// balances raised, and with every OTHER declared token's code replaced — reads-token.ts — then the shared-ledger
// probe, one eth_createAccessList a token an address) at an exchange's shape: N ERC-20 tokens deployed on a
// throwaway anvil (test/fixtures/token/token.json's Token), one proof of the native coin and all N at one
// address. Through a counting loopback proxy: HTTP requests, JSON-RPC entries by method, state-override entries
// replacing a token's code (N(N−1) in the first round), bytes sent; wall time of `reserves verify` beside
// `reserves balances` of the same N tokens (the reads alone, no probe); anvil's CPU (utime+stime from
// /proc/PID/stat) and chaingw's (GNU time) during each.
// Usage: node scripts/build.mjs && env -u NODE_EXTRA_CA_CERTS nice -n 10 node bench/token-probe.mjs [--tokens 100,200,400,800]
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { encodeData, from as fnFrom } from "ox/AbiFunction";
import { encode, from as paramsFrom } from "ox/AbiParameters";

const i = process.argv.indexOf("--tokens");
const SIZES = (i > 0 ? process.argv[i + 1] : "100,200,400,800").split(",").map(Number);
const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = join(ROOT, "bin", "chaingw");
const env = { ...process.env };
delete env.NODE_EXTRA_CA_CERTS;
const TICK = 100; // clock ticks a second (getconf CLK_TCK on Linux x64)
const HOLDER = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const load = () =>
  loadavg()
    .map((x) => x.toFixed(2))
    .join(" ");

const native = join(ROOT, "node_modules/@foundry-rs/anvil-linux-amd64/bin/anvil");
const code = JSON.parse(readFileSync(join(ROOT, "test/fixtures/token/token.json"), "utf8")).contracts.Token;
const MINT = fnFrom("function mint(address[] to, uint256[] amounts)");
const GNU_TIME = existsSync("/usr/bin/time");

/** anvil's CPU so far, seconds (utime + stime of /proc/PID/stat). */
function cpuOf(pid) {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8");
  const rest = f.slice(f.lastIndexOf(")") + 2).split(" ");
  return (Number(rest[11]) + Number(rest[12])) / TICK;
}

/** Runs chaingw; wall ms, its CPU s (GNU time: user + sys), max RSS KB, exit code. */
function run(args) {
  return new Promise((ok) => {
    const t0 = process.hrtime.bigint();
    const argv = GNU_TIME
      ? ["/usr/bin/time", "-f", "%U %S %M", process.execPath, BIN, ...args]
      : [process.execPath, BIN, ...args];
    const p = spawn(argv[0], argv.slice(1), { env, stdio: ["ignore", "ignore", "pipe"] });
    let err = "";
    p.stderr.on("data", (d) => {
      err += d;
    });
    p.on("close", (code) => {
      const wall = Number(process.hrtime.bigint() - t0) / 1e6;
      const last = err.trim().split("\n").pop() ?? "";
      const [u, s, m] = last.split(" ").map(Number);
      ok({ wall, cpu: GNU_TIME ? u + s : Number.NaN, rss: m, code, err: err.slice(0, 400) });
    });
  });
}

async function one(n) {
  const port = 20000 + Math.floor(Math.random() * 20000);
  const url = `http://127.0.0.1:${port}/`;
  const anvil = spawn(existsSync(native) ? native : join(ROOT, "node_modules/.bin/anvil"), [
    "--port",
    String(port),
    "--silent",
  ]);
  const dir = mkdtempSync(join(tmpdir(), "chaingw-bench-probe-"));
  let server;
  try {
    let id = 1;
    const post = async (body) => {
      for (let k = 0; ; k++) {
        try {
          const r = await fetch(url, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body,
          });
          return await r.json();
        } catch (e) {
          if (k > 200) throw e;
          await new Promise((ok) => setTimeout(ok, 50));
        }
      }
    };
    const batch = async (calls) => {
      const out = [];
      for (let k = 0; k < calls.length; k += 100) {
        const a = await post(
          JSON.stringify(
            calls.slice(k, k + 100).map(([method, params]) => ({ jsonrpc: "2.0", id: id++, method, params })),
          ),
        );
        for (const x of a) if (x.error) throw new Error(`${x.error.message}`);
        out.push(...a.map((x) => x.result));
      }
      return out;
    };
    // explicit nonces: a batch of sends is taken concurrently
    let nonce = Number(BigInt((await batch([["eth_getTransactionCount", [HOLDER, "pending"]]]))[0]));
    const tx = (t) => [
      "eth_sendTransaction",
      [{ from: HOLDER, gas: "0x2dc6c0", nonce: `0x${(nonce++).toString(16)}`, ...t }],
    ];
    const t0 = Date.now();
    // in chunks of 20 sends, each chunk's receipts awaited (bounded) before the next
    const sendAll = async (txs) => {
      const out = [];
      for (let k = 0; k < txs.length; k += 20) out.push(...(await mined(await batch(txs.slice(k, k + 20)))));
      return out;
    };
    const mined = async (hs) => {
      for (let k = 0; k < 2000; k++) {
        const rs = await batch(hs.map((h) => ["eth_getTransactionReceipt", [h]]));
        if (rs.every((r) => r !== null)) {
          if (rs.some((r) => r.status !== "0x1")) throw new Error("a transaction failed");
          return rs;
        }
        await new Promise((ok) => setTimeout(ok, 20));
      }
      throw new Error("transactions not mined");
    };
    const tokens = (
      await sendAll(
        Array.from({ length: n }, (_, k) =>
          tx({ data: code + encode(paramsFrom(["string", "uint8"]), [`T${k}`, 18]).slice(2) }),
        ),
      )
    ).map((r) => r.contractAddress.toLowerCase());
    await sendAll(
      tokens.map((t, k) => tx({ to: t, data: encodeData(MINT, [[HOLDER], [BigInt(k + 1) * 10n ** 18n]]) })),
    );
    await batch([["evm_mine", []]]);
    const deployed = Date.now() - t0;

    // the counting proxy: every request forwarded to anvil as it came
    const c = { requests: 0, bytes: 0, entries: {}, replaced: 0, dropped: 0, droppedBytes: 0 };
    server = createServer((req, res) => {
      const chunks = [];
      req.on("data", (d) => chunks.push(d));
      req.on("end", async () => {
        const body = Buffer.concat(chunks);
        c.requests++;
        c.bytes += body.length;
        for (const e of [JSON.parse(body.toString("utf8"))].flat()) {
          c.entries[e.method] = (c.entries[e.method] ?? 0) + 1;
          const o = e.method === "eth_call" ? e.params?.[2] : undefined;
          if (o && typeof o === "object")
            for (const [a, v] of Object.entries(o))
              if (v?.code && tokens.includes(a.toLowerCase())) c.replaced++;
        }
        try {
          const r = await fetch(url, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body,
          });
          res.writeHead(r.status, { "content-type": "application/json" });
          res.end(Buffer.from(await r.arrayBuffer()));
        } catch {
          // anvil closed the connection on the body (too large for it): the client sees the same
          c.dropped++;
          c.droppedBytes = Math.max(c.droppedBytes, body.length);
          res.destroy();
        }
      });
    });
    await new Promise((ok) => server.listen(0, "127.0.0.1", ok));
    const via = `http://127.0.0.1:${server.address().port}/`;
    const proof = join(dir, "proof.json");
    const tokenArgs = tokens.flatMap((t) => ["--token", t]);
    const measure = async (args) => {
      Object.assign(c, { requests: 0, bytes: 0, entries: {}, replaced: 0, dropped: 0, droppedBytes: 0 });
      const before = cpuOf(anvil.pid);
      const r = await run(args);
      return { ...r, anvil: cpuOf(anvil.pid) - before, counts: { ...c, entries: { ...c.entries } } };
    };
    const made = await measure([
      "--url",
      via,
      "reserves",
      "balances",
      HOLDER,
      "--native",
      ...tokenArgs,
      "--proof",
      proof,
    ]);
    if (made.code !== 0) throw new Error(`reserves balances exited ${made.code}: ${made.err}`);
    const verified = await measure(["--url", via, "reserves", "verify", proof, "--json"]);
    if (verified.code !== 0)
      console.log(
        `  reserves verify exited ${verified.code}: ${verified.err.replace(/\s+/g, " ").slice(0, 300)}`,
      );
    return { n, deployed, made, verified, load: load() };
  } finally {
    server?.close();
    anvil.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}

console.log(
  `token probe at an exchange's shape — ${new Date().toISOString().slice(0, 16).replace("T", " ")} UTC, node ${process.version}, loadavg ${load()}`,
);
const rows = [];
for (const n of SIZES) {
  const r = await one(n);
  rows.push(r);
  const e = r.verified.counts.entries;
  console.log(
    `N=${n} (deployed in ${(r.deployed / 1000).toFixed(1)} s; loadavg ${r.load})\n` +
      `  reserves balances: ${(r.made.wall / 1000).toFixed(2)} s wall, chaingw CPU ${r.made.cpu.toFixed(2)} s, anvil CPU ${r.made.anvil.toFixed(2)} s, ${r.made.counts.requests} requests, ${(r.made.counts.bytes / 1e6).toFixed(2)} MB sent\n` +
      `  reserves verify:   ${(r.verified.wall / 1000).toFixed(2)} s wall, chaingw CPU ${r.verified.cpu.toFixed(2)} s (max RSS ${(r.verified.rss / 1024).toFixed(0)} MB), anvil CPU ${r.verified.anvil.toFixed(2)} s, ${r.verified.counts.requests} requests, ${(r.verified.counts.bytes / 1e6).toFixed(2)} MB sent\n` +
      `    entries: ${Object.entries(e)
        .map(([m, k]) => `${m} ${k}`)
        .join(
          ", ",
        )}; token-code overrides ${r.verified.counts.replaced} (N(N−1) = ${n * (n - 1)}); requests anvil dropped unanswered ${r.verified.counts.dropped} (largest ${(r.verified.counts.droppedBytes / 1e6).toFixed(2)} MB)`,
  );
}
console.log(`done, loadavg ${load()}`);
