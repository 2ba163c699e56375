/**
 * `chaingw reserves balances` and `reserves verify` of EVM balances proofs, end to end with the built CLI:
 * against a real anvil with real token contracts (test/fixtures/token/, compiled once), cross-checked with
 * foundry's `cast call --block` / `cast balance --block`; and against the EVM-compat fixture (java-tron's
 * latest-only state reads, T-addresses, a head that moves during the read).
 */
import { createHash } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../src/proof/jcs.js";
import { entryProxy } from "./fixtures/forward.js";
import { startTronFixture, type TronFixture } from "./fixtures/tron.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { HANG_GUARD_MS, trackDir } from "./helpers/procs.js";
import { deployToken, mint, move } from "./helpers/tokens.js";
import { tronHexToBase58 as hex20ToTron } from "./helpers/tronaddr.js";

const CAST = fileURLToPath(new URL("../node_modules/.bin/cast", import.meta.url));
const HOLDERS = 40;

let anvil: AnvilNode;
let dir: string;
let holders: string[];
let usd: string;
let mkr: string;
let nometa: string;
let broken: string;
let pinned: number;
let listFile: string;
const tokenAmounts: bigint[] = [];
const nativeAmounts: bigint[] = [];

const holder = (i: number) =>
  `0x${createHash("sha256").update(`evm-reserves holder ${i}`).digest("hex").slice(0, 40)}`;

async function cast(...args: string[]): Promise<string> {
  const r = await execa(CAST, [...args, "--rpc-url", anvil.url], { timeout: HANG_GUARD_MS });
  return r.stdout.trim().split(/\s+/)[0] as string;
}

const cg = (args: string[], env: Record<string, string> = { CHAINGW_URL: anvil.url }) =>
  runCli(args, { env });

beforeAll(async () => {
  anvil = await startAnvil();
  dir = mkdtempSync(join(tmpdir(), "chaingw-evm-reserves-"));
  trackDir(dir);
  holders = Array.from({ length: HOLDERS }, (_, i) => holder(i));
  usd = await deployToken(anvil.rpc, "Token", { symbol: "USDX", decimals: 6 });
  mkr = await deployToken(anvil.rpc, "Bytes32Token", { symbol: "MKR", decimals: 18 });
  nometa = await deployToken(anvil.rpc, "NoMetadataToken");
  broken = await deployToken(anvil.rpc, "BrokenToken");
  for (let i = 0; i < HOLDERS; i++) {
    // odd amounts: above 2^53, above 2^128, one base unit, none
    const t =
      i === 0
        ? 2n ** 53n + 1n
        : i === 1
          ? 2n ** 128n + 7n
          : i === 2
            ? 1n
            : i === 3
              ? 0n
              : BigInt(i) * 987_654_321_123n + 17n;
    tokenAmounts.push(t);
    const n = i === 4 ? 0n : BigInt(i + 1) * 10n ** 18n + BigInt(i) * 12_345n + (i === 5 ? 2n ** 100n : 0n);
    nativeAmounts.push(n);
    await anvil.rpc("anvil_setBalance", [holders[i], `0x${n.toString(16)}`]);
  }
  await mint(anvil.rpc, usd, holders, tokenAmounts);
  await mint(anvil.rpc, mkr, holders.slice(0, 10), tokenAmounts.slice(0, 10));
  await mint(anvil.rpc, nometa, holders.slice(0, 3), [5n, 6n, 7n]);
  await anvil.rpc("evm_mine", []);
  pinned = Number(await anvil.rpc<string>("eth_blockNumber"));
  // after the pinned block: balances move, natives change
  await move(anvil.rpc, usd, holders[1] as string, holders[3] as string, 2n ** 127n);
  await move(anvil.rpc, usd, holders[0] as string, holders[2] as string, 1000n);
  await anvil.rpc("anvil_setBalance", [holders[6], "0x1"]);
  await anvil.rpc("evm_mine", []);
  listFile = join(dir, "holders.txt");
  // the file as people write them: a comment, a checksummed form, a repeat
  writeFileSync(listFile, `# custody\n${holders.join("\n")}\n${holders[0]}\n`);
});

afterAll(async () => {
  await anvil?.stop();
});

const sum = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n);

