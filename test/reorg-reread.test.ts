/**
 * A reorg between the block step and the re-read of balances (issue 55): `reserves verify` of an EVM proof
 * checks block N's hash, then reads the balances at N by number — a reorg in between made it judge the proof on
 * another block's balances ("the proof says 3 ETH, the node 5": fails, exit 1, though the block it checked was
 * the proof's). Now the hash of N is asked again after the re-read: changed, nothing read then is judged —
 * cannot say, exit 3, naming both hashes. A real anvil; a loopback proxy that, at the first balance read at N,
 * reverts anvil to block N−1 (evm_revert), gives the holder 5 ETH and mines another block N. The honest control
 * (no reorg) holds in the same test, through the same kind of proxy.
 */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entryProxy, type RawServer } from "./fixtures/forward.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { trackDir } from "./helpers/procs.js";

const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const hex = (n: bigint | number) => `0x${n.toString(16)}`;

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

/** A proxy over anvil; `before(e)` runs before an entry is passed on; it counts each method at `block`. */
async function proxy(before: (e: { method: string; params?: unknown[] }) => Promise<void>) {
  const seen: Record<string, number> = {};
  const p = await entryProxy(async (e) => {
    seen[e.method] = (seen[e.method] ?? 0) + 1;
    await before(e);
    try {
      return { jsonrpc: "2.0", id: e.id, result: await anvil.rpc(e.method, e.params) };
    } catch (x) {
      const err = x as { code?: number; message: string };
      return { jsonrpc: "2.0", id: e.id, error: { code: err.code ?? -32000, message: err.message } };
    }
  });
  proxies.push(p);
  return { url: p.url, seen };
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
      if (e.method !== "eth_getBalance" || e.params?.[1] !== hex(n)) return;
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
