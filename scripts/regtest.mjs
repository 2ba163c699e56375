// Local nodes for the demo and the benchmarks: litecoind -regtest and anvil on free loopback ports, in
// temp dirs, stopped by the returned stop() and, as a last resort, on exit/SIGINT/SIGTERM. No side
// effects on import. (The tests have their own TypeScript harness in test/helpers/.)
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../", import.meta.url));
/** The flags every throwaway litecoind gets, shared with the test harness (test/helpers/litecoind.ts). */
const REGTEST_FLAGS = JSON.parse(
  readFileSync(new URL("litecoind-regtest.json", import.meta.url), "utf8"),
).flags;

const platformDir = `${process.platform}-${process.arch === "x64" ? "amd64" : process.arch}`;
/** The platform binary when present (the .bin wrapper is a node script that would add its own start-up). */
export function foundryBin(name) {
  const native = join(ROOT, `node_modules/@foundry-rs/${name}-${platformDir}/bin/${name}`);
  return existsSync(native) ? native : join(ROOT, `node_modules/.bin/${name}`);
}

// ---------------------------------------------------------------------------------------------
// cleanup

const children = new Set();
const dirs = new Set();
let hooked = false;
function hookExit() {
  if (hooked) return;
  hooked = true;
  const sweep = () => {
    for (const c of children) {
      try {
        c.kill("SIGKILL");
      } catch {}
    }
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  };
  process.on("exit", sweep);
  for (const sig of ["SIGINT", "SIGTERM"]) {
    process.on(sig, () => {
      sweep();
      process.exit(130);
    });
  }
}
export function track(child) {
  hookExit();
  children.add(child);
  child.on("exit", () => children.delete(child));
  return child;
}
export function tempDir(prefix) {
  hookExit();
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.add(d);
  return d;
}
export function removeDir(d) {
  rmSync(d, { recursive: true, force: true });
  dirs.delete(d);
}

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function waitExit(child, ms) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(true);
  return new Promise((resolve) => {
    const t = setTimeout(() => resolve(false), ms);
    child.once("exit", () => {
      clearTimeout(t);
      resolve(true);
    });
  });
}
async function terminate(child, ms = 5_000) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  if (!(await waitExit(child, ms))) {
    child.kill("SIGKILL");
    await waitExit(child, 2_000);
  }
}

// ---------------------------------------------------------------------------------------------
// ports and JSON-RPC (harness side; not what is measured)

/** A port that was free a moment ago (listen on 0, read it, close). Also a "refusing" port once closed. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.unref();
    s.on("error", reject);
    s.listen(0, "127.0.0.1", () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
  });
}

/** One JSON-RPC call (or a batch when `body` is an array); throws on transport or JSON-RPC error. */
export async function rpc(url, method, params = [], { auth, timeoutMs = 120_000 } = {}) {
  const headers = { "content-type": "application/json" };
  if (auth)
    headers.authorization = "Basic " + Buffer.from(`${auth.user}:${auth.password}`).toString("base64");
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });
  const r = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(timeoutMs) });
  const text = await r.text();
  let j;
  try {
    j = JSON.parse(text);
  } catch {
    throw new Error(`${method}: HTTP ${r.status}: ${text.slice(0, 200)}`);
  }
  if (j.error) {
    const e = new Error(`${method}: ${j.error.message}`);
    e.code = j.error.code;
    throw e;
  }
  return j.result;
}

/** POST a raw body; resolves with wall ms and the response length (harness-side probe). */
const keptAlive = new Agent({ keepAlive: true });
/**
 * One POST timed from here: on a kept-alive connection (reused across calls), or with `fresh` on a
 * connection of its own (closed after the answer).
 */
export function postTimed(url, body, { auth, fresh = false } = {}) {
  const u = new URL(url);
  const headers = { "content-type": "application/json", "content-length": Buffer.byteLength(body) };
  if (auth)
    headers.authorization = "Basic " + Buffer.from(`${auth.user}:${auth.password}`).toString("base64");
  const t0 = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: "POST",
        headers,
        agent: fresh ? false : keptAlive,
        timeout: 60_000,
      },
      (res) => {
        let bytes = 0;
        res.on("data", (c) => {
          bytes += c.length;
        });
        res.on("end", () => resolve({ ms: performance.now() - t0, bytes }));
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error("postTimed: no answer within 60 s")));
    req.on("error", reject);
    req.end(body);
  });
}

export async function rpcBatch(url, calls, { auth, timeoutMs = 120_000 } = {}) {
  const headers = { "content-type": "application/json" };
  if (auth)
    headers.authorization = "Basic " + Buffer.from(`${auth.user}:${auth.password}`).toString("base64");
  const body = JSON.stringify(calls.map((c, i) => ({ jsonrpc: "2.0", id: i, method: c[0], params: c[1] })));
  const r = await fetch(url, { method: "POST", headers, body, signal: AbortSignal.timeout(timeoutMs) });
  const out = JSON.parse(await r.text());
  out.sort((a, b) => a.id - b.id);
  for (const x of out) if (x.error) throw new Error(`batch: ${x.error.message}`);
  return out.map((x) => x.result);
}

