/**
 * A reorg between the block step and the re-read of balances (issue 55): `reserves verify` of an EVM proof
 * checks block N's hash, then reads the balances at N by number — a reorg in between made it judge the proof on
 * another block's balances ("the proof says 3 ETH, the node 5": fails, exit 1, though the block it checked was
 * the proof's). Now the hash of N is asked again after the re-read: changed, nothing read then is judged —
 * cannot say, exit 3, naming both hashes. A real anvil; a loopback proxy that, at the first balance read at N,
 * reverts anvil to block N−1 (evm_revert), gives the holder 5 ETH and mines another block N. The honest control
 * (no reorg) holds in the same test, through the same kind of proxy.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entryProxy, type RawServer } from "./fixtures/forward.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { trackDir } from "./helpers/procs.js";

const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const hex = (n: bigint | number) => `0x${n.toString(16)}`;
/** A state read's block parameter is block `n`: by number, or by its hash `hash` (EIP-1898). */
const atBlock = (b: unknown, n: number, hash: string) =>
  b === hex(n) || (typeof b === "object" && b !== null && (b as { blockHash?: unknown }).blockHash === hash);

let dir: string;
let anvil: AnvilNode;
let proxies: RawServer[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-reorg-"));
  trackDir(dir);
  anvil = await startAnvil();
});

afterAll(async () => {
  for (const p of proxies) await p.close();
  proxies = [];
  await anvil?.stop();
});

/** The state reads that carry a block parameter, and where it is. */
const STATE_READS: Record<string, number> = {
  eth_getBalance: 1,
  eth_call: 1,
  eth_getCode: 1,
  eth_createAccessList: 1,
};

/**
 * A proxy over anvil; `before(e)` runs before an entry is passed on; it counts each method (`seen`), and lists
 * the state reads asked at a block number rather than a hash or a tag (`byNumber`).
 */
async function proxy(before: (e: { method: string; params?: unknown[] }) => Promise<void>) {
  const seen: Record<string, number> = {};
  const byNumber: string[] = [];
  const p = await entryProxy(async (e) => {
    seen[e.method] = (seen[e.method] ?? 0) + 1;
    const k = STATE_READS[e.method];
    const b = k === undefined ? undefined : e.params?.[k];
    if (typeof b === "string" && /^0x[0-9a-f]+$/i.test(b)) byNumber.push(`${e.method} ${b}`);
    await before(e);
    try {
      return { jsonrpc: "2.0", id: e.id, result: await anvil.rpc(e.method, e.params) };
    } catch (x) {
      const err = x as { code?: number; message: string };
      return { jsonrpc: "2.0", id: e.id, error: { code: err.code ?? -32000, message: err.message } };
    }
  });
  proxies.push(p);
  return { url: p.url, seen, byNumber };
}

