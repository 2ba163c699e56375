/**
 * The verifiers' named steps called in-process (from src/, as vitest runs TypeScript) against a scripted
 * node: a real HTTP server on loopback answering JSON-RPC (single requests and batch arrays) from a script
 * of methods. Each row changes one answer of an honest node, or one field of an honest proof (kept
 * self-consistent: subtotals and digest recomputed, as a forger would), and names the step, the status and
 * the field or row the finding must carry. An honest control holds with every step's `ok`.
 *
 * The end-to-end tests on real nodes (proof.test.ts, verify-soundness.test.ts, evm-reserves.test.ts) stay;
 * these see an edit to src/ without a build, and reach the answers a real node rarely gives (pruned blocks,
 * a node behind, a branch that parts).
 */

import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes } from "@noble/hashes/utils.js";
import { base58check, base64 } from "@scure/base";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { VerifyOptions as OwnershipOptions } from "../src/exchange/ownership/verify.js";
import {
  CHAINGW_LIABILITIES,
  CHAINGW_LIABILITIES_PROOF,
  LIABILITIES_COMMITMENT_MEMBER,
  LIABILITIES_PROOF_MEMBER,
} from "../src/formats/chaingw-liabilities.js";
import {
  CHAINGW_EVM,
  CHAINGW_UTXO,
  EVM_FORMAT_MEMBER,
  UTXO_FORMAT_MEMBER,
} from "../src/formats/chaingw-reserves.js";
import { detectFormat, FORMATS, formatNamed, formatsOf } from "../src/formats/registry.js";
import { COMMITMENT_FORMAT, PROOF_FORMAT as LIABILITIES_PROOF_FORMAT } from "../src/liabilities/format.js";
import { PROOF_FORMAT, type Proof, readProof } from "../src/proof/document.js";
import { EVM_PROOF_FORMAT } from "../src/proof/evm-document.js";
import { digestOf } from "../src/proof/jcs.js";
import { legacyMessageHash } from "../src/proof/message.js";
import { type VerifyReport, verify } from "../src/reserves/utxo/verify.js";
import type { Finding } from "../src/reserves/verdict.js";
import { JsonRpcClient } from "../src/rpc/client.js";
import { nodeEndpoint } from "../src/rpc/endpoint.js";
import { type RawServer, rawServer, sendJson } from "./fixtures/forward.js";
import { runCli } from "./helpers/cli.js";
import { trackDir } from "./helpers/procs.js";
import { staleBuild } from "./setup.global.js";

// ---------------------------------------------------------------------------------------------------------
// the scripted node

/** A node error, as bitcoind words it. */
class NodeError {
  constructor(
    readonly code: number,
    readonly message: string,
  ) {}
}
type Method = (params: unknown[]) => unknown;
type Script = Record<string, Method>;

/** The script the server answers from; each test sets it (the server is one for the file). */
let script: Script = {};
let node: RawServer;

function answerEntry(e: { id: unknown; method: string; params?: unknown[] }) {
  const m = script[e.method];
  if (!m) return { jsonrpc: "2.0", id: e.id, error: { code: -32601, message: "Method not found" } };
  try {
    return { jsonrpc: "2.0", id: e.id, result: m(e.params ?? []) ?? null };
  } catch (x) {
    if (!(x instanceof NodeError)) throw x;
    return { jsonrpc: "2.0", id: e.id, error: { code: x.code, message: x.message } };
  }
}

beforeAll(async () => {
  node = await rawServer((body, _req, res) => {
    const req = JSON.parse(body.toString("utf8"));
    sendJson(res, 200, JSON.stringify(Array.isArray(req) ? req.map(answerEntry) : answerEntry(req)));
  });
});
afterAll(async () => {
  await node?.close();
});

const client = () =>
  new JsonRpcClient({
    endpoints: [nodeEndpoint(node.url)],
    connectTimeoutMs: 2000,
    requestTimeoutMs: 10_000,
    deadlineMs: 20_000,
    retries: 0,
    maxBodyBytes: 16 * 1024 * 1024,
    verifyTls: true,
    heavyRate: 0,
  });

// ---------------------------------------------------------------------------------------------------------
// an honest Litecoin regtest world: one key, one P2PKH output at height 150, the proof at height 200

const hex32 = (n: number) => bytesToHex(sha256(Uint8Array.of(n >> 8, n & 255)));
/** Litecoin's regtest genesis block (`getblockhash 0` on litecoind 0.21): the node's coin is its chain's */
const LTC_REGTEST_GENESIS = "530827f38f93b43ed12af0b3ad25a288dc02ed74d6d7857862df51fc56c416f9";
/** the scripted chain's block hash at a height: Litecoin regtest's genesis, then made-up blocks */
const hashAt = (h: number) => (h === 0 ? LTC_REGTEST_GENESIS : hex32(h));
const hash160 = (b: Uint8Array) => ripemd160(sha256(b));
const priv = sha256(new TextEncoder().encode("verify-steps test key"));
const pub = secp256k1.getPublicKey(priv, true);
const ADDRESS = base58check(sha256).encode(concatBytes(Uint8Array.of(0x6f), hash160(pub)));
const SCRIPT = `76a914${bytesToHex(hash160(pub))}88ac`;
const OTHER_SCRIPT = `76a914${"11".repeat(20)}88ac`;
const CHALLENGE = "chaingw audit 2026-11-25";
const TIP = 205;
const TXID = hex32(9001);
const SPENDER = hex32(9002);

/** A legacy signed message (Bitcoin Core's signmessage form: compressed P2PKH header 31 + recovery id). */
function signLegacy(message: string): string {
  const sig = secp256k1.sign(legacyMessageHash("litecoin", message), priv, {
    prehash: false,
    format: "recovered",
  });
  // noble's recovered form is recovery ‖ r ‖ s
  return base64.encode(concatBytes(Uint8Array.of(31 + (sig[0] as number)), sig.slice(1)));
}