// ---------------------------------------------------------------------------------------------
// litecoind -regtest

/**
 * Starts litecoind -regtest on 127.0.0.1 with a wallet and `blocks` mined. Returns urls, credentials,
 * the litecoin-cli argv prefix, rpc() and stop() (which also removes the datadir).
 */
export async function startLitecoind({ blocks = 0, args = [] } = {}) {
  const datadir = tempDir("chaingw-regtest-ltc-");
  const user = "u" + randomBytes(6).toString("hex");
  const password = randomBytes(12).toString("hex");
  const auth = { user, password };
  let child;
  let port;
  let err = "";
  for (let attempt = 0; attempt < 3; attempt++) {
    port = await freePort();
    const p2p = await freePort();
    err = "";
    child = track(
      spawn(
        "litecoind",
        [
          ...REGTEST_FLAGS,
          `-port=${p2p}`,
          `-rpcport=${port}`,
          `-datadir=${datadir}`,
          `-rpcuser=${user}`,
          `-rpcpassword=${password}`,
          ...args,
        ],
        { stdio: ["ignore", "ignore", "pipe"] },
      ),
    );
    child.stderr.on("data", (c) => {
      if (err.length < 8192) err += c;
    });
    child.on("error", (e) => {
      err += String(e);
    });
    const url = `http://127.0.0.1:${port}/`;
    let ready = false;
    for (let i = 0; i < 400 && !ready; i++) {
      if (child.exitCode !== null) break;
      try {
        await rpc(url, "getblockchaininfo", [], { auth, timeoutMs: 2_000 });
        ready = true;
      } catch (e) {
        if (typeof e.code === "number" && e.code !== -28) throw e;
        await sleep(50);
      }
    }
    if (ready) break;
    await terminate(child);
    if (!/bind|in use/i.test(err)) throw new Error(`litecoind did not start: ${err.trim()}`);
    rmSync(join(datadir, "regtest"), { recursive: true, force: true });
    child = undefined;
  }
  if (!child) throw new Error(`litecoind did not start: ${err.trim()}`);
  const url = `http://127.0.0.1:${port}/`;
  const node = {
    port,
    url,
    authUrl: `http://${user}:${password}@127.0.0.1:${port}/`,
    auth,
    datadir,
    cliArgs: [
      "-regtest",
      `-datadir=${datadir}`,
      "-rpcconnect=127.0.0.1",
      `-rpcport=${port}`,
      `-rpcuser=${user}`,
      `-rpcpassword=${password}`,
    ],
    rpc: (m, p, o) => rpc(url, m, p, { auth, ...o }),
    rpcBatch: (calls) => rpcBatch(url, calls, { auth }),
    stop: async () => {
      try {
        await rpc(url, "stop", [], { auth, timeoutMs: 5_000 });
      } catch {}
      if (!(await waitExit(child, 20_000))) await terminate(child);
      removeDir(datadir);
    },
  };
  try {
    if (blocks > 0) {
      await node.rpc("createwallet", ["w"]);
      const addr = await node.rpc("getnewaddress", ["", "bech32"]);
      for (let left = blocks; left > 0; left -= 500) {
        await node.rpc("generatetoaddress", [Math.min(500, left), addr]);
      }
    }
  } catch (e) {
    await node.stop();
    throw e;
  }
  return node;
}

/** Block hashes for heights 1..n (one batch of getblockhash). */
export async function blockHashes(node, n) {
  return node.rpcBatch(Array.from({ length: n }, (_, i) => ["getblockhash", [i + 1]]));
}

// ---------------------------------------------------------------------------------------------
// anvil

/** `args`: more anvil flags (e.g. `--timestamp N`: nodes started alike share their genesis block). */
export async function startAnvil({ blocks = 0, args = [] } = {}) {
  let lastErr;
  for (let attempt = 0; attempt < 3; attempt++) {
    const port = await freePort();
    const url = `http://127.0.0.1:${port}/`;
    let err = "";
    const child = track(
      spawn(foundryBin("anvil"), ["--port", String(port), "--host", "127.0.0.1", "--silent", ...args], {
        stdio: ["ignore", "ignore", "pipe"],
      }),
    );
    child.stderr.on("data", (c) => {
      if (err.length < 8192) err += c;
    });
    child.on("error", (e) => {
      err += String(e);
    });
    let ready = false;
    for (let i = 0; i < 400 && !ready && child.exitCode === null; i++) {
      try {
        await rpc(url, "eth_chainId", [], { timeoutMs: 2_000 });
        ready = true;
      } catch {
        await sleep(50);
      }
    }
    if (!ready) {
      lastErr = new Error(`anvil did not start: ${err.trim()}`);
      await terminate(child);
      continue;
    }
    const node = {
      port,
      url,
      rpc: (m, p, o) => rpc(url, m, p, o),
      stop: () => terminate(child),
    };
    if (blocks > 0) await node.rpc("anvil_mine", ["0x" + blocks.toString(16)]);
    return node;
  }
  throw lastErr;
}