describe("a reorg while reserves verify re-reads an EVM proof's balances", () => {
  it("no reorg: holds (exit 0); a reorg after the block step: cannot say (exit 3), both hashes named — before, fails on the other block's balances (exit 1)", async () => {
    await anvil.rpc("anvil_setBalance", [A0, hex(3n * 10n ** 18n)]);
    await anvil.rpc("evm_mine", []);
    const snapshot = await anvil.rpc<string>("evm_snapshot", []);
    await anvil.rpc("evm_mine", []);
    const n = Number(BigInt(await anvil.rpc<string>("eth_blockNumber", [])));
    const file = join(dir, "balances.json");
    const made = await runCli(["reserves", "balances", A0, "--proof", file], {
      env: { CHAINGW_URL: anvil.url },
    });
    expect(made.exitCode, made.stderr).toBe(0);
    const original = (await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", [hex(n), false])).hash;
    const verify = (url: string) => runCli(["reserves", "verify", file, "--json", "--url", url]);

    const plain = await proxy(async () => {});
    const honest = await verify(plain.url);
    expect(honest.stderr).toBe("");
    expect(JSON.parse(honest.stdout).verdict).toBe("holds");
    expect(honest.exitCode).toBe(0);

    // at the first balance read at block N: block N replaced by another, where A0 holds 5 ETH
    let reorg: Promise<void> | undefined;
    const reorging = await proxy(async (e) => {
      if (e.method !== "eth_getBalance" || !atBlock(e.params?.[1], n, original)) return;
      reorg ??= (async () => {
        expect(await anvil.rpc("evm_revert", [snapshot])).toBe(true);
        await anvil.rpc("anvil_setBalance", [A0, hex(5n * 10n ** 18n)]);
        await anvil.rpc("evm_mine", []);
      })();
      await reorg;
    });
    const forged = await verify(reorging.url);
    expect(forged.stderr).toBe("");
    const replaced = (await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", [hex(n), false])).hash;
    expect(replaced).not.toBe(original);
    const f = JSON.parse(forged.stdout);
    expect(reorg).toBeDefined();
    expect(f.verdict).toBe("cannot-say");
    expect(forged.stdout).toContain(
      `block ${n} changed from ${original} to ${replaced} during the re-read (a reorg): the balances read may be of another block, so none is judged; verify again`,
    );
    // the other block's 5 ETH are never compared with the proof's 3
    expect(forged.stdout).not.toContain("5000000000000000000");
    expect(forged.exitCode).toBe(3);
    // one eth_getBalance, asked once; block N's hash asked by the block step and again after the re-read
    expect(reorging.seen.eth_getBalance).toBe(1);
  });
});

/** anvil's first dev key, cast-signed; the wallet (test/fixtures/ownership/Wallet.sol's OwnerWallet) is A0's */
const K0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const CHALLENGE = "reorg audit";
const CAST = new URL("../node_modules/.bin/cast", import.meta.url).pathname;
const castSign = (message: string): string =>
  execFileSync(CAST, ["wallet", "sign", "--private-key", K0, message], { encoding: "utf8" }).trim();

/** block `n` replaced by another (anvil reverted to `snapshot`, `change` done, a block mined): a reorg */
const reorgTo = async (snapshot: string, change: () => Promise<void>) => {
  expect(await anvil.rpc("evm_revert", [snapshot])).toBe(true);
  await change();
  await anvil.rpc("evm_mine", []);
};

describe("a reorg after the balances: the tracking probe's and the signatures' reads are of the proof's block", () => {
  it("a reorg at the first tracking probe read: cannot say (exit 3), both hashes named, nothing proven — before, holds (exit 0) on the probe read at the other block", async () => {
    const { deployToken, mint } = await import("./helpers/tokens.js");
    const usd = await deployToken(anvil.rpc, "Token", { symbol: "USDX", decimals: 18 });
    await mint(anvil.rpc, usd, [A0], [3n * 10n ** 18n]);
    await anvil.rpc("anvil_setBalance", [A0, hex(3n * 10n ** 18n)]);
    await anvil.rpc("evm_mine", []);
    const snapshot = await anvil.rpc<string>("evm_snapshot", []);
    await anvil.rpc("evm_mine", []);
    const n = Number(BigInt(await anvil.rpc<string>("eth_blockNumber", [])));
    const sigs = join(dir, "probe-sigs.csv");
    writeFileSync(sigs, `${A0},${castSign(CHALLENGE)}\n`);
    const file = join(dir, "probe.json");
    const made = await runCli(
      [
        "reserves",
        "balances",
        A0,
        "--native",
        "--token",
        usd,
        "--proof",
        file,
        "--challenge",
        CHALLENGE,
        "--signatures",
        sigs,
      ],
      { env: { CHAINGW_URL: anvil.url } },
    );
    expect(made.exitCode, made.stderr).toBe(0);
    const original = (await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", [hex(n), false])).hash;
    const verify = (url: string) => runCli(["reserves", "verify", file, "--json", "--url", url]);

    const plain = await proxy(async () => {});
    const honest = await verify(plain.url);
    expect(honest.stderr).toBe("");
    const h = JSON.parse(honest.stdout);
    expect(h.verdict).toBe("holds");
    expect(h.ownership.addresses.map((a: { ownership: string }) => a.ownership)).toEqual(["proven"]);
    expect(honest.exitCode).toBe(0);

    // at the probe's first read (an eth_call with a state override): block N replaced, A0 given 5 ETH there
    let reorg: Promise<void> | undefined;
    const reorging = await proxy(async (e) => {
      if (e.method !== "eth_call" || e.params?.length !== 3) return;
      reorg ??= reorgTo(snapshot, async () => {
        await anvil.rpc("anvil_setBalance", [A0, hex(5n * 10n ** 18n)]);
      });
      await reorg;
    });
    const forged = await verify(reorging.url);
    expect(forged.stderr).toBe("");
    expect(reorg).toBeDefined();
    const replaced = (await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", [hex(n), false])).hash;
    expect(replaced).not.toBe(original);
    const f = JSON.parse(forged.stdout);
    expect(f.verdict).toBe("cannot-say");
    expect(f.findings.filter((x: { status: string }) => x.status === "fails")).toEqual([]);
    expect(f.cannot_say).toContain(
      `block ${n} changed from ${original} to ${replaced} after the balances were re-read (a reorg): the tracking probe's and the signatures' reads may be of another block, so none is judged; verify again`,
    );
    // nothing proven on a block that is gone
    expect(f.ownership.addresses.map((a: { ownership: string }) => a.ownership)).toEqual(["cannot-say"]);
    expect(f.ownership.proven_addresses).toBe(0);
    expect(forged.exitCode).toBe(3);
    // the balances read once each, by the block's hash; the probe's reads by the hash too, never by number
    expect(reorging.seen.eth_getBalance).toBe(1);
    expect(reorging.byNumber).toEqual([]);
  });

  it("a reorg at the first EIP-1271 read (the wallet gone from block N): cannot say (exit 3), not 'fails' — before, its signature unproven on the other block, fails (exit 1)", async () => {
    const code = JSON.parse(
      readFileSync(new URL("./fixtures/ownership/wallet.json", import.meta.url), "utf8"),
    ).contracts.OwnerWallet as string;
    const tx = await anvil.rpc<string>("eth_sendTransaction", [
      { from: A0, data: `${code}${A0.slice(2).padStart(64, "0")}`, gas: "0x1c9c380" },
    ]);
    const wallet = (
      await anvil.rpc<{ contractAddress: string }>("eth_getTransactionReceipt", [tx])
    ).contractAddress.toLowerCase();
    await anvil.rpc("anvil_setBalance", [wallet, hex(3n * 10n ** 18n)]);
    await anvil.rpc("evm_mine", []);
    const snapshot = await anvil.rpc<string>("evm_snapshot", []);
    await anvil.rpc("evm_mine", []);
    const n = Number(BigInt(await anvil.rpc<string>("eth_blockNumber", [])));
    const sigs = join(dir, "wallet-sigs.csv");
    writeFileSync(sigs, `${wallet},${castSign(CHALLENGE)}\n`);
    const file = join(dir, "wallet.json");
    const made = await runCli(
      ["reserves", "balances", wallet, "--proof", file, "--challenge", CHALLENGE, "--signatures", sigs],
      { env: { CHAINGW_URL: anvil.url } },
    );
    expect(made.exitCode, made.stderr).toBe(0);
    const original = (await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", [hex(n), false])).hash;
    const verify = (url: string) => runCli(["reserves", "verify", file, "--json", "--url", url]);

    const plain = await proxy(async () => {});
    const honest = await verify(plain.url);
    const h = JSON.parse(honest.stdout);
    expect(h.verdict).toBe("holds");
    expect(h.ownership.addresses).toMatchObject([
      { address: wallet, ownership: "proven", format: "eip1271" },
    ]);
    expect(honest.exitCode).toBe(0);

    // at the wallet's first read (eth_getCode): block N replaced by one where the wallet has no code
    let reorg: Promise<void> | undefined;
    const reorging = await proxy(async (e) => {
      if (e.method !== "eth_getCode") return;
      reorg ??= reorgTo(snapshot, async () => {
        await anvil.rpc("anvil_setCode", [wallet, "0x"]);
      });
      await reorg;
    });
    const forged = await verify(reorging.url);
    expect(forged.stderr).toBe("");
    expect(reorg).toBeDefined();
    const replaced = (await anvil.rpc<{ hash: string }>("eth_getBlockByNumber", [hex(n), false])).hash;
    const f = JSON.parse(forged.stdout);
    expect(f.verdict).toBe("cannot-say");
    expect(f.findings.filter((x: { status: string }) => x.status === "fails")).toEqual([]);
    expect(forged.stdout).not.toContain("does not verify over the challenge");
    expect(f.cannot_say).toContain(
      `block ${n} changed from ${original} to ${replaced} after the balances were re-read (a reorg): the tracking probe's and the signatures' reads may be of another block, so none is judged; verify again`,
    );
    expect(f.ownership.addresses).toMatchObject([{ address: wallet, ownership: "cannot-say" }]);
    expect(forged.exitCode).toBe(3);
    expect(reorging.seen.eth_getCode).toBe(1);
    expect(reorging.byNumber).toEqual([]);
  });
});
