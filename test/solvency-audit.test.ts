/**
 * `solvency` bound to one audit (issue 45, items 1, 2 and 4), on real litecoind -regtest with litecoind's
 * signmessage, each forgery beside an honest control that is SOLVENT in the same test:
 *  - whose reserves: the audit's challenge is the commitment's own (`liabilities build --challenge`) or
 *    `--challenge`; a proof over another custodian's text, the same text with a trailing space or in NFD,
 *    two proofs over two texts, no challenge anywhere, --challenge against the commitment's, a commitment whose
 *    challenge was edited and re-digested — none proves anything for the audit;
 *  - when: the commitment's `created`, each snapshot's block time and the gap are printed (and in --json); an
 *    output spent in a block at or before `created` backs nothing; a commitment dated 2019 is beyond
 *    --max-gap, one dated three days ahead is refused;
 *  - cannot say: a node behind the proof, a node of another kind (anvil), a node that gives no block time (a
 *    loopback proxy over litecoind), give CANNOT SAY (exit 3); without
 *    --verify a proof whose addresses do not say their coin is not judged: NOT PROVEN SOLVENT.
 */
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../src/proof/jcs.js";
import { copyHeaders, forward, rawServer, sendJson } from "./fixtures/forward.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { buildCommitment, signedLtcProof } from "./helpers/liabilities.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";

/** Exchange A's audit (an "é" in NFC), and Exchange B's */
const CH_A = "Caf\u00e9 Exchange A: proof of reserves audit 2026-11-28";
const CH_B = "Exchange B: proof of reserves audit 2026-11-28";
const NFD_A = CH_A.normalize("NFD");

let ltc: LitecoinNode;
let behind: LitecoinNode;
let anvil: AnvilNode;
let dir: string;
let ltcUrl: string;
let behindUrl: string;
let h: number;
const proof: Record<string, string> = {};
/** built before S's coin was spent */
let before: string;
let spentHeight: number;
/** the time of the block that spent it, as the node gives it, and its median time past */
let spentTime: number;
let spentMedian: number;

async function scan(name: string, address: string, challenge: string): Promise<void> {
  proof[name] = await signedLtcProof(ltc, ltcUrl, dir, name, address, challenge);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-solvency-audit-"));
  trackDir(dir);
  [ltc, behind, anvil] = await Promise.all([
    startLitecoind({ blocks: 110 }),
    startLitecoind({ blocks: 1 }),
    startAnvil(),
  ]);
  ltcUrl = ltc.url.replace("://", `://${ltc.user}:${ltc.password}@`);
  behindUrl = behind.url.replace("://", `://${behind.user}:${behind.password}@`);
  const [A, B, S] = await Promise.all([1, 2, 3].map(() => ltc.rpc<string>("getnewaddress", ["", "legacy"])));
  await ltc.rpc("sendtoaddress", [A, 1]);
  await ltc.rpc("sendtoaddress", [B, 0.5]);
  await ltc.rpc("sendtoaddress", [S, 0.4]);
  await ltc.rpc("generatetoaddress", [1, await ltc.rpc<string>("getnewaddress", ["", "bech32"])]);
  h = await ltc.rpc<number>("getblockcount", []);
  await scan("A", A as string, CH_A);
  await scan("B", B as string, CH_B);
  await scan("A_space", A as string, `${CH_A} `);
  await scan("A_nfd", A as string, NFD_A);
  await scan("S", S as string, CH_A);
  writeFileSync(join(dir, "assets.csv"), "asset,decimals\nLTC,8\n");
  // the liabilities counted while S's coin was still there; then it is spent
  before = await buildCommitment(dir, "before", ["c0,LTC,0.4"], CH_A);
  const [u] = await ltc.rpc<{ txid: string; vout: number }[]>("listunspent", [1, 9_999_999, [S]]);
  const raw = await ltc.rpc<string>("createrawtransaction", [
    [{ txid: u!.txid, vout: u!.vout }],
    { [(await ltc.rpc<string>("getnewaddress", ["", "legacy"])) as string]: 0.399 },
  ]);
  const signed = await ltc.rpc<{ hex: string }>("signrawtransactionwithwallet", [raw]);
  await ltc.rpc("sendrawtransaction", [signed.hex]);
  await ltc.rpc("generatetoaddress", [1, await ltc.rpc<string>("getnewaddress", ["", "bech32"])]);
  spentHeight = h + 1;
  const header = await ltc.rpc<{ time: number; mediantime: number }>("getblockheader", [
    await ltc.rpc<string>("getblockhash", [spentHeight]),
  ]);
  spentTime = header.time;
  spentMedian = header.mediantime;
});