/** The honest proof, made self-consistent again after `edit` (subtotals, total, digest recomputed). */
function proofWith(edit: (d: Proof) => void = () => {}): Proof {
  const d: Proof = {
    format: PROOF_FORMAT,
    chain: "regtest",
    height: 200,
    block_hash: hex32(200),
    created_at: "2026-11-25T23:00:00Z",
    challenge: CHALLENGE,
    scan_objects: [ADDRESS],
    outputs: [
      {
        txid: TXID,
        vout: 0,
        amount: "1.50000000",
        amount_sats: "150000000",
        script_pubkey: SCRIPT,
        matched: ADDRESS,
        height: 150,
        block_hash: hex32(150),
      },
    ],
    by_address: [],
    total: { amount: "0", amount_sats: "0", outputs: 0 },
    ownership: {
      signatures: [
        {
          address: ADDRESS,
          signature: signLegacy(CHALLENGE),
          valid: true,
          format: "legacy",
          detail: "signed",
        },
      ],
      proven_sats: "0",
      claimed_only_sats: "0",
    },
    digest: "",
  };
  edit(d);
  const sats = d.outputs.reduce((s, o) => s + BigInt(o.amount_sats), 0n);
  const amount = `${sats / 100_000_000n}.${(sats % 100_000_000n).toString().padStart(8, "0")}`;
  d.by_address = [{ address: ADDRESS, amount, amount_sats: sats.toString(), outputs: d.outputs.length }];
  d.total = { amount, amount_sats: sats.toString(), outputs: d.outputs.length };
  if (d.ownership) {
    const proven = d.ownership.signatures.some((s) => s.valid) ? sats : 0n;
    d.ownership.proven_sats = proven.toString();
    d.ownership.claimed_only_sats = (sats - proven).toString();
  }
  const { digest: _, ...body } = d;
  d.digest = digestOf(body);
  // the strict reader takes it: the rows below test the verifier, not a malformed file
  return readProof(JSON.stringify(d));
}

/** The honest node's script; `edit` replaces methods. */
function honestNode(edit: Partial<Script> = {}): Script {
  const tx = {
    txid: TXID,
    vout: [{ n: 0, value: 1.5, scriptPubKey: { hex: SCRIPT } }],
  };
  const base: Script = {
    getblockchaininfo: () => ({ chain: "regtest", blocks: TIP }),
    getnetworkinfo: () => ({ subversion: "/LitecoinCore:0.21.4/" }),
    getblockhash: ([h]) => {
      if (typeof h !== "number" || h > TIP) throw new NodeError(-8, "Block height out of range");
      return hashAt(h);
    },
    getrawtransaction: ([txid, , block]) => {
      if (txid === TXID && block === hex32(150)) return tx;
      throw new NodeError(-5, "No such transaction found in the provided block");
    },
    // as litecoind answers: confirmations counted at the best block (created at 150, the tip at TIP)
    gettxout: ([txid, vout]) =>
      txid === TXID && vout === 0
        ? { bestblock: hex32(TIP), confirmations: TIP - 150 + 1, value: 1.5 }
        : null,
    getblock: ([hash]) => ({ hash, tx: [] }),
    // the tip's header only (the best block gettxout names); any other: the node's error
    getblockheader: ([hash]) => {
      if (hash === hex32(TIP)) return { hash, height: TIP };
      throw new NodeError(-5, "Block not found");
    },
  };
  return { ...base, ...edit } as Script;
}

/** Spent in block 203: gettxout answers null, the block's transaction spends it. */
const spentIn =
  (height: number): Method =>
  ([hash]) => ({
    hash,
    tx: hash === hex32(height) ? [{ txid: SPENDER, vin: [{ txid: TXID, vout: 0 }] }] : [],
  });

async function run(nodeScript: Script, proof = proofWith(), options = {}): Promise<VerifyReport> {
  script = nodeScript;
  return verify({ client: client(), options, onEvent: () => {} }, proof);
}

const findingsOf = (r: VerifyReport, step: string) => r.findings.filter((f: Finding) => f.step === step);

// ---------------------------------------------------------------------------------------------------------

