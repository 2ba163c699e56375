/**
 * k-of-n agreement (issue 25, part 5): `--quorum K` on reserves scan --proof, reserves balances and reserves
 * verify. Two litecoind regtest nodes, one synced from the other, then one reorganised away (invalidateblock);
 * two anvil nodes sharing a genesis block, then one balance changed with anvil_setBalance. Agreement is
 * recorded in the proof; any disagreement stops the run (exit 1) naming both nodes as they describe
 * themselves and both answers, never a URL with its credentials.
 */
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir, until } from "./helpers/procs.js";

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-quorum-"));
  trackDir(dir);
});

describe("UTXO: two litecoind nodes, one reorganised away", () => {
  let a: LitecoinNode;
  let b: LitecoinNode;
  let addr: string;
  let proof: string;

  const synced = async () => {
    const tip = await a.rpc<string>("getbestblockhash");
    await until("b at a's tip", async () => (await b.rpc<string>("getbestblockhash")) === tip);
    expect(await b.rpc<string>("getbestblockhash")).toBe(tip);
  };

  beforeAll(async () => {
    [a, b] = await Promise.all([startLitecoind({ blocks: 110, listen: true }), startLitecoind()]);
    await b.rpc("addnode", [`127.0.0.1:${a.p2pPort}`, "onetry"]);
    addr = await a.newAddress();
    await a.rpc("sendtoaddress", [addr, 1.25]);
    await a.mine(1);
    await synced();
    proof = join(dir, "utxo-quorum.json");
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("agreeing nodes: the proof records both, as they describe themselves; verify --quorum holds", async () => {
    const r = await runCli([
      "--url",
      a.authUrl,
      "--url",
      b.authUrl,
      "reserves",
      "scan",
      addr,
      "--quorum",
      "2",
      "--proof",
      proof,
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /quorum\s+2 nodes agree: node 1 \(\/LitecoinCore:0\.21\.[0-9.]+\/, chain regtest/,
    );
    const p = JSON.parse(readFileSync(proof, "utf8"));
    expect(p.quorum.k).toBe(2);
    expect(p.quorum.nodes).toHaveLength(2);
    for (const n of p.quorum.nodes) {
      expect(n).toMatchObject({ chain: "regtest", height: p.height, block_hash: p.block_hash });
      expect(n.client).toMatch(/^\/LitecoinCore:0\.21/);
    }
    // no URL, no credentials in the proof
    const text = readFileSync(proof, "utf8");
    expect(text).not.toContain(a.password);
    expect(text).not.toContain("127.0.0.1");
    const v = await runCli([
      "--url",
      a.authUrl,
      "--url",
      b.authUrl,
      "reserves",
      "verify",
      proof,
      "--quorum",
      "2",
    ]);
    expect(v.exitCode, v.stdout).toBe(0);
    expect(v.stdout).toContain('claim      quorum: "made under a quorum: 2 nodes agreed');
    expect(v.stdout).toMatch(/quorum\s+ok\s+checked on 2 nodes/);
  });

  it("fewer distinct nodes than K is bad usage, nothing sent", async () => {
    const one = await runCli([
      "--url",
      a.authUrl,
      "reserves",
      "scan",
      addr,
      "--quorum",
      "2",
      "--proof",
      join(dir, "x.json"),
    ]);
    expect(one.exitCode).toBe(2);
    expect(one.stderr).toContain("--quorum 2: reserves scan needs 2 distinct nodes, one is configured");
    const same = await runCli([
      "--url",
      a.authUrl,
      "--url",
      a.authUrl,
      "reserves",
      "verify",
      proof,
      "--quorum",
      "2",
    ]);
    expect(same.exitCode).toBe(2);
    const bad = await runCli([
      "--url",
      a.authUrl,
      "--url",
      b.authUrl,
      "reserves",
      "verify",
      proof,
      "--quorum",
      "1",
    ]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("--quorum");
  });

  it("one node reorganised away: scan stops naming both nodes and both tips; verify says the nodes disagree", async () => {
    await b.rpc("setnetworkactive", [false]);
    const tip = await b.rpc<string>("getbestblockhash");
    await b.rpc("invalidateblock", [tip]);
    await b.mine(1);
    const r = await runCli([
      "--url",
      a.authUrl,
      "--url",
      b.authUrl,
      "reserves",
      "scan",
      addr,
      "--quorum",
      "2",
      "--proof",
      join(dir, "disputed.json"),
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toMatch(
      /the nodes disagree about the chain: node 1 at http:\/\/127\.0\.0\.1:\d+\/ \(\/LitecoinCore:[^)]*\) scanned at block 111 [0-9a-f]{64}, node 2 at http:\/\/127\.0\.0\.1:\d+\/ \(\/LitecoinCore:[^)]*\) at 111 [0-9a-f]{64}/,
    );
    expect(r.stderr).toContain(`node 2 at ${b.url} (`);
    expect(r.stderr).not.toContain(b.password);
    const v = await runCli([
      "--url",
      a.authUrl,
      "--url",
      b.authUrl,
      "--json",
      "reserves",
      "verify",
      proof,
      "--quorum",
      "2",
    ]);
    expect(v.exitCode).toBe(1);
    const j = JSON.parse(v.stdout);
    expect(j.verdict).toBe("fails");
    // each node by URL (credentials stripped) and by what it says of itself, with its own verdict
    expect(j.failures.join("\n")).toContain(`the nodes disagree: node 1 at ${a.url} (/LitecoinCore:`);
    expect(j.failures.join("\n")).toMatch(
      /node 1 at [^ ]+ \([^)]*\) says it holds; node 2 at [^ ]+ \([^)]*\) says it does not hold/,
    );
    expect(j.quorum.nodes.map((n: any) => [n.url, n.verdict])).toEqual([
      [a.url, "holds"],
      [b.url, "fails"],
    ]);
    expect(v.stdout).not.toContain(b.password);
    expect(j.summary).not.toMatch(/\(2 nodes agree\)/);
    // findings[] carry each node's (they held only node 1's, which holds: no failing finding at all)
    const fs = j.findings as { status: string; step: string; text: string }[];
    const node2 = fs.filter((f) => f.text.startsWith(`node 2 at ${b.url} (`));
    expect(node2.filter((f) => f.status === "fails").length).toBeGreaterThan(0);
    for (const f of j.failures.filter((x: string) => x.startsWith("node 2 at ")))
      expect(fs.some((g) => g.status === "fails" && g.text === f)).toBe(true);
    expect(fs.filter((f) => f.step === "quorum" && f.status === "fails").map((f) => f.text)).toEqual([
      j.failures.find((x: string) => x.startsWith("the nodes disagree")),
    ]);
    // node 1's own findings stay unprefixed, and none of them fails
    expect(
      fs.filter((f) => !f.text.startsWith("node ") && f.step !== "quorum" && f.status === "fails"),
    ).toEqual([]);
    expect(fs.some((f) => f.status === "ok" && !f.text.startsWith("node "))).toBe(true);
    // the failing node first: its verdict is the first report's, and the summary still does not say "agree"
    // (it said "(2 nodes agree)" before)
    const w = await runCli([
      "--url",
      b.authUrl,
      "--url",
      a.authUrl,
      "reserves",
      "verify",
      proof,
      "--quorum",
      "2",
    ]);
    expect(w.exitCode).toBe(1);
    expect(w.stdout).not.toMatch(/\(2 nodes agree\)/);
    expect(w.stdout).toMatch(
      /the proof does not hold: \d+ failing items? \(the nodes disagree: node 1 at [^ ]+ \([^)]*\) says it does not hold; node 2 at [^ ]+ \([^)]*\) says it holds\)/,
    );
    expect(w.stdout).toMatch(
      /quorum\s+FAILS\s+checked on 2 nodes: node 1 at http:\/\/127\.0\.0\.1:\d+\/ \([^)]*\): does not hold; node 2 at [^ ]+ \([^)]*\): holds/,
    );
    expect(w.stdout + w.stderr).not.toContain(a.password);
  });
});

