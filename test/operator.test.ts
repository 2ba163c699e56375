/**
 * What broke when chaingw was tried as an auditor and an operator would (issue 22, part 5), each against
 * real nodes (litecoind -regtest, anvil) and compared with cast where cast answers the same question:
 * --min-conf totals, logs beyond the head, interrupts that arrive together, Ctrl-C while the node expands
 * descriptors, a Litecoin datadir without a config file, and the messages that said the wrong thing.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { HANG_GUARD_MS, running, sleep, trackChild, trackDir, until } from "./helpers/procs.js";
import { ALICE, BOB, deployToken, SEL, send, word } from "./helpers/token.js";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const BIN = join(ROOT, "bin", "chaingw");
const CAST = join(ROOT, "node_modules", ".bin", "cast");
const TRANSFER = "Transfer(address indexed from,address indexed to,uint256 value)";
// BIP32 test vector 1 as a tpub: a ranged descriptor the node must expand before its pass
const TPUB =
  "tpubD6NzVbkrYhZ4XgiXtGrdW5XDAPFCL9h7we1vwNCpn8tGbBcgfVYjXyhWo4E1xkh56hjod1RhGjxbaTLV3X4FyWuejifB9jusQ46QzG87VKp";

let ltc: LitecoinNode;
let anvil: AnvilNode;
let dir: string;
let url: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-operator-"));
  trackDir(dir);
  [ltc, anvil] = await Promise.all([startLitecoind({ blocks: 110 }), startAnvil()]);
  url = ltc.url.replace("://", `://${ltc.user}:${ltc.password}@`);
});

afterAll(async () => {
  await Promise.all([ltc?.stop(), anvil?.stop()]);
});

const cli = (args: string[], env: Record<string, string> = { CHAINGW_URL: url }) => runCli(args, { env });

/** The i-th address of a descriptor no wallet of the node holds. */
async function foreignAddress(i: number): Promise<string> {
  const { descriptor } = await ltc.rpc<{ descriptor: string }>("getdescriptorinfo", [`wpkh(${TPUB}/7/*)`]);
  return (await ltc.rpc<string[]>("deriveaddresses", [descriptor, [i, i]]))[0] as string;
}

/** Polls the node's scan slot until `want` (running or idle), while `going` (the scanning process) is at work. */
async function untilScan(want: boolean, going?: () => boolean): Promise<void> {
  await until(
    want ? "a scan starting on the node" : "the node ending its scan",
    async () => ((await ltc.rpc("scantxoutset", ["status"])) !== null) === want,
    going,
    50,
  );
}

/** The CLI in a process group of its own, as a launcher starts it; its output and exit collected. */
function spawnGroup(args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [BIN, ...args], {
    detached: true,
    stdio: ["ignore", "pipe", "pipe"],
    env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: dir, NO_COLOR: "1", CHAINGW_URL: url },
  });
  trackChild(child);
  let out = "";
  let err = "";
  child.stdout?.on("data", (c: Buffer) => {
    out += c.toString();
  });
  child.stderr?.on("data", (c: Buffer) => {
    err += c.toString();
  });
  const done = new Promise<{ code: number | null; stdout: string; stderr: string; at: number }>((ok) =>
    child.on("close", (code) => ok({ code, stdout: out, stderr: err, at: Date.now() })),
  );
  return { child, done };
}