describe("UTXO proof steps, in-process against a scripted node", () => {
  it("the honest control holds, every step ok, and the report's lists are derived from the findings", async () => {
    const r = await run(honestNode());
    expect(r.cannot_say).toEqual([]);
    expect(r.failures).toEqual([]);
    expect(r.verdict).toBe("holds");
    for (const step of ["document", "node", "block", "attribution", "outputs", "ownership"])
      expect(
        findingsOf(r, step).map((f) => f.status),
        step,
      ).toEqual(["ok"]);
    expect(r.ownership.proven_sats).toBe("150000000");
    expect(r.summary).toMatch(/1\.50000000 LTC in 1 output unspent at height 200/);
  });

  type Row = {
    name: string;
    node?: Partial<Script>;
    proof?: (d: Proof) => void;
    options?: object;
    step: string;
    status: Finding["status"];
    at?: string;
    text: RegExp;
    verdict: VerifyReport["verdict"];
  };
  const rows: Row[] = [
    {
      name: "another network",
      node: { getblockchaininfo: () => ({ chain: "main", blocks: TIP }) },
      step: "node",
      status: "cannot-say",
      at: "chain",
      text: /the node is on Litecoin, the proof on Litecoin regtest: this node cannot check it; ask a node on Litecoin regtest/,
      verdict: "cannot-say",
    },
    {
      // the forger's node: another chain (its own genesis) whose user-agent says Litecoin Core
      name: "a fork calling itself Litecoin Core",
      node: {
        getblockhash: ([h]) => {
          if (typeof h !== "number" || h > TIP) throw new NodeError(-8, "Block height out of range");
          return hex32(h);
        },
      },
      step: "node",
      status: "cannot-say",
      at: "chain",
      text: /genesis block [0-9a-f]{64}\) calling itself "\/LitecoinCore:0\.21\.4\/" is not a Bitcoin, Litecoin or Dogecoin chain/,
      verdict: "cannot-say",
    },
    {
      name: "a node behind the proof",
      node: { getblockchaininfo: () => ({ chain: "regtest", blocks: 190 }) },
      step: "node",
      status: "cannot-say",
      text: /tip is at height 190, below the proof's height 200 \(10 blocks behind\)/,
      verdict: "cannot-say",
    },
    {
      name: "an EVM node (no getblockchaininfo)",
      node: { getblockchaininfo: undefined as unknown as Method },
      step: "node",
      status: "cannot-say",
      text: /not a bitcoind-family node .*Method not found.*an EVM node/,
      verdict: "cannot-say",
    },
    {
      name: "the proof's block replaced on the node's chain",
      node: { getblockhash: ([h]) => (h === 200 ? hex32(7200) : hashAt(h as number)) },
      step: "block",
      status: "fails",
      at: "block_hash",
      text: /does not know the proof's block .* so the chains part above height 150/,
      verdict: "fails",
    },
    {
      name: "an output attributed to the address but of another script (digest recomputed)",
      proof: (d) => {
        (d.outputs[0] as Proof["outputs"][number]).script_pubkey = OTHER_SCRIPT;
      },
      step: "outputs",
      status: "fails",
      at: `output ${TXID}:0`,
      text: /is not the script of .*: the output is not that address's/,
      verdict: "fails",
    },
    {
      name: "an output amount the block does not hold (digest recomputed)",
      proof: (d) => {
        const o = d.outputs[0] as Proof["outputs"][number];
        o.amount = "15.00000000";
        o.amount_sats = "1500000000";
      },
      step: "outputs",
      status: "fails",
      text: /the output holds 1\.50000000, the proof says 15\.00000000/,
      verdict: "fails",
    },
    {
      name: "the output's block is pruned",
      node: {
        getrawtransaction: () => {
          throw new NodeError(-1, "Block not available (pruned data)");
        },
      },
      step: "outputs",
      status: "cannot-say",
      text: /the node cannot read block .*pruned data/,
      verdict: "cannot-say",
    },
    {
      name: "spent and in no block above the proof: spent before it",
      node: { gettxout: () => null },
      step: "outputs",
      status: "fails",
      text: /spent, and not in any block above the proof's height \(up to 205\)/,
      verdict: "fails",
    },
    {
      name: "spent since, and the blocks above are pruned",
      node: {
        gettxout: () => null,
        getblock: () => {
          throw new NodeError(-1, "Block not available (pruned data)");
        },
      },
      step: "outputs",
      status: "cannot-say",
      text: /cannot read the blocks above the proof to say when \(block 201: Block not available/,
      verdict: "cannot-say",
    },
    {
      name: "a signature over another text, claimed valid (digest recomputed)",
      proof: (d) => {
        const s = d.ownership?.signatures[0];
        if (s) s.signature = signLegacy("another text");
      },
      step: "ownership",
      status: "fails",
      at: ADDRESS,
      text: /signature for .* does not verify over the challenge/,
      verdict: "fails",
    },
    {
      name: "--challenge other than the proof's",
      options: { challenge: "audit 2027" },
      step: "challenge",
      status: "fails",
      at: "challenge",
      text: /the proof's signatures are over "chaingw audit 2026-11-25", not the required "audit 2027"/,
      verdict: "fails",
    },
  ];

  for (const row of rows)
    it(`${row.name}: ${row.step} ${row.status}`, async () => {
      const r = await run(honestNode(row.node), proofWith(row.proof), row.options);
      const hit = r.findings.find(
        (f) => f.step === row.step && f.status === row.status && row.text.test(f.text),
      );
      expect(hit, JSON.stringify(r.findings, null, 1)).toBeDefined();
      if (row.at) expect(hit?.at).toBe(row.at);
      expect(r.verdict).toBe(row.verdict);
      // the lists every --json user reads are the findings' texts
      const list = row.status === "fails" ? r.failures : r.cannot_say;
      expect(list).toContain(hit?.text);
    });

  it("the chain decides the coin: Litecoin's regtest genesis under another user-agent holds", async () => {
    const r = await run(honestNode({ getnetworkinfo: () => ({ subversion: "/Satoshi:27.0.0/" }) }));
    expect(r.verdict).toBe("holds");
    expect(r.findings.find((f) => f.step === "node")?.text).toMatch(/Satoshi:27\.0\.0 on regtest, tip 205/);
  });

  it("spent above the proof's height: the walk finds the spender and the proof holds", async () => {
    const r = await run(honestNode({ gettxout: () => null, getblock: spentIn(203) }));
    expect(r.verdict).toBe("holds");
    expect(r.outputs[0]).toMatchObject({ state: "spent-after", spentAt: 203 });
    expect(r.walked).toMatchObject({ from: 201, to: 205 });
  });

  it("a node that cannot check the proof is asked nothing beyond what it is", async () => {
    const asked: string[] = [];
    const s = honestNode({ getblockchaininfo: () => ({ chain: "regtest", blocks: 10 }) });
    const counting = Object.fromEntries(
      Object.entries(s).map(([k, f]) => [
        k,
        (p: unknown[]) => {
          asked.push(k);
          return f(p);
        },
      ]),
    );
    const r = await run(counting);
    expect(r.verdict).toBe("cannot-say");
    expect([...new Set(asked)].sort()).toEqual(["getblockchaininfo", "getblockhash", "getnetworkinfo"]);
    expect(findingsOf(r, "block")).toEqual([]);
  });

  it("through the CLI: the node's error to getblockheader is not read as a header (exit 1, the parting height named)", async () => {
    script = honestNode({ getblockhash: ([h]) => (h === 200 ? hex32(7200) : hashAt(h as number)) });
    const dir = mkdtempSync(join(tmpdir(), "chaingw-verify-steps-"));
    trackDir(dir);
    const file = join(dir, "replaced.json");
    writeFileSync(file, JSON.stringify(proofWith()));
    const r = await runCli(["--url", node.url, "--json", "reserves", "verify", file]);
    expect(r.exitCode, r.stderr).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.verdict).toBe("fails");
    expect(j.failures.join("\n")).toMatch(
      /does not know the proof's block .* so the chains part above height 150/,
    );
    // the old guard took the error for the header: "above height undefined (block undefined)"
    expect(r.stdout).not.toContain("undefined");
  });
});

describe("the suite sees the source", () => {
  it("dist/ is not older than src/ once the global setup ran (it rebuilds a stale one)", () => {
    expect(staleBuild()).toBeUndefined();
  });
});

