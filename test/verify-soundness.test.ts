/**
 * `reserves verify` tried as a careful forger would (issue 22): every edit keeps the document consistent
 * (subtotals, totals, ownership split) and recomputes the digest, so only the chain can tell. Each edit must
 * end as docs/proofs.md's table promises: "does not hold" (exit 1) when the chain answered against the proof,
 * "cannot say" (exit 3, no per-output lines) when the node cannot tell — behind, of the wrong kind, on another
 * network, or without the data (a pruned node's answers, injected by a rewriting proxy).
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../src/proof/jcs.js";
import { type FaultServer, startFaultServer } from "./fixtures/faults.js";
import { entryProxy } from "./fixtures/forward.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";
import { deployToken, mint } from "./helpers/tokens.js";

const CHALLENGE = "chaingw audit 2026-11-24: reserves of Example Exchange";
/** BIP-32 test vector 1's master key in regtest form (Bitcoin Core's rpc_deriveaddresses.py uses it) */
const TPRV =
  "tprv8ZgxMBicQKsPd7Uf69XL1XwhmjHopUGep8GuEiJDZmbQz6o58LninorQAfcKZWARbtRtfnLcJ5MQ2AtHcQJCCRUcMRvmDUjyEmNUWwx8UbK";

let ltc: LitecoinNode;
let behind: LitecoinNode;
let anvil: AnvilNode;
let proxy: FaultServer;
let dir: string;
const addr: Record<string, string> = {};
let proofFile: string;
let descProofFile: string;
let stranger: {
  txid: string;
  vout: number;
  sats: string;
  script: string;
  height: number;
  block: string;
  desc: string;
};

const read = (f: string) => JSON.parse(readFileSync(f, "utf8"));
const coins = (s: bigint) => `${s / 100_000_000n}.${(s % 100_000_000n).toString().padStart(8, "0")}`;
const sats = (v: number) => BigInt(Math.round(v * 1e8));

