/**
 * bitcoin-cli parity, the operator's daily driver, against a real litecoind -regtest: the everyday UTXO reads
 * compared with litecoin-cli's answers, -named and --stdin giving the very request of the positional form,
 * --wait, --network/--datadir finding the node's cookie, `info`, unknown methods, config check.
 */

import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { createServer, request, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultServer, startFaultServer } from "./fixtures/faults.js";
import { rawServer, sendJson } from "./fixtures/forward.js";
import { runCli, spawnCli } from "./helpers/cli.js";
import { basicAuth } from "./helpers/http.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { freePort } from "./helpers/ports.js";
import { HANG_GUARD_MS } from "./helpers/procs.js";

let ltc: LitecoinNode;
let proxy: FaultServer;
let env: Record<string, string>;
let txid: string;
let rawTx: string;
let dir: string;

/** litecoin-cli against the same node, parsed: the reference answer. */
async function cli(...args: string[]): Promise<unknown> {
  const r = await execa(
    "litecoin-cli",
    ["-regtest", `-rpcport=${ltc.port}`, `-rpcuser=${ltc.user}`, `-rpcpassword=${ltc.password}`, ...args],
    { timeout: HANG_GUARD_MS },
  );
  try {
    return JSON.parse(r.stdout);
  } catch {
    return r.stdout.trim();
  }
}

/** chaingw --json through the counting proxy, parsed; a clean exit asserted. */
async function cg(...args: string[]): Promise<unknown> {
  const r = await runCli(["--json", ...args], { env });
  expect(r.stderr, args.join(" ")).toBe("");
  expect(r.exitCode, args.join(" ")).toBe(0);
  return JSON.parse(r.stdout);
}

beforeAll(async () => {
  ltc = await startLitecoind({ blocks: 110 });
  const addr = await ltc.newAddress();
  txid = await ltc.rpc<string>("sendtoaddress", [addr, 1.25]);
  rawTx = await ltc.rpc<string>("getrawtransaction", [txid]);
  proxy = await startFaultServer({
    upstream: { url: ltc.url, user: ltc.user, password: ltc.password },
    fault: { kind: "pass" },
  });
  env = { CHAINGW_URL: proxy.url };
  dir = mkdtempSync(join(tmpdir(), "chaingw-daily-"));
});

afterAll(async () => {
  await proxy?.stop();
  await ltc?.stop();
});

