/**
 * `solvency` reviewed as a forger (issue 35), on real litecoind -regtest with litecoind's signmessage:
 *  - one output named by two proofs is counted once — but with whose amount? A forged proof names the real,
 *    signed-for output of an honest one with 100 LTC instead of 0.3 (digests recomputed), and is listed first.
 *    Placed above the node's tip (it cannot say) or on a block the node does not have at that height (does not
 *    hold), it is never counted, and the honest proof proves 0.3 only, in either order;
 *  - the satoshi boundary: proven = owed exactly is SOLVENT, one satoshi more owed is NOT.
 * Each forgery beside an honest control.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { digestOf } from "../src/proof/jcs.js";
import { runCli } from "./helpers/cli.js";
import { buildCommitment } from "./helpers/liabilities.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { trackDir } from "./helpers/procs.js";

const CHALLENGE = "solvency forger review";
let ltc: LitecoinNode;
let dir: string;
let ltcUrl: string;
let honest: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-solvency-forger-"));
  trackDir(dir);
  ltc = await startLitecoind({ blocks: 110 });
  ltcUrl = ltc.url.replace("://", `://${ltc.user}:${ltc.password}@`);
  const R = await ltc.rpc<string>("getnewaddress", ["", "legacy"]);
  await ltc.rpc("sendtoaddress", [R, 0.3]);
  await ltc.rpc("generatetoaddress", [1, await ltc.rpc<string>("getnewaddress", ["", "bech32"])]);
  const sig = await ltc.rpc<string>("signmessage", [R, CHALLENGE]);
  writeFileSync(join(dir, "R.csv"), `${R},${sig}\n`);
  honest = join(dir, "R.json");
  const r = await runCli(
    ["reserves", "scan", R, "--proof", honest, "--challenge", CHALLENGE, "--signatures", join(dir, "R.csv")],
    { env: { CHAINGW_URL: ltcUrl } },
  );
  expect(r.exitCode, r.stderr).toBe(0);
  writeFileSync(join(dir, "assets.csv"), "asset,decimals\nLTC,8\n");
});

afterAll(async () => {
  await ltc?.stop();
});

let built = 0;
const owed = (amount: string) => buildCommitment(dir, `l${built++}`, [`c0,LTC,${amount}`], CHALLENGE);
const solvency = (c: string, ...args: string[]) =>
  runCli(
    [
      "solvency",
      "--liabilities",
      c,
      ...args,
      "--backing",
      "LTC=litecoin-regtest",
      "--verify",
      "--url-for",
      `utxo=${ltcUrl}`,
    ],
    { env: { CHAINGW_URL: "http://127.0.0.1:9/" } },
  );
const first = (s: string) => s.split("\n")[0];

/** The honest proof with every output worth `sats`, self-consistent, edited by `edit`, its digest recomputed. */
function inflated(
  name: string,
  sats: bigint,
  edit: (d: { height: number; block_hash: string }) => void,
): string {
  const d = JSON.parse(readFileSync(honest, "utf8"));
  const amount = (v: bigint) => `${v / 100_000_000n}.${(v % 100_000_000n).toString().padStart(8, "0")}`;
  edit(d);
  for (const o of d.outputs) {
    o.amount_sats = sats.toString();
    o.amount = amount(sats);
  }
  const total = sats * BigInt(d.outputs.length);
  for (const a of d.by_address) {
    const n = BigInt(d.outputs.filter((o: { matched: string }) => o.matched === a.address).length);
    a.amount_sats = (sats * n).toString();
    a.amount = amount(sats * n);
  }
  d.total.amount_sats = total.toString();
  d.total.amount = amount(total);
  d.ownership.proven_sats = total.toString();
  d.ownership.claimed_only_sats = "0";
  d.digest = digestOf(d);
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify(d, null, 2));
  return path;
}

describe("solvency: an output two proofs name is proven only at the amount a holding proof re-read", () => {
  it("a forged 100 LTC for the honest proof's 0.3 LTC output, above the tip or on another block: never counted", async () => {
    const tip = await ltc.rpc<number>("getblockcount", []);
    const above = inflated("above", 10_000_000_000n, (d) => {
      d.height = tip + 1000;
    });
    const fork = inflated("fork", 10_000_000_000n, (d) => {
      d.block_hash = "ab".repeat(32);
    });
    const c = await owed("100");
    for (const forged of [above, fork])
      for (const order of [
        [forged, honest],
        [honest, forged],
      ]) {
        const r = await solvency(c, ...order.flatMap((f) => ["--reserves", `LTC=${f}`]));
        // above the tip the node cannot say (exit 3, as reserves verify says); another block does not hold
        expect(r.exitCode, r.stdout + r.stderr).toBe(forged === above ? 3 : 1);
        expect(first(r.stdout)).toBe(
          forged === above
            ? "CANNOT SAY: LTC: a node could not say whether its reserves hold; proven 0.30000000 of 100.00000000 LTC"
            : "NOT SOLVENT: LTC: a reserve proof does not hold",
        );
        expect(r.stdout).toMatch(/LTC +│ 100\.00000000 +│ 0\.30000000 +│ 0\.30000000 +│ 0\.30%/);
        expect(r.stdout).toContain(`${forged}: NOT COUNTED: a proof whose network could not be told`);
      }
    // the page and --json say what the text and the exit code say
    const page = join(dir, "forged.html");
    const both = ["--reserves", `LTC=${above}`, "--reserves", `LTC=${honest}`];
    const h = await solvency(c, ...both, "--html", page);
    expect(h.exitCode).toBe(3);
    expect(readFileSync(page, "utf8")).toContain(
      '<p id="solvency-verdict" data-verdict="cannot-say">CANNOT SAY: LTC: a node could not say whether its reserves hold; proven 0.30000000 of 100.00000000 LTC',
    );
    const j = await solvency(c, ...both, "--json");
    expect(j.exitCode).toBe(3);
    const report = JSON.parse(j.stdout);
    expect([report.verdict, report.assets[0].proven.base_units, report.assets[0].status]).toEqual([
      "cannot-say",
      "30000000",
      "cannot-say",
    ]);
    // honest control: the real 0.3 LTC covers 0.3 exactly, and not one satoshi more
    const exact = await solvency(await owed("0.3"), "--reserves", `LTC=${honest}`);
    expect(exact.exitCode, exact.stdout + exact.stderr).toBe(0);
    expect(first(exact.stdout)).toMatch(/^SOLVENT: every asset covered \(1\) by proven reserves/);
    const over = await solvency(await owed("0.30000001"), "--reserves", `LTC=${honest}`);
    expect(over.exitCode, over.stdout + over.stderr).toBe(1);
    expect(first(over.stdout)).toBe(
      "NOT SOLVENT: LTC not covered: short 0.00000001 LTC (claimed reserves 0.30000000 of 0.30000001)",
    );
  });
});
