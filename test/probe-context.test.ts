/**
 * A declared token that answers by who asks (an adversary's case after issue 55 item 4): read straight, as a
 * balance is read (an eth_call to the token, no contract between: msg.sender == tx.origin), its balanceOf is
 * another's coins; asked through a contract, as the tracking probe asked it (scripts/balance-probe.sol reading
 * many holders in one call), it answers a fixed amount, so the probe saw nothing move. Real anvil, the tokens
 * compiled by solc-js (test/fixtures/token/Chameleon.sol), real signatures (`cast wallet sign`), the real
 * `reserves balances`, `solvency --verify` and `reserves verify`: each forgery beside an ordinary token owed in
 * the same invocation. Before the probe asked each token as the balance read asks it, both read SOLVENT, exit 0.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { buildCommitment } from "./helpers/liabilities.js";
import { trackDir } from "./helpers/procs.js";
import { deployChameleon, deployToken, mint } from "./helpers/tokens.js";

const CAST = join(new URL("../", import.meta.url).pathname, "node_modules/.bin/cast");
const CHALLENGE = "chameleon audit";
/** anvil's first dev key and its address: the holder that signs */
const K0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const A2 = "0x0000000000000000000000000000000000000002";
const E18 = 10n ** 18n;

let anvil: AnvilNode;
let dir: string;
/** ChameleonToken: read straight, a.balance (+1 wei at A2); through a contract, 5 */
let chm: string;
/** ChameleonShadow over USDX: read straight, USDX's balanceOf(a) (+1 at A2); through a contract, 5 */
let csh: string;
/** an ordinary token: 3 at A0, 5 base units at A2 */
let usd: string;
let proof: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-chameleon-"));
  trackDir(dir);
  anvil = await startAnvil();
  chm = await deployChameleon(anvil.rpc, "CHM", A2);
  usd = await deployToken(anvil.rpc, "Token", { symbol: "USDX", decimals: 18 });
  await mint(anvil.rpc, usd, [A0, A2], [3n * E18, 5n]);
  csh = await deployChameleon(anvil.rpc, "CSH", A2, usd);
  // after the deployments (gas): 3 ETH at the signing address, 2 at the other
  await anvil.rpc("anvil_setBalance", [A0, `0x${(3n * E18).toString(16)}`]);
  await anvil.rpc("anvil_setBalance", [A2, `0x${(2n * E18).toString(16)}`]);
  await anvil.rpc("evm_mine", []);
  const sig = execFileSync(CAST, ["wallet", "sign", "--private-key", K0, CHALLENGE], {
    encoding: "utf8",
  }).trim();
  writeFileSync(join(dir, "sigs.csv"), `${A0},${sig}\n`);
  proof = join(dir, "balances.json");
  const r = await runCli(
    [
      "reserves",
      "balances",
      A0,
      A2,
      "--native",
      "--token",
      chm,
      "--token",
      usd,
      "--token",
      csh,
      "--proof",
      proof,
      "--challenge",
      CHALLENGE,
      "--signatures",
      join(dir, "sigs.csv"),
    ],
    { env: { CHAINGW_URL: anvil.url } },
  );
  expect(r.exitCode, r.stderr).toBe(0);
  // neither equals what it reads at every address: the exact-equality rule does not see them
  expect(r.stdout).not.toContain("native mirror");
});

afterAll(async () => {
  await anvil?.stop();
});

const solvency = (commitment: string, args: string[]) =>
  runCli([
    "solvency",
    "--liabilities",
    commitment,
    "--verify",
    "--url-for",
    `evm=${anvil.url}`,
    "--challenge",
    CHALLENGE,
    ...args,
  ]);

/** `--reserves ASSET=proof#id --backing ASSET=anvil[:token]` for each pair */
const backed = (pairs: [string, string][]) =>
  pairs.flatMap(([asset, id]) => [
    "--reserves",
    `${asset}=${proof}#${id}`,
    "--backing",
    id === "native" ? `${asset}=anvil` : `${asset}=anvil:${id}`,
  ]);