describe("reserves scan --min-conf", () => {
  it("the summary says both totals, and which one the proof carries", async () => {
    // an address outside the wallet, so the wallet never spends what it received
    const a = await foreignAddress(0);
    await ltc.rpc("sendtoaddress", [a, 1.25]);
    await ltc.mine(3);
    await ltc.rpc("sendtoaddress", [a, 0.5]);
    await ltc.mine(1);
    const proof = join(dir, "minconf.json");
    const r = await cli(["reserves", "scan", a, "--proof", proof, "--min-conf", "3"]);
    expect(r.exitCode, r.stderr).toBe(0);
    const doc = JSON.parse(readFileSync(proof, "utf8"));
    expect(doc.total.amount).toBe("1.25000000");
    // before: "total  1.75000000" alone, while the proof holds 1.25
    expect(r.stdout).toMatch(/^ {2}total found +1\.75000000 LTC = 175000000 base units/m);
    expect(r.stdout).toMatch(
      /^ {2}total in the proof +1\.25000000 LTC = 125000000 base units in 1 output with at least 3 confirmations \(--min-conf 3\): the total the proof carries$/m,
    );
    expect(r.stdout).toMatch(/^ {2}left out +0\.50000000 LTC in 1 output with fewer confirmations/m);
    expect(r.stdout).toMatch(/proof written to .*: 1\.25000000 in 1 outputs/);
  });
});