describe("EVM: two anvil nodes sharing a genesis block, one balance changed", () => {
  let a: AnvilNode;
  let b: AnvilNode;
  const holders = [
    "0x2000000000000000000000000000000000000001",
    "0x2000000000000000000000000000000000000002",
  ];

  beforeAll(async () => {
    // the same genesis timestamp: the same block 0 hash on both nodes
    [a, b] = await Promise.all([
      startAnvil(["--timestamp", "1700000000"]),
      startAnvil(["--timestamp", "1700000000"]),
    ]);
    for (const n of [a, b])
      for (const h of holders) await n.rpc("anvil_setBalance", [h, "0xde0b6b3a7640000"]);
  });

  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
  });

  it("agreeing nodes: the balances proof records both; verify --quorum holds", async () => {
    const proof = join(dir, "evm-quorum.json");
    const r = await runCli([
      "--url",
      a.url,
      "--url",
      b.url,
      "reserves",
      "balances",
      ...holders,
      "--quorum",
      "2",
      "--proof",
      proof,
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    expect(r.stdout).toContain("quorum: 2 nodes answered every read alike: node 1 (anvil/");
    const p = JSON.parse(readFileSync(proof, "utf8"));
    expect(p.quorum.nodes.map((n: any) => [n.chain, n.height, n.block_hash])).toEqual([
      ["31337", p.block.number, p.block.hash],
      ["31337", p.block.number, p.block.hash],
    ]);
    const v = await runCli(["--url", a.url, "--url", b.url, "reserves", "verify", proof, "--quorum", "2"]);
    expect(v.exitCode, v.stdout).toBe(0);
    expect(v.stdout).toContain("made under a quorum: 2 nodes agreed");
  });

  it("one balance changed on one node: the run stops naming both nodes and both answers", async () => {
    await b.rpc("anvil_setBalance", [holders[1], "0x1bc16d674ec80000"]);
    const r = await runCli([
      "--url",
      a.url,
      "--url",
      b.url,
      "reserves",
      "balances",
      ...holders,
      "--quorum",
      "2",
      "--proof",
      join(dir, "evm-disputed.json"),
    ]);
    expect(r.exitCode).toBe(1);
    expect(r.stderr).toContain(
      `the balance of ${holders[1]} is 1000000000000000000 on node 1 at ${a.url} (anvil/`,
    );
    expect(r.stderr).toContain(`and 2000000000000000000 on node 2 at ${b.url} (anvil/`);
    expect(r.stderr).toMatch(/and 2000000000000000000 on node 2 at [^ ]+ \(anvil\/[^)]*chain 31337/);
  });
});