describe("the format registry: our own formats", () => {
  it("each descriptor's format member is the reader's own constant", () => {
    expect(UTXO_FORMAT_MEMBER).toBe(PROOF_FORMAT);
    expect(EVM_FORMAT_MEMBER).toBe(EVM_PROOF_FORMAT);
    expect(LIABILITIES_PROOF_MEMBER).toBe(LIABILITIES_PROOF_FORMAT);
    expect(LIABILITIES_COMMITMENT_MEMBER).toBe(COMMITMENT_FORMAT);
  });

  it("detects each from the top-level format member only, and names are unique", () => {
    const utxo = JSON.stringify(proofWith());
    expect(detectFormat(utxo, "reserves")).toBe(CHAINGW_UTXO);
    expect(detectFormat(utxo, "liabilities")).toBeUndefined();
    expect(detectFormat(`{"format":"${EVM_PROOF_FORMAT}"}`, "reserves")).toBe(CHAINGW_EVM);
    // a nested format member is not the document's
    expect(detectFormat(`{"x":{"format":"${EVM_PROOF_FORMAT}"}}`, "reserves")).toBeUndefined();
    expect(detectFormat(`{"format":"${COMMITMENT_FORMAT}"}`, "liabilities")).toBe(CHAINGW_LIABILITIES);
    // JSON Lines of several proofs: the first line's
    const line = `{"format":"${LIABILITIES_PROOF_FORMAT}"}`;
    expect(detectFormat(`${line}\n${line}\n`, "liabilities")).toBe(CHAINGW_LIABILITIES_PROOF);
    expect(detectFormat("not json {", "reserves")).toBeUndefined();
    const names = FORMATS.map((f) => f.name);
    expect(new Set(names).size).toBe(names.length);
    expect(formatNamed("chaingw-evm", "reserves")).toBe(CHAINGW_EVM);
    expect(() => formatNamed("chaingw-evm", "liabilities", "--proof-format")).toThrow(
      /--proof-format "chaingw-evm": not a liabilities format; one of chaingw-liabilities-proof, chaingw-liabilities/,
    );
  });

  it("load() of our reserves formats reads the file with its report entry", async () => {
    const m = await CHAINGW_UTXO.load();
    const r = m.read("p.json", JSON.stringify(proofWith()));
    expect(m.group(r)).toBe("utxo");
    expect(r.format).toBe(CHAINGW_UTXO.name);
    const e = await CHAINGW_EVM.load();
    expect(() => e.read("p.json", "{}")).toThrow(/format/);
    expect(r.entry.assets[0]?.total_base_units).toBe("150000000");
  });

  it("reserves verify's one path: the module's report is the verifier's, against the node, honest and forged", async () => {
    const m = await CHAINGW_UTXO.load();
    expect(m.namesGroup).toBe(false);
    const lines: string[] = [];
    const ctx = { client: client(), options: {}, onEvent: (l: string) => lines.push(l) };
    script = honestNode();
    const good = await m.report(ctx, m.read("p.json", JSON.stringify(proofWith())));
    expect([good.verdict, good.failures]).toEqual(["holds", []]);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.every((l) => typeof l === "string" && l.length > 0)).toBe(true);
    const forged = proofWith((d) => {
      d.outputs[0]!.amount = "15.00000000";
      d.outputs[0]!.amount_sats = "1500000000";
    });
    const bad = await m.report(ctx, m.read("p.json", JSON.stringify(forged)));
    expect(bad.verdict).toBe("fails");
    expect(bad.failures.join("\n")).toMatch(/the output holds 1\.50000000, the proof says 15\.00000000/);
  });
});

// ---------------------------------------------------------------------------------------------------------
// an honest EVM world: chain id 31337, head 105, two addresses' native balances; the proof made by the real
// builder (readBalancesProof) against the same scripted node, pinned at block 100

const HEAD = 105;
const HOLDERS = ["0x1000000000000000000000000000000000000001", "0x2000000000000000000000000000000000000002"];
const WEI: Record<string, bigint> = {
  [HOLDERS[0] as string]: 1_500_000_000_000_000_000n,
  [HOLDERS[1] as string]: 7n,
};
const blockHash = (n: number) => `0x${hex32(50_000 + n)}`;

function honestEvm(edit: Partial<Script> = {}): Script {
  const base: Script = {
    eth_chainId: () => "0x7a69",
    eth_getBlockByNumber: ([ref]) => {
      const n = ref === "latest" ? HEAD : Number(BigInt(ref as string));
      return n > HEAD ? null : { number: `0x${n.toString(16)}`, hash: blockHash(n) };
    },
    eth_getBalance: ([a]) => `0x${(WEI[a as string] ?? 0n).toString(16)}`,
  };
  return { ...base, ...edit } as Script;
}

async function evmProof(edit: Partial<Script> = {}) {
  script = honestEvm(edit);
  const { readBalancesProof } = await import("../src/reserves/evm/balances.js");
  const { groupOf } = await import("../src/chains/index.js");
  const r = await readBalancesProof(client(), {
    chain: groupOf("evm"),
    args: HOLDERS,
    tokens: [],
    native: true,
    block: "100",
    createdAt: new Date("2026-11-25T23:00:00Z"),
  });
  return r.proof;
}