afterAll(async () => {
  await Promise.all([ltc?.stop(), behind?.stop(), anvil?.stop()]);
});

let built = 0;
const owed = (amount: string, challenge?: string) =>
  buildCommitment(dir, `l${built++}`, [`c0,LTC,${amount}`], challenge);
const BACK = ["--backing", "LTC=litecoin-regtest"];
const judge = (c: string, reserves: string[], ...more: string[]) =>
  runCli(
    [
      "solvency",
      "--liabilities",
      c,
      ...reserves.flatMap((r) => ["--reserves", `LTC=${proof[r]}`]),
      ...BACK,
      "--verify",
      "--url-for",
      `utxo=${ltcUrl}`,
      ...more,
    ],
    { env: { CHAINGW_URL: "http://127.0.0.1:9/" } },
  );
const first = (s: string) => s.split("\n")[0];

/** The commitment `c` edited by `edit` and re-digested: self-consistent, as a forger would publish it. */
function edited(c: string, name: string, edit: (d: Record<string, unknown>) => void): string {
  const d = JSON.parse(readFileSync(c, "utf8"));
  edit(d);
  delete d.digest;
  d.digest = digestOf(d);
  // in a folder of its own beside its build's tree.bin: a v1 commitment's totals are its root's through it
  const folder = join(dir, name);
  mkdirSync(folder);
  copyFileSync(join(dirname(c), "tree.bin"), join(folder, "tree.bin"));
  const path = join(folder, "commitment.json");
  writeFileSync(path, JSON.stringify(d, null, 2));
  return path;
}

