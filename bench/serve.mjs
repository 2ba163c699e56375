// `chaingw serve` beside what an operator would otherwise put in front of a node, on one machine, one load
// generator (autocannon, in this process), one request (getblockheader of rotating hashes), interleaved rounds,
// medians. The aims are measured in front of a node that costs almost nothing (bench/fixed-upstream.mjs: raw
// sockets, one fixed answer, the id echoed), so the proxies are what is measured: nginx proxy_pass with
// upstream keepalive (1 worker process: the physical reference for a proxy on this machine), a bare node:http
// keep-alive proxy (the floor of a gateway written on node:http), `chaingw serve --workers 1` uncached and
// cached, `serve --workers 2`; at 1, 10 and 50 connections. CPU per request is read from /proc for each
// proxy's process tree. Then the same proxies in front of litecoind at 10 connections, a 1,000-entry batch
// direct vs through serve, V8's scavenges under load (bytes promoted per scavenge, serve beside the bare
// proxy), an EVM node (anvil: direct, the bare proxy and serve at 10 connections, eth_getBalance), and the
// gateway's RSS over a soak.
//
//   node bench/serve.mjs          # 5 rounds of 3 s per case, 60 s soak (nginx: scripts/setup.sh bench)
//
// Ratios ("vs bare", "vs nginx", "CPU vs nginx", the aims) are medians of per-round ratios: each round measures
// the cases back to back, so a round's ratio compares neighbours, and the host's slow spells (this shared
// machine's throughput drifts by a third between minutes) fall on both sides of it.
//   BENCH_SERVE_ROUNDS=5 BENCH_SERVE_SECONDS=10 BENCH_SOAK_S=300 node bench/serve.mjs
//
// Aims (issue 57): uncached, at least the bare proxy's req/s at 10 and 50 connections; CPU per request toward
// nginx's (reported as serve's ratio to nginx's beside the bare proxy's); p99 within 2 ms of the bare proxy
// at 10 connections; a 1,000-entry batch <= 2x direct.
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import autocannon from "autocannon";
import {
  banner,
  blockHashes,
  CHAINGW,
  freePort,
  loadNote,
  ROOT,
  runOnce,
  sleep,
  startAnvil,
  startLitecoind,
  table,
  target,
  tempDir,
  track,
} from "./lib.mjs";

const ROUNDS = Number(process.env.BENCH_SERVE_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SERVE_SECONDS ?? 3);
const SOAK_S = Number(process.env.BENCH_SOAK_S ?? 60);
const BLOCKS = 300;

banner("chaingw serve beside nginx, a bare node:http proxy and the node itself");
// enough RPC threads and queue that the node itself is not what 50 connections measure
const node = await startLitecoind({ blocks: BLOCKS, args: ["-rpcthreads=16", "-rpcworkqueue=1024"] });
const hashes = await blockHashes(node, BLOCKS);
const dir = tempDir("chaingw-bench-serve-");
const basic = `Basic ${Buffer.from(`${node.auth.user}:${node.auth.password}`).toString("base64")}`;
const upstream = new URL(node.url);

async function waitFor(child, re, what) {
  let err = "";
  child.stderr?.on("data", (c) => (err += c));
  for (let i = 0; i < 300 && !re.test(err); i++) {
    if (child.exitCode !== null) break;
    await sleep(50);
  }
  if (!re.test(err)) throw new Error(`${what} did not start: ${err}`);
  return err;
}

/** The fixed-answer upstream (bench/fixed-upstream.mjs): its URL once it listens. */
async function fixedUpstream() {
  const port = await freePort();
  const child = track(
    spawn(process.execPath, [join(ROOT, "bench/fixed-upstream.mjs"), String(port)], {
      stdio: ["ignore", "ignore", "pipe"],
    }),
  );
  await waitFor(child, /listening/, "fixed upstream");
  return { url: new URL(`http://127.0.0.1:${port}/`), pid: child.pid, child };
}
const fixed = await fixedUpstream();

