/**
 * A coin whose networks are not Bitcoin's, as a user meets it: Dogecoin (main, test and regtest; no signet,
 * no segwit addresses; regtest on Bitcoin's testnet RPC port with Bitcoin's test versions). Its row in
 * src/chains/coins.ts is Dogecoin Core 1.14's chainparams (the commits are cited there).
 *
 * Signatures: OKX's real published DOGE row (test/fixtures/exchange/ownership/okx_OKC_DTT_AUP2025.csv,
 * row 7: a 2-of-3 P2SH, each of its two signatures one key's legacy signed message with the Dogecoin magic
 * over "OKC_DTT_AUP2025"). The single-key addresses below are those keys' P2PKH forms, recovered here with
 * @noble/curves and checked against the row's redeem script and P2SH address — no signature is made here.
 *
 * The node: there is no dogecoind on this machine, so a loopback HTTP server answers as Dogecoin Core 1.14
 * does (its genesis block, "/Shibetoshi:1.14.6/", chain "main", and no scantxoutset, which it lacks).
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes } from "@noble/hashes/utils.js";
import { base58check, base64, bech32 } from "@scure/base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coinOf } from "../src/chains/coins.js";
import { PROOF_FORMAT } from "../src/proof/document.js";
import { digestOf } from "../src/proof/jcs.js";
import { type RawServer, rawServer, sendJson } from "./fixtures/forward.js";
import { runCli } from "./helpers/cli.js";
import { trackDir } from "./helpers/procs.js";

const DOGE = coinOf("dogecoin");
const MAIN_GENESIS = "1a91e3dace36e2be3bf030a65679fe821aa1d6ef92e7c9902eb318182c355691";
const REGTEST_GENESIS = "3d2160a3b5dc4a9d62e7e66a295f70313ac808440ef7400d6c0772171ce973a5";
const BITCOIN_GENESIS = "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f";

// OKX's DOGE row: its P2SH address, redeem script, message and two signatures, as published
const ROW = readFileSync("test/fixtures/exchange/ownership/okx_OKC_DTT_AUP2025.csv", "utf8")
  .split("\n")
  .find((l) => l.startsWith("DOGE,DOGE,")) as string;
const [, , P2SH, SIG_A, SIG_B, MESSAGE, REDEEM] = ROW.split(",") as string[];

const hash160 = (b: Uint8Array) => ripemd160(sha256(b));
const b58 = (version: number, h: Uint8Array) =>
  base58check(sha256).encode(concatBytes(Uint8Array.of(version), h));
/** the key a legacy signature yields over the Dogecoin-magic hash of MESSAGE (recovered, not made) */
function signer(sig: string): Uint8Array {
  const enc = new TextEncoder();
  const magic = enc.encode("Dogecoin Signed Message:\n");
  const msg = enc.encode(MESSAGE);
  const digest = sha256(
    sha256(concatBytes(Uint8Array.of(magic.length), magic, Uint8Array.of(msg.length), msg)),
  );
  const b = base64.decode(sig);
  const s = secp256k1.Signature.fromBytes(b.slice(1), "compact").addRecoveryBit(((b[0] as number) - 27) & 3);
  return s.recoverPublicKey(digest).toBytes(true);
}