describe("the everyday UTXO reads, compared with litecoin-cli", () => {
  it("chain state: getblockcount, getbestblockhash, getblockhash, getchaintips, getdifficulty, getchaintxstats", async () => {
    expect(await cg("getblockcount")).toBe(await cli("getblockcount"));
    expect(await cg("getbestblockhash")).toBe(await cli("getbestblockhash"));
    expect(await cg("getblockhash", "100")).toBe(await cli("getblockhash", "100"));
    expect(await cg("getchaintips")).toEqual(await cli("getchaintips"));
    expect(await cg("getdifficulty")).toEqual(await cli("getdifficulty"));
    expect(await cg("getchaintxstats")).toEqual(await cli("getchaintxstats"));
    const tip = (await cli("getbestblockhash")) as string;
    expect(await cg("getchaintxstats", "10", tip)).toEqual(await cli("getchaintxstats", "10", tip));
    const h = await runCli(["getblockcount"], { env });
    expect(h.stdout).toBe("110\n");
  });

  it("mempool: getmempoolinfo, getrawmempool (plain, verbose, with sequence), getmempoolentry", async () => {
    expect(await cg("getmempoolinfo")).toEqual(await cli("getmempoolinfo"));
    expect(await cg("getrawmempool")).toEqual([txid]);
    expect(await cg("getrawmempool", "true")).toEqual(await cli("getrawmempool", "true"));
    expect(await cg("getrawmempool", "false", "true")).toEqual(await cli("getrawmempool", "false", "true"));
    expect(await cg("getmempoolentry", txid)).toEqual(await cli("getmempoolentry", txid));
  });

  it("transactions: getrawtransaction (hex, verbose, with a blockhash), decoderawtransaction, decodescript", async () => {
    expect(await cg("getrawtransaction", txid)).toBe(rawTx);
    expect(await cg("getrawtransaction", txid, "true")).toEqual(await cli("getrawtransaction", txid, "true"));
    expect(await cg("getrawtransaction", txid, "1")).toEqual(await cli("getrawtransaction", txid, "1"));
    // without -txindex a mined transaction is found only with its block
    const hash = (await cli("getblockhash", "5")) as string;
    const coinbase = ((await cli("getblock", hash)) as { tx: string[] }).tx[0];
    expect(await cg("getrawtransaction", coinbase, "true", hash)).toEqual(
      await cli("getrawtransaction", coinbase, "true", hash),
    );
    expect(await cg("decoderawtransaction", rawTx)).toEqual(await cli("decoderawtransaction", rawTx));
    const script = "76a914000000000000000000000000000000000000000088ac";
    expect(await cg("decodescript", script)).toEqual(await cli("decodescript", script));
    // the --json bytes are the node's: 8-decimal amounts stay as sent
    const j = await runCli(["--json", "decoderawtransaction", rawTx], { env });
    expect(j.stdout).toContain('"value":1.25000000');
  });

  it("node: estimatesmartfee, getconnectioncount, getpeerinfo, uptime, getindexinfo", async () => {
    expect(await cg("estimatesmartfee", "6")).toEqual(await cli("estimatesmartfee", "6"));
    expect(await cg("estimatesmartfee", "6", "ECONOMICAL")).toEqual(
      await cli("estimatesmartfee", "6", "economical"),
    );
    expect(await cg("getconnectioncount")).toBe(await cli("getconnectioncount"));
    expect(await cg("getpeerinfo")).toEqual(await cli("getpeerinfo"));
    // the node's clock between two readings by litecoin-cli: however long each process takes to start on
    // a loaded host (a "within 2 s" of one reading failed at load 10)
    const before = (await cli("uptime")) as number;
    const up = (await cg("uptime")) as number;
    const after = (await cli("uptime")) as number;
    expect(Number.isInteger(up)).toBe(true);
    expect(up).toBeGreaterThanOrEqual(before);
    expect(up).toBeLessThanOrEqual(after);
    expect(await cg("getindexinfo")).toEqual(await cli("getindexinfo"));
    expect(await cg("getindexinfo", "txindex")).toEqual(await cli("getindexinfo", "txindex"));
  });

  it("bad params are refused before sending: exit 2 naming the parameter, 0 hits", async () => {
    const before = proxy.hits;
    for (const [args, name] of [
      [["getblockhash", "-1"], "height"],
      [["getblockhash", "x"], "height"],
      [["getrawtransaction", "zz"], "txid"],
      [["decoderawtransaction", "abc"], "hexstring"],
      [["estimatesmartfee", "0"], "conf_target"],
      [["estimatesmartfee", "2", "fast"], "estimate_mode"],
      [["getmempoolentry", "12"], "txid"],
    ] as const) {
      const r = await runCli([...args], { env });
      expect(r.exitCode, args.join(" ")).toBe(2);
      expect(r.stderr).toContain(name);
    }
    expect(proxy.hits).toBe(before);
  });

  it("--range takes getblockhash from the registry: each height resolved, then the block", async () => {
    const r = await runCli(["getblockheader", "--range", "1..3"], { env });
    expect(r.exitCode).toBe(0);
    const lines = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    expect(lines.map((l) => l.result.height)).toEqual([1, 2, 3]);
  });
});

/** A loopback JSON-RPC server that records each request body and answers 5. */
async function recorder(): Promise<{ url: string; bodies: unknown[]; close(): Promise<void> }> {
  const bodies: unknown[] = [];
  const srv = await rawServer((raw, _req, res) => {
    const body = JSON.parse(raw.toString());
    bodies.push({ method: body.method, params: body.params });
    sendJson(res, 200, JSON.stringify({ jsonrpc: "2.0", id: body.id, result: 5 }));
  });
  return { url: srv.url, bodies, close: srv.close };
}