/** A gateway process: its URL and pid once it listens. */
async function gateway(
  name,
  cacheBytes,
  workers,
  nodeFlags = [],
  product = { name: "ltc", chain: "utxo", url: node.authUrl },
) {
  const port = await freePort();
  const config = join(dir, `${name}.json`);
  writeFileSync(
    config,
    JSON.stringify({
      listen: `127.0.0.1:${port}`,
      keys: "keys.json",
      cache: { maxBytes: cacheBytes },
      // the node runs with -rpcworkqueue=1024 (above): the gateway's cap per upstream says so, as an
      // operator's config would (the default 16 is a default litecoind's queue); the bare proxy allows 64
      upstreamConcurrency: 64,
      products: { [product.name]: { chain: product.chain, upstreams: [product.url] } },
    }),
  );
  const child = track(
    spawn(CHAINGW[0], [...nodeFlags, CHAINGW[1], "serve", "--config", config, "--workers", String(workers)], {
      stdio: ["ignore", nodeFlags.length ? "pipe" : "ignore", "pipe"],
    }),
  );
  await waitFor(child, /listening on/, name);
  return { url: `http://127.0.0.1:${port}/v1/${product.name}`, pid: child.pid, child };
}

/** The bare proxy: keep-alive agent, bodies passed through, no checks, no failover. */
async function bareProxy(nodeFlags = [], to = { url: upstream, authorization: basic }) {
  const port = await freePort();
  const src = `
    const http = require("node:http");
    const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
    const auth = ${JSON.stringify(to.authorization ?? "")};
    http.createServer((req, res) => {
      const chunks = [];
      req.on("data", (c) => chunks.push(c));
      req.on("end", () => {
        const body = Buffer.concat(chunks);
        const headers = { "content-type": "application/json", "content-length": body.length };
        if (auth) headers.authorization = auth;
        const r = http.request({ host: ${JSON.stringify(to.url.hostname)}, port: ${to.url.port}, path: "/", method: "POST", agent, headers }, (ur) => {
          const out = [];
          ur.on("data", (c) => out.push(c));
          ur.on("end", () => { const b = Buffer.concat(out); res.writeHead(ur.statusCode, { "content-type": "application/json", "content-length": b.length }); res.end(b); });
        });
        r.end(body);
      });
    }).listen(${port}, "127.0.0.1", () => process.stderr.write("listening"));`;
  const child = track(
    spawn(process.execPath, [...nodeFlags, "-e", src], {
      stdio: ["ignore", nodeFlags.length ? "pipe" : "ignore", "pipe"],
    }),
  );
  await waitFor(child, /listening/, "bare proxy");
  return { url: `http://127.0.0.1:${port}/`, pid: child.pid, child };
}

/** Debian's nginx, one worker process, proxy_pass with an upstream keepalive pool; undefined if absent. */
async function nginx(to = { url: upstream, authorization: basic }, name = "nginx") {
  const bin = ["/usr/sbin/nginx", "nginx"].find((b) => spawnSync(b, ["-v"]).status === 0);
  if (!bin) return undefined;
  const port = await freePort();
  const d = join(dir, name);
  mkdirSync(d, { recursive: true, mode: 0o777 });
  const conf = join(d, "nginx.conf");
  writeFileSync(
    conf,
    `worker_processes 1;
daemon off;
error_log ${d}/error.log warn;
pid ${d}/nginx.pid;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path ${d}/body; proxy_temp_path ${d}/proxy; fastcgi_temp_path ${d}/fcgi;
  uwsgi_temp_path ${d}/uwsgi; scgi_temp_path ${d}/scgi;
  upstream node { server ${to.url.hostname}:${to.url.port}; keepalive 64; }
  server {
    listen 127.0.0.1:${port};
    location / {
      proxy_pass http://node/;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header Authorization "${to.authorization ?? ""}";
    }
  }
}
`,
  );
  const child = track(spawn(bin, ["-p", d, "-c", conf], { stdio: ["ignore", "ignore", "pipe"] }));
  for (let i = 0; i < 100; i++) {
    try {
      await post(`http://127.0.0.1:${port}/`, call(hashes[0]), {});
      return { url: `http://127.0.0.1:${port}/`, pid: child.pid, child };
    } catch {
      await sleep(50);
    }
  }
  throw new Error(`nginx did not start: ${readFileSync(join(d, "error.log"), "utf8")}`);
}