describe("Dogecoin's row is Dogecoin Core 1.14's chainparams", () => {
  it("networks, genesis hashes, versions, ports, magic; no signet, no bech32", () => {
    expect(DOGE?.uses).toEqual({ messages: true, localNode: true });
    expect(Object.keys(DOGE?.networks ?? {})).toEqual(["main", "test", "regtest"]);
    const n = DOGE?.networks;
    expect([n?.main.genesis, n?.regtest?.genesis]).toEqual([MAIN_GENESIS, REGTEST_GENESIS]);
    expect(n?.test?.genesis).toBe("bb0a78264637406b6360aad926284d544d7049f45189db5664f3c4d07350559e");
    expect([n?.main.base58, n?.test?.base58, n?.regtest?.base58]).toEqual([
      { p2pkh: 0x1e, p2sh: [0x16], wif: 0x9e },
      { p2pkh: 0x71, p2sh: [0xc4], wif: 0xf1 },
      { p2pkh: 0x6f, p2sh: [0xc4], wif: 0xef },
    ]);
    expect([n?.main.rpcPort, n?.test?.rpcPort, n?.regtest?.rpcPort]).toEqual([22555, 44555, 18332]);
    expect([n?.main.hrp, n?.test?.hrp, n?.regtest?.hrp]).toEqual([undefined, undefined, undefined]);
    expect(DOGE?.magic).toBe("Dogecoin Signed Message:\n");
  });

  it("the vectors' keys are the published row's: in its redeem script, whose P2SH is the row's address", () => {
    expect(b58(0x16, hash160(Uint8Array.from(Buffer.from(REDEEM as string, "hex"))))).toBe(P2SH);
    for (const sig of [SIG_A, SIG_B]) expect(REDEEM).toContain(bytesToHex(signer(sig as string)));
    expect(b58(0x1e, hash160(signer(SIG_A as string)))).toBe(KEY_A.main);
    expect(b58(0x71, hash160(signer(SIG_A as string)))).toBe(KEY_A.test);
    expect(b58(0x00, hash160(signer(SIG_A as string)))).toBe(KEY_A.bitcoin);
    expect(b58(0x1e, hash160(signer(SIG_B as string)))).toBe(KEY_B_MAIN);
  });
});

/** key A of OKX's DOGE row, as each network prints its P2PKH address */
const KEY_A = {
  main: "DM8p3Q9DAwmprAnaNyoUuXWk1Ak5nMo3ni",
  test: "nkBsmQt86vEYj9MmQoSw9w73F38Ni7BC13",
  bitcoin: "1GziW9CZsXsYKAbyePovMmM9831nPUqJou",
};
const KEY_B_MAIN = "DAU96RC5wN8PzY7WkhyM67EkxPZf2GqQsm";

