import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultServer, startFaultServer } from "./fixtures/faults.js";
import { forward, rawServer, sendJson } from "./fixtures/forward.js";
import { runCli, spawnCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { running, trackDir, until } from "./helpers/procs.js";

// `chaingw reserves` against a real litecoind regtest node: hundreds of funded addresses, a few emptied by
// spends, and fixtures for what a healthy node will not do on demand (slow starts, success:false, 413).

const FUNDED = 300;
const SPENT = 3;
const TPUB =
  "tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp";

let ltc: LitecoinNode;
let dir: string;
let addrs: string[];
let listFile: string;
let longDesc: string;
let mempoolTxid: string;

/** sats from the exact decimal text of a JSON number */
const sats = (t: string): bigint => {
  const [i, f = ""] = t.split(".");
  return BigInt(i) * 100_000_000n + BigInt(f.padEnd(8, "0"));
};

/** The node's own scan, amounts kept as text (no JSON.parse floats). */
/**
 * Starts a real long scan on the node (a wide ranged descriptor takes seconds to expand) and waits until
 * the node reports it; resolves to the pending answer of that scan.
 */
/** whether the node reports a scan running (scantxoutset status) */
const scanning = async () => (await ltc.rpc("scantxoutset", ["status"])) !== null;

async function occupyScanSlot(): Promise<{ busy: Promise<{ status: number; text: string }> }> {
  const busy = ltc.rawCall(
    JSON.stringify({
      id: 9,
      method: "scantxoutset",
      params: ["start", [{ desc: longDesc, range: [0, 60000] }]],
    }),
  );
  // the slot is taken once the node reports the scan, however long a loaded node takes to start it
  await until("the other client's scan", scanning, running(busy));
  // wrapped: an async function returning the promise itself would wait for the scan to end
  return { busy };
}

async function nodeScan(objects: unknown[]) {
  const r = await ltc.rawCall(
    JSON.stringify({ jsonrpc: "1.0", id: 1, method: "scantxoutset", params: ["start", objects] }),
  );
  const total = /"total_amount":\s*([0-9.]+)/.exec(r.text)![1];
  const outpoints = [...r.text.matchAll(/"txid":\s*"([0-9a-f]{64})",\s*"vout":\s*(\d+)/g)].map(
    (m) => `${m[1]}:${m[2]}`,
  );
  const height = Number(/"height":\s*(\d+),\s*"bestblock"/.exec(r.text)![1]);
  return { raw: r.text, total, outpoints, height };
}

const nodeUrl = () => ltc.authUrl;
const viaProxy = (f: FaultServer) => f.url.replace("//", `//${ltc.user}:${ltc.password}@`);
const proxyTo = () =>
  startFaultServer({ upstream: { url: ltc.url, user: ltc.user, password: ltc.password } });

/** Counts scantxoutset actions seen by a fault server and slows `start` by `ms` (0 = pass). */
function spyScan(f: FaultServer, ms: number): string[] {
  const seen: string[] = [];
  f.setMethodFault("scantxoutset", { kind: "delay", ms }, (p) => {
    seen.push(String(p[0]));
    return p[0] === "start";
  });
  return seen;
}

/** A tiny JSON-RPC node stand-in: answers the pre-flight calls and `start` with a crafted result text. */
async function fakeNode(startResult: () => string): Promise<{ url: string; close: () => Promise<void> }> {
  const server = await rawServer((raw, _req, res) => {
    const body = JSON.parse(raw.toString("utf8"));
    const [action] = body.params ?? [];
    const result =
      body.method === "getblockchaininfo"
        ? '{"chain":"regtest","blocks":1}'
        : body.method === "validateaddress"
          ? '{"isvalid":true}'
          : action === "start"
            ? startResult()
            : action === "abort"
              ? "false"
              : "null";
    sendJson(res, 200, `{"result":${result},"error":null,"id":${JSON.stringify(body.id)}}`);
  });
  return { url: `http://u:p@127.0.0.1:${server.port}/`, close: server.close };
}

beforeAll(async () => {
  ltc = await startLitecoind();
  dir = mkdtempSync(join(tmpdir(), "chaingw-reserves-"));
  trackDir(dir);
  // mixed address types of one network: bech32, legacy base58 and p2sh-segwit
  addrs = [];
  for (let i = 0; i < FUNDED; i++) {
    const type = i % 30 === 1 ? "legacy" : i % 30 === 2 ? "p2sh-segwit" : "bech32";
    addrs.push(await ltc.rpc<string>("getnewaddress", ["", type]));
  }
  for (const a of addrs) await ltc.mine(1, a);
  await ltc.mine(101); // coinbase maturity for the first FUNDED blocks
  // empty the first SPENT addresses: spend their coinbase outputs to a wallet address
  for (const a of addrs.slice(0, SPENT)) {
    const utxos = await ltc.rpc<{ txid: string; vout: number; amount: number }[]>("listunspent", [
      1,
      9999,
      [a],
    ]);
    const to = await ltc.newAddress();
    const raw = await ltc.rpc<string>("createrawtransaction", [
      utxos.map((u) => ({ txid: u.txid, vout: u.vout })),
      { [to]: 49.999 },
    ]);
    const signed = await ltc.rpc<{ hex: string }>("signrawtransactionwithwallet", [raw]);
    await ltc.rpc("sendrawtransaction", [signed.hex]);
  }
  await ltc.mine(1);
  // an unconfirmed payment to a listed address: a reserve proof must not count it
  mempoolTxid = await ltc.rpc<string>("sendtoaddress", [addrs[10], 1.23456789]);

  listFile = join(dir, "addresses.txt");
  writeFileSync(
    listFile,
    [
      "# exchange cold wallets",
      "",
      ...addrs.map((a, i) => (i === 5 ? `${a}   # hot` : a)),
      addrs[7],
      addrs[8].toUpperCase(), // bech32 is case-insensitive: the same address again
      "",
    ].join("\n"),
  );
  const info = await ltc.rpc<{ descriptor: string }>("getdescriptorinfo", [`wpkh(${TPUB}/0/*)`]);
  longDesc = info.descriptor;
});

afterAll(async () => {
  await ltc?.stop();
});

describe("reserves scan against the node", () => {
  it("--json: totals and outputs equal the node's own scan, to the satoshi; duplicates counted", async () => {
    const r = await runCli(["--url", nodeUrl(), "reserves", "scan", "--file", listFile, "--json"]);
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    const rep = JSON.parse(r.stdout);
    const own = await nodeScan(addrs.map((a) => `addr(${a})`));
    expect(rep.proof).toBe("complete");
    expect(rep.addresses_asked).toBe(FUNDED);
    expect(rep.duplicates_removed).toBe(2);
    expect(rep.addresses_with_funds).toBe(FUNDED - SPENT);
    expect(rep.outputs).toBe(own.outpoints.length);
    expect(rep.unspents.map((u: { txid: string; vout: number }) => `${u.txid}:${u.vout}`).sort()).toEqual(
      own.outpoints.sort(),
    );
    expect(rep.total_amount).toBe(own.total);
    expect(rep.total_sats).toBe(sats(own.total).toString());
    expect(rep.total_sats).toBe(
      rep.unspents.reduce((a: bigint, u: { amount: string }) => a + sats(u.amount), 0n).toString(),
    );
    expect(rep.height).toBe(own.height);
    expect(rep.mempool_included).toBe(false);
    expect(rep.chain).toBe("regtest");
    expect(rep.endpoint).toBe(ltc.url);
    expect(r.stdout).not.toContain(ltc.password);
    // amounts are exact decimal strings; the unconfirmed payment is not there
    expect(rep.unspents.every((u: { amount: unknown }) => typeof u.amount === "string")).toBe(true);
    expect(rep.unspents.some((u: { txid: string }) => u.txid === mempoolTxid)).toBe(false);
    // per-address rows only on request: a long list would otherwise be mostly rows of zeros
    expect(rep.by_address).toBeUndefined();
  });

  it("--json --by-address: every address asked, the emptied ones at zero, subtotals adding up to the total", async () => {
    const r = await runCli([
      "--url",
      nodeUrl(),
      "reserves",
      "scan",
      "-f",
      listFile,
      "--json",
      "--by-address",
    ]);
    expect(r.exitCode).toBe(0);
    const rep = JSON.parse(r.stdout);
    expect(rep.by_address).toHaveLength(FUNDED);
    for (const a of addrs.slice(0, SPENT))
      expect(rep.by_address.find((h: { address: string }) => h.address === a)).toMatchObject({
        outputs: 0,
        amount: "0.00000000",
        sats: "0",
      });
    const funded = rep.by_address.find((h: { address: string }) => h.address === addrs[SPENT]);
    expect(sats(funded.amount).toString()).toBe(funded.sats);
    expect(rep.by_address.reduce((a: bigint, h: { sats: string }) => a + BigInt(h.sats), 0n).toString()).toBe(
      rep.total_sats,
    );
    expect(rep.by_address.reduce((a: number, h: { outputs: number }) => a + h.outputs, 0)).toBe(rep.outputs);
  });

  it("human report: a table of unspents and the summary; --by-address shows subtotals with the empties", async () => {
    const r = await runCli(["--url", nodeUrl(), "reserves", "scan", ...addrs.slice(0, 20)]);
    expect(r.exitCode).toBe(0);
    const own = await nodeScan(addrs.slice(0, 20).map((a) => `addr(${a})`));
    expect(r.stdout).toMatch(/txid:vout.*address or descriptor.*amount.*height/);
    for (const op of own.outpoints) expect(r.stdout).toContain(op);
    expect(r.stdout).toMatch(/addresses asked\s+20\n/);
    expect(r.stdout).toMatch(new RegExp(`addresses with funds\\s+${20 - SPENT}\\n`));
    expect(r.stdout).toContain(`${own.total} LTC = ${sats(own.total)} base units`);
    expect(r.stdout).toMatch(/mempool not included/);
    expect(
      r.stdout
        .split("\n")
        .find((l) => /^\s*endpoint\s/.test(l))
        ?.trim()
        .split(/\s+/)[1],
    ).toBe(ltc.url);

    const b = await runCli(["--url", nodeUrl(), "reserves", "scan", "--by-address", ...addrs.slice(0, 20)]);
    expect(b.exitCode).toBe(0);
    expect(b.stdout).toMatch(/address or descriptor.*outputs.*amount/);
    expect(b.stdout).toMatch(new RegExp(`${addrs[0]}\\s*│\\s*0\\s*│\\s*0\\.00000000`));
    expect(b.stdout).toMatch(new RegExp(`${addrs[15]}\\s*│\\s*1\\s*│\\s*50\\.00000000`));
  });

  it("human report beyond 100 unspents: plain aligned columns, one line per unspent, same content", async () => {
    const r = await runCli(["--url", nodeUrl(), "reserves", "scan", "-f", listFile]);
    expect(r.exitCode).toBe(0);
    const own = await nodeScan(addrs.map((a) => `addr(${a})`));
    expect(own.outpoints.length).toBeGreaterThan(100);
    const [table] = r.stdout.split("\n\nProof of reserves");
    expect(table).not.toMatch(/[┌│└]/);
    const lines = table.split("\n");
    expect(lines[0]).toMatch(/^txid:vout\s+address or descriptor\s+amount\s+height$/);
    expect(lines[1]).toMatch(/^-+ +-+ +-+ +-+$/);
    expect(
      lines
        .slice(2)
        .map((l) => l.split(/\s+/)[0])
        .sort(),
    ).toEqual([...own.outpoints].sort());
    expect(r.stdout).toContain(`${own.total} LTC = ${sats(own.total)} base units`);
  });

  it("--csv writes one row per unspent; its sats add up to the total", async () => {
    const csv = join(dir, "out.csv");
    const r = await runCli(["--url", nodeUrl(), "reserves", "scan", "-f", "-", "--csv", csv, "--json"], {
      input: addrs.join("\n"),
    });
    expect(r.exitCode).toBe(0);
    const rep = JSON.parse(r.stdout);
    const lines = readFileSync(csv, "utf8").trim().split("\n");
    expect(lines[0]).toBe("txid,vout,address,descriptor,amount,sats,height");
    expect(lines).toHaveLength(rep.outputs + 1);
    const rows = lines.slice(1).map((l) => l.split(","));
    expect(rows.reduce((a, c) => a + BigInt(c[5]), 0n).toString()).toBe(rep.total_sats);
    const u = rep.unspents[0];
    expect(lines).toContain(
      `${u.txid},${u.vout},${u.address},addr(${u.address}),${u.amount},${u.sats},${u.height}`,
    );
  });

  it("descriptors with --range are scanned in the same pass", async () => {
    const [a0, a3] = [
      (await ltc.rpc<string[]>("deriveaddresses", [longDesc, [0, 0]]))[0],
      (await ltc.rpc<string[]>("deriveaddresses", [longDesc, [3, 3]]))[0],
    ];
    // coins to derived addresses, mined, so the ranged descriptor finds them
    await ltc.rpc("sendtoaddress", [a0, 2.5]);
    await ltc.rpc("sendtoaddress", [a3, 0.00100777]);
    await ltc.mine(1);
    const r = await runCli([
      "--url",
      nodeUrl(),
      "reserves",
      "scan",
      "--json",
      "--descriptor",
      longDesc,
      "--range",
      "0-5",
      addrs[20],
    ]);
    expect(r.exitCode).toBe(0);
    const rep = JSON.parse(r.stdout);
    expect(rep.descriptors_asked).toBe(1);
    expect(rep.addresses_with_funds).toBe(3);
    const amounts = rep.unspents.map((u: { amount: string }) => u.amount).sort();
    expect(amounts).toEqual(["0.00100777", "2.50000000", "50.00000000"]);
    expect(rep.total_amount).toBe("52.50100777");
    const own = await nodeScan([{ desc: longDesc, range: [0, 5] }, `addr(${addrs[20]})`]);
    expect(rep.total_amount).toBe(own.total);
  });
});

describe("input is checked before anything is sent", () => {
  let proxy: FaultServer;
  beforeAll(async () => {
    proxy = await proxyTo();
  });
  afterAll(async () => {
    await proxy?.stop();
  });

  it("bad lines are listed with line numbers, exit 2, no request", async () => {
    const f = join(dir, "bad.txt");
    const badChecksum = addrs[1].slice(0, -1) + (addrs[1].endsWith("q") ? "p" : "q");
    writeFileSync(f, ["# list", addrs[3], "", "not-an-address", badChecksum, addrs[4]].join("\n"));
    const before = proxy.hits;
    const r = await runCli(["--url", viaProxy(proxy), "reserves", "scan", "-f", f]);
    expect(r.exitCode).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/2 problems in the input; nothing was sent/);
    expect(r.stderr).toMatch(/line 4 of .*bad\.txt: "not-an-address"/);
    expect(r.stderr).toMatch(/line 5 of .*bad\.txt: ".*": bad .*checksum/);
    expect(proxy.hits).toBe(before);
  });

  it("a list mixing networks is refused locally; another network's address is refused by the node before any scan", async () => {
    const mainnet = "bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq";
    const before = proxy.hits;
    const mixed = await runCli(["--url", viaProxy(proxy), "reserves", "scan", addrs[0], mainnet]);
    expect(mixed.exitCode).toBe(2);
    expect(mixed.stderr).toMatch(/mixes networks: bech32 prefixes rltc, bc/);
    expect(proxy.hits).toBe(before);

    const scansBefore = proxy.hitsByMethod.scantxoutset ?? 0;
    const wrong = await runCli(["--url", viaProxy(proxy), "reserves", "scan", mainnet]);
    expect(wrong.exitCode).toBe(2);
    expect(wrong.stderr).toMatch(/another network.*no scan was started/);
    expect(wrong.stderr).toContain(
      `argument 1: ${mainnet}: the node (chain regtest) says it is not one of its addresses`,
    );
    expect(proxy.hitsByMethod.scantxoutset ?? 0).toBe(scansBefore);
  });

  it("`start` comes on a connection of its own (kept alive, libevent's answer may wait 40 ms for an ACK)", async () => {
    const by = { ...proxy.hitsByMethod };
    const hits = proxy.hits;
    const conns = proxy.connections;
    const r = await runCli(["--url", viaProxy(proxy), "reserves", "scan", "--json", ...addrs.slice(0, 30)]);
    expect(r.exitCode).toBe(0);
    const delta = (m: string) => (proxy.hitsByMethod[m] ?? 0) - (by[m] ?? 0);
    expect(delta("getblockchaininfo")).toBe(1);
    expect(delta("validateaddress")).toBeGreaterThanOrEqual(1); // one per address prefix
    expect(delta("scantxoutset")).toBe(1);
    // the few calls of a scan are not pooled at all: one connection each
    expect(proxy.connections - conns).toBe(proxy.hits - hits);
  });

  it("nothing to scan, or --range without a ranged descriptor: exit 2", async () => {
    expect((await runCli(["--url", nodeUrl(), "reserves", "scan"])).stderr).toMatch(/nothing to scan/);
    const r = await runCli(["--url", nodeUrl(), "reserves", "scan", addrs[3], "--range", "5"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/no --descriptor is ranged/);
  });
});

describe("a scan that lasts: progress, busy slot, abort", () => {
  let proxy: FaultServer;
  beforeAll(async () => {
    proxy = await proxyTo();
  });
  afterAll(async () => {
    await proxy?.stop();
  });

  const nodeIdle = async () => expect(await ltc.rpc("scantxoutset", ["status"])).toBeNull();

  it("--progress prints plain lines while start runs; status polls go to the same endpoint", async () => {
    const seen = spyScan(proxy, 2500);
    const r = await runCli([
      "--url",
      viaProxy(proxy),
      "reserves",
      "scan",
      "--progress",
      "1",
      ...addrs.slice(0, 5),
    ]);
    expect(r.exitCode).toBe(0);
    expect(
      r.stderr.match(/chaingw: scanning the UTXO set on http:\/\/127\.0\.0\.1:\d+\/: .*, \d s/g)?.length,
    ).toBeGreaterThanOrEqual(2);
    expect(seen[0]).toBe("start");
    expect(seen.filter((a) => a === "start")).toHaveLength(1);
    expect(seen.filter((a) => a === "status").length).toBeGreaterThanOrEqual(2);
    expect(r.stdout).toMatch(/scan complete/);
  });

  it("scan slot taken: a clear message naming reserves status/abort; status and abort by hand", async () => {
    // a real long scan on the node: a wide ranged descriptor takes seconds to expand
    const { busy } = await occupyScanSlot();
    const r = await runCli(["--url", nodeUrl(), "reserves", "scan", addrs[20]]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/a scan is already running on this node/);
    expect(r.stderr).toContain("chaingw reserves status");
    expect(r.stderr).toContain("chaingw reserves abort");
    expect(r.stderr).toContain("--wait");

    const st = await runCli(["--url", nodeUrl(), "reserves", "status"]);
    expect(st.exitCode).toBe(0);
    // a scan still expanding its descriptors shows the node's previous figure: "preparing", not that figure
    expect(st.stdout).toMatch(new RegExp(`^${ltc.url}: scan running(, \\d+% of the UTXO set|: preparing)`));

    // the node's word however long a loaded node takes to give it
    const ab = await runCli(["--url", nodeUrl(), "reserves", "abort", "--abort-wait", "600"]);
    expect(ab.exitCode).toBe(0);
    // another client's scan: chaingw cannot see its answer, so it says what the node reports, never
    // "aborted" (Core 0.21 loses an abort sent while it expands descriptors; this scan may complete)
    expect(ab.stdout).toMatch(/the node now reports no scan running|has now ended/);
    expect(ab.stdout).not.toMatch(/scan aborted/);
    await nodeIdle();
    await busy;
    expect((await runCli(["--url", nodeUrl(), "reserves", "status"])).stdout).toBe(
      `${ltc.url}: no scan running\n`,
    );
  });

  it("--wait waits for the slot, then scans", async () => {
    const { busy } = await occupyScanSlot();
    const r = await runCli(["--url", nodeUrl(), "reserves", "scan", "--wait", "--json", addrs[20]]);
    await busy;
    expect(r.exitCode).toBe(0);
    expect(r.stderr).toMatch(/a scan is already running .*--wait: starting as soon as it ends/);
    expect(JSON.parse(r.stdout).total_amount).toBe("50.00000000");
  });

  /** `reserves scan --progress 1` through the proxy, its stderr collected as it comes */
  const scanWithProgress = (args: string[]) => {
    const p = spawnCli(["--url", viaProxy(proxy), "reserves", "scan", "--progress", "1", ...args]);
    let err = "";
    p.stderr?.on("data", (c: Buffer) => {
      err += c.toString();
    });
    return { p, err: () => err };
  };

  it("SIGINT while start is out: abort goes to the same endpoint, nothing proven, exit 130, node idle", async () => {
    const seen = spyScan(proxy, 20_000);
    const { p, err } = scanWithProgress(addrs.slice(0, 50));
    await until("the scan starting", () => /scanning the UTXO set/.test(err()), running(p));
    p.kill("SIGINT");
    const r = await p;
    expect(r.exitCode).toBe(130);
    expect(r.stdout).toBe("");
    expect(err()).toMatch(/SIGINT: sending abort to http:\/\/127\.0\.0\.1:\d+\//);
    expect(err()).toMatch(/interrupted \(SIGINT\): the scan did not complete; nothing was proven/);
    expect(err()).toMatch(/the node reports no scan running/);
    expect(seen).toContain("abort");
    expect(seen.indexOf("abort")).toBeGreaterThan(seen.indexOf("start"));
    await nodeIdle();
  });

  it("SIGTERM during a real scan on the node: the node confirms the abort", async () => {
    const seen = spyScan(proxy, 0);
    // --abort-wait: wait for the node's word even while it prepares the scan (without it, chaingw returns
    // after a few seconds then, saying the node may still be scanning: test/operator.test.ts)
    const { p, err } = scanWithProgress([
      "--descriptor",
      longDesc,
      "--range",
      "0-90000",
      "--abort-wait",
      "600",
    ]);
    await until("the node scanning", scanning, running(p));
    // not p.kill(): execa follows its SIGTERM with a SIGKILL after 2 s, and confirming an abort takes longer
    process.kill(p.pid!, "SIGTERM");
    const r = await p;
    expect(r.exitCode).toBe(130);
    expect(r.stdout).toBe("");
    // what the node did, from the node: the scan's own answer (success false or true), or that it never came
    expect(err()).toMatch(
      /scan aborted; the node reports no scan running \(the scan answered success: false|the scan completed before the abort took effect \(it answered success: true|the node reports no scan running .*the scan's own answer did not come back/,
    );
    // one abort, a second only when the node showed it ignored the first
    expect(seen.filter((a) => a === "abort").length).toBeGreaterThanOrEqual(1);
    expect(seen.filter((a) => a === "abort").length).toBeLessThanOrEqual(2);
    await nodeIdle();
  });

  it("--scan-timeout: the scan is aborted on the node and nothing is proven (exit 3)", async () => {
    const seen = spyScan(proxy, 4000);
    const r = await runCli(["--url", viaProxy(proxy), "--scan-timeout", "1", "reserves", "scan", addrs[20]]);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/did not finish within --scan-timeout \(1 s\); nothing was proven/);
    expect(seen.filter((a) => a === "start")).toHaveLength(1);
    expect(seen).toContain("abort");
  });
});

describe("answers that are not a proof", () => {
  let real: string;
  beforeAll(async () => {
    const r = await ltc.rawCall(
      JSON.stringify({
        id: 1,
        method: "scantxoutset",
        params: ["start", addrs.slice(0, 12).map((a) => `addr(${a})`)],
      }),
    );
    real = /"result":(\{.*\}),"error"/s.exec(r.text)![1];
  });

  it("success:false (an aborted scan's partial total) is refused: exit 1, no report", async () => {
    const fake = await fakeNode(() =>
      real
        .replace('"success":true', '"success":false')
        .replace(/"total_amount":[0-9.]+/, '"total_amount":150.00000000'),
    );
    try {
      const r = await runCli(["--url", fake.url, "reserves", "scan", ...addrs.slice(0, 12)]);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(
        /scan did not complete \(success: false\).*150\.00000000 is not reserves.*nothing was proven/,
      );
      const j = await runCli(["--url", fake.url, "reserves", "scan", "--json", addrs[5]]);
      expect(j.exitCode).toBe(1);
      expect(j.stdout).toBe("");
    } finally {
      await fake.close();
    }
  });

  it("a node total that is not the sum of the outputs is an error", async () => {
    const fake = await fakeNode(() => real.replace(/"total_amount":[0-9.]+/, '"total_amount":450.00000001'));
    try {
      const r = await runCli(["--url", fake.url, "reserves", "scan", ...addrs.slice(0, 12)]);
      expect(r.exitCode).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toMatch(/add up to .* but the node's total_amount is 450\.00000001; not a proof/);
    } finally {
      await fake.close();
    }
  });
});

describe("--cross-check and size refusals", () => {
  it("the same scan on the second endpoint: agrees, different tip, or mismatch (exit 1)", async () => {
    const proxy = await proxyTo();
    const args = ["reserves", "scan", "--json", "--cross-check", ...addrs.slice(0, 12)];
    try {
      const ok = await runCli(["--url", nodeUrl(), "--url", viaProxy(proxy), ...args]);
      expect(ok.exitCode).toBe(0);
      const rep = JSON.parse(ok.stdout);
      expect(rep.cross_check).toMatchObject({
        endpoint: proxy.url,
        verdict: "agrees",
        total_sats: rep.total_sats,
      });
      expect(proxy.hitsByMethod.scantxoutset).toBe(1);
    } finally {
      await proxy.stop();
    }

    const r = await ltc.rawCall(
      JSON.stringify({
        id: 1,
        method: "scantxoutset",
        params: ["start", addrs.slice(0, 12).map((a) => `addr(${a})`)],
      }),
    );
    const real = /"result":(\{.*\}),"error"/s.exec(r.text)![1];
    const firstAmount = /"amount":([0-9.]+)/.exec(real)![1];
    const less = (sats(/"total_amount":([0-9.]+)/.exec(real)![1]) - sats(firstAmount)).toString();
    const lessText = `${less.slice(0, -8) || "0"}.${less.slice(-8).padStart(8, "0")}`;
    // same tip, one output missing there: the other node disagrees about reserves at the same block
    const mismatch = await fakeNode(() =>
      real.replace(/\{"txid"[^}]*\},?/, "").replace(/"total_amount":[0-9.]+/, `"total_amount":${lessText}`),
    );
    const otherTip = await fakeNode(() =>
      real.replace(
        /"height":(\d+),"bestblock":"[0-9a-f]{64}"/,
        (_m, h) => `"height":${Number(h) + 5},"bestblock":"${"ab".repeat(32)}"`,
      ),
    );
    try {
      const bad = await runCli(["--url", nodeUrl(), "--url", mismatch.url, ...args]);
      expect(bad.exitCode).toBe(1);
      expect(JSON.parse(bad.stdout)).toMatchObject({
        proof: "disputed",
        cross_check: { verdict: "mismatch" },
      });
      expect(bad.stderr).toMatch(/cross-check failed: .* same block but reports different reserves/);

      const human = await runCli([
        "--url",
        nodeUrl(),
        "--url",
        otherTip.url,
        ...args.filter((a) => a !== "--json"),
      ]);
      expect(human.exitCode).toBe(0);
      expect(human.stdout).toMatch(/cross-check\s+inconclusive: .*different tips/);
    } finally {
      await mismatch.close();
      await otherTip.close();
    }

    const one = await runCli(["--url", nodeUrl(), ...args]);
    expect(one.exitCode).toBe(2);
    expect(one.stderr).toMatch(/--cross-check needs a second endpoint/);
  });

  it("HTTP 413 for a big request: the objects are scanned in parts at one block, and the report says so", async () => {
    let refused = 0;
    const server = await rawServer(async (body, _req, res) => {
      if (body.length > 4000) {
        refused++;
        res.writeHead(413, { "content-type": "text/plain" });
        res.end("Payload Too Large");
        return;
      }
      const up = await forward({ url: ltc.url, user: ltc.user, password: ltc.password }, body, {});
      res.writeHead(up.status, { "content-type": "application/json" });
      res.end(up.body);
    });
    const url = server.url;
    try {
      const r = await runCli(["--url", url, "reserves", "scan", "--json", ...addrs.slice(0, 120)]);
      expect(r.exitCode).toBe(0);
      const rep = JSON.parse(r.stdout);
      const own = await nodeScan(addrs.slice(0, 120).map((a) => `addr(${a})`));
      expect(rep.chunks).toBeGreaterThan(1);
      expect(refused).toBeGreaterThan(0);
      expect(rep.chunk_note).toMatch(/refused one request of 120 objects \(HTTP 413\)/);
      expect(rep.total_amount).toBe(own.total);
      expect(rep.outputs).toBe(own.outpoints.length);
    } finally {
      await server.close();
    }
  });
});
