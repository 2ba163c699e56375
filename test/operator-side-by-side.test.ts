/**
 * The operator's day, round three (issue 39): what stopped or misled a user of litecoin-cli and cast when
 * trying chaingw beside them on the same regtest node and anvil. Each case runs what the user ran, with
 * litecoin-cli or cast beside chaingw where the item is about parity.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { execa } from "execa";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { rawServer, sendJson } from "./fixtures/forward.js";
import { startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { freePort } from "./helpers/ports.js";
import { HANG_GUARD_MS, sleep, terminate, trackChild, trackDir, until } from "./helpers/procs.js";
import { spawnPty } from "./helpers/pty.js";
import { startServe } from "./helpers/serve.js";
import { ALICE, BOB, deployToken, SEL, send, word } from "./helpers/token.js";

const REGTEST_FLAGS: string[] = JSON.parse(
  readFileSync(new URL("../scripts/litecoind-regtest.json", import.meta.url), "utf8"),
).flags;

const started: ChildProcess[] = [];
let shared: LitecoinNode | undefined;
afterAll(async () => {
  await Promise.all([...started.map((c) => terminate(c, 5_000)), shared?.stop()]);
});

/** One regtest node for the cases that only read (started on first use). */
async function node(): Promise<LitecoinNode> {
  shared ??= await startLitecoind({ blocks: 110 });
  return shared;
}

/** litecoin-cli against `n`, its output parsed where it is JSON: the reference answer. */
async function lcli(
  n: LitecoinNode,
  ...args: string[]
): Promise<{ out: unknown; exitCode?: number; stderr: string }> {
  const r = await execa(
    "litecoin-cli",
    ["-regtest", `-rpcport=${n.port}`, `-rpcuser=${n.user}`, `-rpcpassword=${n.password}`, ...args],
    { reject: false, timeout: HANG_GUARD_MS },
  );
  let out: unknown = r.stdout.trim();
  try {
    out = JSON.parse(r.stdout);
  } catch {}
  return { out, exitCode: r.exitCode, stderr: String(r.stderr) };
}

/** chaingw --json against `n`, parsed. */
async function cg(
  n: LitecoinNode,
  ...args: string[]
): Promise<{ out: unknown; exitCode: number; stderr: string }> {
  const r = await runCli(["--json", "--url", n.authUrl, ...args]);
  let out: unknown = r.stdout;
  try {
    out = JSON.parse(r.stdout);
  } catch {}
  return { out, exitCode: r.exitCode, stderr: r.stderr };
}

const freshDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "chaingw-op3-"));
  trackDir(d);
  return d;
};

/** litecoind on `datadir`, cookie auth, started after `delayMs` (the user typed both at once). */
function startLater(datadir: string, port: number, delayMs: number): void {
  const t = setTimeout(() => {
    const child = spawn("litecoind", [...REGTEST_FLAGS, `-rpcport=${port}`, `-datadir=${datadir}`], {
      stdio: "ignore",
    });
    trackChild(child);
    started.push(child);
  }, delayMs);
  t.unref();
}

describe("--wait / -rpcwait on a node just started with cookie auth (item 1)", () => {
  it("its config file names the network and port: litecoin-cli -rpcwait and chaingw -rpcwait both answer", async () => {
    const d = freshDir();
    const port = await freePort();
    writeFileSync(join(d, "litecoin.conf"), `regtest=1\n[regtest]\nrpcport=${port}\n`);
    startLater(d, port, 1_500);
    // before: the .cookie read once, before the node wrote it; the node's 401 ended the run
    const reference = () =>
      execa("litecoin-cli", ["-rpcwait", `-datadir=${d}`, "getblockcount"], { reject: false });
    const [ours, first] = await Promise.all([
      runCli(["-rpcwait", `-datadir=${d}`, "getblockcount"]),
      reference(),
    ]);
    // the reference CLI's own race (one clean-clone run of 1,351 at dc00fb4): it can connect between the node
    // binding its port and writing .cookie, and then gives up. Asked once more, it is the reference again;
    // chaingw's side below is never retried
    const theirs = first.stdout.trim() === "" ? await reference() : first;
    expect(theirs.stdout.trim(), `litecoin-cli: ${first.stderr}`).toBe("0");
    expect(ours.stderr).toBe("");
    expect(ours.exitCode).toBe(0);
    expect(ours.stdout.trim()).toBe("0");
  });

  it("a datadir with no config file yet: chaingw -rpcwait -regtest waits, finds the node and its cookie", async () => {
    const d = freshDir();
    const port = await freePort();
    startLater(d, port, 1_500);
    // before: exit 2 at once ("cannot tell Bitcoin Core's data directory from Litecoin Core's")
    const r = await runCli(["-rpcwait", `-datadir=${d}`, "-regtest", "getblockcount"]);
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe("0");
  });

  it("credentials the node will never take (a password, not a cookie): exit 4 at once, as the README says", async () => {
    const d = freshDir();
    const port = await freePort();
    writeFileSync(
      join(d, "litecoin.conf"),
      `regtest=1\n[regtest]\nrpcport=${port}\nrpcuser=u\nrpcpassword=right\n`,
    );
    startLater(d, port, 0);
    // the node up and refusing the password (its own 401), not a wall-clock guess: on a loaded host it may
    // take longer than any fixed pause to listen, and --wait would then rightly retry the refused port
    const url = `http://127.0.0.1:${port}/`;
    const auth = `Basic ${Buffer.from("u:wrong").toString("base64")}`;
    await until("litecoind's RPC port answering", async () => {
      const res = await fetch(url, { method: "POST", headers: { authorization: auth }, body: "{}" }).catch(
        () => undefined,
      );
      return res?.status === 401;
    });
    const r = await runCli(["-v", "--wait", "--url", `http://u:wrong@127.0.0.1:${port}/`, "getblockcount"]);
    expect(r.exitCode).toBe(4);
    // "at once": one attempt (-v names each), not --wait's retries every half second for 60 s (the tool's
    // own account, which a loaded host does not change)
    const [attempt, ...rest] = r.stderr.trimEnd().split("\n");
    expect(attempt).toMatch(
      /^chaingw: getblockcount → http:\/\/127\.0\.0\.1:\d+\/: HTTP 401: .* after \d+ ms$/,
    );
    expect(rest).toHaveLength(1);
    expect(rest[0]).toMatch(/^chaingw: authentication refused: .*HTTP 401/);
    const cli = await execa(
      "litecoin-cli",
      ["-rpcwait", `-datadir=${d}`, "-rpcpassword=wrong", "getblockcount"],
      {
        reject: false,
      },
    );
    expect(cli.exitCode).not.toBe(0);
  });

  it("--wait-timeout passes with the node never up: exit 3 naming --wait", async () => {
    const port = await freePort();
    const r = await runCli([
      "--wait",
      "--wait-timeout",
      "1",
      "--url",
      `http://127.0.0.1:${port}/`,
      "getblockcount",
    ]);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toMatch(/^chaingw: --wait: no answer within 1 s/);
  });
});

