// Issue 4: what a sick first endpoint costs one `chaingw getblockheader <hash>` (idempotent), next to a
// healthy single endpoint. Faults: a port that refuses (freshly closed), and a server that accepts,
// reads the request and never answers (a separate process, so it really is accepting while the CLI
// runs). All cases interleaved in one run; medians.
import { spawn } from "node:child_process";
import { once } from "node:events";
import {
  banner,
  blockHashes,
  CHAINGW,
  dur,
  fmt,
  freePort,
  loadNote,
  NODE,
  runOnce,
  sleep,
  startLitecoind,
  table,
  target,
  timeInterleaved,
  track,
} from "./lib.mjs";

const N = Math.max(15, Number(process.env.BENCH_RUNS ?? 21));
const TIMEOUT_S = 1;
const HEDGE_S = 0.1;

// Accepts, reads the request, never answers; one "hit" line per request. Ends when stdin closes.
const HANG_SERVER = `
const h = require("http");
const s = h.createServer((req) => { req.resume(); req.on("end", () => process.stdout.write("hit\\n")); });
s.keepAliveTimeout = 0; s.requestTimeout = 0; s.headersTimeout = 0;
s.listen(0, "127.0.0.1", () => process.stdout.write("port " + s.address().port + "\\n"));
process.stdin.resume(); process.stdin.on("end", () => process.exit(0));
`;

async function startHangServer() {
  const child = track(spawn(NODE, ["-e", HANG_SERVER], { stdio: ["pipe", "pipe", "inherit"] }));
  let out = "";
  child.stdout.on("data", (c) => {
    out += c;
  });
  for (let i = 0; i < 200 && !/port \d+/.test(out); i++) await new Promise((r) => setTimeout(r, 25));
  const port = Number(/port (\d+)/.exec(out)?.[1]);
  if (!port) throw new Error("hang server did not start");
  return {
    url: `http://127.0.0.1:${port}/`,
    hits: () => (out.match(/^hit$/gm) ?? []).length,
    stop: async () => {
      child.stdin.end();
      if (child.exitCode === null)
        await Promise.race([once(child, "exit"), new Promise((r) => setTimeout(r, 3000))]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}

banner(`failover: one idempotent call with a sick first endpoint (median of ${N} interleaved runs each)`);
const ltc = await startLitecoind({ blocks: 10 });
const hang = await startHangServer();
try {
  const [hash] = await blockHashes(ltc, 1);
  // Nothing listens here: connect is refused at once (the port was free a moment ago).
  const refused = `http://127.0.0.1:${await freePort()}/`;
  const call = (...urls) => [...CHAINGW, ...urls.flatMap((u) => ["--url", u])];
  const cases = [
    { name: "healthy single endpoint", argv: [...call(ltc.authUrl), "getblockheader", hash] },
    { name: "1st refuses", argv: [...call(refused, ltc.authUrl), "getblockheader", hash] },
    {
      name: `1st hangs, --request-timeout ${TIMEOUT_S}`,
      argv: [...call(hang.url, ltc.authUrl), "--request-timeout", String(TIMEOUT_S), "getblockheader", hash],
    },
    {
      name: `1st hangs, --hedge ${HEDGE_S}`,
      argv: [...call(hang.url, ltc.authUrl), "--hedge", String(HEDGE_S), "getblockheader", hash],
    },
  ];
  for (const c of cases) {
    const out = String(runOnce(c.argv, { capture: true, timeoutMs: 60_000 }).stdout);
    if (!out.includes(hash)) throw new Error(`${c.name}: header not printed: ${out.slice(0, 200)}`);
  }
  // spawnSync blocks this process: let the hang server's "hit" lines in before counting
  await sleep(300);
  const hitsBefore = hang.hits();
  const res = timeInterleaved(cases, N, { warmup: 0 });
  await sleep(300);
  const hangHits = hang.hits() - hitsBefore;

  const base = res.get(cases[0].name).median;
  const sign = (x) => (x < 0 ? "" : "+") + fmt(x);
  const extra = (k) => res.get(k).median - base;
  console.log("");
  table(
    ["case", "median ms", "p90 ms", "min ms", "extra vs healthy (median)", "extra (min)"],
    cases.map((c) => {
      const s = res.get(c.name);
      return [
        c.name,
        fmt(s.median),
        fmt(s.p90),
        fmt(s.min),
        c === cases[0] ? "-" : `${sign(s.median - base)} ms`,
        c === cases[0] ? "-" : `${sign(s.min - res.get(cases[0].name).min)} ms`,
      ];
    }),
  );
  console.log(
    `hanging server: ${hangHits} requests received during ${2 * N} timed runs that list it first (expected ${2 * N}: one each, none retried there)`,
  );
  const exRef = extra(cases[1].name);
  const exHang = extra(cases[2].name);
  const exHedge = extra(cases[3].name);
  console.log("\ntargets (issue 4):");
  console.log("  " + target(exRef < 20, `refused first endpoint adds < 20 ms: ${sign(exRef)} ms`));
  console.log(
    "  " +
      target(
        exHang <= TIMEOUT_S * 1000 + 20,
        `hanging first endpoint adds ≤ the request timeout (${TIMEOUT_S * 1000} ms; +20 ms slack for the move to the next endpoint): ${sign(exHang)} ms`,
      ),
  );
  console.log(
    "  " +
      target(
        exHedge <= HEDGE_S * 1000 + 50,
        `hedged (--hedge ${HEDGE_S}) adds ~the hedge delay (${HEDGE_S * 1000} ms, ≤ +50 ms slack): ${sign(exHedge)} ms`,
      ),
  );
  console.log(`(healthy baseline: ${dur(base)} median, mostly process start-up)`);
  console.log(loadNote());
} finally {
  await Promise.all([ltc.stop(), hang.stop()]);
}