describe("EVM balances proof steps, in-process against a scripted node", () => {
  type Row = {
    name: string;
    node: Partial<Script>;
    step: string;
    status: Finding["status"];
    text: RegExp;
    verdict: string;
  };
  const rows: Row[] = [
    {
      name: "a node on another chain id",
      node: { eth_chainId: () => "0x1" },
      step: "chain",
      status: "cannot-say",
      text: /the node is on chain id 1, the proof on 31337/,
      verdict: "cannot-say",
    },
    {
      name: "a node behind the proof's block",
      node: {
        eth_getBlockByNumber: ([ref]) => {
          const n = ref === "latest" ? 90 : Number(BigInt(ref as string));
          return n > 90 ? null : { number: `0x${n.toString(16)}`, hash: blockHash(n) };
        },
      },
      step: "block",
      status: "cannot-say",
      text: /head is block 90, 10 blocks behind the proof's block 100/,
      verdict: "cannot-say",
    },
    {
      name: "the proof's block replaced",
      node: {
        eth_getBlockByNumber: ([ref]) => {
          const n = ref === "latest" ? HEAD : Number(BigInt(ref as string));
          return { number: `0x${n.toString(16)}`, hash: n === 100 ? blockHash(7100) : blockHash(n) };
        },
      },
      step: "block",
      status: "fails",
      text: /block 100 is now .*no longer canonical/,
      verdict: "fails",
    },
    {
      name: "a balance the chain does not hold at the block",
      node: {
        eth_getBalance: ([a]) => (a === HOLDERS[1] ? "0x8" : `0x${(WEI[a as string] ?? 0n).toString(16)}`),
      },
      step: "balances",
      status: "fails",
      text: /of 0x2000000000000000000000000000000000000002: the proof says 7, the node 8 base units at block 100/,
      verdict: "fails",
    },
    {
      name: "no state at the block (not an archive node)",
      node: {
        eth_getBalance: () => {
          throw new NodeError(-32000, "missing trie node 0123 (path ) state is not available");
        },
      },
      step: "balances",
      status: "cannot-say",
      text: /missing trie node|state/,
      verdict: "cannot-say",
    },
  ];

  it("the honest control holds, every chain step ok", async () => {
    const proof = await evmProof();
    script = honestEvm();
    const { verify: verifyEvm } = await import("../src/reserves/evm/balances-verify.js");
    const r = await verifyEvm({ client: client(), options: {}, onEvent: () => {} }, proof);
    expect(r.failures).toEqual([]);
    expect(r.cannot_say).toEqual([]);
    expect(r.verdict).toBe("holds");
    for (const step of ["document", "inputs", "chain", "block", "balances"])
      expect(
        r.findings.filter((f) => f.step === step).map((f) => f.status),
        step,
      ).toEqual(["ok"]);
  });

  it("the chain step names the network by its label: Ethereum, not the proof's key", async () => {
    const { verify: verifyEvm } = await import("../src/reserves/evm/balances-verify.js");
    // Ethereum's block 0, for the node that is Ethereum; else the scripted chain's own
    const ETHEREUM = "0xd4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3";
    const chainText = async (chainId: string, genesis?: string, standIns?: ReadonlySet<string>) => {
      const blocks = honestEvm().eth_getBlockByNumber;
      const proof = await evmProof({
        eth_chainId: () => chainId,
        eth_getBlockByNumber: (p) =>
          p[0] === "0x0" && genesis ? { number: "0x0", hash: genesis } : blocks(p),
      });
      const r = await verifyEvm(
        { client: client(), options: standIns ? { standIns } : {}, onEvent: () => {} },
        proof,
      );
      return [r.verdict, ...r.findings.filter((f) => f.step === "chain").map((f) => f.text)];
    };
    expect(await chainText("0x1", ETHEREUM)).toEqual(["holds", "chain id 1 (Ethereum)"]);
    // chain id 1 with another genesis is not Ethereum: it cannot say (the proof made on it names no network);
    // declared a stand-in for Ethereum, it holds, named so
    expect(await chainText("0x1")).toEqual([
      "cannot-say",
      `chain: the node answers chain id 1, Ethereum's, but its genesis block is ${blockHash(0)}, not Ethereum's ${ETHEREUM}: it is not Ethereum and cannot say what Ethereum holds (a devnet standing in for Ethereum: --stand-in ethereum)`,
    ]);
    expect(await chainText("0x1", undefined, new Set(["ethereum"]))).toEqual([
      "holds",
      `chain id 1 (a stand-in for Ethereum: its genesis block is ${blockHash(0)}; --stand-in)`,
    ]);
    // a label that already says its chain id is not said twice
    expect(await chainText("0x7a69")).toEqual(["holds", "anvil (chain id 31337)"]);
  });

  for (const row of rows)
    it(`${row.name}: ${row.step} ${row.status}`, async () => {
      const proof = await evmProof();
      script = honestEvm(row.node);
      const { verify: verifyEvm } = await import("../src/reserves/evm/balances-verify.js");
      const r = await verifyEvm({ client: client(), options: {}, onEvent: () => {} }, proof);
      const hit = r.findings.find(
        (f) => f.step === row.step && f.status === row.status && row.text.test(f.text),
      );
      expect(hit, JSON.stringify(r.findings, null, 1)).toBeDefined();
      expect(r.verdict).toBe(row.verdict);
      expect(row.status === "fails" ? r.failures : r.cannot_say).toContain(hit?.text);
    });
});