const call = (hash, id = 1) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "getblockheader", params: [hash] });
function post(url, body, headers) {
  return new Promise((resolve, reject) => {
    const u = new URL(url);
    const req = request(
      {
        host: u.hostname,
        port: u.port,
        path: u.pathname,
        method: "POST",
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          ...headers,
        },
      },
      (res) => {
        const out = [];
        res.on("data", (c) => out.push(c));
        res.on("end", () =>
          res.statusCode === 200 ? resolve(Buffer.concat(out)) : reject(new Error(`HTTP ${res.statusCode}`)),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** A new key for `product` in the gateways' key file (`chaingw serve keys add`). */
const addKey = (product) =>
  String(
    runOnce([...CHAINGW, "serve", "keys", "add", "--keys", join(dir, "keys.json"), "--product", product], {
      capture: true,
    }).stdout,
  )
    .trim()
    .split(/\s+/)
    .pop();
const key = addKey("ltc");
const fixKey = addKey("fix");
const FIX = { name: "fix", chain: "utxo", url: fixed.url.href };
const [ngx, bare, gw1, gwCached, gw2] = [
  await nginx({ url: fixed.url }),
  await bareProxy([], { url: fixed.url }),
  await gateway("uncached", 0, 1, [], FIX),
  await gateway("cached", 64 * 1024 * 1024, 1, [], FIX),
  await gateway("uncached-2", 0, 2, [], FIX),
];
// the same three in front of litecoind (a real node's cost in every round trip)
const [ngxNode, bareNode, gwNode] = [
  await nginx(undefined, "nginx-node"),
  await bareProxy(),
  await gateway("uncached-node", 0, 1),
];
if (!ngx) console.log("nginx not found (scripts/setup.sh bench installs it): its rows are left out");

let next = 0;
function load(url, headers, connections, seconds) {
  return autocannon({
    url,
    connections,
    duration: seconds,
    headers: { "content-type": "application/json", ...headers },
    requests: [
      {
        method: "POST",
        setupRequest: (req) => ({ ...req, body: call(hashes[next % (BLOCKS - 10)], next++) }),
      },
    ],
  });
}

/** CPU seconds (user + system) of a process and its children: robust to the host's load, unlike throughput */
function cpuTree(pid) {
  const pids = [pid];
  for (const d of readdirSync("/proc")) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const st = readFileSync(`/proc/${d}/stat`, "utf8");
      if (Number(st.slice(st.lastIndexOf(")") + 2).split(" ")[1]) === pid) pids.push(Number(d));
    } catch {}
  }
  let s = 0;
  for (const p of pids) {
    try {
      const f = readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ");
      s += (Number(f[11]) + Number(f[12])) / 100;
    } catch {}
  }
  return s;
}

const med = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

/**
 * Cases measured round by round (each round every case back to back), then per case the medians of its
 * rounds, and `paired` / `pairedDiff`: the median over rounds of one case's figure against another's in the
 * same round.
 */
async function measure(cases) {
  const results = new Map(cases.map((c) => [c, []]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const c of cases) {
      const cpu0 = c.pid ? cpuTree(c.pid) : 0;
      const out = await load(c.url, c.headers, c.conns, SECONDS);
      const cpuUs = c.pid ? ((cpuTree(c.pid) - cpu0) * 1e6) / out.requests.total : Number.NaN;
      if (out.non2xx || out.errors) throw new Error(`${c.name}: ${out.non2xx} non-2xx, ${out.errors} errors`);
      results.get(c).push({ rps: out.requests.average, p50: out.latency.p50, p99: out.latency.p99, cpuUs });
    }
  }
  const summary = cases.map((c) => {
    const rs = results.get(c);
    const m = (k) => med(rs.map((x) => x[k]));
    return { ...c, rps: m("rps"), p50: m("p50"), p99: m("p99"), cpuUs: m("cpuUs") };
  });
  const find = (conns, name) => summary.find((s) => s.conns === conns && s.name === name);
  const pairedBy = (a, b, f) => {
    const ra = results.get(cases.find((c) => c.conns === a.conns && c.name === a.name));
    const rb = results.get(cases.find((c) => c.conns === b.conns && c.name === b.name));
    return med(ra.map((x, i) => f(x, rb[i])));
  };
  const paired = (a, b, k) => pairedBy(a, b, (x, y) => x[k] / y[k]);
  const pairedDiff = (a, b, k) => pairedBy(a, b, (x, y) => x[k] - y[k]);
  table(
    ["conns", "case", "req/s", "p50 ms", "p99 ms", "CPU µs/req", "vs bare", "vs nginx", "CPU vs nginx"],
    summary.map((s) => {
      const b = find(s.conns, BARE);
      const n = find(s.conns, NGINX);
      return [
        String(s.conns),
        s.name,
        s.rps.toFixed(0),
        String(s.p50),
        String(s.p99),
        Number.isNaN(s.cpuUs) ? "—" : s.cpuUs.toFixed(0),
        `${paired(s, b, "rps").toFixed(2)}×`,
        n ? `${paired(s, n, "rps").toFixed(2)}×` : "—",
        n && !Number.isNaN(s.cpuUs) ? `${paired(s, n, "cpuUs").toFixed(2)}×` : "—",
      ];
    }),
  );
  return { find, paired, pairedDiff };
}

const BARE = "bare node:http proxy";
const NGINX = "nginx proxy_pass (1 worker)";
const SERVE = "serve, uncached";

// the aims: the proxies in front of a node that costs almost nothing (bench/fixed-upstream.mjs), so what is
// measured is the proxies
console.log(
  `\nIn front of a fixed-answer upstream (bench/fixed-upstream.mjs: raw sockets, one getblockheader answer, the id echoed), ${ROUNDS} rounds of ${SECONDS} s:`,
);
const cases = [];
const add = (conns, name, url, headers, pid) => cases.push({ conns, name, url, headers, pid });
for (const conns of [1, 10, 50]) {
  add(conns, "fixed upstream direct", fixed.url.href, {});
  if (ngx) add(conns, NGINX, ngx.url, {}, ngx.pid);
  add(conns, BARE, bare.url, {}, bare.pid);
  add(conns, SERVE, gw1.url, { "x-api-key": fixKey }, gw1.pid);
  if (conns === 10) add(conns, "serve, cached", gwCached.url, { "x-api-key": fixKey }, gwCached.pid);
  if (conns > 1) add(conns, "serve --workers 2, uncached", gw2.url, { "x-api-key": fixKey }, gw2.pid);
}
// the cached gateway's cache warm before it is measured: every hash once
await load(gwCached.url, { "x-api-key": fixKey }, 10, 2);
const fx = await measure(cases);
for (const conns of [1, 10, 50]) {
  const s = fx.find(conns, SERVE);
  const b = fx.find(conns, BARE);
  const n = fx.find(conns, NGINX);
  const rps = fx.paired(s, b, "rps");
  const said = `${conns} conns: serve uncached ${rps.toFixed(2)}× the bare proxy's req/s (${s.rps.toFixed(0)} vs ${b.rps.toFixed(0)})${n ? `, ${fx.paired(s, n, "rps").toFixed(2)}× nginx's` : ""}`;
  // the aim is at 10 and 50 connections; one connection is a latency, reported
  console.log(conns === 1 ? said : target(rps >= 1, `${said}; aim ≥ 1×`));
  console.log(
    `${conns} conns: serve CPU ${s.cpuUs.toFixed(0)} µs/req${n ? ` = ${fx.paired(s, n, "cpuUs").toFixed(2)}× nginx's ${n.cpuUs.toFixed(0)} (the bare proxy ${fx.paired(b, n, "cpuUs").toFixed(2)}×)` : ""}; ${fx.paired(s, b, "cpuUs").toFixed(2)}× the bare proxy's ${b.cpuUs.toFixed(0)}`,
  );
}
const c10 = fx.find(10, "serve, cached");
const s10 = fx.find(10, SERVE);
const b10 = fx.find(10, BARE);
console.log(
  `cache hit at 10 conns: ${fx.paired(c10, s10, "rps").toFixed(2)}× serve uncached, ${c10.cpuUs.toFixed(0)} µs/req`,
);
console.log(
  target(
    fx.pairedDiff(s10, b10, "p99") <= 2,
    `p99 at 10 conns: ${s10.p99} ms, bare proxy ${b10.p99} ms (${fx.pairedDiff(s10, b10, "p99")} ms apart, paired; aim within 2 ms)`,
  ),
);
for (const conns of [10, 50]) {
  const w1 = fx.find(conns, SERVE);
  const w2 = fx.find(conns, "serve --workers 2, uncached");
  console.log(
    `${conns} conns: --workers 2 ${w2.rps.toFixed(0)} req/s vs --workers 1 ${w1.rps.toFixed(0)} (${fx.paired(w2, w1, "rps").toFixed(2)}×), ${w2.cpuUs.toFixed(0)} µs/req`,
  );
}

// the same in front of litecoind at 10 connections: a real node's work in every round trip
console.log(`\nIn front of litecoind (-rpcthreads=16), 10 connections, ${ROUNDS} rounds of ${SECONDS} s:`);
const nodeCases = [];
nodeCases.push({ conns: 10, name: "litecoind direct", url: node.url, headers: { authorization: basic } });
if (ngxNode) nodeCases.push({ conns: 10, name: NGINX, url: ngxNode.url, headers: {}, pid: ngxNode.pid });
nodeCases.push({ conns: 10, name: BARE, url: bareNode.url, headers: {}, pid: bareNode.pid });
nodeCases.push({ conns: 10, name: SERVE, url: gwNode.url, headers: { "x-api-key": key }, pid: gwNode.pid });
const nd = await measure(nodeCases);
{
  const s = nd.find(10, SERVE);
  const b = nd.find(10, BARE);
  const d = nd.find(10, "litecoind direct");
  console.log(
    `litecoind, 10 conns: serve uncached ${nd.paired(s, b, "rps").toFixed(2)}× the bare proxy's req/s, ${nd.paired(s, d, "rps").toFixed(2)}× the node direct; CPU ${nd.paired(s, b, "cpuUs").toFixed(2)}× the bare proxy's`,
  );
}
const KEY = { "x-api-key": key };

// a 1,000-entry batch: direct vs through the gateway (uncached), medians of interleaved runs
const batchBody = JSON.stringify(
  Array.from({ length: 1000 }, (_, i) => ({
    jsonrpc: "2.0",
    id: i,
    method: "getblockheader",
    params: [hashes[i % (BLOCKS - 10)]],
  })),
);
const times = { direct: [], serve: [] };
for (let i = 0; i < 9; i++) {
  for (const [k, url, h] of [
    ["direct", node.url, { authorization: basic }],
    ["serve", gwNode.url, KEY],
  ]) {
    const t0 = performance.now();
    const out = await post(url, batchBody, h);
    times[k].push(performance.now() - t0);
    if (JSON.parse(out).length !== 1000) throw new Error(`${k}: batch answer not 1000 entries`);
  }
}
const bd = med(times.direct.slice(1));
const bs = med(times.serve.slice(1));
console.log(
  target(
    bs <= 2 * bd,
    `1,000-entry batch: direct ${bd.toFixed(1)} ms, through serve ${bs.toFixed(1)} ms (${(bs / bd).toFixed(2)}×, aim 2×)`,
  ),
);

// garbage that outlives its request: V8's scavenges under the same load (10 connections), serve uncached beside
// the bare proxy, each started with --trace-gc-nvp. A request path that keeps young objects alive past a
// scavenge shows as bytes promoted per scavenge (issue 26 found 1.5 MB where the bare proxy promotes ~4 KB).
{
  const FLAGS = ["--trace-gc", "--trace-gc-nvp"];
  const rows = [];
  for (const [name, start, headers] of [
    ["bare node:http proxy", () => bareProxy(FLAGS), {}],
    ["serve, uncached", () => gateway("gc", 0, 1, FLAGS), KEY],
  ]) {
    const g = await start();
    let text = "";
    g.child.stdout.on("data", (c) => (text += c));
    await load(g.url, headers, 10, 2);
    const from = text.length;
    const out = await load(g.url, headers, 10, SECONDS + 1);
    const scavenges = text
      .slice(from)
      .split("\n")
      .filter((l) => /\bgc=s\b/.test(l))
      .map((l) => ({
        promoted: Number(/\bpromoted=(\d+)/.exec(l)?.[1] ?? 0),
        pause: Number(/\bpause=([\d.]+)/.exec(l)?.[1] ?? 0),
      }));
    g.child.kill("SIGTERM");
    rows.push([
      name,
      String(scavenges.length),
      ((scavenges.length * 1000) / out.requests.total).toFixed(2),
      scavenges.length ? (med(scavenges.map((x) => x.promoted)) / 1024).toFixed(1) : "—",
      scavenges.length ? med(scavenges.map((x) => x.pause)).toFixed(2) : "—",
    ]);
  }
  table(["case (10 conns)", "scavenges", "per 1,000 req", "promoted KB (median)", "pause ms (median)"], rows);
}

// an EVM node (anvil): the same three at 10 connections, eth_getBalance of rotating accounts at "latest" (the
// issue found serve at 0.41x the bare proxy here)
{
  const anvil = await startAnvil();
  const accounts = await anvil.rpc("eth_accounts", []);
  const au = new URL(anvil.url);
  const evmKey = addKey("eth");
  const [abare, agw] = [
    await bareProxy([], { url: au }),
    await gateway("anvil", 0, 1, [], { name: "eth", chain: "evm", url: anvil.url }),
  ];
  let k = 0;
  const balance = () =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: k,
      method: "eth_getBalance",
      params: [accounts[k++ % accounts.length], "latest"],
    });
  const evmCases = [
    { name: "anvil direct", url: anvil.url, headers: {} },
    { name: "bare node:http proxy", url: abare.url, headers: {}, pid: abare.pid },
    { name: "serve, uncached", url: agw.url, headers: { "x-api-key": evmKey }, pid: agw.pid },
  ];
  const rounds = evmCases.map(() => []);
  for (let r = 0; r < ROUNDS; r++)
    for (const [i, c] of evmCases.entries()) {
      const cpu0 = c.pid ? cpuTree(c.pid) : 0;
      const out = await autocannon({
        url: c.url,
        connections: 10,
        duration: SECONDS,
        headers: { "content-type": "application/json", ...c.headers },
        requests: [{ method: "POST", setupRequest: (req) => ({ ...req, body: balance() }) }],
      });
      if (out.non2xx || out.errors)
        throw new Error(`${c.name} (anvil): ${out.non2xx} non-2xx, ${out.errors} errors`);
      rounds[i].push({
        rps: out.requests.average,
        cpuUs: c.pid ? ((cpuTree(c.pid) - cpu0) * 1e6) / out.requests.total : Number.NaN,
      });
    }
  const vsBare = (i, key) => med(rounds[i].map((x, r) => x[key] / rounds[1][r][key]));
  table(
    ["anvil, 10 conns", "req/s", "CPU µs/req", "vs bare"],
    evmCases.map((c, i) => [
      c.name,
      med(rounds[i].map((x) => x.rps)).toFixed(0),
      c.pid ? med(rounds[i].map((x) => x.cpuUs)).toFixed(0) : "—",
      `${vsBare(i, "rps").toFixed(2)}×`,
    ]),
  );
  console.log(
    `anvil, 10 conns: serve uncached ${vsBare(2, "rps").toFixed(2)}× the bare proxy's throughput, ${vsBare(2, "cpuUs").toFixed(2)}× its CPU per request`,
  );
  abare.child.kill("SIGTERM");
  agw.child.kill("SIGTERM");
  await anvil.stop();
}

// the soak: the uncached gateway under load, its RSS sampled
if (SOAK_S > 0) {
  const rss = (pid) =>
    Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) / 1024;
  const samples = [];
  const soak = load(gwNode.url, KEY, 10, SOAK_S);
  const t0 = Date.now();
  while (Date.now() - t0 < SOAK_S * 1000) {
    samples.push([Math.round((Date.now() - t0) / 1000), rss(gwNode.pid)]);
    await sleep(Math.min(10_000, SOAK_S * 100));
  }
  const soaked = await soak;
  samples.push([SOAK_S, rss(gwNode.pid)]);
  const third = Math.max(1, Math.floor(samples.length / 3));
  const avg = (xs) => xs.reduce((a, [, v]) => a + v, 0) / xs.length;
  const [first, last] = [avg(samples.slice(0, third)), avg(samples.slice(-third))];
  console.log(
    `soak ${SOAK_S} s through serve (uncached): ${soaked.requests.total} requests, ${soaked.non2xx} non-2xx, ${soaked.errors} errors`,
  );
  console.log(
    target(
      last <= first * 1.1 + 2,
      `memory flat: first third ${first.toFixed(1)} MB, last third ${last.toFixed(1)} MB, peak ${Math.max(...samples.map(([, v]) => v)).toFixed(1)} MB`,
    ),
  );
}
console.log(loadNote());
for (const g of [gw1, gwCached, gw2, bare, ngx, gwNode, bareNode, ngxNode, fixed].filter(Boolean))
  g.child.kill("SIGTERM");
await node.stop();