describe("a heavy call is never sent again on a timeout (item 2)", () => {
  const TXOUTSET = '{"height":0,"bestblock":"00","txouts":0,"total_amount":0.00000000}';
  /** A node whose gettxoutsetinfo takes `ms`, as mainnet's does for minutes; it counts what it is sent. */
  const slowNode = (ms: number) =>
    rawServer(async (body, _req, res) => {
      const { id } = JSON.parse(body.toString("utf8"));
      await sleep(ms);
      sendJson(res, 200, `{"result":${TXOUTSET},"error":null,"id":${id}}`);
    });

  it("longer than the default request timeout (30 s): answered, sent once, as litecoin-cli waits", async () => {
    const node = await slowNode(33_000);
    try {
      const { port } = node;
      const [ours, theirs] = await Promise.all([
        runCli(["--url", `http://u:p@127.0.0.1:${port}/`, "--json", "gettxoutsetinfo"]),
        execa(
          "litecoin-cli",
          ["-rpcconnect=127.0.0.1", `-rpcport=${port}`, "-rpcuser=u", "-rpcpassword=p", "gettxoutsetinfo"],
          { reject: false },
        ),
      ]);
      expect(theirs.exitCode).toBe(0);
      expect(ours.stderr).toBe("");
      expect(ours.exitCode).toBe(0);
      expect(JSON.parse(ours.stdout)).toEqual(JSON.parse(theirs.stdout));
      // one from each (before: chaingw sent it twice, a retry after the 30 s timeout, then exit 3)
      expect(node.hits).toBe(2);
    } finally {
      await node.close();
    }
  });

  it("past --request-timeout: exit 3 at once, sent once, the message names --request-timeout", async () => {
    // a node still computing when the test ends: only the tool's own 1 s timeout can end its call
    let release = (): void => {};
    const held = new Promise<void>((r) => {
      release = r;
    });
    let unanswered = 0;
    const node = await rawServer(async (body, _req, res) => {
      const { id } = JSON.parse(body.toString("utf8"));
      res.once("close", () => {
        if (!res.writableFinished) unanswered++;
      });
      await held;
      if (!res.destroyed) sendJson(res, 200, `{"result":${TXOUTSET},"error":null,"id":${id}}`);
    });
    try {
      const r = await runCli([
        "--url",
        node.url,
        "--url",
        node.url,
        "--request-timeout",
        "1",
        "gettxoutsetinfo",
      ]);
      expect(r.exitCode).toBe(3);
      expect(r.stderr).toContain(
        "gettxoutsetinfo is a heavy call the node may still be computing, so it was not sent again",
      );
      expect(r.stderr).toContain("--request-timeout");
      // it gave up at its 1 s timeout (its own account) and closed the call the node was still on
      expect(r.stderr).toContain("no complete answer within 1000 ms");
      expect(node.hits).toBe(1);
      await until("the closed call at the node", () => unanswered > 0);
      expect(unanswered).toBe(1);
    } finally {
      release();
      await node.close();
    }
  });

  it("an ordinary read that times out is still retried (idempotent, not heavy)", async () => {
    const node = await rawServer(async (body, _req, res) => {
      const { id } = JSON.parse(body.toString("utf8"));
      if (node.hits === 1) await sleep(2_000);
      sendJson(res, 200, `{"result":7,"error":null,"id":${id}}`);
    });
    try {
      const r = await runCli(["--url", node.url, "--request-timeout", "1", "getblockcount"]);
      expect(r.stdout.trim()).toBe("7");
      expect(node.hits).toBe(2);
    } finally {
      await node.close();
    }
  });
});

