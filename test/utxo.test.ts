/**
 * The foundation end to end: every UTXO method through the built CLI against a real litecoind -regtest,
 * --json losslessness against the node's own bytes, bad input refused before the wire.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type FaultServer, startFaultServer } from "./fixtures/faults.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { HANG_GUARD_MS } from "./helpers/procs.js";

let ltc: LitecoinNode;
let proxy: FaultServer; // passes through to the node, counting hits
let addr: string;
let env: Record<string, string>;

const body = (method: string, params: unknown[] = []) =>
  JSON.stringify({ jsonrpc: "2.0", id: 7, method, params });
/** the exact text of `result` in the node's own answer, for byte-for-byte comparison */
async function nodeResultText(method: string, params: unknown[] = []): Promise<string> {
  const { text } = await ltc.rawCall(body(method, params));
  const start = text.indexOf('"result":') + '"result":'.length;
  const end = text.lastIndexOf(',"error":');
  return text.slice(start, end);
}

beforeAll(async () => {
  ltc = await startLitecoind();
  addr = await ltc.newAddress();
  await ltc.mine(120, addr);
  proxy = await startFaultServer({
    upstream: { url: ltc.url, user: ltc.user, password: ltc.password },
    fault: { kind: "pass" },
  });
  env = { CHAINGW_URL: proxy.url };
});

afterAll(async () => {
  await proxy?.stop();
  await ltc?.stop();
});