describe("liabilities proof steps, in-process (chaingw's own Merkle-sum proofs)", () => {
  // a real build by the CLI (3 customers, 2 assets), then the steps of src/liabilities/verify.ts called here
  let commitmentText: string;
  let proofLines: Record<string, any>[];
  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), "chaingw-liab-steps-"));
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nBTC,8\nUSDT,6\n");
    const { buildCommitment } = await import("./helpers/liabilities.js");
    const { runCli } = await import("./helpers/cli.js");
    const rows = ["alice,BTC,1.5", "alice,USDT,20", "bob,BTC,0.25", "carol,USDT,7.000001"];
    const c = await buildCommitment(dir, "steps", rows);
    commitmentText = readFileSync(c, "utf8");
    const all = await runCli(["liabilities", "proof", "--out", join(dir, "steps"), "--all"]);
    expect(all.exitCode, all.stderr).toBe(0);
    proofLines = all.stdout
      .trim()
      .split("\n")
      .map((l) => JSON.parse(l));
  });

  const proofOf = (id: string) => structuredClone(proofLines.find((p) => p.customer === id)!);
  async function check(edit: (p: any, c: any) => void = () => {}, options: { customer?: string } = {}) {
    const [{ parseCommitment }, { parseProofs, verifyLiabilityProof }] = await Promise.all([
      import("../src/liabilities/commitment.js"),
      import("../src/liabilities/verify.js"),
    ]);
    const p = proofOf("alice");
    const c = JSON.parse(commitmentText);
    edit(p, c);
    return verifyLiabilityProof(
      parseProofs(JSON.stringify(p), "p.json")[0]!,
      parseCommitment(JSON.stringify(c), "c.json"),
      options,
    );
  }

  it("the honest control holds: no step fails, the path and balances steps say ok", async () => {
    const v = await check(undefined, { customer: "alice" });
    expect(v.faults).toEqual([]);
    expect(v.verdict).toBe("holds");
    const by = (step: string) => v.findings.filter((f) => f.step === step).map((f) => f.status);
    expect(by("customer")).toEqual(["ok"]);
    expect(by("commitment")).toEqual(["ok"]);
    expect(by("path")).toEqual(["ok", "ok"]); // alice's two leaves (parts), each to the root
    expect(by("balances")).toEqual(["ok"]);
    expect(v.findings.every((f) => f.status === "ok" || f.status === "claim")).toBe(true);
  });

  const rows: {
    name: string;
    edit?: (p: any, c: any) => void;
    customer?: string;
    step: string;
    at: string | RegExp;
    text: RegExp;
  }[] = [
    {
      name: "someone else's id given as --customer",
      customer: "bob",
      step: "customer",
      at: "customer",
      text: /this proof is customer "alice"'s, not "bob"'s/,
    },
    {
      name: "the commitment's total lowered, digest left",
      edit: (_, c) => {
        c.totals[0].base_units = (BigInt(c.totals[0].base_units) - 1n).toString();
        c.totals[0].amount = (Number(c.totals[0].base_units) / 1e8).toFixed(8).replace(/0+$/, "");
      },
      step: "commitment",
      at: "digest",
      text: /the commitment was edited/,
    },
    {
      name: "the commitment's total lowered, digest recomputed (the forger's own commitment)",
      edit: (p, c) => {
        c.totals[0].base_units = (BigInt(c.totals[0].base_units) - 1n).toString();
        c.totals[0].amount = (Number(c.totals[0].base_units) / 1e8).toFixed(8).replace(/0+$/, "");
        const { digest: _, ...body } = c;
        c.digest = digestOf(body);
        p.commitment = c.digest;
      },
      step: "path",
      at: /^leaves\[\d\]\.path\[\d+\]$/,
      text: /the path's BTC sums add up to .* the commitment's total is .*: a sum does not add up/,
    },
    {
      name: "the label changed",
      edit: (p) => {
        p.label = "another snapshot";
      },
      step: "build",
      at: "label",
      text: /the proof's label "another snapshot", the commitment's "steps"/,
    },
    {
      name: "the secret cut short",
      edit: (p) => {
        p.secret = p.secret.slice(2);
      },
      step: "secret",
      at: "secret",
      text: /the secret is not 64 hex digits/,
    },
    {
      name: "a part dropped",
      edit: (p) => {
        p.leaves = p.leaves.slice(1);
      },
      step: "leaves",
      at: "leaves",
      text: /part 0 of 2 is missing/,
    },
    {
      name: "a leaf's amount lowered, the path left",
      edit: (p) => {
        const l = p.leaves.find((x: any) => x.amounts[0] !== "0");
        l.amounts[0] = "1";
      },
      step: "path",
      at: /^leaves\[\d\]$/,
      text: /the amounts \(or the part\) were edited/,
    },
    {
      name: "a sibling's sum made negative",
      edit: (p) => {
        p.leaves[0].path[1].sums[1] = "-5";
      },
      step: "path",
      at: "leaves[0].path[1].sums[1]",
      text: /the sibling's USDT sum at level 1 is negative \(-5\)/,
    },
    {
      name: "the stated balance lowered, the leaves left",
      edit: (p) => {
        p.balances[0].amount = "0";
      },
      step: "balances",
      at: "balances[0]",
      text: /the BTC balance says 0, the leaves add up to 1\.5/,
    },
  ];

  for (const row of rows)
    it(`${row.name}: ${row.step} fails`, async () => {
      const v = await check(row.edit, row.customer === undefined ? {} : { customer: row.customer });
      const hit = v.findings.find(
        (f) => f.step === row.step && f.status === "fails" && row.text.test(f.text),
      );
      expect(hit, JSON.stringify(v.findings, null, 1)).toBeDefined();
      if (typeof row.at === "string") expect(hit?.at).toBe(row.at);
      else expect(hit?.at).toMatch(row.at);
      expect(v.verdict).toBe("fails");
      // the faults every user reads are the failing findings' texts
      expect(v.faults).toContain(hit?.text);
    });

  it("through the registry: the module the entry loads verifies the file, the forged next to the honest", async () => {
    const dir = mkdtempSync(join(tmpdir(), "chaingw-liab-module-"));
    writeFileSync(join(dir, "c.json"), commitmentText);
    const input = (customer?: string) => ({
      file: "p.json",
      commitment: join(dir, "c.json"),
      customer,
      readFile: (f: string) => readFileSync(f, "utf8"),
    });
    const honest = JSON.stringify(proofOf("alice"));
    expect(detectFormat(honest, "liabilities")).toBe(CHAINGW_LIABILITIES_PROOF);
    const m = await CHAINGW_LIABILITIES_PROOF.load();
    const good = await m.verify(honest, input("alice"), CHAINGW_LIABILITIES_PROOF);
    expect([good.kind, good.verdict, good.notes]).toEqual(["chaingw", "holds", []]);
    const forged = proofOf("alice");
    forged.balances[1].amount = "2";
    const bad = await m.verify(JSON.stringify(forged), input(), CHAINGW_LIABILITIES_PROOF);
    expect(bad.verdict).toBe("fails");
    expect(bad.notes[0]).toContain("no --customer given");
    await expect(
      m.verify(honest, { ...input(), commitment: undefined }, CHAINGW_LIABILITIES_PROOF),
    ).rejects.toThrow(/--commitment <file> or --root <hex>: chaingw.s own proofs are checked against/);
  });
});

