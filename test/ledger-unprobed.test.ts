/**
 * A token whose storage reads the node could not list is never taken as sharing no ledger (issue 55 item 4, the
 * review of 7ec3186): solvency asks every proof's node which storage each declared token's balanceOf reads at
 * the proof's addresses — its own tokens and the other proofs' on the chain beside (a facade may read the ledger
 * at one address only). A failed eth_createAccessList for ANOTHER proof's token was dropped: that token was judged
 * as reading nothing there. Real anvil; test/fixtures/token/Ledger.sol's LedgerFacade FA (the ledger at every
 * address) and PinnedFacade FB (the ledger at A1 only) over one ledger, 3 at A0 and 3 at A1; FA's proof holds A0,
 * FB's A1 — only FA asked at A1, beside FB's proof, shows the two facades share the ledger. Through a loopback
 * proxy in front of anvil that fails that one call: before, SOLVENT exit 0; now FA CANNOT SAY naming the call,
 * exit 3. The honest control, the same proofs through a proxy failing nothing, in the same test.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entryProxy, type RawServer } from "./fixtures/forward.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { buildCommitment } from "./helpers/liabilities.js";
import { trackDir } from "./helpers/procs.js";
import { deployLedger } from "./helpers/tokens.js";

const CAST = join(new URL("../", import.meta.url).pathname, "node_modules/.bin/cast");
const CHALLENGE = "ledger audit";
/** anvil's first two dev keys and their addresses */
const KEYS = [
  "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
];
const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const A1 = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
const E18 = 10n ** 18n;
const REFUSAL = "the proxy refuses this one call";

let anvil: AnvilNode;
let dir: string;
let proxies: RawServer[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-ledger-unprobed-"));
  trackDir(dir);
  anvil = await startAnvil();
});

afterAll(async () => {
  for (const p of proxies) await p.close();
  proxies = [];
  await anvil?.stop();
});

/**
 * A proxy over anvil counting each method; `refuse(e)` true: that entry is answered with an error, not passed
 * on (`refused` counts them).
 */
async function proxy(refuse: (e: { method: string; params?: unknown[] }) => boolean) {
  const seen: Record<string, number> = {};
  const counts = { refused: 0 };
  const p = await entryProxy(async (e) => {
    seen[e.method] = (seen[e.method] ?? 0) + 1;
    if (refuse(e)) {
      counts.refused++;
      return { jsonrpc: "2.0", id: e.id, error: { code: -32000, message: REFUSAL } };
    }
    try {
      return { jsonrpc: "2.0", id: e.id, result: await anvil.rpc(e.method, e.params) };
    } catch (x) {
      const err = x as { code?: number; message: string };
      return { jsonrpc: "2.0", id: e.id, error: { code: err.code ?? -32000, message: err.message } };
    }
  });
  proxies.push(p);
  return { url: p.url, seen, counts };
}