describe("getblock as old scripts call it (item 5)", () => {
  it("verbosity true/false (the node reads 1/0), 3, and -named verbose=: the same answers as litecoin-cli", async () => {
    const n = await node();
    const hash = (await lcli(n, "getblockhash", "1")).out as string;
    for (const args of [
      ["getblock", hash, "true"],
      ["getblock", hash, "false"],
      ["getblock", hash, "3"],
      ["-named", "getblock", `blockhash=${hash}`, "verbose=false"],
      ["-named", "getblock", `blockhash=${hash}`, "verbose=true"],
    ]) {
      const [ours, theirs] = await Promise.all([cg(n, ...args), lcli(n, ...args)]);
      expect(theirs.exitCode, args.join(" ")).toBe(0);
      expect(ours.stderr, args.join(" ")).toBe("");
      expect(ours.out, args.join(" ")).toEqual(theirs.out);
    }
    // before: exit 2, "expected a whole number from 0 to 2, got true"; still refused: 4, and two names for one
    const four = await cg(n, "getblock", hash, "4");
    expect(four.exitCode).toBe(2);
    expect(four.stderr).toContain(
      "getblock: invalid verbosity: expected a verbosity 0 to 3, or true (1) / false (0), got 4",
    );
    const twice = await cg(n, "-named", "getblock", `blockhash=${hash}`, "verbose=0", "verbosity=1");
    expect(twice.exitCode).toBe(2);
    expect(twice.stderr).toContain("parameter verbosity given twice");
  });
});

describe("reserves scan: what the proof counts, row by row (item 6)", () => {
  it("--min-conf marks each output left out; --signatures says which checked out", async () => {
    const n = await node();
    const [a, b] = [
      await n.rpc<string>("getnewaddress", ["", "legacy"]),
      await n.rpc<string>("getnewaddress", ["", "legacy"]),
    ];
    const c = await n.newAddress();
    await n.rpc("sendmany", ["", { [a]: 1, [b]: 0.5 }]);
    await n.mine(3);
    // the wallet must not spend a's and b's outputs for the next payment
    const mine = await n.rpc<{ txid: string; vout: number; address: string }[]>("listunspent");
    await n.rpc("lockunspent", [false, mine.filter((u) => u.address === a || u.address === b)]);
    await n.rpc("sendtoaddress", [c, 0.25]);
    await n.mine(1);
    const d = freshDir();
    const challenge = "chaingw operator 3";
    const sigA = await n.rpc<string>("signmessage", [a, challenge]);
    const sigB = await n.rpc<string>("signmessage", [b, "another message"]);
    writeFileSync(join(d, "s.csv"), `${a},${sigA}\n${b},${sigB}\n`);
    const args = ["reserves", "scan", a, b, c, "--proof", join(d, "p.json"), "--min-conf", "3"];
    const r = await runCli([...args, "--challenge", challenge, "--signatures", join(d, "s.csv")], {
      env: { CHAINGW_URL: n.authUrl },
    });
    expect(r.exitCode, r.stderr).toBe(0);
    const row = (addr: string) => r.stdout.split("\n").find((l) => l.includes(addr)) ?? "";
    // before: the table had no word of it; only the totals below it differed
    expect(row(c)).toMatch(/│ not counted \(< 3 conf\) *│/);
    expect(row(a)).toMatch(/│ counted *│/);
    expect(r.stdout).toMatch(
      /^ {2}signatures +1 of 2 check out over the challenge; they prove 1\.00000000 LTC = 100000000 base units/m,
    );
    expect(r.stdout).toContain(`checks out  ${a} (legacy)`);
    expect(r.stdout).toMatch(new RegExp(`does not  ${b}: `));
    const doc = JSON.parse(readFileSync(join(d, "p.json"), "utf8"));
    expect(doc.ownership.signatures.map((x: { valid: boolean }) => x.valid)).toEqual([true, false]);
  });
});

describe("the coin by its name where it is known (issue 39 item 13, round 2)", () => {
  it("a scan of legacy test addresses and of a descriptor says LTC (the node's coin), not coins", async () => {
    const n = await node();
    // a legacy regtest address: its base58 prefix is Bitcoin's testnet one too, so its form names no coin
    const a = await n.rpc<string>("getnewaddress", ["", "legacy"]);
    await n.rpc("sendtoaddress", [a, 0.75]);
    await n.mine(1);
    const d = freshDir();
    for (const target of [
      [a, "--proof", join(d, "p.json")],
      ["-d", `addr(${a})`],
    ]) {
      const r = await runCli(["reserves", "scan", ...target], { env: { CHAINGW_URL: n.authUrl } });
      expect(r.exitCode, r.stderr).toBe(0);
      // before: "total  0.75000000 coins = 75000000 base units"
      expect(r.stdout).toMatch(/^ {2}total +0\.75000000 LTC = 75000000 base units$/m);
      expect(r.stdout).not.toMatch(/\bcoins\b/);
      expect(r.stdout).toMatch(/^ {2}outputs the node walked +\d+ \(its whole set of unspent outputs\)$/m);
    }
    const v = await runCli(["reserves", "verify", join(d, "p.json")], { env: { CHAINGW_URL: n.authUrl } });
    expect(v.exitCode, v.stderr).toBe(0);
    expect(v.stdout).toMatch(/0\.75000000 LTC in 1 output unspent/);
    expect(v.stdout).not.toMatch(/\bcoins\b/);
  });
});