describe("a declared token that answers the tracking probe otherwise than the balance read", () => {
  it("the contracts answer by who asks: read straight (cast call), another's coins", () => {
    const call = (token: string, who: string) =>
      execFileSync(CAST, ["call", token, "balanceOf(address)(uint256)", who, "--rpc-url", anvil.url], {
        encoding: "utf8",
      })
        .trim()
        .split(/\s/)[0];
    expect(call(chm, A0)).toBe(String(3n * E18));
    expect(call(chm, A2)).toBe(String(2n * E18 + 1n));
    expect(call(csh, A0)).toBe(String(3n * E18));
    expect(call(csh, A2)).toBe("6");
  });

  it("CHM (the native coin read straight) owed beside ETH: NOT COUNTED, it tracks the native coin — NOT SOLVENT; USDX covered in the same run", async () => {
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\nCHM,18\nUSDX,18\n");
    const c = await buildCommitment(dir, "chm", ["c1,ETH,2.5", "c2,CHM,2", "c3,USDX,3"]);
    const args = backed([
      ["ETH", "native"],
      ["CHM", chm],
      ["USDX", usd],
    ]);
    const r = await solvency(c, args);
    expect(r.exitCode, r.stdout + r.stderr).toBe(1);
    expect(r.stdout.split("\n")[0]).toMatch(/^NOT SOLVENT: CHM not covered/);
    expect(r.stdout).toContain(
      `CHM: ${proof}#${chm}: NOT COUNTED: a token named CHM at ${chm} on anvil (chain id 31337), CHM is the token at ${chm} on anvil (chain id 31337), one balance backs one asset: it tracks the native coin: its balanceOf(${A0}) moved with that address's native balance at block`,
    );
    const j = JSON.parse((await solvency(c, [...args, "--json"])).stdout);
    const a = (x: string) => j.assets.find((y: { asset: string }) => y.asset === x);
    expect(a("ETH")).toMatchObject({ status: "covered", proven: { base_units: String(3n * E18) } });
    expect(a("USDX")).toMatchObject({ status: "covered", proven: { base_units: String(3n * E18) } });
    expect(a("CHM")).toMatchObject({ status: "not-covered", proven: { base_units: "0" } });
  });

  it("CSH (USDX read straight) owed beside USDX: NOT COUNTED, it reads USDX — NOT SOLVENT; ETH covered in the same run; reserves verify names both", async () => {
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\nUSDX,18\nCSH,18\n");
    const c = await buildCommitment(dir, "csh", ["c1,ETH,2.5", "c2,USDX,3", "c3,CSH,3"]);
    const args = backed([
      ["ETH", "native"],
      ["USDX", usd],
      ["CSH", csh],
    ]);
    const r = await solvency(c, args);
    expect(r.exitCode, r.stdout + r.stderr).toBe(1);
    expect(r.stdout.split("\n")[0]).toMatch(/^NOT SOLVENT: CSH not covered/);
    const j = JSON.parse((await solvency(c, [...args, "--json"])).stdout);
    const a = (x: string) => j.assets.find((y: { asset: string }) => y.asset === x);
    expect(a("ETH")).toMatchObject({ status: "covered" });
    expect(a("USDX")).toMatchObject({ status: "covered", proven: { base_units: String(3n * E18) } });
    expect(a("CSH")).toMatchObject({ status: "not-covered", proven: { base_units: "0" } });
    const block = JSON.parse(readFileSync(proof, "utf8")).block.number;
    expect(a("CSH").proofs[0]).toMatchObject({ id: csh, counted: false, code: "reads-token" });
    expect(a("CSH").proofs[0].why).toContain(
      `it reads the token at ${usd}: its balanceOf(${A0}) moved when that token answered otherwise at block ${block}`,
    );
    const v = await runCli(["reserves", "verify", proof, "--url", anvil.url, "--json"]);
    expect(v.exitCode, v.stdout + v.stderr).toBe(0);
    const t = JSON.parse(v.stdout).tracking;
    expect(t.tokens).toEqual([{ token: chm, address: A0 }]);
    expect(t.reads).toEqual([{ token: csh, reads: usd, address: A0 }]);
  });
});