describe("another proof's token whose storage reads the node could not list", () => {
  it("FA (A0) and FB (A1, reading the ledger only there): honest, FB CANNOT SAY for the slot FA reads at A1 too; eth_createAccessList of FA at A1 refused, FA CANNOT SAY naming the call — was SOLVENT, exit 0", async () => {
    const l = await deployLedger(anvil.rpc, ["FA", "FB"], [A0, A1], [3n * E18, 3n * E18], [undefined, A1]);
    const [fa, fb] = l.facades as [string, string];
    await anvil.rpc("evm_mine", []);
    const files = [join(dir, "fa.json"), join(dir, "fb.json")];
    for (const [k, [token, holder]] of [
      [fa, A0],
      [fb, A1],
    ].entries()) {
      const sig = execFileSync(CAST, ["wallet", "sign", "--private-key", KEYS[k] as string, CHALLENGE], {
        encoding: "utf8",
      }).trim();
      const sigs = join(dir, `sigs${k}.csv`);
      writeFileSync(sigs, `${holder},${sig}\n`);
      const r = await runCli(
        [
          "reserves",
          "balances",
          holder as string,
          "--token",
          token as string,
          "--proof",
          files[k] as string,
          "--challenge",
          CHALLENGE,
          "--signatures",
          sigs,
        ],
        { env: { CHAINGW_URL: anvil.url } },
      );
      expect(r.exitCode, r.stderr).toBe(0);
    }
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nFA,18\nFB,18\n");
    const c = await buildCommitment(dir, "unprobed", ["c1,FA,3", "c2,FB,3"]);
    const solvency = (url: string, json: boolean) =>
      runCli([
        "solvency",
        "--liabilities",
        c,
        "--verify",
        "--url-for",
        `evm=${url}`,
        "--challenge",
        CHALLENGE,
        "--reserves",
        `FA=${files[0]}#${fa}`,
        "--backing",
        `FA=anvil:${fa}`,
        "--reserves",
        `FB=${files[1]}#${fb}`,
        "--backing",
        `FB=anvil:${fb}`,
        ...(json ? ["--json"] : []),
      ]);
    const word = (a: string) => a.slice(2).padStart(64, "0");
    // FA's balanceOf(A1), asked beside FB's proof: the one call that shows the shared ledger
    const faAtA1 = (e: { method: string; params?: unknown[] }) => {
      const call = e.params?.[0] as { to?: string; data?: string } | undefined;
      return (
        e.method === "eth_createAccessList" &&
        call?.to?.toLowerCase() === fa &&
        call.data?.toLowerCase().endsWith(word(A1)) === true
      );
    };

    const plain = await proxy(() => false);
    const honest = await solvency(plain.url, false);
    expect(honest.exitCode, honest.stdout + honest.stderr).toBe(3);
    expect(honest.stdout.split("\n")[0]).toMatch(/^CANNOT SAY: /);
    const h = JSON.parse((await solvency(plain.url, true)).stdout);
    const ha = (x: string) => h.assets.find((y: { asset: string }) => y.asset === x);
    expect(ha("FA")).toMatchObject({ status: "covered", proven: { base_units: String(3n * E18) } });
    expect(ha("FB")).toMatchObject({ status: "cannot-say", proven: { base_units: "0" } });
    expect(ha("FB").proofs[0].finding.code).toBe("ledger-untold");
    expect(ha("FB").proofs[0].not_for_this_audit).toContain(
      `that the token at ${fa}'s balanceOf reads too (eth_createAccessList)`,
    );
    // each proof's node asked both tokens at its one address: 2 a proof, 2 proofs, 2 runs
    expect(plain.seen.eth_createAccessList).toBe(8);
    expect(plain.counts.refused).toBe(0);

    const refusing = await proxy(faAtA1);
    const r = await solvency(refusing.url, false);
    expect(r.stdout).not.toMatch(/^SOLVENT/m);
    expect(r.exitCode, r.stdout + r.stderr).toBe(3);
    expect(r.stdout.split("\n")[0]).toMatch(/^CANNOT SAY: /);
    const untold = `whether its balanceOf reads a ledger another declared token reads (the same coins twice) its node cannot tell: eth_createAccessList of its balanceOf(${A1}) answered ${REFUSAL}`;
    expect(r.stdout).toContain(untold);
    const j = JSON.parse((await solvency(refusing.url, true)).stdout);
    const a = (x: string) => j.assets.find((y: { asset: string }) => y.asset === x);
    expect(a("FA")).toMatchObject({ status: "cannot-say", proven: { base_units: "0" } });
    expect(a("FA").proofs[0]).toMatchObject({
      not_for_this_audit: untold,
      finding: { code: "ledger-unprobed", address: A1, answer: REFUSAL },
    });
    // FA not counted, FB's coins count once
    expect(a("FB")).toMatchObject({ status: "covered", proven: { base_units: String(3n * E18) } });
    // the one call refused in each of the two runs, every other asked as in the honest runs
    expect(refusing.counts.refused).toBe(2);
    expect(refusing.seen.eth_createAccessList).toBe(8);
  });
});