describe("reserves balances against anvil", () => {
  let proofFile: string;
  let proof: {
    block: { number: number; hash: string };
    snapshot: string;
    addresses: string[];
    assets: {
      id: string;
      symbol: string | null;
      symbol_source: string;
      decimals: number | null;
      balances: { address: string; amount: string; base_units: string }[];
      total: { amount: string; base_units: string };
      holders: number;
    }[];
    digest: string;
  };

  it("pins the block, reads native and token balances there, writes a proof whose totals are exact", async () => {
    proofFile = join(dir, "proof.json");
    const r = await cg([
      "reserves",
      "balances",
      "-f",
      listFile,
      "--native",
      "--token",
      usd,
      "--token",
      mkr,
      "--token",
      nometa,
      "--block",
      String(pinned),
      "--proof",
      proofFile,
    ]);
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    // the block line first, a table per asset, totals
    const lines = r.stdout.split("\n");
    expect(lines[0]).toMatch(
      new RegExp(`^block ${pinned.toLocaleString("en")} \\(0x[0-9a-f]{64}\\) on anvil \\[evm\\]`),
    );
    expect(r.stdout).toContain("USDX");
    expect(r.stdout).toContain("(1 repeated address in the input counted once)");
    proof = JSON.parse(readFileSync(proofFile, "utf8"));
    expect(proof.block.number).toBe(pinned);
    expect(proof.snapshot).toBe("pinned");
    expect(proof.addresses).toEqual(holders);
    const [eth, u, m, x] = proof.assets;
    expect(eth?.id).toBe("native");
    expect(eth?.symbol).toBe("ETH");
    expect(eth?.total.base_units).toBe(sum(nativeAmounts).toString());
    expect(u?.total.base_units).toBe(sum(tokenAmounts).toString());
    expect(u?.symbol).toBe("USDX");
    expect(u?.decimals).toBe(6);
    // 2^128 + 7 base units with 6 decimals, exact
    expect(u?.balances[1]?.amount).toBe("340282366920938463463374607431768.211463");
    expect(u?.balances[0]?.base_units).toBe("9007199254740993");
    expect(u?.balances[2]?.amount).toBe("0.000001");
    expect(u?.holders).toBe(HOLDERS - 1);
    // bytes32 symbol, and a token whose symbol() and decimals() revert
    expect([m?.symbol, m?.symbol_source, m?.decimals]).toEqual(["MKR", "bytes32", 18]);
    expect(m?.total.base_units).toBe(sum(tokenAmounts.slice(0, 10)).toString());
    expect([x?.symbol, x?.symbol_source, x?.decimals]).toEqual([null, "none", null]);
    expect(x?.total.amount).toBe("18");
    // the digest is the RFC 8785 digest of the rest
    expect(digestOf(proof)).toBe(proof.digest);
  });

  it("every balance equals cast's answer at the pinned block (cast call --block / cast balance --block)", async () => {
    const u = proof.assets[1]!;
    const eth = proof.assets[0]!;
    for (const i of [0, 1, 2, 3, 6, 17, 39]) {
      const a = holders[i] as string;
      expect(await cast("call", "--block", String(pinned), usd, "balanceOf(address)(uint256)", a)).toBe(
        u.balances[i]?.base_units,
      );
      expect(await cast("balance", "--block", String(pinned), a)).toBe(eth.balances[i]?.base_units);
    }
    // and the chain has moved since: at the head, holder 1 holds less
    expect(await cast("call", usd, "balanceOf(address)(uint256)", holders[1] as string)).not.toBe(
      u.balances[1]?.base_units,
    );
  });

  it("verify: the proof at the pinned block still holds after balances moved", async () => {
    const r = await cg(["reserves", "verify", proofFile]);
    expect(r.stderr).toBe("");
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toMatch(/^digest +ok/m);
    expect(r.stdout).toMatch(/^block +ok {2}block \d+ is 0x/m);
    expect(r.stdout).toContain(`${HOLDERS * 4} balances re-read at block ${pinned}, all equal`);
    expect(r.stdout).toMatch(/^holds: /m);
    // each asset's figures the one way, at its decimals (it read "USDX proven owned 0 of 340282…"); a token
    // whose decimals() reverts in base units, said so
    const fixed = (b: string, d: number) => {
      const t = b.padStart(d + 1, "0");
      return `${t.slice(0, -d)}.${t.slice(-d)}`;
    };
    const [eth, u, m] = proof.assets;
    expect(r.stdout).toContain(
      `holds: ETH proven owned ${fixed("0", 18)} of ${fixed(eth?.total.base_units as string, 18)}, USDX proven owned 0.000000 of ${fixed(u?.total.base_units as string, 6)}, MKR proven owned ${fixed("0", 18)} of ${fixed(m?.total.base_units as string, 18)}, ${nometa} (base units) proven owned 0 of 18 (`,
    );
    const j = await cg(["--json", "reserves", "verify", proofFile]);
    expect(j.exitCode).toBe(0);
    expect(JSON.parse(j.stdout)).toMatchObject({ verdict: "holds", holds: true });
  });

  it("a hand-edited balance fails: exit 1 naming the address; a careless edit is not a proof (exit 2, the path)", async () => {
    const doc = JSON.parse(readFileSync(proofFile, "utf8"));
    const u = doc.assets[1];
    // the forger keeps the document consistent: balance, total, amounts
    const bump = (s: string) => (BigInt(s) + 1_000_000n).toString();
    u.balances[7].base_units = bump(u.balances[7].base_units);
    u.balances[7].amount = fmt6(BigInt(u.balances[7].base_units));
    u.total.base_units = bump(u.total.base_units);
    u.total.amount = fmt6(BigInt(u.total.base_units));
    const edited = join(dir, "edited.json");
    writeFileSync(edited, JSON.stringify(doc, null, 2));
    const r = await cg(["reserves", "verify", edited]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toMatch(/^digest +FAILS/m);
    expect(r.stdout).toContain(`USDX of ${holders[7]}: the proof says ${u.balances[7].base_units}`);
    // and with the digest made again, the re-read alone still catches it
    doc.digest = digestOf(doc);
    writeFileSync(edited, JSON.stringify(doc, null, 2));
    const r2 = await cg(["reserves", "verify", edited]);
    expect(r2.exitCode).toBe(1);
    expect(r2.stdout).toMatch(/^digest +ok/m);
    expect(r2.stdout).toContain(`1 of ${HOLDERS * 4} balances differ`);
    // a balance edited alone: the document no longer adds up
    const careless = JSON.parse(readFileSync(proofFile, "utf8"));
    careless.assets[0].balances[3].base_units = "1";
    writeFileSync(edited, JSON.stringify(careless));
    const r3 = await cg(["reserves", "verify", edited]);
    expect(r3.exitCode).toBe(2);
    expect(r3.stderr).toContain("assets[0].balances[3].amount:");
    expect(r3.stderr).toContain("nothing was sent");
  });

  it("--json prints the proof document; --csv - one row per address and asset", async () => {
    const j = await cg([
      "--json",
      "reserves",
      "balances",
      holders[0] as string,
      "--token",
      usd,
      "--block",
      String(pinned),
    ]);
    expect(j.exitCode).toBe(0);
    const doc = JSON.parse(j.stdout);
    expect(doc.format).toBe("chaingw-evm-balances-proof/1");
    expect(doc.assets.map((a: { id: string }) => a.id)).toEqual([usd]);
    const c = await cg([
      "reserves",
      "balances",
      holders[1] as string,
      holders[2] as string,
      "--native",
      "--token",
      usd,
      "--block",
      String(pinned),
      "--csv",
      "-",
    ]);
    expect(c.exitCode).toBe(0);
    const rows = c.stdout.trim().split("\n");
    expect(rows[0]).toBe("block,block_hash,asset,symbol,decimals,address,amount,base_units");
    expect(rows).toHaveLength(5);
    expect(rows[3]).toBe(
      `${pinned},${proof.block.hash},${usd},USDX,6,${holders[1]},340282366920938463463374607431768.211463,${2n ** 128n + 7n}`,
    );
    // every amount the one way, at its asset's decimals: the native coin's at 18, USDX's 0.000001 at 6
    for (const row of rows.slice(1)) {
      const cells = row.split(",");
      expect(cells[6], row).toMatch(cells[4] === "18" ? /^\d+\.\d{18}$/ : /^\d+\.\d{6}$/);
    }
  });

  it("bad addresses are exit 2 naming the line, nothing sent (a closed port would be exit 3)", async () => {
    const bad = join(dir, "bad.txt");
    // a typo in an EIP-55 checksummed address, and a short one
    writeFileSync(bad, `${holders[0]}\n0xF39fd6e51aad88F6F4ce6aB8827279cffFb92266\n0x1234\n`);
    const r = await cg(["reserves", "balances", "-f", bad, "--proof", join(dir, "never.json")], {
      CHAINGW_URL: "http://127.0.0.1:9/",
    });
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("2 problems in the input; nothing was sent");
    expect(r.stderr).toMatch(
      /line 2 of .*bad\.txt: 0xF39fd6e51aad88F6F4ce6aB8827279cffFb92266: bad EIP-55 checksum/,
    );
    expect(r.stderr).toMatch(/line 3 of .*bad\.txt: "0x1234"/);
    const t = await cg(["reserves", "balances", holders[0] as string, "--token", "0xnope"], {
      CHAINGW_URL: "http://127.0.0.1:9/",
    });
    expect(t.exitCode).toBe(2);
    expect(t.stderr).toContain('--token 1: "0xnope"');
    expect(existsSync(join(dir, "never.json"))).toBe(false);
  });

  it("a token that is not a contract, and one whose balanceOf reverts: exit 1 naming the address, no proof file", async () => {
    const out = join(dir, "half.json");
    const eoa = holders[5] as string;
    const r = await cg(["reserves", "balances", "-f", listFile, "--token", eoa, "--proof", out]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(`token ${eoa}: not a contract at block`);
    const b = await cg(["reserves", "balances", "-f", listFile, "--token", broken, "--proof", out]);
    expect(b.exitCode).toBe(1);
    expect(b.stderr).toContain(
      `token ${broken}: balanceOf(${holders[0]}): execution reverted: balanceOf disabled`,
    );
    expect(existsSync(out)).toBe(false);
    expect(readdirSync(dir).filter((f) => f.includes(".tmp"))).toEqual([]);
  });

  it("a node without the pinned block's state: verify says so and exits 3, never 'holds'", async () => {
    // a pass-through that answers like a non-archive geth for any state read below the head
    const head = Number(await anvil.rpc<string>("eth_blockNumber"));
    const server = await entryProxy(async (c) => {
      const blk = c.params?.[1];
      // a block by number, or by its hash (EIP-1898, as verify asks a pinned proof's state)
      const hash = (blk as { blockHash?: string } | undefined)?.blockHash;
      const n =
        typeof blk === "string" && blk.startsWith("0x")
          ? Number(blk)
          : typeof hash === "string"
            ? Number((await anvil.rpc<{ number: string }>("eth_getBlockByHash", [hash, false])).number)
            : head;
      if (["eth_getBalance", "eth_call"].includes(c.method) && n < head)
        return {
          jsonrpc: "2.0",
          id: c.id,
          error: { code: -32000, message: "missing trie node 5e1c4b1b0e8f (path ) <nil>" },
        };
      return { jsonrpc: "2.0", id: c.id, result: await anvil.rpc(c.method, c.params ?? []) };
    });
    const url = server.url;
    try {
      const r = await cg(["reserves", "verify", proofFile], { CHAINGW_URL: url });
      expect(r.exitCode).toBe(3);
      expect(r.stdout).toContain("missing trie node");
      expect(r.stdout).not.toMatch(/^holds/m);
      expect(r.stdout).toMatch(/^cannot say whether the proof holds/m);
    } finally {
      await server.close();
    }
  });
});

const fmt6 = (b: bigint) => {
  const f = (b % 1_000_000n).toString().padStart(6, "0").replace(/0+$/, "");
  return `${b / 1_000_000n}${f ? `.${f}` : ""}`;
};

describe("reserves balances on the EVM-compat chain (java-tron's JSON-RPC: state at the head only)", () => {
  let tron: TronFixture;
  const hex = [1, 2, 3, 4, 5, 6, 7].map(
    (i) => `0x${createHash("sha256").update(`tron holder ${i}`).digest("hex").slice(0, 40)}`,
  );
  const tForm = () => hex.map(hex20ToTron);
  const env = () => ({ CHAINGW_URL: tron.url, CHAINGW_CHAIN: "evm-compat" });

  beforeAll(async () => {
    tron = await startTronFixture();
  });
  afterAll(async () => {
    await tron?.stop();
  });

  it("T-addresses give the same result as the hex form; TRX and the token with decimals() 6", async () => {
    const a = await cg(
      ["--json", "reserves", "balances", ...hex, "--native", "--token", tron.data.contractHex20],
      env(),
    );
    const b = await cg(
      ["--json", "reserves", "balances", ...tForm(), "--native", "--token", tron.data.contractBase58],
      env(),
    );
    expect(a.exitCode).toBe(0);
    expect(b.exitCode).toBe(0);
    const pa = JSON.parse(a.stdout);
    const pb = JSON.parse(b.stdout);
    expect(pb.assets).toEqual(pa.assets);
    expect(pb.addresses).toEqual(hex);
    expect(pb.inputs.addresses).toEqual(tForm());
    expect(pa.snapshot).toBe("latest-only");
    expect(pa.chain).toEqual({ group: "evm-compat", chain_id: "3448148188", network: "tron-nile" });
    expect(pa.block.number).toBe(tron.data.latest);
    expect(pa.assets[0].symbol).toBe("TRX");
    expect(pa.assets[1].symbol).toBe("USDT");
    expect(pa.assets[1].total.base_units).toBe(sum(hex.map((h) => tron.balances(h).usdt)).toString());
    expect(pa.assets[0].total.base_units).toBe(sum(hex.map((h) => tron.balances(h).trx)).toString());
    // the human table shows the T-form beside the hex
    const h = await cg(["reserves", "balances", hex[0] as string], env());
    expect(h.stdout).toContain(`${tForm()[0]} (${hex[0]})`);
    expect(h.stdout).toMatch(/^block 66,984,979 \(0x0000000003fe1c13/);
  });

  it("--block N is refused before anything is sent: the chain serves state at latest only", async () => {
    const hits = tron.hits;
    const r = await cg(["reserves", "balances", hex[0] as string, "--block", "66984970"], env());
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain("serves balances and calls at the latest block only");
    expect(tron.hits).toBe(hits);
  });

  it("verify of a latest-only proof: holds while the head is its block, then says it cannot be re-read (exit 3)", async () => {
    const file = join(dir, "tron-proof.json");
    const r = await cg(
      ["reserves", "balances", ...tForm(), "--token", tron.data.contractBase58, "--proof", file],
      env(),
    );
    expect(r.exitCode).toBe(0);
    const v = await cg(["reserves", "verify", file], env());
    expect(v.exitCode).toBe(0);
    expect(v.stdout).toMatch(/^holds: /m);
    tron.setHead(tron.data.latest - 1);
    try {
      const later = await cg(["reserves", "verify", file], env());
      expect(later.exitCode).toBe(3);
      // the fixture's head went back one block: the node is now behind the proof's block
      expect(later.stdout).toMatch(
        /^cannot say whether the proof holds: .*1 block behind the proof's block/m,
      );
      expect(later.stdout).not.toMatch(/FAILS/);
    } finally {
      tron.setHead(tron.data.latest);
    }
  });

  it("a head that moves during the read: read again; a head that never stays put is refused, no file written", async () => {
    const once = await startTronFixture({ headMoves: 1 });
    const always = await startTronFixture({ headMoves: 19 });
    try {
      const file = join(dir, "moving.json");
      const r = await cg(["reserves", "balances", ...hex, "--proof", file], {
        CHAINGW_URL: once.url,
        CHAINGW_CHAIN: "evm-compat",
      });
      expect(r.exitCode).toBe(0);
      expect(r.stderr).toContain("the head moved from block 66984978");
      expect(JSON.parse(readFileSync(file, "utf8")).block.number).toBe(once.data.latest);
      const bad = join(dir, "never-tron.json");
      const m = await cg(
        ["reserves", "balances", ...hex, "--token", always.data.contractHex20, "--proof", bad],
        {
          CHAINGW_URL: always.url,
          CHAINGW_CHAIN: "evm-compat",
        },
      );
      expect(m.exitCode).toBe(1);
      expect(m.stderr).toContain("no consistent snapshot in 4 attempts");
      expect(existsSync(bad)).toBe(false);
    } finally {
      await once.stop();
      await always.stop();
    }
  });
});
