// Issue 6, single call: what one chaingw process costs next to node itself, litecoin-cli, cast and
// curl. All cases run interleaved (round-robin) in this one run; medians of BENCH_RUNS (default 21).
import {
  banner,
  CHAINGW,
  fmt,
  foundryBin,
  loadNote,
  NODE,
  ROOT,
  ratio,
  runOnce,
  shortCmd,
  startAnvil,
  startLitecoind,
  table,
  target,
  timeInterleaved,
} from "./lib.mjs";

const N = Math.max(15, Number(process.env.BENCH_RUNS ?? 21));

banner(`start-up: one call per process (median of ${N} interleaved runs each)`);
const ltc = await startLitecoind({ blocks: 10 });
const anvil = await startAnvil({ blocks: 10 });
try {
  const ltcBody = JSON.stringify({ jsonrpc: "1.0", id: 1, method: "getblockchaininfo", params: [] });
  const ethBody = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "eth_getBlockByNumber",
    params: ["latest", false],
  });
  const userpass = `${ltc.auth.user}:${ltc.auth.password}`;
  // The least a Node CLI can do for this call: node:http, no parsing beyond draining the body.
  const nodeHttp = (url, body, auth) =>
    `const h=require("http");const q=h.request(${JSON.stringify(url)},{method:"POST",headers:{"content-type":"application/json"${
      auth ? `,authorization:${JSON.stringify("Basic " + Buffer.from(auth).toString("base64"))}` : ""
    }}},r=>{let s="";r.on("data",c=>s+=c);r.on("end",()=>process.stdout.write(s))});q.end(${JSON.stringify(body)})`;

  const cases = [
    { name: "node -e 0", argv: [NODE, "-e", "0"] },
    { name: "chaingw --version", argv: [...CHAINGW, "--version"] },
    { name: "node:http round trip (ltc)", argv: [NODE, "-e", nodeHttp(ltc.url, ltcBody, userpass)] },
    { name: "chaingw getblockchaininfo", argv: [...CHAINGW, "--url", ltc.authUrl, "getblockchaininfo"] },
    { name: "litecoin-cli getblockchaininfo", argv: ["litecoin-cli", ...ltc.cliArgs, "getblockchaininfo"] },
    {
      name: "curl getblockchaininfo",
      argv: [
        "curl",
        "-sf",
        "-u",
        userpass,
        "-H",
        "content-type: application/json",
        "--data-binary",
        ltcBody,
        ltc.url,
      ],
    },
    {
      name: "chaingw eth_getBlockByNumber",
      argv: [...CHAINGW, "--chain", "evm", "--url", anvil.url, "eth_getBlockByNumber", "latest", "false"],
    },
    {
      name: "cast rpc eth_getBlockByNumber",
      argv: [foundryBin("cast"), "rpc", "--rpc-url", anvil.url, "eth_getBlockByNumber", "latest", "false"],
    },
    {
      // what `npx cast` / an npm-installed foundry runs: a node wrapper that spawns the native binary
      name: "cast via npm .bin wrapper",
      argv: [
        ROOT + "node_modules/.bin/cast",
        "rpc",
        "--rpc-url",
        anvil.url,
        "eth_getBlockByNumber",
        "latest",
        "false",
      ],
    },
    {
      name: "curl eth_getBlockByNumber",
      argv: ["curl", "-sf", "-H", "content-type: application/json", "--data-binary", ethBody, anvil.url],
    },
  ];

  // Each command must really do its job before it is timed.
  for (const c of cases) {
    const r = runOnce(c.argv, { capture: true });
    const out = String(r.stdout);
    const ok =
      c.name.startsWith("node -e 0") ||
      (c.name.includes("version") ? /\d+\.\d+\.\d+/.test(out) : /regtest|"?hash"?/.test(out));
    if (!ok) throw new Error(`${c.name}: unexpected output: ${out.slice(0, 300)}`);
  }
  console.log("commands:");
  for (const c of cases) console.log(`  ${c.name.padEnd(32)} ${shortCmd(c.argv).slice(0, 150)}`);

  const res = timeInterleaved(cases, N);
  const m = (k) => res.get(k).median;
  const base = m("node -e 0");
  console.log("");
  table(
    ["case", "median ms", "p90 ms", "min ms", "× node -e 0"],
    cases.map((c) => {
      const s = res.get(c.name);
      return [c.name, fmt(s.median), fmt(s.p90), fmt(s.min), ratio(s.median, base)];
    }),
  );
  const cInfo = m("chaingw getblockchaininfo");
  const cEth = m("chaingw eth_getBlockByNumber");
  const cast = m("cast rpc eth_getBlockByNumber");
  console.log("\nratios (medians):");
  table(
    ["comparison", "ratio"],
    [
      ["chaingw --version / node -e 0", ratio(m("chaingw --version"), base)],
      ["chaingw getblockchaininfo / node -e 0", ratio(cInfo, base)],
      ["chaingw getblockchaininfo / node:http round trip", ratio(cInfo, m("node:http round trip (ltc)"))],
      ["chaingw getblockchaininfo / litecoin-cli", ratio(cInfo, m("litecoin-cli getblockchaininfo"))],
      ["chaingw getblockchaininfo / curl", ratio(cInfo, m("curl getblockchaininfo"))],
      ["chaingw eth_getBlockByNumber / node -e 0", ratio(cEth, base)],
      ["chaingw eth_getBlockByNumber / cast (native binary)", ratio(cEth, cast)],
      ["chaingw eth_getBlockByNumber / cast (npm .bin wrapper)", ratio(cEth, m("cast via npm .bin wrapper"))],
      ["chaingw eth_getBlockByNumber / curl", ratio(cEth, m("curl eth_getBlockByNumber"))],
    ],
  );
  const floor = m("node:http round trip (ltc)");
  console.log("\ntargets (issue 19: a plain call in a loop, NODE_EXTRA_CA_CERTS unset):");
  console.log(
    "  " +
      target(
        cInfo <= 1.1 * floor,
        `chaingw getblockchaininfo ≤ 1.1× a bare node:http round trip: ${ratio(cInfo, floor)} (${fmt(cInfo)} vs ${fmt(floor)} ms${process.env.NODE_EXTRA_CA_CERTS ? "; NODE_EXTRA_CA_CERTS is set: unset it for users' figures" : ""})`,
      ),
  );
  console.log("\ntargets (issue 6):");
  console.log(
    "  " + target(cInfo <= 1.4 * base, `chaingw getblockchaininfo ≤ 1.4× node -e 0: ${ratio(cInfo, base)}`),
  );
  console.log(
    "  " + target(cEth <= 1.4 * base, `chaingw eth_getBlockByNumber ≤ 1.4× node -e 0: ${ratio(cEth, base)}`),
  );
  console.log(
    "  " +
      target(
        cEth < cast,
        `chaingw eth_getBlockByNumber faster than native cast: ${fmt(cEth)} vs ${fmt(cast)} ms`,
      ),
  );
  const castW = m("cast via npm .bin wrapper");
  console.log(
    "  " +
      target(
        cEth < castW,
        `chaingw eth_getBlockByNumber faster than npm-wrapped cast: ${fmt(cEth)} vs ${fmt(castW)} ms`,
      ),
  );
  console.log(loadNote());
} finally {
  await Promise.all([ltc.stop(), anvil.stop()]);
}