describe("UTXO methods against a real node", () => {
  it("getblockchaininfo: human and --json", async () => {
    const h = await runCli(["getblockchaininfo"], { env });
    expect(h.exitCode).toBe(0);
    expect(h.stdout).toMatch(/^chain\s+regtest$/m);
    expect(h.stdout).toMatch(/^blocks\s+120$/m);
    const j = await runCli(["getblockchaininfo", "--json"], { env });
    expect(j.exitCode).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({ chain: "regtest", blocks: 120, pruned: false });
    expect(j.stderr).toBe("");
  });

  it("getblock at verbosity 0, 1 and 2, byte for byte equal to the node's result", async () => {
    const hash = await ltc.rpc<string>("getblockhash", [5]);
    for (const v of [0, 1, 2]) {
      const r = await runCli(["--json", "getblock", hash, String(v)], { env });
      expect(r.exitCode).toBe(0);
      expect(r.stdout).toBe((await nodeResultText("getblock", [hash, v])) + "\n");
    }
    const human = await runCli(["getblock", hash], { env });
    expect(human.stdout).toMatch(new RegExp(`^hash\\s+${hash}$`, "m"));
    expect(human.stdout).toMatch(/^height\s+5$/m);
  });

  it("getblockheader verbose and raw", async () => {
    const hash = await ltc.rpc<string>("getblockhash", [7]);
    const j = await runCli(["getblockheader", hash, "--json"], { env });
    expect(JSON.parse(j.stdout)).toMatchObject({ hash, height: 7, confirmations: 114 });
    const raw = await runCli(["getblockheader", hash, "false"], { env });
    expect(raw.exitCode).toBe(0);
    expect(raw.stdout.trim()).toMatch(/^[0-9a-f]{160}$/);
  });

  it("gettxout: an unspent coinbase output keeps 8 decimals; a missing output is null and exit 0", async () => {
    const hash = await ltc.rpc<string>("getblockhash", [3]);
    const block = await ltc.rpc<{ tx: string[] }>("getblock", [hash]);
    const txid = block.tx[0];
    const j = await runCli(["--json", "gettxout", txid, "0"], { env });
    expect(j.exitCode).toBe(0);
    expect(j.stdout).toContain('"value":50.00000000');
    expect(j.stdout).toBe((await nodeResultText("gettxout", [txid, 0])) + "\n");
    const h = await runCli(["gettxout", txid, "0", "true"], { env });
    expect(h.stdout).toMatch(/^value\s+50\.00000000$/m);
    const none = await runCli(["--json", "gettxout", txid, "5"], { env });
    expect(none.exitCode).toBe(0);
    expect(none.stdout).toBe("null\n");
    const noneHuman = await runCli(["gettxout", txid, "5"], { env });
    expect(noneHuman.exitCode).toBe(0);
    // nothing on stdout (`[ -z "$(chaingw gettxout …)" ]` holds), the note on stderr (issue 49)
    expect([noneHuman.stdout, noneHuman.stderr]).toEqual(["", "chaingw: null (gettxout: not found)\n"]);
  });

  it("gettxoutsetinfo: total_amount byte-exact, and the node judges hash_type", async () => {
    const j = await runCli(["--json", "gettxoutsetinfo"], { env });
    expect(j.exitCode).toBe(0);
    expect(j.stdout).toContain('"total_amount":6000.00000000');
    const bad = await runCli(["gettxoutsetinfo", "muhash"], { env });
    expect(bad.exitCode).toBe(1);
    expect(bad.stderr).toContain("-8");
    expect(bad.stderr).toContain("muhash is not a valid hash_type");
  });

  it("getblockstats by height and by hash, with a stat selection", async () => {
    const r = await runCli(["--json", "getblockstats", "100", '["txs","height"]'], { env });
    expect(r.exitCode).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ height: 100, txs: 1 });
    const hash = await ltc.rpc<string>("getblockhash", [50]);
    const h = await runCli(["getblockstats", hash, '["height","subsidy"]'], { env });
    expect(h.stdout).toMatch(/^height\s+50$/m);
    expect(h.stdout).toMatch(/^subsidy\s+5000000000$/m);
    const unknown = await runCli(["getblockstats", "100", '["nosuchstat"]'], { env });
    expect(unknown.exitCode).toBe(1);
    expect(unknown.stderr).toContain("Invalid selected statistic");
    const past = await runCli(["getblockstats", "100000"], { env });
    expect(past.exitCode).toBe(1);
    expect(past.stderr).toContain("-8");
  });

  it("validateaddress: valid, and invalid is an answer (isvalid false), not an error", async () => {
    const ok = await runCli(["--json", "validateaddress", addr], { env });
    expect(JSON.parse(ok.stdout)).toMatchObject({ isvalid: true, address: addr, iswitness: true });
    const bad = await runCli(["--json", "validateaddress", "bc1qnotanaddress"], { env });
    expect(bad.exitCode).toBe(0);
    expect(JSON.parse(bad.stdout)).toMatchObject({ isvalid: false });
  });

  it("getnetworkinfo: relayfee keeps its digits", async () => {
    const j = await runCli(["--json", "getnetworkinfo"], { env });
    expect(j.exitCode).toBe(0);
    expect(j.stdout).toBe((await nodeResultText("getnetworkinfo")) + "\n");
    expect(j.stdout).toMatch(/"relayfee":0\.\d{8}/);
  });

  it("scantxoutset: start finds the mined coinbases; status is null when idle; abort is false", async () => {
    const s = await runCli(["--json", "scantxoutset", "start", JSON.stringify([`addr(${addr})`])], { env });
    expect(s.exitCode).toBe(0);
    const res = JSON.parse(s.stdout);
    expect(res.success).toBe(true);
    expect(res.unspents).toHaveLength(120);
    expect(s.stdout).toContain('"total_amount":6000.00000000');
    expect((await runCli(["--json", "scantxoutset", "status"], { env })).stdout).toBe("null\n");
    expect((await runCli(["--json", "scantxoutset", "abort"], { env })).stdout).toBe("false\n");
  });

  it("node errors: -5 block not found (HTTP 500) is exit 1 with code and message, sent once", async () => {
    const before = proxy.hits;
    const r = await runCli(["getblock", "00".repeat(32)], { env });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain("error -5: Block not found");
    expect(proxy.hits - before).toBe(1);
    const j = await runCli(["--json", "getblock", "00".repeat(32)], { env });
    expect(j.stdout).toBe("");
    expect(JSON.parse(j.stderr)).toMatchObject({ error: { code: -5, message: "Block not found" } });
  });

  it("rpc sends any method verbatim", async () => {
    const r = await runCli(["rpc", "getblockcount", "--json"], { env });
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toBe("120\n");
    const hash = await runCli(["rpc", "getblockhash", "0"], { env });
    expect(hash.stdout.trim()).toBe(await ltc.rpc<string>("getblockhash", [0]));
    const nf = await runCli(["rpc", "nosuchmethod"], { env });
    expect(nf.exitCode).toBe(1);
    expect(nf.stderr).toContain("-32601");
  });
});

