// `chaingw serve` against the node it fronts: throughput and p50/p99 latency of getblockheader straight to
// litecoind vs through the gateway at equal concurrency (autocannon, same connections, same bodies),
// uncached and cached, side by side in interleaved rounds (medians); then the gateway's RSS over a soak.
//
//   node bench/serve.mjs                 # 3 rounds of 5 s per case, 180 s soak
//   BENCH_SERVE_ROUNDS=5 BENCH_SERVE_SECONDS=10 BENCH_SOAK_S=300 node bench/serve.mjs
//
// Aims (issue 16): through the gateway >= 0.8x the direct throughput, p99 adds <= 2 ms, cached reads
// faster than the node itself, memory flat over the soak.
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import autocannon from "autocannon";
import {
  banner,
  blockHashes,
  CHAINGW,
  freePort,
  loadNote,
  runOnce,
  sleep,
  startLitecoind,
  table,
  target,
  tempDir,
  track,
} from "./lib.mjs";

const ROUNDS = Number(process.env.BENCH_SERVE_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SERVE_SECONDS ?? 5);
const SOAK_S = Number(process.env.BENCH_SOAK_S ?? 180);
const CONNECTIONS = Number(process.env.BENCH_SERVE_CONNECTIONS ?? 8);
const BLOCKS = 300;

banner(`chaingw serve: getblockheader direct vs through the gateway (${CONNECTIONS} connections)`);
const node = await startLitecoind({ blocks: BLOCKS });
const hashes = await blockHashes(node, BLOCKS);
const dir = tempDir("chaingw-bench-serve-");

/** A gateway process with this cache size; its URL and pid once it listens. */
async function gateway(name, cacheBytes) {
  const port = await freePort();
  const config = join(dir, `${name}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      listen: `127.0.0.1:${port}`,
      keys: "keys.json",
      cache: { maxBytes: cacheBytes },
      products: { ltc: { chain: "utxo", upstreams: [node.authUrl] } },
    }),
  );
  const child = track(
    spawn(CHAINGW[0], [CHAINGW[1], "serve", "--config", config], { stdio: ["ignore", "ignore", "pipe"] }),
  );
  let err = "";
  child.stderr.on("data", (c) => (err += c));
  for (let i = 0; i < 200 && !/listening on/.test(err); i++) await sleep(50);
  if (!/listening on/.test(err)) throw new Error(`serve did not start: ${err}`);
  return { url: `http://127.0.0.1:${port}/v1/ltc`, pid: child.pid, child };
}

const key = String(
  runOnce([...CHAINGW, "serve", "keys", "add", "--keys", join(dir, "keys.json"), "--product", "ltc"], {
    capture: true,
  }).stdout,
)
  .trim()
  .split(/\s+/)
  .pop();
/**
 * The floor of any gateway written on node:http: a bare proxy (keep-alive agent, bodies piped, no checks,
 * no failover), in a process of its own like the gateway.
 */
async function bareProxy() {
  const port = await freePort();
  const src = `
    const http = require("node:http");
    const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
    const up = new URL(${JSON.stringify(node.url)});
    const auth = ${JSON.stringify(`Basic ${Buffer.from(`${node.auth.user}:${node.auth.password}`).toString("base64")}`)};
    http.createServer((req, res) => {
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        const r = http.request({ host: up.hostname, port: up.port, path: "/", method: "POST", agent,
          headers: { "content-type": "application/json", "content-length": body.length, authorization: auth } }, (ur) => {
          const out = [];
          ur.on("data", (c) => out.push(c));
          ur.on("end", () => { const b = Buffer.concat(out); res.writeHead(ur.statusCode, { "content-type": "application/json", "content-length": b.length }); res.end(b); });
        });
        r.end(body);
      });
    }).listen(${port}, "127.0.0.1", () => process.stderr.write("listening"));`;
  const child = track(spawn(process.execPath, ["-e", src], { stdio: ["ignore", "ignore", "pipe"] }));
  let err = "";
  child.stderr.on("data", (c) => (err += c));
  for (let i = 0; i < 200 && !/listening/.test(err); i++) await sleep(50);
  return { url: `http://127.0.0.1:${port}/`, child };
}
const bare = await bareProxy();
const gwUncached = await gateway("uncached", 0);
const gwCached = await gateway("cached", 64 * 1024 * 1024);

let next = 0;
const body = () =>
  JSON.stringify({
    jsonrpc: "2.0",
    id: next,
    method: "getblockheader",
    params: [hashes[next++ % (BLOCKS - 10)]],
  });

function load(url, headers, seconds) {
  return autocannon({
    url,
    connections: CONNECTIONS,
    duration: seconds,
    headers: { "content-type": "application/json", ...headers },
    requests: [{ method: "POST", setupRequest: (req) => ({ ...req, body: body() }) }],
  });
}

const basic = `Basic ${Buffer.from(`${node.auth.user}:${node.auth.password}`).toString("base64")}`;
const cases = [
  { name: "direct to litecoind", url: node.url, headers: { authorization: basic } },
  { name: "bare node:http proxy (floor)", url: bare.url, headers: {} },
  { name: "through serve, uncached", url: gwUncached.url, headers: { "x-api-key": key } },
  { name: "through serve, cached", url: gwCached.url, headers: { "x-api-key": key } },
];
// the cached gateway's cache warm before it is measured: every hash once
await load(gwCached.url, { "x-api-key": key }, 2);
/** CPU seconds (user + system) a process has used: robust to the host's load, unlike throughput */
const cpuS = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) / 100;
};
const pidOf = {
  "bare node:http proxy (floor)": () => bare.child.pid,
  "through serve, uncached": () => gwUncached.pid,
  "through serve, cached": () => gwCached.pid,
};
const results = new Map(cases.map((c) => [c.name, []]));
for (let r = 0; r < ROUNDS; r++) {
  for (const c of cases) {
    const pid = pidOf[c.name]?.();
    const cpu0 = pid ? cpuS(pid) : 0;
    const out = await load(c.url, c.headers, SECONDS);
    const cpuUs = pid ? ((cpuS(pid) - cpu0) * 1e6) / out.requests.total : Number.NaN;
    if (out.non2xx || out.errors) throw new Error(`${c.name}: ${out.non2xx} non-2xx, ${out.errors} errors`);
    results
      .get(c.name)
      .push({ rps: out.requests.average, p50: out.latency.p50, p99: out.latency.p99, cpuUs });
  }
}
const med = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const summary = cases.map((c) => {
  const rs = results.get(c.name);
  return {
    name: c.name,
    rps: med(rs.map((x) => x.rps)),
    p50: med(rs.map((x) => x.p50)),
    p99: med(rs.map((x) => x.p99)),
    cpuUs: med(rs.map((x) => x.cpuUs)),
  };
});
const [direct, floor, uncached, cached] = summary;
console.log(
  `serve (uncached) against the bare proxy: ${(uncached.rps / floor.rps).toFixed(2)}× its throughput`,
);
table(
  ["case", "req/s (median)", "p50 ms", "p99 ms", "vs direct", "proxy CPU µs/req"],
  summary.map((s) => [
    s.name,
    s.rps.toFixed(0),
    String(s.p50),
    String(s.p99),
    (s.rps / direct.rps).toFixed(2) + "×",
    Number.isNaN(s.cpuUs) ? "—" : s.cpuUs.toFixed(0),
  ]),
);
console.log(
  target(
    uncached.rps >= 0.8 * direct.rps,
    `through the gateway >= 0.8× direct: ${(uncached.rps / direct.rps).toFixed(2)}×`,
  ),
);
console.log(
  target(uncached.p99 - direct.p99 <= 2, `p99 adds <= 2 ms: +${(uncached.p99 - direct.p99).toFixed(1)} ms`),
);
console.log(
  target(
    cached.rps > direct.rps,
    `cached reads faster than the node: ${(cached.rps / direct.rps).toFixed(2)}×`,
  ),
);