describe("a token reading another declared token of ANOTHER proof on the same chain", () => {
  it("USDX 3 from one proof, SHD 3 (USDX's balanceOf + 1 at A2) from another: SHD NOT COUNTED, it reads USDX — NOT SOLVENT (was SOLVENT: the probe replaced only its own proof's tokens); USDX covered in the same run", async () => {
    const { deployShadow } = await import("./helpers/tokens.js");
    const shd = await deployShadow(anvil.rpc, "SHD", usd, A2);
    await anvil.rpc("evm_mine", []);
    const p1 = join(dir, "usdx.json");
    const p2 = join(dir, "shd.json");
    for (const [file, token] of [
      [p1, usd],
      [p2, shd],
    ] as const) {
      const r = await runCli(
        [
          "reserves",
          "balances",
          A0,
          A2,
          "--token",
          token,
          "--proof",
          file,
          "--challenge",
          CHALLENGE,
          "--signatures",
          join(dir, "sigs.csv"),
        ],
        { env: { CHAINGW_URL: anvil.url } },
      );
      expect(r.exitCode, r.stderr).toBe(0);
    }
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nUSDX,18\nSHD,18\n");
    const c = await buildCommitment(dir, "two-proofs", ["c1,USDX,3", "c2,SHD,3"]);
    const args = [
      "--reserves",
      `USDX=${p1}#${usd}`,
      "--backing",
      `USDX=anvil:${usd}`,
      "--reserves",
      `SHD=${p2}#${shd}`,
      "--backing",
      `SHD=anvil:${shd}`,
    ];
    const r = await solvency(c, args);
    expect(r.exitCode, r.stdout + r.stderr).toBe(1);
    expect(r.stdout.split("\n")[0]).toMatch(/^NOT SOLVENT: SHD not covered/);
    const j = JSON.parse((await solvency(c, [...args, "--json"])).stdout);
    const a = (x: string) => j.assets.find((y: { asset: string }) => y.asset === x);
    expect(a("USDX")).toMatchObject({ status: "covered", proven: { base_units: String(3n * E18) } });
    expect(a("SHD")).toMatchObject({ status: "not-covered", proven: { base_units: "0" } });
    expect(a("SHD").proofs[0]).toMatchObject({ id: shd, counted: false, code: "reads-token" });
    expect(a("SHD").proofs[0].why).toContain(`it reads the token at ${usd}: its balanceOf(${A0}) moved`);
  });

  it("FA and FB over one ledger, each alone in its own proof, 3 of each owed: FB CANNOT SAY naming the ledger's slot FA reads too (was SOLVENT: no proof of one token asked its storage reads); FA covered in the same run", async () => {
    const { deployLedger } = await import("./helpers/tokens.js");
    const l = await deployLedger(anvil.rpc, ["FA", "FB"], [A0], [3n * E18]);
    const [fa, fb] = l.facades as [string, string];
    await anvil.rpc("evm_mine", []);
    const files = [join(dir, "fa.json"), join(dir, "fb.json")];
    for (const [k, token] of [fa, fb].entries()) {
      const r = await runCli(
        [
          "reserves",
          "balances",
          A0,
          "--token",
          token,
          "--proof",
          files[k] as string,
          "--challenge",
          CHALLENGE,
          "--signatures",
          join(dir, "sigs.csv"),
        ],
        { env: { CHAINGW_URL: anvil.url } },
      );
      expect(r.exitCode, r.stderr).toBe(0);
    }
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nFA,18\nFB,18\n");
    const c = await buildCommitment(dir, "facades-apart", ["c1,FA,3", "c2,FB,3"]);
    const args = [
      "--reserves",
      `FA=${files[0]}#${fa}`,
      "--backing",
      `FA=anvil:${fa}`,
      "--reserves",
      `FB=${files[1]}#${fb}`,
      "--backing",
      `FB=anvil:${fb}`,
    ];
    const r = await solvency(c, args);
    expect(r.exitCode, r.stdout + r.stderr).toBe(3);
    expect(r.stdout.split("\n")[0]).toMatch(/^CANNOT SAY: /);
    const j = JSON.parse((await solvency(c, [...args, "--json"])).stdout);
    const a = (x: string) => j.assets.find((y: { asset: string }) => y.asset === x);
    expect(a("FA")).toMatchObject({ status: "covered", proven: { base_units: String(3n * E18) } });
    expect(a("FB")).toMatchObject({ status: "cannot-say", proven: { base_units: "0" } });
    expect(a("FB").proofs[0].not_for_this_audit).toContain(
      `that the token at ${fa}'s balanceOf reads too (eth_createAccessList)`,
    );
  });

  it("FA and FB over one ledger in two proofs whose first addresses differ (FB's proof: A2, then A0): FB CANNOT SAY, the slot FA reads at A2 too; FA covered in the same run", async () => {
    const { deployLedger } = await import("./helpers/tokens.js");
    const l = await deployLedger(anvil.rpc, ["FA", "FB"], [A0], [3n * E18]);
    const [fa, fb] = l.facades as [string, string];
    await anvil.rpc("evm_mine", []);
    const files = [join(dir, "fa-first.json"), join(dir, "fb-first.json")];
    for (const [k, token] of [fa, fb].entries()) {
      const r = await runCli(
        [
          "reserves",
          "balances",
          ...(k === 1 ? [A2] : []),
          A0,
          "--token",
          token,
          "--proof",
          files[k] as string,
          "--challenge",
          CHALLENGE,
          "--signatures",
          join(dir, "sigs.csv"),
        ],
        { env: { CHAINGW_URL: anvil.url } },
      );
      expect(r.exitCode, r.stderr).toBe(0);
    }
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nFA,18\nFB,18\n");
    const c = await buildCommitment(dir, "facades-first", ["c1,FA,3", "c2,FB,3"]);
    const args = [
      "--reserves",
      `FA=${files[0]}#${fa}`,
      "--backing",
      `FA=anvil:${fa}`,
      "--reserves",
      `FB=${files[1]}#${fb}`,
      "--backing",
      `FB=anvil:${fb}`,
    ];
    const r = await solvency(c, args);
    expect(r.exitCode, r.stdout + r.stderr).toBe(3);
    expect(r.stdout.split("\n")[0]).toMatch(/^CANNOT SAY: /);
    const j = JSON.parse((await solvency(c, [...args, "--json"])).stdout);
    const a = (x: string) => j.assets.find((y: { asset: string }) => y.asset === x);
    expect(a("FA")).toMatchObject({ status: "covered", proven: { base_units: String(3n * E18) } });
    expect(a("FB")).toMatchObject({ status: "cannot-say", proven: { base_units: "0" } });
    expect(a("FB").proofs[0].not_for_this_audit).toContain(
      `that the token at ${fa}'s balanceOf reads too (eth_createAccessList)`,
    );
  });
  it("FA and FB each reading the ledger only at A0, both proofs A2 then A0 (neither first address reads it): FB CANNOT SAY, the slot FA reads at A0 too (was SOLVENT: only each proof's first address was asked); FA covered in the same run", async () => {
    const { deployLedger } = await import("./helpers/tokens.js");
    const l = await deployLedger(anvil.rpc, ["FA", "FB"], [A0], [3n * E18], A0);
    const [fa, fb] = l.facades as [string, string];
    await anvil.rpc("evm_mine", []);
    const files = [join(dir, "fa-pinned.json"), join(dir, "fb-pinned.json")];
    for (const [k, token] of [fa, fb].entries()) {
      const r = await runCli(
        [
          "reserves",
          "balances",
          A2,
          A0,
          "--token",
          token,
          "--proof",
          files[k] as string,
          "--challenge",
          CHALLENGE,
          "--signatures",
          join(dir, "sigs.csv"),
        ],
        { env: { CHAINGW_URL: anvil.url } },
      );
      expect(r.exitCode, r.stderr).toBe(0);
    }
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nFA,18\nFB,18\n");
    const c = await buildCommitment(dir, "facades-pinned", ["c1,FA,3", "c2,FB,3"]);
    const args = [
      "--reserves",
      `FA=${files[0]}#${fa}`,
      "--backing",
      `FA=anvil:${fa}`,
      "--reserves",
      `FB=${files[1]}#${fb}`,
      "--backing",
      `FB=anvil:${fb}`,
    ];
    const r = await solvency(c, args);
    expect(r.exitCode, r.stdout + r.stderr).toBe(3);
    expect(r.stdout.split("\n")[0]).toMatch(/^CANNOT SAY: /);
    const j = JSON.parse((await solvency(c, [...args, "--json"])).stdout);
    const a = (x: string) => j.assets.find((y: { asset: string }) => y.asset === x);
    expect(a("FA")).toMatchObject({ status: "covered", proven: { base_units: String(3n * E18) } });
    expect(a("FB")).toMatchObject({ status: "cannot-say", proven: { base_units: "0" } });
    expect(a("FB").proofs[0].not_for_this_audit).toContain(
      `that the token at ${fa}'s balanceOf reads too (eth_createAccessList)`,
    );
  });
});