describe("bad input never reaches the wire (exit 2, parameter named, zero hits)", () => {
  const cases: [string[], RegExp][] = [
    [["getblock", "ab".repeat(31) + "a"], /invalid blockhash: expected a block hash of 64 hex/],
    [["getblock", "zz"], /invalid blockhash/],
    [["getblockstats", "-1"], /invalid hash_or_height/],
    [["getblockstats", "1.5"], /invalid hash_or_height/],
    [["gettxout", "ab".repeat(32), "1.5"], /invalid n: expected an output index/],
    [["gettxout", "ab".repeat(32), "-3"], /invalid n/],
    [["gettxout", "ab".repeat(32)], /missing required argument 'n'/],
    [["gettxout", "ab".repeat(32), "0", "maybe"], /invalid include_mempool: expected true or false/],
    [["scantxoutset", "start"], /missing parameter scanobjects/],
    [["scantxoutset", "begin"], /invalid action: expected one of start, status, abort/],
    [["scantxoutset", "start", "addr(x)"], /invalid scanobjects: expected a JSON array/],
    [["getblockstats", "100", '["txs","bad name"]'], /invalid stats/],
    [["getblockstats", "100", "txs"], /invalid stats/],
    [
      ["getblock", "ab".repeat(32), "7"],
      /invalid verbosity: expected a verbosity 0 to 3, or true \(1\) \/ false \(0\), got 7/,
    ],
    [["getblockchaininfo", "extra"], /too many arguments/],
    [["gettxoutsetinfo", "x y"], /invalid hash_type/],
    [["validateaddress", ""], /invalid address/],
    [["nosuchmethod"], /unknown command 'nosuchmethod'/],
    [["--retries", "x", "getblockchaininfo"], /invalid --retries/],
    [["--chain", "solana", "getblockchaininfo"], /invalid --chain/],
  ];
  it.each(cases)("%j", async (args, message) => {
    const before = proxy.hits;
    const r = await runCli(args, { env });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stdout).toBe("");
    expect(proxy.hits).toBe(before);
  });

  it("--json errors are one JSON object on stderr", async () => {
    const r = await runCli(["--json", "getblock", "zz"], { env });
    expect(r.exitCode).toBe(2);
    expect(JSON.parse(r.stderr)).toEqual({
      error: { code: "usage", message: expect.stringContaining("invalid blockhash") },
    });
  });
});