describe("whose reserves: a proof proves for an audit only when signed over its exact challenge", () => {
  it("another custodian's proof, two proofs over two texts, a trailing space, NFD: NOT PROVEN SOLVENT; A's own proof: SOLVENT", async () => {
    const cA = await owed("0.5", CH_A);
    const own = await judge(cA, ["A"]);
    expect(own.exitCode, own.stdout + own.stderr).toBe(0);
    expect(first(own.stdout)).toMatch(/^SOLVENT: every asset covered \(1\) by proven reserves/);
    expect(own.stdout).toContain(`audit: challenge ${JSON.stringify(CH_A)} (from the commitment)`);
    expect(own.stdout).toContain(`signatures over ${JSON.stringify(CH_A)} (the audit's): ${proof.A}`);
    // B's coins, signed over B's text: they hold, and prove nothing for A's liabilities
    const other = await judge(cA, ["B"]);
    expect(other.exitCode, other.stdout + other.stderr).toBe(1);
    expect(first(other.stdout)).toBe(
      `NOT PROVEN SOLVENT: LTC covered only by claimed reserves: proven 0.00000000 of 0.50000000 LTC (0.00%); not proven for this audit: ${proof.B}: its signatures are over ${JSON.stringify(CH_B)}, not the audit's challenge ${JSON.stringify(CH_A)}`,
    );
    expect(other.stdout).toContain(`signatures over ${JSON.stringify(CH_B)} (NOT the audit's): ${proof.B}`);
    // the finding typed (issue 55 item 1): its code and numbers in --json, its words and code the same in the
    // text line and the package's rows.csv
    const words = `its signatures are over ${JSON.stringify(CH_B)}, not the audit's challenge ${JSON.stringify(CH_A)}`;
    const typed = JSON.parse((await judge(cA, ["B"], "--json")).stdout).assets[0].proofs[0];
    expect(typed).toMatchObject({
      not_for_this_audit: words,
      finding: { code: "other-challenge", text: CH_B, challenge: CH_A },
    });
    expect(other.stdout).toContain(`LTC: ${proof.B}: proves nothing for this audit: ${words}\n`);
    const pkg = join(dir, "typed-other-challenge");
    expect((await judge(cA, ["B"], "--report", pkg)).exitCode).toBe(1);
    const csv = readFileSync(join(pkg, "rows.csv"), "utf8").trimEnd().split("\n");
    expect(csv.filter((x) => x.startsWith("LTC,")).map((x) => x.slice(x.indexOf(",claimed,")))).toEqual([
      `,claimed,"${words.replaceAll('"', '""')}",other-challenge`,
    ]);
    // ... and prove B's own liabilities, the same coins
    const cB = await owed("0.5", CH_B);
    const forB = await judge(cB, ["B"]);
    expect(forB.exitCode, forB.stdout + forB.stderr).toBe(0);
    // two proofs over two texts: only the audit's counts as proven
    const both = await judge(await owed("1.4", CH_A), ["A", "B"]);
    expect(both.exitCode).toBe(1);
    expect(first(both.stdout)).toMatch(
      /^NOT PROVEN SOLVENT: LTC covered only by claimed reserves: proven 1\.00000000 of 1\.40000000 LTC \(71\.43%\); not proven for this audit: .*B\.json: its signatures are over/,
    );
    expect(both.stdout).toMatch(/LTC +│ 1\.40000000 +│ 1\.00000000 +│ 1\.50000000 +│ 71\.43%/);
    // the same letters with a trailing space, or decomposed (NFD): another text to a signature
    const space = await judge(cA, ["A_space"]);
    expect(space.exitCode).toBe(1);
    expect(first(space.stdout)).toContain(
      `its signatures are over ${JSON.stringify(`${CH_A} `)}, not the audit's challenge ${JSON.stringify(CH_A)} (they differ in white space only: another text to a signature)`,
    );
    const nfd = await judge(cA, ["A_nfd"]);
    expect(nfd.exitCode).toBe(1);
    expect(first(nfd.stdout)).toContain(
      "(the same letters in another Unicode normalisation form: another text to a signature)",
    );
    const j = JSON.parse((await judge(cA, ["A_nfd"], "--json")).stdout);
    expect(j.audit).toMatchObject({ challenge: CH_A, from: "commitment", faults: [] });
    expect(j.challenges).toEqual([{ text: NFD_A, files: [proof.A_nfd], for_this_audit: false }]);
    expect(j.assets[0].proofs[0]).toMatchObject({ challenge: NFD_A, check: "holds", proven: "0.00000000" });
  });

  it("no challenge anywhere: NOT PROVEN SOLVENT; --challenge names the audit (SOLVENT); --challenge against the commitment's: NOT PROVEN SOLVENT", async () => {
    const c0 = await owed("0.5");
    const none = await judge(c0, ["A"]);
    expect(none.exitCode, none.stdout + none.stderr).toBe(1);
    expect(first(none.stdout)).toBe(
      "NOT PROVEN SOLVENT: no audit challenge: the commitment has none (liabilities build --challenge) and no --challenge was given, so no signature can be bound to these liabilities; LTC covered only by claimed reserves: proven 0.00000000 of 0.50000000 LTC (0.00%)",
    );
    expect(none.stdout).toContain("audit: no challenge (the commitment has none; --challenge not given)");
    const given = await judge(c0, ["A"], "--challenge", CH_A);
    expect(given.exitCode, given.stdout + given.stderr).toBe(0);
    expect(given.stdout).toContain(`audit: challenge ${JSON.stringify(CH_A)} (from the --challenge)`);
    // the auditor's text is A's; the commitment says B's: committed for another audit
    const cB = await owed("0.5", CH_B);
    const clash = await judge(cB, ["B"], "--challenge", CH_A);
    expect(clash.exitCode).toBe(1);
    expect(first(clash.stdout)).toBe(
      `NOT PROVEN SOLVENT: --challenge ${JSON.stringify(CH_A)} is not the commitment's challenge ${JSON.stringify(CH_B)}: these liabilities were committed for another audit; LTC covered only by claimed reserves: proven 0.00000000 of 0.50000000 LTC (0.00%)`,
    );
    const agree = await judge(cB, ["B"], "--challenge", CH_B);
    expect(agree.exitCode, agree.stdout + agree.stderr).toBe(0);
    expect(agree.stdout).toContain("(from the commitment and --challenge)");
    // an empty --challenge or build --challenge: exit 2
    const empty = await judge(c0, ["A"], "--challenge", " ");
    expect([empty.exitCode, empty.stderr]).toEqual([
      2,
      "chaingw: --challenge is empty: signatures over no text prove nothing fresh\n",
    ]);
    const r = await runCli([
      "liabilities",
      "build",
      "--input",
      join(dir, "l0.csv"),
      "--assets",
      join(dir, "assets.csv"),
      "--out",
      join(dir, "empty-challenge"),
      "--challenge",
      "",
    ]);
    expect([r.exitCode, r.stderr]).toEqual([
      2,
      "chaingw: --challenge is empty: signatures over no text prove nothing fresh\n",
    ]);
  });

  it("A's commitment edited to B's challenge and re-digested: it answers B's audit, the auditor's --challenge refuses it, A's customers' proofs no longer match", async () => {
    const cA = await owed("0.5", CH_A);
    const forged = edited(cA, "A-as-B", (d) => {
      d.challenge = CH_B;
    });
    // by its own word it is B's audit, and says so on its second line
    const self = await judge(forged, ["B"]);
    expect(self.exitCode, self.stdout + self.stderr).toBe(0);
    expect(self.stdout.split("\n")[1]).toBe(`audit: challenge ${JSON.stringify(CH_B)} (from the commitment)`);
    const auditor = await judge(forged, ["B"], "--challenge", CH_A);
    expect(auditor.exitCode).toBe(1);
    expect(first(auditor.stdout)).toContain(
      `--challenge ${JSON.stringify(CH_A)} is not the commitment's challenge ${JSON.stringify(CH_B)}`,
    );
    // control: the commitment as built, under the auditor's --challenge, with A's own proof
    const honest = await judge(cA, ["A"], "--challenge", CH_A);
    expect(honest.exitCode, honest.stdout + honest.stderr).toBe(0);
    // B's proof with its challenge text edited to A's and re-digested: its signatures are over B's text, so
    // the verifier finds them invalid over A's, and the proof does not hold
    const d = JSON.parse(readFileSync(proof.B as string, "utf8"));
    d.challenge = CH_A;
    delete d.digest;
    d.digest = digestOf(d);
    writeFileSync(join(dir, "B-as-A.json"), JSON.stringify(d, null, 2));
    proof.B_as_A = join(dir, "B-as-A.json");
    const relabelled = await judge(cA, ["B_as_A"]);
    expect(relabelled.exitCode, relabelled.stdout + relabelled.stderr).toBe(1);
    expect(first(relabelled.stdout)).toBe("NOT SOLVENT: LTC: a reserve proof does not hold");
    // a commitment whose challenge is blank: not a commitment (exit 2), even re-digested
    const blank = edited(cA, "blank", (x) => {
      x.challenge = " ";
    });
    const b = await judge(blank, ["A"]);
    expect([b.exitCode, b.stderr]).toEqual([
      2,
      `chaingw: ${blank}: not a liabilities commitment: challenge is empty: signatures over no text prove nothing fresh\n`,
    ]);
    // a customer's inclusion proof names the commitment it was built with
    const dirA = join(cA, "..");
    const p = await runCli(["liabilities", "proof", "--out", dirA, "c0"]);
    expect(p.exitCode, p.stderr).toBe(0);
    writeFileSync(join(dir, "c0.json"), p.stdout);
    const verify = (c: string) =>
      runCli(["liabilities", "verify", "--commitment", c, "--customer", "c0", join(dir, "c0.json")]);
    const ok = await verify(cA);
    expect(ok.exitCode, ok.stdout + ok.stderr).toBe(0);
    const bad = await verify(forged);
    expect(bad.exitCode).toBe(1);
    expect(bad.stdout).toContain("the proof is for another build");
  });
});