/** `base` with `edit` applied, the digest recomputed, written to a new file */
function forged(base: string, edit: (d: any) => void): string {
  const d = read(base);
  edit(d);
  const { digest: _, ...body } = d;
  d.digest = digestOf(body);
  const f = join(dir, `forged-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(f, JSON.stringify(d, null, 2));
  return f;
}

/** adds `add` sats to the by_address entry of `address` (creating it), the totals and the ownership split */
function credit(d: any, address: string, add: bigint, outputs: number) {
  let a = d.by_address.find((x: any) => x.address === address);
  if (!a) {
    a = { address, amount: "0", amount_sats: "0", outputs: 0 };
    d.by_address.push(a);
  }
  a.amount_sats = (BigInt(a.amount_sats) + add).toString();
  a.amount = coins(BigInt(a.amount_sats));
  a.outputs += outputs;
  d.total.amount_sats = (BigInt(d.total.amount_sats) + add).toString();
  d.total.amount = coins(BigInt(d.total.amount_sats));
  d.total.outputs += outputs;
  if (d.ownership) {
    const proven = d.ownership.signatures.some((s: any) => s.address === address && s.valid);
    const side = proven ? "proven_sats" : "claimed_only_sats";
    d.ownership[side] = (BigInt(d.ownership[side]) + add).toString();
  }
}

const verify = (args: string[], url = proxy.url) =>
  runCli(["--url", url, "--json", "reserves", "verify", ...args]);

/** A proxy in front of the node that answers `methods` as a pruned node does, entry by entry. */
const prunedProxy = (node: LitecoinNode, methods: string[]) =>
  entryProxy(async (e) =>
    methods.includes(e.method)
      ? {
          jsonrpc: "2.0",
          id: e.id,
          result: null,
          error: { code: -1, message: "Block not available (pruned data)" },
        }
      : JSON.parse((await node.rawCall(JSON.stringify(e))).text),
  );

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-sound-"));
  trackDir(dir);
  [ltc, behind, anvil] = await Promise.all([
    startLitecoind({ blocks: 110 }),
    startLitecoind({ blocks: 3 }),
    startAnvil(),
  ]);
  proxy = await startFaultServer({ upstream: { url: ltc.url, user: ltc.user, password: ltc.password } });
  for (const k of ["signed", "other", "stranger"])
    addr[k] = await ltc.rpc<string>("getnewaddress", ["", "bech32"]);
  addr.legacy = await ltc.rpc<string>("getnewaddress", ["", "legacy"]);
  const desc = (await ltc.rpc<any>("getdescriptorinfo", [`wpkh(${TPRV}/0/*)`])).descriptor as string;
  const derived = await ltc.rpc<string[]>("deriveaddresses", [desc, [0, 4]]);
  addr.derived = derived[2] as string;
  await ltc.rpc("sendmany", [
    "",
    {
      [addr.signed]: 1.5,
      [addr.other]: 0.25,
      [addr.stranger]: 7.77,
      [addr.legacy]: 0.125,
      [addr.derived]: 0.3,
    },
  ]);
  await ltc.mine(1);
  const list = join(dir, "addresses.txt");
  writeFileSync(list, [addr.signed, addr.other, addr.legacy].join("\n"));
  const sigs = join(dir, "sigs.csv");
  writeFileSync(sigs, `${addr.legacy},${await ltc.rpc<string>("signmessage", [addr.legacy, CHALLENGE])}\n`);
  proofFile = join(dir, "proof.json");
  const r = await runCli([
    "--url",
    proxy.url,
    "reserves",
    "scan",
    "-f",
    list,
    "--proof",
    proofFile,
    "--challenge",
    CHALLENGE,
    "--signatures",
    sigs,
  ]);
  expect(r.stderr).toBe("");
  expect(r.exitCode).toBe(0);
  descProofFile = join(dir, "desc-proof.json");
  const publicDesc = desc.replace(/#.*$/, "");
  const rd = await runCli([
    "--url",
    proxy.url,
    "reserves",
    "scan",
    "--descriptor",
    publicDesc,
    "--range",
    "0..9",
    "--proof",
    descProofFile,
  ]);
  expect(rd.stderr).toBe("");
  expect(rd.exitCode).toBe(0);
  // a stranger's real, unspent output (one the custodian's list does not hold)
  const utxo = (await ltc.rpc<any[]>("listunspent", [1, 9999, [addr.stranger]]))[0];
  const block = await ltc.rpc<string>("getblockhash", [
    (await ltc.rpc<number>("getblockcount")) - utxo.confirmations + 1,
  ]);
  const info = await ltc.rpc<any>("getaddressinfo", [addr.stranger]);
  stranger = {
    txid: utxo.txid,
    vout: utxo.vout,
    sats: sats(utxo.amount).toString(),
    script: utxo.scriptPubKey,
    height: (await ltc.rpc<number>("getblockcount")) - utxo.confirmations + 1,
    block,
    desc: String(info.desc).replace(/#.*$/, ""),
  };
});

afterAll(async () => {
  await proxy?.stop();
  await Promise.all([ltc?.stop(), behind?.stop(), anvil?.stop()]);
});

const strangerOutput = (matched: string) => ({
  txid: stranger.txid,
  vout: stranger.vout,
  amount: coins(BigInt(stranger.sats)),
  amount_sats: stranger.sats,
  script_pubkey: stranger.script,
  matched,
  height: stranger.height,
  block_hash: stranger.block,
});

describe("UTXO proofs: every field re-derived", () => {
  it("the untouched proofs hold, and verify shows the challenge and created_at as the proof's claims", async () => {
    const r = await runCli(["--url", proxy.url, "reserves", "verify", proofFile]);
    expect(r.exitCode).toBe(0);
    expect(r.stdout).toContain(`claim      challenge: "${CHALLENGE}"`);
    expect(r.stdout).toMatch(/claim {6}created_at: "20\d\d-/);
    expect(r.stdout).toMatch(/^node {7}ok {2}LitecoinCore:[\d.]+ on regtest/m);
    const j = await verify([proofFile]);
    expect(JSON.parse(j.stdout)).toMatchObject({
      verdict: "holds",
      claims: { challenge: CHALLENGE },
      cannot_say: [],
    });
    const d = await verify([descProofFile]);
    expect(d.exitCode).toBe(0);
    expect(JSON.parse(d.stdout).attribution.ok).toBe(true);
  });

  it("a stranger's real unspent output added under a signed address does not hold: its script is not the address's", async () => {
    const f = forged(proofFile, (d) => {
      d.outputs.push(strangerOutput(addr.legacy));
      credit(d, addr.legacy, BigInt(stranger.sats), 1);
    });
    const r = await verify([f]);
    expect(r.exitCode).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.verdict).toBe("fails");
    expect(j.failures.join("\n")).toContain(`output ${stranger.txid}:${stranger.vout}`);
    expect(j.failures.join("\n")).toMatch(/is not the script of .*the output is not that address's/);
    expect(j.ownership.proven_sats).toBe(read(proofFile).ownership.proven_sats);
  });

  it("a stranger's output added with its own address as a new scan object holds only as 'claimed only', never proven", async () => {
    const f = forged(proofFile, (d) => {
      d.scan_objects.push(addr.stranger);
      d.outputs.push(strangerOutput(addr.stranger));
      credit(d, addr.stranger, BigInt(stranger.sats), 1);
    });
    const r = await verify([f]);
    const j = JSON.parse(r.stdout);
    expect(r.exitCode).toBe(0);
    expect(j.addresses.find((a: any) => a.address === addr.stranger).ownership).toBe("claimed-only");
    expect(j.ownership.proven_sats).toBe(read(proofFile).ownership.proven_sats);
  });

  it("an output moved from one address to another does not hold", async () => {
    const f = forged(proofFile, (d) => {
      const o = d.outputs.find((x: any) => x.matched === addr.other);
      o.matched = addr.legacy;
      credit(d, addr.other, -BigInt(o.amount_sats), -1);
      credit(d, addr.legacy, BigInt(o.amount_sats), 1);
    });
    const r = await verify([f]);
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stdout).failures.join("\n")).toMatch(/is not the script of/);
  });

  it("a subtotal moved between addresses (total unchanged) does not hold, and the proven share is re-derived", async () => {
    const f = forged(proofFile, (d) => {
      const from = d.by_address.find((x: any) => x.address === addr.signed);
      const to = d.by_address.find((x: any) => x.address === addr.legacy);
      const move = BigInt(from.amount_sats);
      from.amount_sats = "0";
      from.amount = coins(0n);
      to.amount_sats = (BigInt(to.amount_sats) + move).toString();
      to.amount = coins(BigInt(to.amount_sats));
      d.ownership.proven_sats = (BigInt(d.ownership.proven_sats) + move).toString();
      d.ownership.claimed_only_sats = (BigInt(d.ownership.claimed_only_sats) - move).toString();
    });
    const r = await verify([f]);
    expect(r.exitCode).toBe(1);
    const j = JSON.parse(r.stdout);
    expect(j.failures.join("\n")).toMatch(
      new RegExp(`by_address ${addr.legacy}: credited .* but the outputs attributed to it add up to 0\\.125`),
    );
    expect(j.ownership.proven_sats).toBe("12500000");
  });

  it("a stranger's output under its inferred descriptor in a descriptor proof does not hold: no scan object produces it", async () => {
    const f = forged(descProofFile, (d) => {
      d.outputs.push(strangerOutput(stranger.desc));
      credit(d, stranger.desc, BigInt(stranger.sats), 1);
    });
    const r = await verify([f]);
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stdout).failures.join("\n")).toMatch(
      /is produced by none of the proof's scan objects/,
    );
  });

  it("an address of another coin or network under the same script does not hold", async () => {
    // the legacy address's hash printed with Bitcoin mainnet's prefix: same script, not a Litecoin regtest address
    const f = forged(proofFile, (d) => {
      d.scan_objects.push("1BvBMSEYstWetqTFn5Au4m4GFg7xJaNVN2");
    });
    const r = await verify([f]);
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stdout).failures.join("\n")).toMatch(
      /is not an address of Litecoin regtest, the node.s/,
    );
  });

  it("--challenge: the same text holds; another fails naming both; an empty one is refused", async () => {
    expect((await verify([proofFile, "--challenge", CHALLENGE])).exitCode).toBe(0);
    const r = await runCli([
      "--url",
      proxy.url,
      "reserves",
      "verify",
      proofFile,
      "--challenge",
      "audit 2025",
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain(
      `the proof's signatures are over "${CHALLENGE}", not the required "audit 2025"`,
    );
    expect(r.stdout).toMatch(/signature FAILS/);
    const e = await runCli(["--url", proxy.url, "reserves", "verify", proofFile, "--challenge", ""]);
    expect(e.exitCode).toBe(2);
  });

  it("scan --challenge '' is refused, and a proof with an empty challenge is not a proof (exit 2, nothing sent)", async () => {
    const before = proxy.hits;
    const r = await runCli([
      "--url",
      proxy.url,
      "reserves",
      "scan",
      addr.signed,
      "--proof",
      join(dir, "x.json"),
      "--challenge",
      "",
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/--challenge: empty/);
    const f = forged(proofFile, (d) => {
      d.challenge = "";
    });
    const v = await runCli(["--url", proxy.url, "reserves", "verify", f]);
    expect(v.exitCode).toBe(2);
    expect(v.stderr).toMatch(/challenge: empty/);
    expect(proxy.hits).toBe(before);
  });

  it("a signature file line of no supported form (AAAA=) is exit 2 naming the line, before anything is sent", async () => {
    const sigs = join(dir, "bad-sigs.csv");
    writeFileSync(sigs, `# header comment\n${addr.legacy},AAAA=\n`);
    const before = proxy.hits;
    const r = await runCli([
      "--url",
      proxy.url,
      "reserves",
      "scan",
      addr.legacy,
      "--proof",
      join(dir, "y.json"),
      "--challenge",
      CHALLENGE,
      "--signatures",
      sigs,
    ]);
    expect(r.exitCode).toBe(2);
    expect(r.stderr).toMatch(/line 2: the signature is of no supported form/);
    expect(r.stderr).not.toMatch(/internal error/);
    expect(proxy.hits).toBe(before);
  });
});

describe("outputs a run will write are checked before anything is sent", () => {
  it("--proof / --csv / --html into a missing folder: exit 2 naming the option, zero requests", async () => {
    const missing = join(dir, "no-such-folder", "p.json");
    const before = proxy.hits;
    for (const args of [
      ["reserves", "scan", addr.signed, "--proof", missing],
      ["reserves", "scan", addr.signed, "--csv", missing],
      ["reserves", "report", proofFile, "--verify", "--html", missing],
    ]) {
      const r = await runCli(["--url", proxy.url, ...args]);
      expect(r.exitCode).toBe(2);
      expect(r.stderr).toMatch(/--(proof|csv|html): cannot write .*ENOENT.*nothing was sent/);
    }
    expect(proxy.hits).toBe(before);
    const anvilHits = await runCli([
      "--chain",
      "evm",
      "--url",
      anvil.url,
      "reserves",
      "balances",
      "0x1000000000000000000000000000000000000001",
      "--proof",
      missing,
    ]);
    expect(anvilHits.exitCode).toBe(2);
    expect(anvilHits.stderr).toMatch(/--proof: cannot write/);
  });
});

describe("UTXO proofs: cannot say, never 'does not hold', when the node cannot tell", () => {
  it("a node behind the proof's height: exit 3, how far behind, no per-output lines", async () => {
    const r = await runCli(["--url", behind.authUrl, "reserves", "verify", proofFile]);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toMatch(
      /the node's tip is at height 3, below the proof's height 111 \(108 blocks behind\)/,
    );
    expect(r.stdout).toMatch(/verify again once it has caught up/);
    expect(r.stdout).not.toMatch(/FAILS|does not hold/);
    expect(JSON.parse((await verify([proofFile], behind.authUrl)).stdout).outputs).toEqual([]);
  });

  it("a node of the wrong kind (an EVM node): exit 3 naming what it answered, no per-output lines", async () => {
    const r = await runCli(["--url", anvil.url, "reserves", "verify", proofFile]);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toMatch(/not a bitcoind-family node.*getblockchaininfo/);
    expect(r.stdout).not.toMatch(/FAILS|does not hold|output /);
  });

  it("a proof whose chain was edited to another network: cannot say on this node, never holds", async () => {
    const f = forged(proofFile, (d) => {
      d.chain = "main";
    });
    const r = await runCli(["--url", proxy.url, "reserves", "verify", f]);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toContain(
      "the node is on Litecoin regtest, the proof on Litecoin: this node cannot check it; ask a node on Litecoin",
    );
  });

  it("a pruned node's missing blocks: cannot say (exit 3) for those outputs, not 'does not hold'", async () => {
    const p = await prunedProxy(ltc, ["getrawtransaction"]);
    try {
      const u = new URL(p.url);
      u.username = ltc.user;
      u.password = ltc.password;
      const r = await runCli(["--url", u.toString(), "--json", "reserves", "verify", proofFile]);
      expect(r.exitCode).toBe(3);
      const j = JSON.parse(r.stdout);
      expect(j.verdict).toBe("cannot-say");
      expect(j.failures).toEqual([]);
      expect(j.cannot_say.join("\n")).toMatch(/the node cannot read block .*pruned data/);
    } finally {
      await p.close();
    }
  });

  it("reserves report --verify gives the same verdict and exit code (3) for a node behind", async () => {
    const r = await runCli(["--url", behind.authUrl, "reserves", "report", "--verify", proofFile]);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toMatch(/^CANNOT SAY/m);
  });
});

describe("EVM balance proofs: decimals, symbols, network re-derived; a node behind or of another kind cannot say", () => {
  let evmProof: string;
  let usd: string;
  const holders = [
    "0x1000000000000000000000000000000000000001",
    "0x1000000000000000000000000000000000000002",
  ];
  /** an asset's amounts re-written with other decimals, every total consistent */
  const redecimal = (d: any, id: string, decimals: number) => {
    const a = d.assets.find((x: any) => x.id === id);
    const fmt = (b: string) => {
      const v = BigInt(b);
      const p = 10n ** BigInt(decimals);
      const frac = (v % p).toString().padStart(decimals, "0").replace(/0+$/, "");
      return frac ? `${v / p}.${frac}` : `${v / p}`;
    };
    a.decimals = decimals;
    for (const b of a.balances) b.amount = fmt(b.base_units);
    a.total.amount = fmt(a.total.base_units);
  };

  beforeAll(async () => {
    usd = await deployToken(anvil.rpc, "Token", { symbol: "USDX", decimals: 6 });
    await mint(anvil.rpc, usd, holders, [1_250_000n, 3n]);
    for (const h of holders) await anvil.rpc("anvil_setBalance", [h, "0xde0b6b3a7640000"]);
    await anvil.rpc("evm_mine", []);
    evmProof = join(dir, "evm-proof.json");
    const r = await runCli([
      "--chain",
      "evm",
      "--url",
      anvil.url,
      "reserves",
      "balances",
      ...holders,
      "--native",
      "--token",
      usd,
      "--proof",
      evmProof,
    ]);
    expect(r.exitCode).toBe(0);
    await anvil.rpc("evm_mine", []);
  });

  const everify = (f: string, url = anvil.url) => runCli(["--url", url, "--json", "reserves", "verify", f]);

  it("the untouched proof holds: metadata re-read, native coin from the chain's definition", async () => {
    const r = await everify(evmProof);
    expect(r.exitCode).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ verdict: "holds", metadata: { ok: true }, inputs: { ok: true } });
  });

  it("a token's decimals rewritten (amounts recomputed) does not hold, naming the token", async () => {
    const f = forged(evmProof, (d) => redecimal(d, usd, 18));
    const r = await runCli(["--url", anvil.url, "reserves", "verify", f]);
    expect(r.exitCode).toBe(1);
    expect(r.stdout).toContain(`token ${usd} answers decimals 6 (the proof says 18)`);
  });

  it("a token's symbol renamed does not hold", async () => {
    const f = forged(evmProof, (d) => {
      d.assets.find((x: any) => x.id === usd).symbol = "USDT";
    });
    const r = await everify(f);
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stdout).failures.join("\n")).toMatch(
      /symbol "USDX" as string \(the proof says "USDT"/,
    );
  });

  it("the native coin renamed or given other decimals, or the network renamed, does not hold", async () => {
    for (const [edit, want] of [
      [
        (d: any) => (d.assets.find((x: any) => x.id === "native").symbol = "BTC"),
        /native coin: the proof calls it "BTC"/,
      ],
      [(d: any) => redecimal(d, "native", 6), /native coin: the proof gives it 6 decimals/],
      [(d: any) => (d.chain.network = "mainnet"), /chain.network: the proof names the network "mainnet"/],
    ] as const) {
      const r = await everify(forged(evmProof, edit));
      expect(r.exitCode).toBe(1);
      expect(JSON.parse(r.stdout).failures.join("\n")).toMatch(want);
    }
  });

  it("inputs edited so they no longer give the proof's addresses does not hold", async () => {
    const f = forged(evmProof, (d) => {
      d.inputs.addresses = ["0x2000000000000000000000000000000000000002"];
    });
    const r = await everify(f);
    expect(r.exitCode).toBe(1);
    expect(JSON.parse(r.stdout).failures.join("\n")).toMatch(
      /inputs: the addresses as given do not normalise/,
    );
  });

  it("an EVM proof given to a bitcoind-family node: cannot say (exit 3), the node named as the wrong kind", async () => {
    const r = await runCli(["--url", ltc.authUrl, "reserves", "verify", evmProof]);
    expect(r.exitCode).toBe(3);
    expect(r.stdout).toMatch(/not an EVM-style node: it answered eth_chainId/);
    expect(r.stdout).not.toMatch(/FAILS/);
  });

  it("a node behind the proof's block (a fresh anvil): cannot say, how far behind", async () => {
    const fresh = await startAnvil();
    try {
      const r = await runCli(["--url", fresh.url, "reserves", "verify", evmProof]);
      expect(r.exitCode).toBe(3);
      expect(r.stdout).toMatch(/the node's head is block 0, \d+ blocks? behind the proof's block \d+/);
      expect(r.stdout).not.toMatch(/FAILS/);
    } finally {
      await fresh.stop();
    }
  });
});