describe("invocation contract", () => {
  it("options may stand before or after the method", async () => {
    const a = await runCli(["--json", "--url", proxy.url, "getblockchaininfo"]);
    const b = await runCli(["getblockchaininfo", "--url", proxy.url, "--json"]);
    expect(a.exitCode).toBe(0);
    expect(JSON.parse(a.stdout).blocks).toBe(120);
    expect(b.stdout).toBe(a.stdout);
  });

  it("user:pass@ in --url is Basic auth and never printed, even verbose", async () => {
    const r = await runCli(["-v", "rpc", "getblockcount", "--url", ltc.authUrl]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout.trim()).toBe("120");
    expect(r.stderr).toContain(`http://127.0.0.1:${ltc.port}/`);
    expect(r.stderr + r.stdout).not.toContain(ltc.password);
  });

  it("wrong password: exit 4, password not printed", async () => {
    const r = await runCli([
      "getblockchaininfo",
      "--url",
      `http://${ltc.user}:wrongpass123@127.0.0.1:${ltc.port}/`,
    ]);
    expect(r.exitCode).toBe(4);
    expect(r.stderr).toContain("401");
    expect(r.stderr).not.toContain("wrongpass123");
  });

  it("no method: the usage goes to stderr, exit 2; --help is exit 0 on stdout", async () => {
    const none = await runCli([]);
    expect(none.exitCode).toBe(2);
    expect(none.stdout).toBe("");
    expect(none.stderr).toContain("Usage: chaingw [options] [command]");
    const help = await runCli(["--help"]);
    expect(help.exitCode).toBe(0);
    expect(help.stdout).toContain("getblockchaininfo");
    expect(help.stdout).toContain("Exit codes: 0 ok");
  });

  it("--help of a method shows the spec's params and marks", async () => {
    const r = await runCli(["gettxout", "--help"]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain("gettxout [options] <txid> <n> [include_mempool]");
    expect(r.stdout).toContain("marks: idempotent");
    expect(r.stdout).toContain("include_mempool (BOOLEAN, optional)");
    const s = await runCli(["scantxoutset", "--help"]);
    expect(s.stdout).toContain("utxo group — marks: heavy");
  });

  it("no endpoint configured: the bitcoin-cli default 127.0.0.1:8332 is tried", async () => {
    const r = await runCli(["getblockchaininfo", "--retries", "0", "-v"]);
    // nothing listens there in tests (or something else does): either way it is the endpoint named
    expect(r.stderr).toContain("http://127.0.0.1:8332/");
  });
});

describe("terminal behaviour (a real pseudo-terminal via script(1))", () => {
  const inPty = async (args: string[], env: Record<string, string>) => {
    const { execa } = await import("execa");
    const cmd = [process.execPath, new URL("../bin/chaingw", import.meta.url).pathname, ...args]
      .map((a) => `'${a}'`)
      .join(" ");
    // script(1) without a terminal of its own gives a 0x0 pty; give it a size like a real terminal
    const r = await execa("script", ["-qec", `stty cols 100 rows 30; ${cmd}`, "/dev/null"], {
      reject: false,
      extendEnv: false,
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", TERM: "xterm", ...env },
      timeout: HANG_GUARD_MS,
    });
    return r.stdout;
  };

  it("colour on a TTY, none with NO_COLOR, none when piped", async () => {
    const hash = await ltc.rpc<string>("getblockhash", [1]);
    const tty = await inPty(["getblockheader", hash, "--url", proxy.url], {});
    expect(tty).toContain("\x1b[36mhash");
    const noColor = await inPty(["getblockheader", hash, "--url", proxy.url], { NO_COLOR: "1" });
    expect(noColor).not.toContain("\x1b[");
    expect(noColor).toMatch(/hash\s+[0-9a-f]{64}/);
    const piped = await runCli(["getblockheader", hash], { env: { ...env, NO_COLOR: "" } });
    expect(piped.stdout).not.toContain("\x1b[");
  });

  it("a slow call shows a spinner on a TTY only; --json never", async () => {
    proxy.setMethodFault("getblockchaininfo", { kind: "delay", ms: 1200 });
    try {
      const tty = await inPty(["getblockchaininfo", "--url", proxy.url], {});
      expect(tty).toContain("getblockchaininfo …");
      expect(tty.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "")).toMatch(/chain\s+regtest/);
      const json = await inPty(["getblockchaininfo", "--json", "--url", proxy.url], {});
      expect(json).not.toContain("getblockchaininfo …");
      const piped = await runCli(["getblockchaininfo", "--url", proxy.url]);
      expect(piped.stderr).toBe("");
    } finally {
      proxy.setMethodFault("getblockchaininfo", null);
    }
  });
});