describe("logs --to-block beyond the head", () => {
  it("reads up to the head read at the start, says so on stderr, and prints what cast logs prints", async () => {
    const token = await deployToken(anvil.rpc, 10n ** 24n); // block 1: Transfer(0 → ALICE)
    for (let i = 1n; i <= 3n; i++)
      await send(anvil.rpc, { from: ALICE, to: token, data: SEL.transfer + word(BOB) + word(i) });
    const head = Number(await anvil.rpc("eth_blockNumber", []));
    const env = { CHAINGW_URL: anvil.url };
    // before: exit 1, "BlockOutOfRangeError: block height is 4 but requested was 100"
    const r = await runCli(
      ["--format", "jsonl", "logs", TRANSFER, "--address", token, "--from-block", "0", "--to-block", "1000"],
      { env },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    // a machine format: the note is a JSON object on stderr (issue 49)
    expect(JSON.parse(r.stderr)).toEqual({
      note: {
        message: `chaingw: logs: --to-block 1000 is beyond the head (block ${head} when the run started): reading up to block ${head}`,
        head,
      },
    });
    const ours = r.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
    const theirs = await execa(
      CAST,
      ["logs", "--json", "--from-block", "0", "--to-block", "1000", "--address", token, TRANSFER],
      { env: { ETH_RPC_URL: anvil.url }, timeout: HANG_GUARD_MS },
    );
    const cast = JSON.parse(theirs.stdout) as { transactionHash: string; logIndex: string }[];
    expect(cast.length).toBe(4);
    expect(ours.map((l) => l.transactionHash)).toEqual(cast.map((l) => l.transactionHash));
    // the raw form, through the same workflow
    const raw = await runCli(
      ["--json", "eth_getLogs", "--split", "--from-block", "0", "--to-block", "1000", "--address", token],
      { env },
    );
    expect(raw.exitCode, raw.stderr).toBe(0);
    expect(JSON.parse(raw.stdout)).toHaveLength(4);
    expect(raw.stderr).toMatch(/--to-block 1000 is beyond the head/);
  });
});

describe("interrupts", () => {
  it("two SIGINTs sent to the process group at once are one interrupt: the scan is aborted on the node", async () => {
    await untilScan(false);
    const p = spawnGroup(["reserves", "scan", "--descriptor", `wpkh(${TPUB}/0/*)`, "--range", "0..60000"]);
    await untilScan(true, running(p.done));
    await sleep(300);
    // what GNU `timeout -s INT` and launchers do: the group, and here twice back to back
    process.kill(-(p.child.pid as number), "SIGINT");
    process.kill(-(p.child.pid as number), "SIGINT");
    const r = await p.done;
    expect(r.code).toBe(130);
    // before: "SIGINT again: quit without waiting for the node to confirm the abort", the scan left running
    expect(r.stderr).not.toMatch(/SIGINT again/);
    expect(r.stderr).toMatch(/^chaingw: SIGINT: sending abort to http:\/\/127\.0\.0\.1:\d+\/ and waiting/m);
    expect(r.stderr).toMatch(
      /^chaingw: interrupted \(SIGINT\): the scan did not complete; nothing was proven$/m,
    );
    await untilScan(false);
  });

  it("Ctrl-C while the node expands 200,000 keys: back within seconds, saying the node may still scan and how to check", async () => {
    await untilScan(false);
    const p = spawnGroup(["reserves", "scan", "--descriptor", `wpkh(${TPUB}/1/*)`, "--range", "0..199999"]);
    await untilScan(true, running(p.done));
    await sleep(1000);
    process.kill(p.child.pid as number, "SIGINT");
    const r = await p.done;
    // the node was still at it when chaingw returned: it did not wait out the expansion (about 30 s on a
    // loaded machine; the node ignores an abort until its pass begins)
    const stillScanning = (await ltc.rpc("scantxoutset", ["status"])) !== null;
    expect(r.code).toBe(130);
    expect(stillScanning).toBe(true);
    expect(r.stderr).toMatch(
      /has not begun its pass \(it is expanding descriptors\): Core 0\.21 ignores an abort while it prepares a scan, so it may scan to the end; check with: chaingw reserves status/,
    );
    expect(r.stderr).toMatch(/the node may still be scanning: `chaingw reserves status` shows it/);
    // and what it says is what `reserves status` then shows
    const st = await cli(["reserves", "status"]);
    expect(st.stdout).toMatch(/scan running/);
    await untilScan(false);
  });
});

describe("--network regtest --datadir DIR, no config file", () => {
  it("finds a Litecoin node from the datadir's own files (its log: the node and its RPC port, the cookie)", async () => {
    const node = await startLitecoind({ cookie: true, blocks: 3 });
    try {
      // before: Bitcoin's regtest port 18443, "connection refused"
      const r = await runCli(["--network", "regtest", "--datadir", node.datadir, "getblockcount"]);
      expect(r.stderr).toBe("");
      expect(r.exitCode).toBe(0);
      expect(r.stdout.trim()).toBe("3");
      const b = await runCli(["-regtest", `-datadir=${node.datadir}`, "config", "show"]);
      expect(b.stdout).toMatch(/Litecoin Core regtest in /);
    } finally {
      await node.stop();
    }
  });

  it("a datadir that does not say which node it is: both coins' ports tried, each named", async () => {
    const d = join(dir, "unnamed");
    mkdirSync(join(d, "regtest"), { recursive: true });
    writeFileSync(join(d, "regtest", ".cookie"), "__cookie__:abc\n");
    chmodSync(join(d, "regtest", ".cookie"), 0o600);
    // before: exit 2, "cannot tell Bitcoin Core's data directory from Litecoin Core's" (issue 39 item 4:
    // try what the datadir says, then both coins' defaults)
    const r = await runCli(["--network", "regtest", "--datadir", d, "--retries", "0", "getblockcount"]);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toContain("http://127.0.0.1:18443/: connection refused");
    expect(r.stderr).toContain("http://127.0.0.1:19443/: connection refused");
    const show = await runCli(["--network", "regtest", "--datadir", d, "config", "show"]);
    expect(show.stdout).toContain(
      "http://127.0.0.1:18443/ (with credentials), http://127.0.0.1:19443/ (with credentials)",
    );
    expect(show.stdout).toContain("trying each one's port");
    const none = await runCli(["--network", "regtest", "--datadir", join(d, "nope"), "getblockcount"]);
    expect(none.exitCode).toBe(2);
    expect(none.stderr).toBe(`chaingw: --datadir ${join(d, "nope")}: no such directory\n`);
  });
});

describe("config init", () => {
  it("the starter's default profile leaves eth_ methods to the EVM group (as the README says)", async () => {
    const env = { XDG_CONFIG_HOME: join(dir, "starter") };
    expect((await runCli(["config", "init"], { env })).exitCode).toBe(0);
    // before: exit 2, "eth_blockNumber is not a method of the utxo group": the profile pinned chain utxo
    const r = await runCli(["--url", anvil.url, "eth_blockNumber"], { env });
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    const u = await runCli(["getblockcount"], { env: { ...env, CHAINGW_URL: url } });
    expect(u.exitCode, u.stderr).toBe(0);
  });
});

describe("messages", () => {
  it("verify: the per-address outputs column counts the outputs; a proof with a UTF-8 BOM is read", async () => {
    const a = await foreignAddress(1);
    await ltc.rpc("sendtoaddress", [a, 0.3]);
    await ltc.rpc("sendtoaddress", [a, 0.4]);
    await ltc.mine(1);
    const proof = join(dir, "two.json");
    expect((await cli(["reserves", "scan", a, "--proof", proof])).exitCode).toBe(0);
    const v = await cli(["reserves", "verify", proof]);
    expect(v.exitCode, v.stderr).toBe(0);
    // before: "ok" in the outputs column
    expect(v.stdout).toMatch(new RegExp(`│ ${a} +│ 0\\.70000000 │ 2 +│ claimed only`));
    // a BOM, as Windows editors write it: before, exit 2 "not JSON: ... at position 0 at character 0"
    const bom = join(dir, "bom.json");
    writeFileSync(bom, `\uFEFF${readFileSync(proof, "utf8")}`);
    const b = await cli(["reserves", "verify", bom]);
    expect(b.exitCode, b.stderr).toBe(0);
    expect(b.stdout).toMatch(/^holds: proven owned .*: 0\.70000000 LTC in 2 outputs/m);
  });

  it("verify-message: a P2WPKH signature against a P2TR address is named as such", async () => {
    // BIP-322's vectors: "Hello World" signed for bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l (P2WPKH)
    const sig =
      "AkcwRAIgZRfIY3p7/DoVTty6YZbWS71bc5Vct9p9Fia83eRmw2QCICK/ENGfwLtptFluMGs2KsqoNSk89pO7F29zJLUx9a/sASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=";
    const ok = await runCli([
      "verify-message",
      "bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l",
      sig,
      "Hello World",
    ]);
    expect(ok.stdout).toBe("true\n");
    const p2tr = "bc1ppv609nr0vr25u07u95waq5lucwfm6tde4nydujnu8npg4q75mr5sxq8lt3";
    const r = await runCli(["verify-message", p2tr, sig, "Hello World"]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe("false\n");
    // before: "taproot script-path spends are not supported (key path only)"
    expect(r.stderr).not.toMatch(/script-path/);
    expect(r.stderr).toMatch(
      /a P2WPKH signature \(a signature and a public key\) made for a native segwit v0 address/,
    );
  });

  it("batch: one cause beyond the three shown is '1 other cause'", async () => {
    const zero = "00".repeat(31) + "01";
    const lines = [
      { method: "getblockhash", params: [99999] },
      { method: "getblock", params: [zero] },
      { method: "nosuchmethod", params: [] },
      { method: "getrawtransaction", params: [zero] },
      { method: "getblockcount", params: [] },
    ].map((l) => JSON.stringify(l));
    const r = await runCli(["batch"], { env: { CHAINGW_URL: url }, input: `${lines.join("\n")}\n` });
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(/; 1 other cause\n$/);
  });

  it("an https:// URL on a plain HTTP port says the endpoint speaks plain HTTP, not OpenSSL's words", async () => {
    const r = await runCli(["--url", `https://127.0.0.1:${ltc.port}/`, "getblockcount"]);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).not.toMatch(/wrong version number|ssl3_get_record|openssl/i);
    expect(r.stderr).toBe(
      `chaingw: getblockcount failed: https://127.0.0.1:${ltc.port}/: TLS handshake failed: the endpoint speaks plain HTTP, not HTTPS (give the URL as http://)\n`,
    );
  });

  it("info against an EVM node says it is one and to add --chain evm (and the other way round)", async () => {
    const r = await runCli(["--url", anvil.url, "info"]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toBe(
      `chaingw: ${anvil.url}: error -32601: Method not found\nthe node answers eth_chainId (0x7a69): an EVM node; add --chain evm\n`,
    );
    const u = await cli(["--chain", "evm", "info"]);
    expect(u.exitCode).toBe(1);
    expect(u.stderr).toMatch(/the node answers getblockchaininfo: a bitcoind-family node; use --chain utxo/);
  });
});