describe("when: the liabilities' created against each snapshot's block time", () => {
  it("an output spent in a block after the liabilities were counted backs them (SOLVENT); spent at or before: NOT SOLVENT, naming the block", async () => {
    const ok = await judge(before, ["S"]);
    expect(ok.exitCode, ok.stdout + ok.stderr).toBe(0);
    const created = JSON.parse(readFileSync(before, "utf8")).created as string;
    const lines = ok.stdout.split("\n");
    expect(lines[2]).toBe(
      `liabilities created ${created}; reserves within --max-gap 24h of it prove for them`,
    );
    expect(lines[3]).toMatch(
      new RegExp(
        `^reserves: Litecoin regtest at height ${h}, block time \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ: (\\d+ (s|min)( \\d+ s)? (before|after) the liabilities' date|at the liabilities' date)$`,
      ),
    );
    // block times run ahead of the clock on a fast regtest chain: the liabilities dated at the spending block's
    // own time (self-consistent, re-digested) are after the spend; dated one second before its median time past
    // (which its stamp cannot move: a block may be dated ahead, judge/moment.ts), before it
    const iso = (t: number) => new Date(t * 1000).toISOString().replace(/\.\d{3}Z$/, "Z");
    const after = edited(before, "at-spend", (d) => {
      d.created = iso(spentTime);
    });
    const justBefore = edited(before, "before-spend", (d) => {
      d.created = iso(spentMedian - 1);
    });
    const still = await judge(justBefore, ["S"]);
    expect(still.exitCode, still.stdout + still.stderr).toBe(0);
    const gone = await judge(after, ["S"]);
    expect(gone.exitCode, gone.stdout + gone.stderr).toBe(1);
    expect(first(gone.stdout)).toBe(
      `NOT SOLVENT: LTC not covered: short 0.40000000 LTC (claimed reserves 0.00000000 of 0.40000000); not proven for this audit: 1 output spent at or before the liabilities' date (block ${spentHeight})`,
    );
    expect(gone.stdout).toMatch(
      new RegExp(
        `LTC: [0-9a-f]{64}:\\d+ was spent in block ${spentHeight} \\(\\d{4}-\\d\\d-\\d\\dT[0-9:]+Z\\), at or before the liabilities' date: not counted`,
      ),
    );
    const j = JSON.parse((await judge(after, ["S"], "--json")).stdout);
    expect(j.commitment.created).toBe(JSON.parse(readFileSync(after, "utf8")).created);
    expect(j.assets[0].spent_before_commitment).toMatchObject([{ height: spentHeight }]);
    expect(j.assets[0].snapshots[0]).toMatchObject({ height: h, kind: "height", within_max_gap: true });
    expect(j.assets[0].snapshots[0].gap_seconds).toBeLessThan(86_400);
  });

  it("a commitment dated 2019 is beyond --max-gap (NOT PROVEN SOLVENT naming the gap), within --max-gap 3650d; dated three days ahead: refused", async () => {
    const cA = await owed("0.5", CH_A);
    const old = edited(cA, "2019", (d) => {
      d.created = "2019-06-01T00:00:00Z";
    });
    const r = await judge(old, ["A"]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(1);
    expect(first(r.stdout)).toMatch(
      /^NOT PROVEN SOLVENT: LTC covered only by claimed reserves: proven 0\.00000000 of 0\.50000000 LTC \(0\.00%\); not proven for this audit: .*A\.json: its snapshot's block is \d+ d( \d+ h)? after the liabilities' date: beyond --max-gap 24h$/,
    );
    expect(r.stdout).toMatch(
      /block time \S+Z: \d+ d( \d+ h)? after the liabilities' date, BEYOND --max-gap 24h/,
    );
    const j = JSON.parse((await judge(old, ["A"], "--json")).stdout);
    expect(j.audit).toMatchObject({
      created: "2019-06-01T00:00:00Z",
      max_gap: "24h",
      max_gap_seconds: 86400,
    });
    expect(j.assets[0].snapshots[0].within_max_gap).toBe(false);
    expect(j.assets[0].snapshots[0].gap_seconds).toBeGreaterThan(5 * 365 * 86400);
    const wide = await judge(old, ["A"], "--max-gap", "3650d");
    expect(wide.exitCode, wide.stdout + wide.stderr).toBe(0);
    // ahead of this computer's clock by more than the two hours a block's time may be
    const ahead = new Date(Date.now() + 3 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, "Z");
    const future = edited(cA, "future", (d) => {
      d.created = ahead;
    });
    const f = await judge(future, ["A"], "--max-gap", "3650d");
    expect(f.exitCode).toBe(1);
    expect(first(f.stdout)).toMatch(
      new RegExp(
        `^NOT PROVEN SOLVENT: the commitment is dated ${ahead}, (2 d 23 h|3 d) after this computer's clock \\(\\S+\\): liabilities cannot have been counted then; LTC covered only by claimed reserves: proven 0\\.00000000 of 0\\.50000000 LTC`,
      ),
    );
    // control: the commitment as built
    const honest = await judge(cA, ["A"]);
    expect(honest.exitCode, honest.stdout + honest.stderr).toBe(0);
    for (const bad of ["24", "1.5h", "-1h", "3651d", "1w"]) {
      const b = await judge(cA, ["A"], "--max-gap", bad);
      expect(b.exitCode, bad).toBe(2);
      expect(b.stderr).toContain(`invalid --max-gap: expected a whole number with its unit s, m, h or d`);
    }
  });
});

describe("cannot say means cannot say", () => {
  it("a node behind the proof, a node of another kind: CANNOT SAY (exit 3); without --verify: NOT PROVEN SOLVENT; the right node: SOLVENT", async () => {
    const cA = await owed("0.5", CH_A);
    const at = (url: string) =>
      runCli(
        [
          "solvency",
          "--liabilities",
          cA,
          "--reserves",
          `LTC=${proof.A}`,
          ...BACK,
          "--verify",
          "--url-for",
          `utxo=${url}`,
        ],
        { env: { CHAINGW_URL: "http://127.0.0.1:9/" } },
      );
    const lagging = await at(behindUrl);
    expect(lagging.exitCode, lagging.stdout + lagging.stderr).toBe(3);
    expect(first(lagging.stdout)).toBe(
      "CANNOT SAY: LTC: a node could not say whether its reserves hold; proven 0.00000000 of 0.50000000 LTC",
    );
    expect(lagging.stdout).toContain(`below the proof's height ${h}`);
    expect(lagging.stdout).toContain(
      "NOT COUNTED: a proof whose network could not be told (its node could not say), its node: cannot say",
    );
    const evm = await at(anvil.url);
    expect(evm.exitCode, evm.stdout + evm.stderr).toBe(3);
    expect(first(evm.stdout)).toBe(
      "CANNOT SAY: LTC: a node could not say whether its reserves hold; proven 0.00000000 of 0.50000000 LTC",
    );
    const offline = await runCli(["solvency", "--liabilities", cA, "--reserves", `LTC=${proof.A}`, ...BACK]);
    expect(offline.exitCode).toBe(1);
    expect(first(offline.stdout)).toBe(
      "NOT PROVEN SOLVENT: LTC: a proof whose addresses do not say which coin it is was not judged (--verify asks its node); proven 0.00000000 of 0.50000000 LTC",
    );
    expect(offline.stdout).toContain(`audit: challenge ${JSON.stringify(CH_A)} (from the commitment)`);
    const right = await at(ltcUrl);
    expect(right.exitCode, right.stdout + right.stderr).toBe(0);
  });

  it("a node that gives no time for the proof's block (a loopback proxy over litecoind drops getblockheader's time): CANNOT SAY; through the node itself: SOLVENT", async () => {
    let stripped = 0;
    const proxy = await rawServer(async (body, req, res) => {
      const sent = JSON.parse(body.toString("utf8"));
      const headerIds = new Set(
        (Array.isArray(sent) ? sent : [sent]).filter((r) => r.method === "getblockheader").map((r) => r.id),
      );
      const up = await forward({ url: ltc.url }, body, copyHeaders(req.headers));
      let out = up.body.toString("utf8");
      try {
        const got = JSON.parse(out);
        for (const r of Array.isArray(got) ? got : [got])
          if (headerIds.has(r.id) && r.result && typeof r.result === "object" && "time" in r.result) {
            delete r.result.time;
            stripped++;
          }
        out = JSON.stringify(got);
      } catch {}
      sendJson(res, up.status, out);
    });
    try {
      const port = proxy.port;
      const cA = await owed("0.5", CH_A);
      const via = `http://${ltc.user}:${ltc.password}@127.0.0.1:${port}/`;
      const args = (url: string) => [
        "solvency",
        "--liabilities",
        cA,
        "--reserves",
        `LTC=${proof.A}`,
        ...BACK,
        "--verify",
        "--url-for",
        `utxo=${url}`,
      ];
      const r = await runCli(args(via), { env: { CHAINGW_URL: "http://127.0.0.1:9/" } });
      expect(stripped).toBeGreaterThan(0);
      expect(r.exitCode, r.stdout + r.stderr).toBe(3);
      expect(first(r.stdout)).toBe(
        "CANNOT SAY: LTC: a node could not say whether its reserves hold; proven 0.00000000 of 0.50000000 LTC",
      );
      expect(r.stdout).toContain(
        `reserves: Litecoin regtest at height ${h}, block time not read (--verify reads it from the node)`,
      );
      expect(r.stdout).toContain(
        "proves nothing for this audit: the node did not give its snapshot block's time: whether it is within --max-gap of the liabilities' date cannot be said",
      );
      // the finding typed: its code in --json beside its words
      const typed = JSON.parse(
        (await runCli([...args(via), "--json"], { env: { CHAINGW_URL: "http://127.0.0.1:9/" } })).stdout,
      );
      expect(typed.assets[0].proofs[0]).toMatchObject({
        not_for_this_audit: expect.stringMatching(/^the node did not give its snapshot block's time/),
        finding: { code: "block-time-untold" },
      });
      const direct = await runCli(args(ltcUrl), { env: { CHAINGW_URL: "http://127.0.0.1:9/" } });
      expect(direct.exitCode, direct.stdout + direct.stderr).toBe(0);
      // owing more than the proof even claims (1 LTC): short whatever its block's time — NOT SOLVENT
      const big = await owed("1.5", CH_A);
      const short = await runCli([...args(via).slice(0, 2), big, ...args(via).slice(3)], {
        env: { CHAINGW_URL: "http://127.0.0.1:9/" },
      });
      expect(short.exitCode, short.stdout + short.stderr).toBe(1);
      expect(first(short.stdout)).toMatch(
        /^NOT SOLVENT: LTC not covered: short 1\.50000000 LTC \(claimed reserves 1\.00000000 of 1\.50000000\)/,
      );
    } finally {
      await proxy.close();
    }
  });
});