describe("exchanges' inclusion steps, in-process through the registry (the real published files)", () => {
  const FIX = join(__dirname, "fixtures", "exchange", "liabilities");
  async function run(
    name: string,
    file: string,
    edit: (t: string) => string = (t) => t,
    root?: string,
    assetSlots?: string,
  ) {
    const format = formatNamed(name, "liabilities");
    const m = await format.load();
    const text = readFileSync(join(FIX, file), "utf8");
    const forged = edit(text);
    const r = await m.verify(
      forged,
      { file, root, assetSlots, readFile: (f) => readFileSync(f, "utf8") },
      format,
    );
    if (r.kind !== "inclusion") throw new Error(`${name}: not an inclusion report`);
    return r.check;
  }
  const statuses = (c: { findings: Finding[] }) => c.findings.map((f) => `${f.step}:${f.status}`);

  /** the file judged against the root it reaches, given as the published root (--root) */
  const published = async (name: string, file: string) =>
    run(name, file, undefined, (await run(name, file)).root ?? undefined);

  it("the honest controls, each step in its order (leaf, the root's totals, the reach, the root, the scheme): cannot say against their own root, hold against the published one", async () => {
    for (const [name, file] of [
      ["okx-v1", "okx-v1-merkle_proof_file.json"],
      ["mexc", "mexc-merkle_proof.json"],
    ] as const) {
      // OKX's nodes concatenate their sums with no separator: its root's totals are not bound (cannot say)
      const okx = name === "okx-v1";
      const totals = okx ? ["totals:cannot-say"] : [];
      const own = await run(name, file);
      expect([own.verdict, ...statuses(own)]).toEqual([
        "cannot-say",
        "leaf:ok",
        "sums:ok",
        "path:ok",
        "root:cannot-say",
        ...totals,
        "scheme:claim",
      ]);
      const given = await published(name, file);
      expect([given.verdict, ...statuses(given)]).toEqual([
        okx ? "cannot-say" : "holds",
        "leaf:ok",
        "sums:ok",
        "path:ok",
        "root:ok",
        ...totals,
        "scheme:claim",
      ]);
      expect(given.sum_binding).toBe("total");
      expect(given.totals_binding).toBe(okx ? "ambiguous" : "bound");
    }
    const coinex = await published("coinex", "coinex-merkle_proof_file.json");
    expect([coinex.verdict, ...statuses(coinex)]).toEqual([
      "holds",
      "leaf:claim",
      "sums:ok",
      "path:ok",
      "path:claim",
      "root:ok",
      "scheme:claim",
    ]);
    const gate = await published("gate", "gate-user_config.json");
    expect([gate.verdict, gate.sum_binding, ...statuses(gate)]).toEqual([
      "holds",
      "none",
      // its assets numbered, the exchange's list not given: said, a claim; the places its amounts are read at, another
      "balances:claim",
      "balances:claim",
      "document:ok",
      "path:ok",
      "root:ok",
      "sums:claim",
      "scheme:claim",
    ]);
  });

  const rows: {
    name: string;
    format: string;
    file: string;
    edit?: (t: string) => string;
    root?: string;
    /** the Binance family: the tool's slot count, so a forged file is not tried at every count (slow) */
    assetSlots?: string;
    step: string;
    at: string;
    text: RegExp;
  }[] = [
    {
      name: "OKX v1: a sibling made negative (every hash above it the forger's)",
      format: "okx-v1",
      file: "okx-v1-merkle_proof_file.json",
      edit: (t) => t.replace('"USDT":"0.00403715"', '"USDT":"-5.00403715"'),
      step: "balances",
      at: "level 2 (path[1])",
      text: /the sibling holds a negative USDT amount \(-5\.00403715\)/,
    },
    {
      name: "MEXC: the customer's leaf raised",
      format: "mexc",
      file: "mexc-merkle_proof.json",
      edit: (t) => t.replace('"ETH": "195462.73"', '"ETH": "295462.73"'),
      step: "leaf",
      at: "level 0 (self)",
      text: /sha256\(proofId, accountId, balances\) is [0-9a-f]{32}, the file says 8c288ee0/,
    },
    {
      name: "CoinEx: another root given as --root",
      format: "coinex",
      file: "coinex-merkle_proof_file.json",
      root: "ab".repeat(32),
      step: "root",
      at: "level 8 (root)",
      text: /not the given root abab/,
    },
    {
      name: "Gate: the customer's equity lowered (the Poseidon path misses the root)",
      format: "gate",
      file: "gate-user_config.json",
      edit: (t) => t.replace('"Equity":29774', '"Equity":29773'),
      assetSlots: "800",
      step: "path",
      at: "level 28 (TreeRootHash)",
      text: /Poseidon siblings miss the file's root with 800 asset slots/,
    },
  ];

  for (const row of rows)
    it(`${row.name}: ${row.step} fails`, async () => {
      const honest = await published(row.format, row.file);
      // OKX's root does not bind its totals: its honest file's totals cannot say, nothing fails
      expect(honest.verdict, "the control").toBe(row.format === "okx-v1" ? "cannot-say" : "holds");
      const c = await run(row.format, row.file, row.edit, row.root, row.assetSlots);
      const hit = c.findings.find(
        (f) => f.step === row.step && f.status === "fails" && row.text.test(f.text),
      );
      expect(hit, JSON.stringify(c.findings, null, 1)).toBeDefined();
      expect(hit?.at).toBe(row.at);
      expect(c.verdict).toBe("fails");
    });
});