describe("bitcoin-cli habits", () => {
  it("-named and --stdin send the same request as the positional form, one hit each", async () => {
    const rec = await recorder();
    try {
      const h = "11".repeat(32);
      const runs: [string[], string | undefined][] = [
        [["getblock", h, "2"], undefined],
        [["-named", "getblock", "blockhash=" + h, "verbosity=2"], undefined],
        [["getblock", "--named", "verbosity=2", "blockhash=" + h], undefined],
        [["-named", "getblock", h, "verbosity=2"], undefined],
        [["getblock", "--stdin"], `${h}\n2\n`],
        [["getblock", h, "-stdin"], "2\n"],
        [["--named", "--stdin", "getblock"], `verbosity=2\nblockhash=${h}\n`],
      ];
      for (const [args, input] of runs) {
        const r = await runCli(["--url", rec.url, "--json", ...args], { input });
        expect(r.exitCode, `${args.join(" ")}: ${r.stderr}`).toBe(0);
      }
      expect(rec.bodies).toHaveLength(runs.length);
      for (const b of rec.bodies) expect(b).toEqual({ method: "getblock", params: [h, 2] });

      // an optional param skipped by name is sent as null (the node's "use the default")
      await runCli(["--url", rec.url, "-named", "getrawtransaction", `txid=${h}`, `blockhash=${h}`]);
      expect(rec.bodies.at(-1)).toEqual({ method: "getrawtransaction", params: [h, null, h] });
      // a method outside the registry goes by name, as JSON-RPC allows, typed as bitcoin-cli types it: a
      // name outside its list of JSON params is text (issue 49); --json-params reads it as JSON
      await runCli(["--url", rec.url, "-named", "rpc", "getwalletinfo", "verbose=true"]);
      expect(rec.bodies.at(-1)).toEqual({ method: "getwalletinfo", params: { verbose: "true" } });
      await runCli(["--url", rec.url, "-named", "rpc", "--json-params", "getwalletinfo", "verbose=true"]);
      expect(rec.bodies.at(-1)).toEqual({ method: "getwalletinfo", params: { verbose: true } });
      await runCli(["--url", rec.url, "-named", "rpc", "listtransactions", "count=5", "label=7"]);
      expect(rec.bodies.at(-1)).toEqual({ method: "listtransactions", params: { count: 5, label: "7" } });

      const n = rec.bodies.length;
      const bad: [string[], RegExp][] = [
        [
          ["-named", "getblock", "blokhash=" + h],
          /unknown parameter name "blokhash" \(did you mean blockhash\?\)/,
        ],
        [["-named", "getblock", h, "blockhash=" + h], /blockhash given twice \(by position 1 and by name\)/],
        [["-named", "getblock", "verbosity=1", "verbosity=2", `blockhash=${h}`], /verbosity given twice/],
        [["-named", "getblock", "verbosity=1"], /missing parameter blockhash/],
      ];
      for (const [args, msg] of bad) {
        const r = await runCli(["--url", rec.url, ...args]);
        expect(r.exitCode, args.join(" ")).toBe(2);
        expect(r.stderr).toMatch(msg);
      }
      expect(rec.bodies).toHaveLength(n);
    } finally {
      await rec.close();
    }
  });

  it("--wait: a node that starts two seconds later answers; with none, exit 3 when --wait-timeout passes", async () => {
    const port = await freePort();
    const child = spawnCli([
      "--url",
      `http://127.0.0.1:${port}/`,
      "--wait",
      "--wait-timeout",
      "20",
      "getblockcount",
    ]);
    await new Promise((r) => setTimeout(r, 2000));
    // the "node" appearing late: a loopback proxy to the real litecoind
    const auth = basicAuth(ltc.user, ltc.password);
    const late: Server = createServer((req, res) => {
      const up = request(
        ltc.url,
        { method: "POST", headers: { ...req.headers, authorization: auth } },
        (r) => {
          res.writeHead(r.statusCode ?? 502, r.headers);
          r.pipe(res);
        },
      );
      req.pipe(up);
    });
    await new Promise<void>((r) => late.listen(port, "127.0.0.1", r));
    try {
      const r = await child;
      expect(r.exitCode).toBe(0);
      expect(String(r.stdout)).toBe("110\n");
    } finally {
      await new Promise<void>((r) => late.close(() => r()));
    }

    const dead = await freePort();
    const t0 = Date.now();
    const none = await runCli([
      "--url",
      `http://127.0.0.1:${dead}/`,
      "-rpcwait",
      "-rpcwaittimeout=2",
      "getblockcount",
    ]);
    const took = Date.now() - t0;
    expect(none.exitCode).toBe(3);
    // it gave up at -rpcwaittimeout (2 s, not --wait's 60 s default): its own account names the limit, and
    // its attempts, one every half second, are at most what 2 s holds (a loaded host makes them fewer)
    const m = /--wait: no answer within 2 s \((\d+) attempts?\)/.exec(none.stderr);
    expect(m, none.stderr).not.toBeNull();
    expect(Number(m?.[1])).toBeGreaterThanOrEqual(1);
    expect(Number(m?.[1])).toBeLessThanOrEqual(5);
    expect(took).toBeGreaterThanOrEqual(1500);
  });

  it("--network regtest --datadir D finds the port (litecoin.conf) and the cookie, no other flag", async () => {
    const node = await startLitecoind({ cookie: true });
    try {
      // the node's own config file, as an operator keeps it: the regtest section's rpcport
      writeFileSync(join(node.datadir, "litecoin.conf"), `regtest=1\n[regtest]\nrpcport=${node.port}\n`);
      const r = await runCli(["--network", "regtest", "--datadir", node.datadir, "getblockcount"]);
      expect(r.stderr).toBe("");
      expect(r.stdout).toBe("0\n");
      // bitcoin-cli's spelling of the same
      const b = await runCli(["-regtest", `-datadir=${node.datadir}`, "getblockchaininfo", "--json"]);
      expect(JSON.parse(b.stdout)).toMatchObject({ chain: "regtest", blocks: 0 });
      const show = await runCli(["--network", "regtest", "--datadir", node.datadir, "config", "show"]);
      expect(show.stdout).toMatch(
        /endpoints\s+http:\/\/127\.0\.0\.1:\d+\/ \(with credentials\)\s+default: Litecoin Core regtest/,
      );
      expect(show.stdout).not.toContain(node.password);
    } finally {
      await node.stop();
    }
  });

  it("info (-getinfo): the node's state from getblockchaininfo, getnetworkinfo and getmempoolinfo", async () => {
    const j = (await cg("info")) as Record<string, unknown>;
    const bc = (await cli("getblockchaininfo")) as Record<string, unknown>;
    const net = (await cli("getnetworkinfo")) as Record<string, unknown>;
    const pool = (await cli("getmempoolinfo")) as Record<string, unknown>;
    expect(j).toMatchObject({
      chain: "regtest",
      blocks: bc.blocks,
      headers: bc.headers,
      verificationprogress: bc.verificationprogress,
      connections: net.connections,
      version: net.version,
      subversion: net.subversion,
      relayfee: net.relayfee,
      mempool: { size: pool.size, bytes: pool.bytes },
    });
    const raw = await runCli(["info", "--json"], { env });
    expect(raw.stdout).toMatch(/"relayfee":0\.00001000/);
    const h = await runCli(["-getinfo"], { env });
    expect(h.exitCode).toBe(0);
    expect(h.stdout).toMatch(/^Chain\s+regtest$/m);
    expect(h.stdout).toMatch(/^Verification progress\s+100\.0000%$/m);
    expect(h.stdout).toMatch(/^Mempool\s+1 transactions, \d+ bytes/m);
  });
});