// the soak: the uncached gateway under the same load, its RSS sampled
const rss = (pid) =>
  Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
const samples = [];
const soak = load(gwUncached.url, { "x-api-key": key }, SOAK_S);
const t0 = Date.now();
while (Date.now() - t0 < SOAK_S * 1000) {
  samples.push([Math.round((Date.now() - t0) / 1000), rss(gwUncached.pid)]);
  await sleep(Math.min(10_000, SOAK_S * 100));
}
const soaked = await soak;
samples.push([SOAK_S, rss(gwUncached.pid)]);
const firstThird = samples.slice(0, Math.max(1, Math.floor(samples.length / 3)));
const lastThird = samples.slice(-Math.max(1, Math.floor(samples.length / 3)));
const avg = (xs) => xs.reduce((a, [, v]) => a + v, 0) / xs.length;
console.log(
  `soak ${SOAK_S} s through serve (uncached): ${soaked.requests.total} requests, ${soaked.non2xx} non-2xx, ${soaked.errors} errors; RSS MB ${samples
    .map(([t, v]) => `${t}s:${v.toFixed(0)}`)
    .join(" ")}`,
);
console.log(
  target(
    avg(lastThird) <= avg(firstThird) * 1.1 + 2,
    `memory flat: first third ${avg(firstThird).toFixed(1)} MB, last third ${avg(lastThird).toFixed(1)} MB, peak ${Math.max(...samples.map(([, v]) => v)).toFixed(1)} MB`,
  ),
);
console.log(loadNote());
for (const g of [gwUncached, gwCached, bare]) g.child.kill("SIGTERM");
await node.stop();