describe("verify-message with a Dogecoin signature (OKX's, real)", () => {
  it("holds for the signing key's address on Dogecoin's mainnet and testnet (exit 0)", async () => {
    for (const [address, sig] of [
      [KEY_A.main, SIG_A],
      [KEY_B_MAIN, SIG_B],
      [KEY_A.test, SIG_A],
    ] as const) {
      const r = await runCli(["--json", "verify-message", address, sig as string, MESSAGE as string]);
      expect(r.exitCode, r.stderr).toBe(0);
      expect(JSON.parse(r.stdout)).toMatchObject({ valid: true, chain: "dogecoin" });
      expect(JSON.parse(r.stdout).detail).toMatch(/Dogecoin message magic$/);
    }
    const human = await runCli(["verify-message", KEY_A.main, SIG_A as string, MESSAGE as string]);
    expect([human.stdout, human.exitCode]).toEqual(["true\n", 0]);
  });

  it("fails for another message, and for the same key's Bitcoin address, naming the Dogecoin magic (exit 1)", async () => {
    const other = await runCli(["verify-message", KEY_A.main, SIG_A as string, "OKC_DTT_AUP2026"]);
    expect([other.stdout, other.exitCode]).toEqual(["false\n", 1]);
    expect(other.stderr).toContain("(Dogecoin message magic) is not the address's");
    const btc = await runCli(["verify-message", KEY_A.bitcoin, SIG_A as string, MESSAGE as string]);
    expect([btc.stdout, btc.exitCode]).toEqual(["false\n", 1]);
    expect(btc.stderr).toContain(
      "made with the Dogecoin message magic by this address's key; it proves nothing for a Bitcoin address",
    );
  });

  it("refuses a bech32 address under Dogecoin's name: Dogecoin Core 1.14 prints none (exit 2, by name)", async () => {
    const doge1 = bech32.encode("doge", [0, ...bech32.toWords(hash160(signer(SIG_A as string)))]);
    const r = await runCli(["verify-message", doge1, SIG_A as string, MESSAGE as string]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toContain(
      "(doge belongs to no Bitcoin, Litecoin or Dogecoin network; Dogecoin has no bech32 addresses)",
    );
    expect(r.stdout).toBe("");
  });
});

/** the scripted Dogecoin Core 1.14: methods answered, every call counted */
let script: Record<string, (params: unknown[]) => unknown> = {};
const calls: string[] = [];
let node: RawServer;
beforeAll(async () => {
  node = await rawServer((body, _req, res) => {
    const req = JSON.parse(body.toString("utf8"));
    const one = (e: { id: unknown; method: string; params?: unknown[] }) => {
      calls.push(e.method);
      const m = script[e.method];
      return m
        ? { jsonrpc: "2.0", id: e.id, result: m(e.params ?? []) ?? null }
        : { jsonrpc: "2.0", id: e.id, error: { code: -32601, message: "Method not found" } };
    };
    sendJson(res, 200, JSON.stringify(Array.isArray(req) ? req.map(one) : one(req)));
  });
});
afterAll(async () => {
  await node?.close();
});

const tempDir = (): string => {
  const d = mkdtempSync(join(tmpdir(), "chaingw-doge-"));
  trackDir(d);
  return d;
};

/** a loopback port nothing listens on (a server's, closed) */
async function closedPort(): Promise<number> {
  const s = await rawServer((_b, _q, res) => {
    res.end();
  });
  const port = Number(new URL(s.url).port);
  await s.close();
  return port;
}

describe("a local Dogecoin node (--network, --datadir)", () => {
  it("a Dogecoin node that is not running: the error says which node chaingw looked for and what to do (exit 3)", async () => {
    const dir = tempDir();
    const port = await closedPort();
    writeFileSync(join(dir, "dogecoin.conf"), `regtest=1\nrpcport=${port}\n`);
    const r = await runCli(["--datadir", dir, "getblockcount"]);
    expect(r.exitCode).toBe(3);
    expect(r.stderr).toBe(
      `chaingw: getblockcount failed: http://127.0.0.1:${port}/: connection refused\n` +
        `no endpoint is configured: chaingw looked for the local node, Dogecoin Core regtest in ${dir} (\`chaingw config show\` says why); start it, or name the node with --url, --network or --datadir\n`,
    );
    // a URL given: the error is the URL's alone
    const given = await runCli(["--url", `http://127.0.0.1:${port}/`, "getblockcount"]);
    expect(given.stderr).toBe(
      `chaingw: getblockcount failed: http://127.0.0.1:${port}/: connection refused\n`,
    );
  });

  it("--network signet on a Dogecoin data directory: refused naming its networks (exit 2), nothing sent", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "dogecoin.conf"), "");
    calls.length = 0;
    const r = await runCli(["--network", "signet", "--datadir", dir, "getblockcount"]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toBe(
      `chaingw: network "signet": Dogecoin Core in ${dir} has none of that name; its networks are main, test or regtest\n`,
    );
    expect(calls).toEqual([]);
  });

  it("regtest=1 and rpcport in dogecoin.conf: the node there answers (its genesis is Dogecoin's regtest)", async () => {
    const dir = tempDir();
    writeFileSync(join(dir, "dogecoin.conf"), `regtest=1\nrpcport=${new URL(node.url).port}\n`);
    mkdirSync(join(dir, "regtest"));
    script = { getblockhash: () => REGTEST_GENESIS };
    calls.length = 0;
    const r = await runCli(["--datadir", dir, "getblockhash", "0"]);
    expect([r.stdout, r.stderr, r.exitCode]).toEqual([`${REGTEST_GENESIS}\n`, "", 0]);
    expect(calls).toEqual(["getblockhash"]);
    const show = await runCli(["config", "show", "--datadir", dir]);
    expect(show.stdout).toContain(`default: Dogecoin Core regtest in ${dir}`);
  });
});

// a Dogecoin mainnet world: OKX's P2SH holding one output at height 5,000,000, the proof at 5,000,100
const hex32 = (n: number) =>
  bytesToHex(sha256(Uint8Array.of(n >> 24, (n >> 16) & 255, (n >> 8) & 255, n & 255)));
const TIP = 5_000_200;
const TXID = hex32(1);
const P2SH_SCRIPT = `a914${bytesToHex(hash160(Uint8Array.from(Buffer.from(REDEEM as string, "hex"))))}87`;