describe("unknown methods, config", () => {
  it("a near miss gets did-you-mean; anything else the exact chaingw rpc line; exit 2, nothing sent", async () => {
    const before = proxy.hits;
    const near = await runCli(["getblok", "1"], { env });
    expect(near.exitCode).toBe(2);
    expect(near.stderr).toBe("chaingw: unknown command 'getblok'\ndid you mean getblock?\n");
    const eth = await runCli(["eth_blocknumber"], { env });
    expect(eth.stderr).toContain("did you mean eth_blockNumber?");
    const other = await runCli(["--url", "http://u:pw@127.0.0.1:1/", "getwalletinfo", "a b", "3"], { env });
    expect(other.exitCode).toBe(2);
    // the credentials masked in place: the line says where they go (before: dropped, so the line ran into a 401)
    expect(other.stderr).toContain("  chaingw --url 'http://***@127.0.0.1:1/' rpc getwalletinfo 'a b' 3\n");
    expect(other.stderr).toContain("(*** stands for the credentials you gave)");
    expect(other.stderr).not.toContain("pw");
    const j = await runCli(["--json", "listunspent"], { env });
    expect(JSON.parse(j.stderr).error.hint).toContain("chaingw --json rpc listunspent");
    expect(proxy.hits).toBe(before);
  });

  it("config check names a mistyped key with its line; every call refuses such a file, nothing sent", async () => {
    const f = join(dir, "config.json");
    writeFileSync(
      f,
      `{
  "defaultProfile": "ltc",
  "profiles": {
    "ltc": {
      "url": "${proxy.url}",
      "retires": 3,
      "timeout": "10"
    }
  }
}
`,
    );
    chmodSync(f, 0o600);
    const check = await runCli(["config", "check"], { env: { CHAINGW_CONFIG: f } });
    expect(check.exitCode).toBe(2);
    expect(check.stderr).toContain("line 6: profiles.ltc.retires: unknown key (did you mean retries?)");
    expect(check.stderr).toContain("line 7: profiles.ltc.timeout: expected a number, got string");
    const before = proxy.hits;
    const call = await runCli(["getblockcount"], { env: { CHAINGW_CONFIG: f } });
    expect(call.exitCode).toBe(2);
    expect(call.stderr).toContain("retires");
    expect(proxy.hits).toBe(before);

    const fixed = join(dir, "fixed.json");
    writeFileSync(
      fixed,
      JSON.stringify({ defaultProfile: "ltc", profiles: { ltc: { url: proxy.url, retries: 3 } } }),
    );
    const ok = await runCli(["config", "check"], { env: { CHAINGW_CONFIG: fixed } });
    expect(ok.stdout).toBe(`${fixed}: ok (1 profile: ltc)\n`);
    const show = await runCli(["config", "show"], { env: { CHAINGW_CONFIG: fixed } });
    expect(show.stdout).toMatch(/^retries\s+3\s+profile ltc$/m);
    expect(show.stdout).toMatch(/^timeout\s+60 s\s+default$/m);
    const flag = await runCli(["config", "show", "--retries", "5"], { env: { CHAINGW_CONFIG: fixed } });
    expect(flag.stdout).toMatch(/^retries\s+5\s+flag --retries$/m);
    expect(await runCli(["getblockcount"], { env: { CHAINGW_CONFIG: fixed } })).toMatchObject({
      exitCode: 0,
      stdout: "110\n",
    });
  });

  it("config init writes a starter that passes its own check, private, and never overwrites", async () => {
    const f = join(dir, "sub", "new.json");
    const e = { CHAINGW_CONFIG: f };
    const a = await runCli(["config", "init"], { env: e });
    expect(a.exitCode).toBe(0);
    expect(a.stdout).toBe(`wrote ${f}\n`);
    expect((await import("node:fs")).statSync(f).mode & 0o777).toBe(0o600);
    expect((await runCli(["config", "check"], { env: e })).stdout).toContain("ok (5 profiles");
    const again = await runCli(["config", "init"], { env: e });
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain("exists; not overwriting it");
  });

  it("no endpoint for a group without a usual local one: the refusal says how to set one", async () => {
    const r = await runCli(["--chain", "evm-compat", "eth_blockNumber"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("no endpoint for the evm-compat chain");
    expect(r.stderr).toContain("export CHAINGW_URL=");
    expect(r.stderr).toContain("chaingw config init");
  });
});