describe("exchanges' ownership steps, in-process (OKX's real 2022 address file)", () => {
  const text = readFileSync(
    join(__dirname, "fixtures", "exchange", "ownership", "okx_por_example_2022-11.csv"),
    "utf8",
  );
  /** line 19: BTC 3QVtn…, a 2-of-3 P2SH signed twice, 17,263,933 sat at the summary's height 763861 */
  const L = 19;
  const BTC = "3QVtn5nHRxBXX7C7sKw2qdkoGqMMwFUgwF";
  const at = `line ${L}`;
  /** the file with line `L`'s cell `k` (0 coin, 1 address, 2 amount, 3 message, 4 signature1) replaced */
  const withCell = (k: number, v: (old: string) => string) => {
    const lines = text.split("\n");
    const cells = (lines[L - 1] as string).split(",");
    cells[k] = v(cells[k] as string);
    lines[L - 1] = cells.join(",");
    return lines.join("\n");
  };
  /** the file through the registry: the okx-2022 entry's module reads it and judges every row */
  const run = async (t: string, options: OwnershipOptions = {}) => {
    const m = await formatNamed("okx-2022", "reserves").load();
    if (m.kind !== "address-file") throw new Error("okx-2022: not an address file's module");
    return m.verify(m.read(t), options);
  };
  const findingAt = (r: { findings: Finding[] }, where: string) => r.findings.filter((f) => f.at === where);

  /**
   * A node for the BTC rows (scantxoutset on the scripted node) whose UTXO set holds every BTC row's claim,
   * and 3QVtn… `sats`.
   */
  async function btcNode(sats: bigint): Promise<OwnershipOptions> {
    const [
      { chainChecks },
      { decodeUtxoAddress, scriptOf },
      { utxoCoinOf },
      { groupOf },
      { readOwnershipFile },
    ] = await Promise.all([
      import("../src/exchange/ownership/balances.js"),
      import("../src/exchange/ownership/signatures.js"),
      import("../src/exchange/ownership/coins.js"),
      import("../src/chains/index.js"),
      import("../src/exchange/ownership/read.js"),
    ]);
    const coin = utxoCoinOf("BTC", "main");
    if (!coin) throw new Error("no BTC");
    const file = readOwnershipFile(text);
    const unspents = file.rows.flatMap((r) => {
      const addr = decodeUtxoAddress(coin, r.address);
      if (r.coin !== "BTC" || typeof addr === "string") return [];
      const amount = r.address === BTC ? sats : BigInt(r.amount as string);
      // the node's amount as bitcoind prints it: BTC with 8 places
      const btc = `${amount / 100_000_000n}.${(amount % 100_000_000n).toString().padStart(8, "0")}`;
      return [{ scriptPubKey: bytesToHex(scriptOf(addr)), amount: btc, height: 700000 }];
    });
    expect(unspents.length).toBeGreaterThan(1);
    script = { scantxoutset: () => ({ success: true, height: 763861, unspents }) };
    return {
      chain: chainChecks(file, {
        nodes: [{ network: "BTC", chain: groupOf("utxo"), client: client() }],
        tokens: new Map(),
        network: "main",
      }),
    };
  }

  it("the registry: each kind's formats are of that kind; an address file's entry loads its layout's module", async () => {
    for (const kind of ["reserves", "liabilities"] as const)
      for (const f of formatsOf(kind)) expect(f.kind, f.name).toBe(kind);
    expect(detectFormat(text, "reserves")?.name).toBe("okx-2022");
    for (const name of ["okx-2022", "okx-2024", "okx-audit-2025", "htx"]) {
      const m = await formatNamed(name, "reserves").load();
      expect(m).toMatchObject({ kind: "address-file", layout: name });
    }
    expect(await CHAINGW_UTXO.load()).toMatchObject({ kind: "proof" });
    // the entry's reader is its layout's: OKX's 2022 file is no HTX file
    const htx = await formatNamed("htx", "reserves").load();
    if (htx.kind !== "address-file") throw new Error("htx: not an address file's module");
    expect(() => htx.read(text)).toThrow();
  });

  it("the honest control: every row signed (ownership), its amount claimed with no node (balances: cannot say); the file's totals agree with its rows", async () => {
    const r = await run(text);
    expect(r.verdict).toBe("cannot-say");
    expect(findingAt(r, at)).toEqual([
      expect.objectContaining({
        status: "cannot-say",
        step: "balances",
        text: expect.stringMatching(
          new RegExp(`${BTC}: .*signed, amount claimed: 0\\.17263933 not re-read on chain`),
        ),
      }),
    ]);
    const rows = r.findings.filter((f) => f.step !== "summary" && f.step !== "decimals");
    expect(rows.map((f) => f.at)).toEqual(r.rows.map((x) => `line ${x.line}`));
    expect(new Set(rows.map((f) => f.step))).toEqual(new Set(["balances"]));
    expect(r.rows.every((x) => x.status === "signed" && x.signed === true)).toBe(true);
    const sums = r.findings.filter((f) => f.step === "summary");
    expect(sums.filter((f) => f.status === "ok")).toHaveLength(9);
    expect(sums.every((f) => f.status === "ok" || f.status === "claim")).toBe(true);
  });

  const rows: {
    name: string;
    step: string;
    /** the forged file and options, and the honest ones beside them */
    forged: () => Promise<[string, OwnershipOptions]>;
    honest: () => Promise<[string, OwnershipOptions]>;
    /** where the forged finding is (default: line L) */
    where?: string;
    text: RegExp;
  }[] = [
    {
      name: "the BTC row listed again with its amount at the file's end",
      step: "repeats",
      forged: async () => [`${text.trimEnd()}\n${text.split("\n")[L - 1]}\n`, {}],
      honest: async () => [text, {}],
      where: "line 49",
      text: /the same BTC address as line 19, listed again with an amount/,
    },
    {
      name: "its message cell emptied (the signatures kept)",
      step: "empty-message",
      forged: async () => [withCell(3, () => ""), {}],
      honest: async () => [text, {}],
      text: /signed an empty message/,
    },
    {
      name: "its signatures found in an older file (--previous)",
      step: "reuse",
      forged: async () => {
        const [{ readOwnershipFile }, { signaturesOf }] = await Promise.all([
          import("../src/exchange/ownership/read.js"),
          import("../src/exchange/ownership/verify.js"),
        ]);
        return [text, { previous: signaturesOf(readOwnershipFile(text), "old.csv") }];
      },
      honest: async () => [text, { previous: new Map() }],
      text: /signature reused from old\.csv line 19/,
    },
    {
      name: "one character of its first signature changed",
      step: "ownership",
      forged: async () => [
        withCell(4, (s) => `${s.slice(0, 10)}${s[10] === "A" ? "B" : "A"}${s.slice(11)}`),
        {},
      ],
      honest: async () => [text, {}],
      text: /3QVtn/,
    },
    {
      name: "--challenge names another text than the one signed",
      step: "message",
      forged: async () => [text, { message: "OKX reserves 2022-11-22" }],
      honest: async () => [text, { message: "I am an OKX address" }],
      text: /signed over "I am an OKX address", not the required message "OKX reserves 2022-11-22"/,
    },
    {
      name: "the node's UTXO set holds one satoshi less than the claim",
      step: "balances",
      forged: async () => [text, await btcNode(17263932n)],
      honest: async () => [text, await btcNode(17263933n)],
      text: /holds 0\.17263932 at height 763861 \(scantxoutset\), less than the 0\.17263933 claimed/,
    },
  ];
  for (const row of rows)
    it(`${row.name}: ${row.step} fails at that row; the honest row beside it is signed (proven where the node reads it)`, async () => {
      const where = row.where ?? at;
      const [ft, fo] = await row.forged();
      const bad = await run(ft, fo);
      const hit = findingAt(bad, where);
      expect(hit, JSON.stringify(bad.findings, null, 1)).toEqual([
        expect.objectContaining({ status: "fails", step: row.step, text: expect.stringMatching(row.text) }),
      ]);
      expect(bad.verdict).toBe("fails");
      const [ht, ho] = await row.honest();
      const good = await run(ht, ho);
      // signed; its balance re-read where a node reads it (proven), else claimed (cannot say)
      expect(findingAt(good, at)).toEqual([
        expect.objectContaining({ status: row.step === "balances" ? "ok" : "cannot-say", step: "balances" }),
      ]);
      // the ETH and TRON rows: signed, their amounts claimed (no node reads them)
      expect(good.verdict).toBe("cannot-say");
      if (row.step === "balances")
        expect(good.rows.find((x) => x.line === L)?.balance).toMatchObject({
          holds: true,
          value: "0.17263933",
        });
    });
});