/** The proof of that output, self-consistent (digest computed), with no signatures: claims only */
function dogeProof(): string {
  const d = {
    format: PROOF_FORMAT,
    chain: "main",
    height: 5_000_100,
    block_hash: hex32(5_000_100),
    created_at: "2026-11-28T20:00:00Z",
    challenge: MESSAGE,
    scan_objects: [P2SH],
    outputs: [
      {
        txid: TXID,
        vout: 0,
        amount: "1000.00000000",
        amount_sats: "100000000000",
        script_pubkey: P2SH_SCRIPT,
        matched: P2SH,
        height: 5_000_000,
        block_hash: hex32(5_000_000),
      },
    ],
    by_address: [{ address: P2SH, amount: "1000.00000000", amount_sats: "100000000000", outputs: 1 }],
    total: { amount: "1000.00000000", amount_sats: "100000000000", outputs: 1 },
  };
  return JSON.stringify({ ...d, digest: digestOf(d) });
}

/** Dogecoin Core 1.14 on mainnet, as far as the verifier asks; `genesis` and `subversion` to forge */
function dogecoind(genesis = MAIN_GENESIS, subversion = "/Shibetoshi:1.14.6/") {
  return {
    getblockchaininfo: () => ({ chain: "main", blocks: TIP }),
    getnetworkinfo: () => ({ subversion }),
    getblockhash: ([h]: unknown[]) => (h === 0 ? genesis : hex32(h as number)),
    getrawtransaction: () => ({
      txid: TXID,
      vout: [{ n: 0, value: 1000, scriptPubKey: { hex: P2SH_SCRIPT } }],
    }),
    gettxout: () => ({ bestblock: hex32(TIP), confirmations: TIP - 5_000_000 + 1, value: 1000 }),
    getblock: ([hash]: unknown[]) => ({ hash, tx: [] }),
    getblockheader: ([hash]: unknown[]) => ({ hash, height: TIP }),
  };
}

describe("a Dogecoin node is known by its genesis block", () => {
  const verifyOn = async (genesis: string, subversion: string) => {
    const dir = tempDir();
    writeFileSync(join(dir, "p.json"), dogeProof());
    script = dogecoind(genesis, subversion);
    return runCli(["--json", "reserves", "verify", join(dir, "p.json"), "--url", node.url]);
  };

  it("a Dogecoin proof on Dogecoin's chain holds, counted in DOGE, whatever the node calls itself", async () => {
    for (const subversion of ["/Shibetoshi:1.14.6/", "/Satoshi:27.0.0/"]) {
      const r = await verifyOn(MAIN_GENESIS, subversion);
      expect(r.exitCode, r.stderr).toBe(0);
      const j = JSON.parse(r.stdout);
      expect(j.node).toMatchObject({ ok: true, chain: "main", coin: "dogecoin" });
      expect(j.verdict).toBe("holds");
      expect(j.summary).toContain("claimed only 1000.00000000 DOGE");
    }
  });

  it("the same proof on Bitcoin's chain fails naming both coins; Bitcoin's genesis calling itself Dogecoin: cannot say", async () => {
    const btc = await verifyOn(BITCOIN_GENESIS, "/Satoshi:27.0.0/");
    expect(btc.exitCode).toBe(1);
    expect(JSON.parse(btc.stdout).failures).toContain(
      `scan object ${P2SH}: ${P2SH} is not an address of Bitcoin, the node's (it is one of Dogecoin)`,
    );
    const forged = await verifyOn(BITCOIN_GENESIS, "/Shibetoshi:1.14.6/");
    expect(forged.exitCode).toBe(3);
    expect(JSON.parse(forged.stdout).cannot_say).toEqual([
      `node: the node's chain (genesis block ${BITCOIN_GENESIS}) is Bitcoin's or Bitcoin Cash's, and its user-agent "/Shibetoshi:1.14.6/" names neither: chaingw cannot tell which coin the node serves`,
    ]);
  });

  it("reserves scan on Dogecoin Core 1.14, which has no scantxoutset: says so and what to do (exit 1)", async () => {
    script = { ...dogecoind(), validateaddress: () => ({ isvalid: true }) };
    calls.length = 0;
    const r = await runCli(["reserves", "scan", P2SH as string, "--url", node.url]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `chaingw: ${node.url}: the node has no scantxoutset ("Method not found", -32601): it cannot scan the UTXO set; no scan was started\n` +
        "reserves scan needs a node with scantxoutset (Bitcoin Core 0.17 or later, Litecoin Core 0.21); reserves verify checks a proof on a node without it\n",
    );
    expect(calls.filter((m) => m === "scantxoutset")).toEqual(["scantxoutset"]);
  });
});