describe("bitcoin-cli's flags (item 7)", () => {
  it("-rpcport with -datadir keeps the cookie; -rpcconnect, -rpcuser/-rpcpassword, -chain: as litecoin-cli", async () => {
    const c = await startLitecoind({ cookie: true, blocks: 2 });
    try {
      const here = ["-regtest", `-datadir=${c.datadir}`, `-rpcport=${c.port}`, "getblockcount"];
      const [ours, theirs] = await Promise.all([
        runCli(here),
        execa("litecoin-cli", here, { reject: false }),
      ]);
      expect(theirs.stdout.trim()).toBe("2");
      // before: "unknown option '-rpcport=…'", exit 2
      expect(ours.stderr).toBe("");
      expect(ours.stdout.trim()).toBe("2");
      const chain = await runCli([
        "-chain=regtest",
        `-datadir=${c.datadir}`,
        `-rpcport=${c.port}`,
        "getblockcount",
      ]);
      expect(chain.stdout.trim()).toBe("2");
    } finally {
      await c.stop();
    }
    const n = await node();
    const creds = [
      "-rpcconnect=127.0.0.1",
      `-rpcport=${n.port}`,
      `-rpcuser=${n.user}`,
      `-rpcpassword=${n.password}`,
    ];
    const [ours, theirs] = await Promise.all([
      runCli([...creds, "getblockhash", "1"]),
      execa("litecoin-cli", [...creds, "getblockhash", "1"], { reject: false }),
    ]);
    expect(ours.stderr).toBe("");
    expect(ours.stdout).toBe(theirs.stdout + "\n");
    // a password in the environment, not the process list
    const env = await runCli(
      ["-rpcconnect=127.0.0.1", `-rpcport=${n.port}`, `-rpcuser=${n.user}`, "getblockcount"],
      {
        env: { CHAINGW_RPC_PASSWORD: n.password },
      },
    );
    expect(env.stdout.trim()).toBe((await lcli(n, "getblockcount")).out + "");
    const none = await runCli([
      "-rpcconnect=127.0.0.1",
      `-rpcport=${n.port}`,
      `-rpcuser=${n.user}`,
      "getblockcount",
    ]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toContain("--rpc-user (-rpcuser) needs its password: CHAINGW_RPC_PASSWORD");
  });

  it("-rpcwallet=NAME reaches that wallet (<url>/wallet/NAME), as litecoin-cli", async () => {
    const n = await node();
    await n.rpc("createwallet", ["second"]).catch(() => undefined);
    // the shared node's later wallet calls name no wallet: "second" is unloaded when this test ends
    onTestFinished(async () => {
      await n.rpc("unloadwallet", ["second"]).catch(() => undefined);
    });
    const creds = [
      `-rpcport=${n.port}`,
      `-rpcuser=${n.user}`,
      `-rpcpassword=${n.password}`,
      "-rpcwallet=second",
    ];
    const theirs = await lcli(n, "-rpcwallet=second", "getwalletinfo");
    const ours = await runCli(["--json", ...creds, "rpc", "getwalletinfo"]);
    expect(ours.stderr).toBe("");
    expect((JSON.parse(ours.stdout) as { walletname: string }).walletname).toBe("second");
    expect((theirs.out as { walletname: string }).walletname).toBe("second");
    const gw = await runCli([
      "--gateway",
      "https://gw.example",
      "--product",
      "p",
      "-rpcwallet=w",
      "getblockcount",
    ]);
    expect(gw.exitCode).toBe(2);
    expect(gw.stderr).toContain("--rpc-wallet (-rpcwallet) names a node's wallet");
  });

  it("-rpcclienttimeout=N is --request-timeout N; -version works; -conf= and -stdinrpcpass say what to use", async () => {
    const slow = await rawServer(async (body, _req, res) => {
      const { id } = JSON.parse(body.toString("utf8"));
      await sleep(3_000);
      sendJson(res, 200, `{"result":1,"error":null,"id":${id}}`);
    });
    try {
      const r = await runCli(["--url", slow.url, "-rpcclienttimeout=1", "gettxoutsetinfo"]);
      expect(r.exitCode).toBe(3);
      expect(r.stderr).toContain("no complete answer within 1000 ms");
      expect(slow.hits).toBe(1);
    } finally {
      await slow.close();
    }
    const v = await runCli(["-version"]);
    // before: "unknown option '-ersion'"
    expect(v.exitCode).toBe(0);
    expect(v.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
    expect((await execa("litecoin-cli", ["-version"], { reject: false })).exitCode).toBe(0);
    const conf = await runCli(["-conf=/etc/litecoin.conf", "getblockcount"]);
    expect(conf.exitCode).toBe(2);
    expect(conf.stderr).toMatch(
      /^chaingw: bitcoin-cli's -conf: chaingw reads the node's own config file .* in --datadir/,
    );
    const pass = await runCli(["-stdinrpcpass", "getblockcount"], { input: "secret\n" });
    expect(pass.exitCode).toBe(2);
    expect(pass.stderr).toContain(
      "bitcoin-cli's -stdinrpcpass: chaingw does not read the password from stdin",
    );
  });

  it("a node error: exit 1 (litecoin-cli exits with its code), and --json carries the node's code", async () => {
    const n = await node();
    const zero = "0".repeat(64);
    const theirs = await lcli(n, "getblock", zero);
    expect(theirs.exitCode).toBe(5);
    const ours = await cg(n, "getblock", zero);
    expect(ours.exitCode).toBe(1);
    expect(JSON.parse(ours.stderr)).toMatchObject({ error: { code: -5, message: "Block not found" } });
  });
});

describe("a gateway, from chaingw and from other clients (item 12)", () => {
  it("cast --rpc-headers and curl send the key as docs/serve.md shows; a 403 says the key may not use the product", async () => {
    const [n, anvil] = await Promise.all([node(), startAnvil()]);
    const gw = await startServe(
      {
        products: {
          ltc: { chain: "utxo", upstreams: [n.authUrl] },
          evm: { chain: "evm", upstreams: [anvil.url] },
        },
      },
      { keys: [["evm"]] },
    );
    try {
      const key = gw.keys[0] as string;
      const cast = await execa(
        join(process.cwd(), "node_modules", ".bin", "cast"),
        ["block-number", "--rpc-url", `${gw.url}/v1/evm`, "--rpc-headers", `X-API-Key: ${key}`],
        { reject: false },
      );
      expect(cast.stderr).toBe("");
      expect(cast.stdout.trim()).toBe("0");
      const curl = await execa("curl", [
        "-s",
        "-H",
        `X-API-Key: ${key}`,
        "-H",
        "content-type: application/json",
        "-d",
        '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
        `${gw.url}/v1/evm`,
      ]);
      expect(JSON.parse(curl.stdout)).toMatchObject({ result: "0x7a69" });
      // the key is good, the product is not its: before, "credentials refused (check the API key)"
      const r = await runCli(["--gateway", gw.url, "--product", "ltc", "getblockcount"], {
        env: { CHAINGW_API_KEY: key },
      });
      expect(r.exitCode).toBe(4);
      expect(r.stderr).toContain(
        'HTTP 403: forbidden: this API key may not use the product: "ltc" (a known key, not allowed this product: check --product',
      );
      const bad = await runCli(["--gateway", gw.url, "--product", "evm", "eth_blockNumber"], {
        env: { CHAINGW_API_KEY: "not-a-key" },
      });
      expect(bad.exitCode).toBe(4);
      expect(bad.stderr).toContain("HTTP 401: unauthorized: unknown API key (check the API key)");
    } finally {
      await Promise.all([gw.stop(), anvil.stop()]);
    }
  });
});

describe("rough edges (item 13)", () => {
  it("an empty object and a one-item list show as such, not a blank line or a bare value", async () => {
    const node = await rawServer((body, _req, res) => {
      const { id, method } = JSON.parse(body.toString("utf8"));
      const result =
        method === "getmempoolinfo"
          ? "{}"
          : method === "getrawmempool"
            ? '["ab12"]'
            : method === "getnetworkinfo"
              ? '{"localaddresses":[{"address":"::1"},{}],"n":1}'
              : '{"warnings":["one"],"softforks":{}}';
      sendJson(res, 200, `{"result":${result},"error":null,"id":${id}}`);
    });
    try {
      const empty = await runCli(["--url", node.url, "getmempoolinfo"]);
      expect(empty.stdout).toBe("(empty object)\n");
      const one = await runCli(["--url", node.url, "rpc", "getblockchaininfo"]);
      expect(one.stdout).toMatch(/^warnings +\[one\]$/m);
      expect(one.stdout).toMatch(/^softforks +\{\}$/m);
      // the top-level list of one on a terminal (before: "ab12" alone, read as the value itself); piped, the
      // item alone, so that `getrawmempool | head -1 | getmempoolentry --stdin` works with one transaction
      const tty = spawnPty(["--url", node.url, "getrawmempool"]);
      expect((await tty.done).code).toBe(0);
      expect(tty.screen()).toContain("[ab12]");
      expect((await runCli(["--url", node.url, "getrawmempool"])).stdout).toBe("ab12\n");
      expect((await runCli(["--json", "--url", node.url, "getrawmempool"])).stdout).toBe('["ab12"]\n');
      // an empty object in a list: {} on its line (before: a blank line)
      const nested = await runCli(["--url", node.url, "getnetworkinfo"]);
      expect(nested.stdout).toMatch(/^localaddresses +\(2\)\n {2}address +::1\n\n {2}\{\}\n/m);
    } finally {
      await node.close();
    }
  });

  it("config init's starter pairs no mainnet with a testnet node as failovers; the package has its LICENSE", async () => {
    const d = freshDir();
    const r = await runCli(["config", "init", "--path", join(d, "c.json")]);
    expect(r.exitCode, r.stderr).toBe(0);
    const text = readFileSync(join(d, "c.json"), "utf8");
    const profiles = JSON.parse(text).profiles as Record<string, { url?: string | string[] }>;
    for (const p of Object.values(profiles)) {
      const ports = new Set([p.url ?? []].flat().map((u) => new URL(u).port));
      expect(ports.size).toBeLessThanOrEqual(1);
    }
    const license = readFileSync(new URL("../LICENSE", import.meta.url), "utf8");
    expect(license).toMatch(/^MIT License/);
    expect(JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")).license).toBe("MIT");
  });
});

describe("beside cast (item 11)", () => {
  const CAST = join(process.cwd(), "node_modules", ".bin", "cast");
  it("--json call: a uint8 is 18 and a wide uint256 a string, as cast; eth_getBalance --ether as cast balance --ether", async () => {
    const anvil = await startAnvil();
    try {
      const token = await deployToken(anvil.rpc, 10n ** 24n);
      for (const [sig, arg] of [
        ["decimals()(uint8)", undefined],
        ["totalSupply()(uint256)", undefined],
        ["balanceOf(address)(uint256)", BOB],
        ["symbol()(string)", undefined],
      ] as const) {
        const extra = arg ? [arg] : [];
        const [ours, theirs] = await Promise.all([
          runCli(["--json", "--url", anvil.url, "call", token, sig, ...extra]),
          execa(CAST, ["call", "--json", "--rpc-url", anvil.url, token, sig, ...extra], { reject: false }),
        ]);
        expect(ours.stderr, sig).toBe("");
        // before: ["18"] where cast gives [18]
        expect(JSON.parse(ours.stdout), sig).toEqual(JSON.parse(theirs.stdout));
      }
      const [ours, theirs] = await Promise.all([
        runCli(["--url", anvil.url, "eth_getBalance", ALICE, "--ether"]),
        execa(CAST, ["balance", "--ether", "--rpc-url", anvil.url, ALICE], { reject: false }),
      ]);
      expect(ours.stderr).toBe("");
      expect(ours.stdout).toBe(`${theirs.stdout.trim()}\n`);
    } finally {
      await anvil.stop();
    }
  });
});

describe("a unit flag in --json: the node's bytes as result, the exact amount beside it (issue 39, round 2)", () => {
  const CAST = join(process.cwd(), "node_modules", ".bin", "cast");
  it("eth_getBalance --ether --json and call --ether --json beside cast balance --ether / cast call / from-wei", async () => {
    const anvil = await startAnvil();
    try {
      const carol = "0x000000000000000000000000000000000000c0de";
      // 1.5 ether and 1 wei: no float holds it
      await anvil.rpc("anvil_setBalance", [carol, `0x${(15n * 10n ** 17n + 1n).toString(16)}`]);
      const [json, jsonl, plain, theirs] = await Promise.all([
        runCli(["--json", "--url", anvil.url, "eth_getBalance", carol, "--ether"]),
        runCli(["--format", "jsonl", "--url", anvil.url, "eth_getBalance", carol, "--ether"]),
        runCli(["--json", "--url", anvil.url, "eth_getBalance", carol]),
        execa(CAST, ["balance", "--ether", "--rpc-url", anvil.url, carol], { reject: false }),
      ]);
      expect(json.stderr).toBe("");
      // before: --ether was ignored under --json ("0x14d1120d7b160001" alone)
      expect(json.stdout).toBe('{"result":"0x14d1120d7b160001","ether":"1.500000000000000001"}\n');
      expect(jsonl.stdout).toBe(json.stdout);
      expect(plain.stdout).toBe('"0x14d1120d7b160001"\n');
      expect(theirs.stdout.trim()).toBe("1.500000000000000001");
      // a contract's integers: the array cast prints as result, each integer in the unit beside it
      const token = await deployToken(anvil.rpc, 10n ** 24n + 1n);
      const sig = "totalSupply()(uint256)";
      const [ours, castCall, castWei] = await Promise.all([
        runCli(["--json", "--url", anvil.url, "call", token, sig, "--ether"]),
        execa(CAST, ["call", "--json", "--rpc-url", anvil.url, token, sig], { reject: false }),
        execa(CAST, ["from-wei", (10n ** 24n + 1n).toString()], { reject: false }),
      ]);
      expect(ours.stderr).toBe("");
      const got = JSON.parse(ours.stdout) as { result: unknown; ether: string[] };
      expect(got.result).toEqual(JSON.parse(castCall.stdout));
      expect(got.ether).toEqual([castWei.stdout.trim()]);
      expect(got.ether).toEqual(["1000000.000000000000000001"]);
      // decode, no node: a non-integer is null in the unit's array
      const word = (n: bigint) => n.toString(16).padStart(64, "0");
      const decoded = await runCli([
        "--json",
        "decode",
        "f()(uint256,address)",
        `0x${word(15n * 10n ** 8n)}${word(5n)}`,
        "--gwei",
      ]);
      expect(JSON.parse(decoded.stdout)).toEqual({
        result: [1500000000, "0x0000000000000000000000000000000000000005"],
        gwei: ["1.5", null],
      });
    } finally {
      await anvil.stop();
    }
  });
});

describe("the side-by-side pass, round 2: commands the issue did not try (issue 39 item 7)", () => {
  it("sendrawtransaction: not a typo of getrawtransaction — the rpc line, credentials masked in place; it sends as litecoin-cli does", async () => {
    const n = await node();
    const txid = await n.rpc<string>("sendtoaddress", [await n.newAddress(), 0.1]);
    const hex = await n.rpc<string>("getrawtransaction", [txid]);
    const r = await runCli(["--url", n.authUrl, "sendrawtransaction", hex]);
    expect(r.exitCode).toBe(2);
    // before: only "did you mean getrawtransaction, decoderawtransaction?"
    expect(r.stderr).toContain("did you mean getrawtransaction");
    const line = `chaingw --url 'http://***@127.0.0.1:${n.port}/' rpc sendrawtransaction ${hex}`;
    expect(r.stderr).toContain(line);
    expect(r.stderr).not.toContain(n.password);
    // the line, with the credentials put back, does what litecoin-cli does: the same txid (in the mempool)
    const [ours, theirs] = [
      await cg(n, "rpc", "sendrawtransaction", hex),
      await lcli(n, "sendrawtransaction", hex),
    ];
    expect(ours.out).toBe(txid);
    expect(theirs.out).toBe(txid);
    // a typo still gets did-you-mean alone
    const typo = await runCli(["--url", n.authUrl, "getblok", "1"]);
    expect(typo.stderr).toBe("chaingw: unknown command 'getblok'\ndid you mean getblock?\n");
  });

  it("getblockheader HEIGHT: refused as litecoin-cli does, and the hash named how to get", async () => {
    const n = await node();
    const [ours, theirs] = [
      await runCli(["--url", n.authUrl, "getblockheader", "102"]),
      await lcli(n, "getblockheader", "102"),
    ];
    expect(theirs.stderr).toContain("hash must be of length 64");
    expect(ours.exitCode).toBe(2);
    expect(ours.stderr).toContain("(a height: `chaingw getblockhash 102` gives its hash)");
    const hash = (await cg(n, "getblockhash", "102")).out as string;
    expect((await cg(n, "getblockheader", hash)).out).toEqual((await lcli(n, "getblockheader", hash)).out);
  });

  it("cast's names for reads (nonce, block, balance, chain-id, …) say chaingw's; ENS names say they are not resolved", async () => {
    const CAST = join(process.cwd(), "node_modules", ".bin", "cast");
    const anvil = await startAnvil();
    try {
      const nonce = await runCli(["--url", anvil.url, "nonce", ALICE]);
      expect(nonce.exitCode).toBe(2);
      // before: "not a method chaingw knows … chaingw rpc nonce" — no node has such a method
      expect(nonce.stderr).toBe(
        "chaingw: unknown command 'nonce'\ncast's `nonce` is `chaingw eth_getTransactionCount ADDRESS [BLOCK]`\n",
      );
      const [ours, theirs] = await Promise.all([
        runCli(["--url", anvil.url, "eth_getTransactionCount", ALICE]),
        execa(CAST, ["nonce", "--rpc-url", anvil.url, ALICE], { reject: false }),
      ]);
      // piped: the node's QUANTITY alone (issue 49), cast's decimal the same number
      expect(BigInt(ours.stdout.trim())).toBe(BigInt(theirs.stdout.trim()));
      const chain = await runCli(["--url", anvil.url, "chain-id"]);
      expect(chain.stderr).toContain("`chaingw eth_chainId`");
      // every row names a command chaingw has
      const { CAST_NAMES } = await import("../src/cli/cast-names.js");
      const methods = new Set(
        (JSON.parse((await runCli(["methods", "--json"])).stdout) as { method: string }[]).map(
          (m) => m.method,
        ),
      );
      for (const [name, ours] of Object.entries(CAST_NAMES)) {
        const first = ours.split(" ")[0] as string;
        if (first.startsWith("(")) continue;
        expect(methods.has(first) || ["decode", "rpc", "from-wei"].includes(first), `${name} → ${ours}`).toBe(
          true,
        );
      }
      // logs over a reversed range, or one past the head: before, nothing printed and exit 0
      const token = await deployToken(anvil.rpc, 10n ** 24n);
      const sig = "Transfer(address indexed from,address indexed to,uint256 value)";
      const logs = (...range: string[]) =>
        runCli(["--url", anvil.url, "logs", "--address", token, ...range, sig]);
      const reversed = await logs("--from-block", "10", "--to-block", "2");
      expect(reversed.exitCode).toBe(2);
      expect(reversed.stderr).toContain("--from-block 10 is after --to-block 2: no block to read");
      const past = await logs("--from-block", "1000");
      expect(past.exitCode).toBe(2);
      expect(past.stderr).toMatch(/--from-block 1000 is after --to-block latest \(block \d+\)/);
      const split = await runCli([
        "--url",
        anvil.url,
        "eth_getLogs",
        "--split",
        "--from-block",
        "10",
        "--to-block",
        "2",
      ]);
      expect(split.exitCode).toBe(2);
      // the honest control: the same range the right way round prints the mint as cast does
      const [good, castLogs] = await Promise.all([
        logs("--from-block", "0", "--to-block", "latest"),
        execa(
          CAST,
          ["logs", "--json", "--rpc-url", anvil.url, "--from-block", "0", "--address", token, sig],
          {
            reject: false,
          },
        ),
      ]);
      expect(good.exitCode, good.stderr).toBe(0);
      const castJson = JSON.parse(castLogs.stdout) as { transactionHash: string }[];
      expect(castJson.length).toBeGreaterThan(0);
      for (const l of castJson) expect(good.stdout).toContain(l.transactionHash);
      // an ENS name: cast resolves it (and fails on anvil, which has no registry); chaingw says it sends addresses
      const ens = await runCli(["--url", anvil.url, "eth_getBalance", "vitalik.eth"]);
      expect(ens.exitCode).toBe(2);
      expect(ens.stderr).toContain("chaingw resolves no ENS names: give the 0x address");
    } finally {
      await anvil.stop();
    }
  });
});

describe("help (item 8)", () => {
  it("--help leads with the usage and the workflows, methods grouped after; chaingw alone: the short usage", async () => {
    const top = await runCli(["--help"], { env: { COLUMNS: "80" } });
    const at = (re: RegExp) => top.stdout.search(re);
    expect(at(/^Usage: chaingw/m)).toBe(0);
    expect(at(/^Workflows:$/m)).toBeLessThan(at(/^Options:$/m));
    expect(at(/^Options:$/m)).toBeLessThan(at(/^Commands:$/m));
    expect(at(/^Commands:$/m)).toBeLessThan(at(/^Methods /m));
    // before: 256 lines, 62 methods before reserves, call and serve
    expect(at(/^ {2}reserves /m)).toBeLessThan(at(/^ {2}utxo: /m));
    expect(top.stdout).toMatch(/^ {2}utxo: scantxoutset, gettxout,/m);
    // 169 lines with the report family (issue 59); before item 8: 256
    expect(top.stdout.split("\n").length).toBeLessThan(176);
    const alone = await runCli([], { env: { COLUMNS: "80" } });
    expect(alone.exitCode).toBe(2);
    expect(alone.stdout).toBe("");
    expect(alone.stderr).toMatch(/^Usage: chaingw \[options\] \[command\]\n\nWorkflows:\n/);
    expect(alone.stderr.split("\n").length).toBeLessThan(18);
  });
});

describe("logs with an event signature that marks nothing indexed (item 11)", () => {
  it("the logs print undecoded, and a hint says to mark the indexed arguments", async () => {
    const anvil = await startAnvil();
    try {
      const token = await deployToken(anvil.rpc, 10n ** 24n);
      await send(anvil.rpc, { from: ALICE, to: token, data: SEL.transfer + word(BOB) + word(5n) });
      const args = ["--url", anvil.url, "logs", "--address", token, "--from-block", "0"];
      const bare = await runCli([...args, "Transfer(address from,address to,uint256 value)"]);
      expect(bare.exitCode, bare.stderr).toBe(0);
      expect(bare.stdout).toContain("undecoded: topics");
      // before: nothing on stderr
      expect(bare.stderr).toMatch(
        /^chaingw: hint: 2 logs did not decode: they carry 2 indexed arguments, the signature declares 0; mark them `indexed`/,
      );
      const good = await runCli([...args, "Transfer(address indexed from,address indexed to,uint256 value)"]);
      expect(good.stderr).toBe("");
      expect(good.stdout).not.toContain("undecoded");
    } finally {
      await anvil.stop();
    }
  });
});

describe("tables fit the terminal (item 10)", () => {
  it("a receipt's logs table within $COLUMNS; piped without it, whole lines as before", async () => {
    const anvil = await startAnvil();
    try {
      const token = await deployToken(anvil.rpc, 10n ** 24n);
      const r = await send(anvil.rpc, { from: ALICE, to: token, data: SEL.transfer + word(BOB) + word(5n) });
      const args = ["--url", anvil.url, "eth_getTransactionReceipt", String(r.transactionHash)];
      const wide = await runCli(args);
      expect(wide.exitCode, wide.stderr).toBe(0);
      // before: ~260 columns whatever the terminal
      expect(Math.max(...wide.stdout.split("\n").map((l) => l.length))).toBeGreaterThan(100);
      const narrow = await runCli(args, { env: { COLUMNS: "100" } });
      expect(narrow.exitCode, narrow.stderr).toBe(0);
      expect(Math.max(...narrow.stdout.split("\n").map((l) => l.length))).toBeLessThanOrEqual(100);
      // nothing lost: every topic is still there, cut across lines
      const joined = narrow.stdout.replace(/[│\s]+/g, "");
      for (const t of [word(BOB).slice(2)]) expect(joined).toContain(t);
    } finally {
      await anvil.stop();
    }
  });
});

describe("a scan of more than 100 outputs: plain columns within $COLUMNS (issue 39 round 2)", () => {
  it("each row within 80 columns under COLUMNS=80, cut across lines; piped, one line a row for grep", async () => {
    const n = await node();
    // one at a time: the node's RPC work queue (16) refuses a burst
    const addrs: string[] = [];
    for (let i = 0; i < 101; i++) addrs.push(await n.newAddress());
    await n.rpc("sendmany", ["", Object.fromEntries(addrs.map((a) => [a, 0.001]))]);
    await n.mine(1);
    const d = freshDir();
    writeFileSync(join(d, "a.txt"), `${addrs.join("\n")}\n`);
    const args = ["reserves", "scan", "-f", join(d, "a.txt")];
    // one after the other: a node runs one scan at a time
    const piped = await runCli(args, { env: { CHAINGW_URL: n.authUrl } });
    const narrow = await runCli(args, { env: { CHAINGW_URL: n.authUrl, COLUMNS: "80" } });
    expect(piped.exitCode, piped.stderr).toBe(0);
    expect(narrow.exitCode, narrow.stderr).toBe(0);
    const table = (t: string) => t.split("\nProof of reserves")[0]?.split("\n") ?? [];
    // piped: 101 rows, header and rule, each row whole (txid:vout, address, amount, height)
    expect(table(piped.stdout).filter((l) => /^[0-9a-f]{64}:\d+ +rltc1/.test(l))).toHaveLength(101);
    // before: every row ~130 columns whatever the terminal
    const rows = table(narrow.stdout);
    expect(Math.max(...rows.map((l) => l.length))).toBeLessThanOrEqual(80);
    expect(rows.length).toBeGreaterThan(2 * 101);
    // nothing lost: every address is still there, cut across lines in its column
    const col = (rows.find((l) => /^-+ {2}-+/.test(l)) ?? "").split("  ");
    const start = (col[0]?.length ?? 0) + 2;
    const down = rows.map((l) => l.slice(start, start + (col[1]?.length ?? 0)).trim()).join("");
    for (const a of addrs) expect(down).toContain(a);
  });
});

describe("completion knows the context (item 9)", () => {
  it("bash: files after reserves verify and --abi; each command only its own flags (and the global ones)", async () => {
    const d = freshDir();
    writeFileSync(join(d, "p.json"), "{}");
    const script = (await runCli(["completion", "bash"])).stdout;
    writeFileSync(join(d, "c.bash"), script);
    // the script asks \`chaingw completion bash --words\`: the bin under test stands in for chaingw on PATH
    const BIN = new URL("../bin/chaingw", import.meta.url).pathname;
    const complete = async (...words: string[]) => {
      const r = await execa(
        "bash",
        [
          "-c",
          // a shell line, not a template: $((…)) and \${…} are bash's
          `chaingw() { node ${BIN} "$@"; }; source c.bash; COMP_WORDS=("$@"); COMP_CWORD=$((\${#COMP_WORDS[@]}-1)); _chaingw; echo "\${COMPREPLY[*]}"`,
          "bash",
          ...words,
        ],
        { cwd: d },
      );
      return r.stdout.trim().split(/\s+/);
    };
    // before: command names after reserves verify and --abi; every command's flags after any command
    expect(await complete("chaingw", "reserves", "verify", "")).toContain("p.json");
    expect(await complete("chaingw", "call", "--abi", "")).toContain("p.json");
    expect(await complete("chaingw", "reserves", "scan", "--ch")).toContain("--chunk");
    expect(await complete("chaingw", "reserves", "verify", "--ch")).not.toContain("--chunk");
    expect(await complete("chaingw", "reserves", "verify", "--u")).toContain("--url");
    expect(await complete("chaingw", "--url", "http://x", "reserves", "")).toContain("verify");
    // bash splits --chain=ev at the "="; the values still complete
    expect(await complete("chaingw", "--chain", "=", "ev")).toEqual(["evm", "evm-compat"]);
    expect(await complete("chaingw", "eth_getBalance", "0x1", "--e")).toEqual(["--ether"]);
  });
});
