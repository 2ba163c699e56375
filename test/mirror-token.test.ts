/**
 * Issue 45, item 8: one balance backs one asset. A token whose balanceOf is each address's native balance
 * (Polygon's MRC20 at 0x…1010, Celo's GoldToken) is the native coin again: counted for two assets, or twice
 * for one, it makes one coin back twice its worth. Real anvil, a real mirror contract compiled with solc-js
 * (test/fixtures/token/Mirror.sol: `return who.balance`), real signatures (`cast wallet sign`), the real
 * `reserves balances` and `solvency --verify`: the mirror is named and counted once, beside the honest
 * control that is SOLVENT in the same way.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { knownNativeMirror } from "../src/chains/assets.js";
import { digestOf } from "../src/proof/jcs.js";
import { entryProxy, type RawServer } from "./fixtures/forward.js";
import { type AnvilNode, startAnvil } from "./helpers/anvil.js";
import { runCli } from "./helpers/cli.js";
import { buildCommitment } from "./helpers/liabilities.js";
import { trackDir } from "./helpers/procs.js";
import {
  deployFollower,
  deployLedger,
  deployMirror,
  deployShadow,
  deployToken,
  deployTracking,
  mint,
} from "./helpers/tokens.js";

const CAST = join(new URL("../", import.meta.url).pathname, "node_modules/.bin/cast");
const CHALLENGE = "mirror audit";
/** anvil's first dev key and its address: the holder that signs */
const K0 = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const A0 = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
const A2 = "0x0000000000000000000000000000000000000002";

let anvil: AnvilNode;
let dir: string;
let mirror: string;
let usd: string;
let proof: string;
/** what `reserves balances` printed when it made the proof */
let made: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-mirror-"));
  trackDir(dir);
  anvil = await startAnvil();
  mirror = await deployMirror(anvil.rpc, "MIR");
  // an ordinary token beside it, with the native balances' very numbers at one address only: not a mirror
  usd = await deployToken(anvil.rpc, "Token", { symbol: "USDX", decimals: 18 });
  await mint(anvil.rpc, usd, [A0, A2], [3n * 10n ** 18n, 5n]);
  // after the deployments (gas): 3 ETH at the signing address, 2 at the other
  await anvil.rpc("anvil_setBalance", [A0, `0x${(3n * 10n ** 18n).toString(16)}`]);
  await anvil.rpc("anvil_setBalance", [A2, `0x${(2n * 10n ** 18n).toString(16)}`]);
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
      mirror,
      "--token",
      usd,
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
  made = r.stdout;
  writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\nMIR,18\n");
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

describe("a token that mirrors the native balance", () => {
  it("the contract answers the native balance (cast), and the proof holds both as read", async () => {
    const bal = execFileSync(
      CAST,
      ["call", mirror, "balanceOf(address)(uint256)", A2, "--rpc-url", anvil.url],
      {
        encoding: "utf8",
      },
    ).trim();
    expect(bal.split(/\s/)[0]).toBe(String(2n * 10n ** 18n));
    // reserves balances names it under its totals; the ordinary token is not named
    expect(made).toContain(
      `native mirror: the token named MIR at ${mirror} on anvil (chain id 31337) mirrors the native coin: its balanceOf equals the native balance at each of the 2 addresses read at block`,
    );
    expect(made).toContain("one coin, count it once");
    expect(made).not.toContain(`at ${usd} on anvil`);
  });

  it("backing two assets (ETH native, MIR the mirror): the coin backs ETH only, MIR is not covered — named", async () => {
    // 3 ETH proven at the signing address: enough for 2.5 ETH, or for 2 MIR, not for both
    const c = await buildCommitment(dir, "two-assets", ["c1,ETH,2.5", "c2,MIR,2"]);
    const args = [
      "--reserves",
      `ETH=${proof}#native`,
      "--reserves",
      `MIR=${proof}#${mirror}`,
      "--backing",
      "ETH=anvil",
      "--backing",
      `MIR=anvil:${mirror}`,
    ];
    const r = await solvency(c, args);
    expect(r.exitCode, r.stdout + r.stderr).toBe(1);
    expect(r.stdout.split("\n")[0]).toMatch(/^NOT SOLVENT: MIR not covered/);
    expect(r.stdout).toMatch(/ETH .* 2\.50* .* 3\.0* .* covered \(proven\)/);
    expect(r.stdout).toContain(
      `MIR: ${proof}#${mirror}: NOT COUNTED: a token named MIR at ${mirror} on anvil (chain id 31337), MIR is the token at ${mirror} on anvil (chain id 31337), one balance backs one asset: it tracks the native coin: its balanceOf(${A0}) moved with that address's native balance at block`,
    );
    // the probe saw it read the native coin: the same finding as an exchange's token row (reads-native)
    expect(r.stdout).toContain("the native coin counts once, as itself: not counted as MIR");
    const j = JSON.parse((await solvency(c, [...args, "--json"])).stdout);
    const mir = j.assets.find((a: { asset: string }) => a.asset === "MIR");
    expect(mir).toMatchObject({ status: "not-covered", proven: { base_units: "0" } });
    expect(mir.mirrors[0]).toContain("mirrors the native coin");
  });

  it("native and mirror both backing ETH: counted once (3 ETH proven, not 6) — 2.5 SOLVENT beside 3.5 not", async () => {
    const args = [
      "--reserves",
      `ETH=${proof}#native`,
      "--reserves",
      `ETH=${proof}#${mirror}`,
      "--backing",
      "ETH=anvil",
      "--backing",
      `ETH=anvil:${mirror}`,
    ];
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\n");
    const honest = await solvency(await buildCommitment(dir, "eth-2.5", ["c1,ETH,2.5"]), args);
    expect(honest.exitCode, honest.stdout + honest.stderr).toBe(0);
    expect(honest.stdout).toMatch(/^SOLVENT/);
    expect(honest.stdout).toMatch(/ETH .* 2\.50* .* 3\.0* .* 5\.0* .* covered \(proven\)/);
    expect(honest.stdout).toContain("ETH: native mirror: the token named MIR");
    expect(honest.stdout).toContain("counted once, as the native coin");
    const over = await solvency(await buildCommitment(dir, "eth-3.5", ["c1,ETH,3.5"]), args);
    expect(over.exitCode, over.stdout).toBe(1);
    expect(over.stdout).toMatch(/ETH .* 3\.50* .* 3\.0* .* 5\.0* /);
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\nMIR,18\n");
  });

  it("an ordinary token is no mirror (equal at one address, not at the other); the known contracts are named", async () => {
    const c = await buildCommitment(dir, "usdx", ["c1,ETH,1", "c2,MIR,1"]);
    const r = await solvency(c, [
      "--reserves",
      `ETH=${proof}#native`,
      "--reserves",
      `MIR=${proof}#${usd}`,
      "--backing",
      "ETH=anvil",
      "--backing",
      `MIR=anvil:${usd}`,
      "--json",
    ]);
    const j = JSON.parse(r.stdout);
    expect(j.assets.map((a: { mirrors: string[] }) => a.mirrors)).toEqual([[], []]);
    // USDX: 3 at the signing address (proven), 5 base units at the other
    expect(j.assets[1]).toMatchObject({ status: "covered", proven: { base_units: String(3n * 10n ** 18n) } });
    expect(knownNativeMirror("evm:137", "0x0000000000000000000000000000000000001010")).toBe(
      "Polygon's POL contract (MRC20)",
    );
    expect(knownNativeMirror("evm:42220", "0x471ece3750da237f93b8e339c536989b8978a438")).toBe(
      "Celo's CELO contract (GoldToken)",
    );
    expect(knownNativeMirror("evm:1", "0x0000000000000000000000000000000000001010")).toBeUndefined();
  });

  it("a known mirror (Polygon's MRC20 at 0x…1010) is named by its address, whatever its balances say", async () => {
    // the real document moved to Polygon's chain id, the mirror's address made MRC20's and its balances
    // edited away from the native ones, digest recomputed: the known contract is the native coin regardless
    const d = JSON.parse(readFileSync(proof, "utf8"));
    const MRC20 = "0x0000000000000000000000000000000000001010";
    d.chain = { ...d.chain, chain_id: "137", network: "polygon" };
    d.inputs.tokens = d.inputs.tokens.map((t: string) => (t.toLowerCase() === mirror ? MRC20 : t));
    const m = d.assets.find((a: { id: string }) => a.id === mirror);
    m.id = MRC20;
    m.balances[1] = { ...m.balances[1], amount: "1", base_units: String(10n ** 18n) };
    m.total = { amount: "4", base_units: String(4n * 10n ** 18n) };
    for (const p of d.ownership.proven) if (p.asset === mirror) p.asset = MRC20;
    const { digest: _, ...body } = d;
    d.digest = digestOf(body);
    const polygon = join(dir, "polygon.json");
    writeFileSync(polygon, JSON.stringify(d, null, 2));
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nPOL,18\nMRC,18\n");
    const c = await buildCommitment(dir, "polygon", ["c1,POL,1", "c2,MRC,1"]);
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\nMIR,18\n");
    const r = await runCli([
      "solvency",
      "--liabilities",
      c,
      "--reserves",
      `POL=${polygon}#native`,
      "--reserves",
      `MRC=${polygon}#${MRC20}`,
      "--backing",
      "POL=polygon",
      "--backing",
      `MRC=polygon:${MRC20}`,
    ]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain(
      `MRC: ${polygon}#${MRC20}: NOT COUNTED: a token named MIR at ${MRC20} on Polygon, one balance backs one asset: the token named MIR at ${MRC20} on Polygon is Polygon's POL contract (MRC20): its balances are the native coin's, and the native coin of Polygon backs POL`,
    );
  });
});

describe("a token that tracks the native balance without equalling it (issue 55, item 4)", () => {
  let tracking: string;
  let tracked: string;

  beforeAll(async () => {
    // balanceOf(a) = a.balance, + 1 wei at A2: equal at the signing address, one wei off at the other
    tracking = await deployTracking(anvil.rpc, "TRK", A2);
    await anvil.rpc("anvil_setBalance", [A0, `0x${(3n * 10n ** 18n).toString(16)}`]);
    await anvil.rpc("anvil_setBalance", [A2, `0x${(2n * 10n ** 18n).toString(16)}`]);
    await anvil.rpc("evm_mine", []);
    tracked = join(dir, "tracked.json");
    const r = await runCli(
      [
        "reserves",
        "balances",
        A0,
        A2,
        "--native",
        "--token",
        tracking,
        "--proof",
        tracked,
        "--challenge",
        CHALLENGE,
        "--signatures",
        join(dir, "sigs.csv"),
      ],
      { env: { CHAINGW_URL: anvil.url } },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    // the exact-equality rule does not see it: reserves balances names no mirror
    expect(r.stdout).not.toContain("native mirror");
  });

  it("backing a second asset (TRK beside ETH): NOT COUNTED, it tracks the native coin — NOT SOLVENT; backing ETH with the native coin: counted once, 2.5 SOLVENT beside 3.5 not", async () => {
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\nTRK,18\n");
    const two = await buildCommitment(dir, "tracked-two", ["c1,ETH,2.5", "c2,TRK,2"]);
    const forged = await solvency(two, [
      "--reserves",
      `ETH=${tracked}#native`,
      "--reserves",
      `TRK=${tracked}#${tracking}`,
      "--backing",
      "ETH=anvil",
      "--backing",
      `TRK=anvil:${tracking}`,
    ]);
    expect(forged.exitCode, forged.stdout + forged.stderr).toBe(1);
    expect(forged.stdout.split("\n")[0]).toMatch(/^NOT SOLVENT: TRK not covered/);
    expect(forged.stdout).toContain(
      `TRK: ${tracked}#${tracking}: NOT COUNTED: a token named TRK at ${tracking} on anvil (chain id 31337), TRK is the token at ${tracking} on anvil (chain id 31337), one balance backs one asset: it tracks the native coin: its balanceOf(${A0}) moved with that address's native balance at block`,
    );
    // the declared contract is named as trusted in the verdict
    expect(forged.stdout.split("\n")[0]).toContain(
      `trusted as declared (--backing), not checked to be what they are declared: the token at ${tracking} on anvil (chain id 31337) as TRK`,
    );
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\n");
    const both = [
      "--reserves",
      `ETH=${tracked}#native`,
      "--reserves",
      `ETH=${tracked}#${tracking}`,
      "--backing",
      "ETH=anvil",
      "--backing",
      `ETH=anvil:${tracking}`,
    ];
    const honest = await solvency(await buildCommitment(dir, "tracked-2.5", ["c1,ETH,2.5"]), both);
    expect(honest.exitCode, honest.stdout + honest.stderr).toBe(0);
    expect(honest.stdout).toMatch(/ETH .* 2\.50* .* 3\.0* .* 5\.0* .* covered \(proven\)/);
    expect(honest.stdout).toContain("ETH: native mirror: the token named TRK");
    const over = await solvency(await buildCommitment(dir, "tracked-3.5", ["c1,ETH,3.5"]), both);
    expect(over.exitCode, over.stdout).toBe(1);
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\nMIR,18\n");
  });

  it("reserves verify names the tracking token in --json (tracking), and an ordinary token is not named", async () => {
    const v = await runCli(["reserves", "verify", tracked, "--url", anvil.url, "--json"]);
    expect(v.exitCode, v.stderr).toBe(0);
    expect(JSON.parse(v.stdout).tracking).toEqual({
      probed: true,
      tokens: [{ token: tracking, address: A0 }],
      detail: expect.stringContaining("moves with that address's native balance"),
    });
    const o = await runCli(["reserves", "verify", proof, "--url", anvil.url, "--json"]);
    expect(JSON.parse(o.stdout).tracking.tokens).toEqual([{ token: mirror, address: A0 }]);
  });

  describe("a node that does not apply eth_call's state override (issue 55: the probe cannot tell)", () => {
    /** anvil behind a loopback proxy that refuses any eth_call carrying a state override, as a node without it */
    let refusing: RawServer;
    /** anvil behind a loopback proxy that drops the state override and answers the plain call */
    let ignoring: RawServer;
    /** anvil behind a loopback proxy that passes the override's code on and drops its balances */
    let codeOnly: RawServer;
    const anvilAnswer = async (e: { id: unknown; method: string; params?: unknown[] }) => {
      try {
        return { jsonrpc: "2.0", id: e.id, result: await anvil.rpc(e.method, e.params) };
      } catch (x) {
        const err = x as { code?: number; message: string };
        return { jsonrpc: "2.0", id: e.id, error: { code: err.code ?? -32000, message: err.message } };
      }
    };
    beforeAll(async () => {
      refusing = await entryProxy(async (e) =>
        e.method === "eth_call" && (e.params?.length ?? 0) > 2
          ? {
              jsonrpc: "2.0",
              id: e.id,
              error: { code: -32602, message: "too many arguments, want at most 2" },
            }
          : anvilAnswer(e),
      );
      ignoring = await entryProxy(async (e) =>
        anvilAnswer(e.method === "eth_call" ? { ...e, params: e.params?.slice(0, 2) } : e),
      );
      codeOnly = await entryProxy(async (e) => {
        const o = e.method === "eth_call" ? (e.params?.[2] as Record<string, object> | undefined) : undefined;
        if (!o) return anvilAnswer(e);
        const kept = Object.fromEntries(
          Object.entries(o).map(([a, v]) => [
            a,
            Object.fromEntries(Object.entries(v).filter(([k]) => k !== "balance")),
          ]),
        );
        return anvilAnswer({ ...e, params: [e.params?.[0], e.params?.[1], kept] });
      });
    });
    afterAll(async () => {
      await refusing?.close();
      await ignoring?.close();
      await codeOnly?.close();
    });

    const on = (node: string, commitment: string, args: string[]) =>
      runCli([
        "solvency",
        "--liabilities",
        commitment,
        "--verify",
        "--url-for",
        `evm=${node}`,
        "--challenge",
        CHALLENGE,
        ...args,
      ]);

    it("the tracking token backing a second asset: CANNOT SAY naming it (was SOLVENT: it counted), beside NOT SOLVENT on anvil itself; an ordinary token CANNOT SAY there too, SOLVENT on anvil", async () => {
      writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\nTRK,18\n");
      const two = await buildCommitment(dir, "untold-two", ["c1,ETH,2.5", "c2,TRK,2"]);
      const args = [
        "--reserves",
        `ETH=${tracked}#native`,
        "--reserves",
        `TRK=${tracked}#${tracking}`,
        "--backing",
        "ETH=anvil",
        "--backing",
        `TRK=anvil:${tracking}`,
      ];
      const told = await on(anvil.url, two, args);
      expect(told.exitCode, told.stdout + told.stderr).toBe(1);
      expect(told.stdout.split("\n")[0]).toMatch(/^NOT SOLVENT: TRK not covered/);
      const code = "the probe's code given to 0x00000000000000000000000000000000c0de0b01 answered";
      for (const [node, answered] of [
        [refusing, `${code} too many arguments, want at most 2`],
        [ignoring, `${code} "0x"`],
        [codeOnly, `the native balance of ${A0} set to `],
      ] as const) {
        const r = await on(node.url, two, args);
        expect(r.exitCode, r.stdout + r.stderr).toBe(3);
        expect(r.stdout.split("\n")[0]).toMatch(/^CANNOT SAY: /);
        expect(r.stdout).toMatch(/ETH .* 2\.50* .* 3\.0* .* covered \(proven\)/);
        expect(r.stdout).toContain(
          `TRK: ${tracked}#${tracking}: proves nothing for this audit: whether its balanceOf reads the native coin of anvil (chain id 31337) (counted twice then) its node cannot tell: the node did not apply eth_call's state override (${answered}`,
        );
        const j = JSON.parse((await on(node.url, two, [...args, "--json"])).stdout);
        expect(j.verdict).toBe("cannot-say");
        expect(j.assets[1]).toMatchObject({
          asset: "TRK",
          status: "cannot-say",
          proven: { base_units: "0" },
        });
      }
      // the ordinary token: SOLVENT read on anvil; its node in front cannot tell either
      writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\nUSDX,18\n");
      const plain = await buildCommitment(dir, "untold-usdx", ["c1,ETH,2.5", "c2,USDX,2"]);
      const usdArgs = [
        "--reserves",
        `ETH=${proof}#native`,
        "--reserves",
        `USDX=${proof}#${usd}`,
        "--backing",
        "ETH=anvil",
        "--backing",
        `USDX=anvil:${usd}`,
      ];
      const honest = await on(anvil.url, plain, usdArgs);
      expect(honest.exitCode, honest.stdout + honest.stderr).toBe(0);
      expect(honest.stdout).toMatch(/^SOLVENT/);
      const untold = await on(refusing.url, plain, usdArgs);
      expect(untold.exitCode, untold.stdout).toBe(3);
      expect(untold.stdout).toContain(
        `USDX: ${proof}#${usd}: proves nothing for this audit: whether its balanceOf`,
      );
      writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\nMIR,18\n");
    });

    it("reserves verify: the proof still holds (exit 0), its tracking line CANNOT SAY naming the token; --json tracking.unknown", async () => {
      const v = await runCli(["reserves", "verify", tracked, "--url", refusing.url]);
      expect(v.exitCode, v.stdout + v.stderr).toBe(0);
      expect(v.stdout).toContain(
        `tracking   CANNOT SAY  whether token ${tracking} read the native coin the node cannot tell: the node did not apply eth_call's state override`,
      );
      const j = JSON.parse(
        (await runCli(["reserves", "verify", tracked, "--url", ignoring.url, "--json"])).stdout,
      );
      expect(j.tracking).toMatchObject({ probed: null, tokens: [], unknown: [{ token: tracking }] });
      const honest = JSON.parse(
        (await runCli(["reserves", "verify", tracked, "--url", anvil.url, "--json"])).stdout,
      );
      expect(honest.tracking.unknown).toBeUndefined();
    });
  });
});

describe("a token whose balanceOf reads another proof address's native balance (issue 55: the probe raises every address)", () => {
  /** anvil's second dev key and its address: the holder of the other proof */
  const K1 = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
  const A1 = "0x70997970c51812dc3a010c7d01b50e0d17dc79c8";
  let swap: string;
  let other: string;
  let swapped: string;
  let tokenOnly: string;
  let nativeOnly: string;

  const balances = async (file: string, args: string[], sigs: string) => {
    const r = await runCli(
      ["reserves", "balances", ...args, "--proof", file, "--challenge", CHALLENGE, "--signatures", sigs],
      { env: { CHAINGW_URL: anvil.url } },
    );
    expect(r.exitCode, r.stderr).toBe(0);
    return r.stdout;
  };

  beforeAll(async () => {
    // each address shows the other's coins: balanceOf(A0) = A2.balance, balanceOf(A2) = A0.balance
    swap = await deployFollower(anvil.rpc, "SWP", [A0, A2], [A2, A0]);
    // balanceOf(A0) = A1.balance: A1 is in another proof only
    other = await deployFollower(anvil.rpc, "OTH", [A0], [A1]);
    for (const [a, eth] of [
      [A0, 3n],
      [A2, 2n],
      [A1, 4n],
    ] as const)
      await anvil.rpc("anvil_setBalance", [a, `0x${(eth * 10n ** 18n).toString(16)}`]);
    await anvil.rpc("evm_mine", []);
    const sig1 = execFileSync(CAST, ["wallet", "sign", "--private-key", K1, CHALLENGE], {
      encoding: "utf8",
    }).trim();
    writeFileSync(join(dir, "sigs1.csv"), `${A1},${sig1}\n`);
    swapped = join(dir, "swapped.json");
    // the swap token beside the ordinary one (USDX: 3 at A0, 5 base units at A2), in one proof
    const made = await balances(
      swapped,
      [A0, A2, "--native", "--token", swap, "--token", usd],
      join(dir, "sigs.csv"),
    );
    // neither equal to the native balances nor moving with the holder's own: no rule before saw it
    expect(made).not.toContain("native mirror");
    tokenOnly = join(dir, "token-only.json");
    await balances(tokenOnly, [A0, "--token", other], join(dir, "sigs.csv"));
    nativeOnly = join(dir, "native-only.json");
    await balances(nativeOnly, [A1, "--native"], join(dir, "sigs1.csv"));
  });

  it("the other address's coins backing a second asset: NOT COUNTED, named with whose balance it follows — NOT SOLVENT; the ordinary token of the same proof SOLVENT", async () => {
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\nSWP,18\n");
    const forged = await solvency(await buildCommitment(dir, "swap-two", ["c1,ETH,2.5", "c2,SWP,2"]), [
      "--reserves",
      `ETH=${swapped}#native`,
      "--reserves",
      `SWP=${swapped}#${swap}`,
      "--backing",
      "ETH=anvil",
      "--backing",
      `SWP=anvil:${swap}`,
    ]);
    expect(forged.exitCode, forged.stdout + forged.stderr).toBe(1);
    expect(forged.stdout.split("\n")[0]).toMatch(/^NOT SOLVENT: SWP not covered/);
    expect(forged.stdout).toContain(
      `SWP: ${swapped}#${swap}: NOT COUNTED: a token named SWP at ${swap} on anvil (chain id 31337), SWP is the token at ${swap} on anvil (chain id 31337), one balance backs one asset: it tracks the native coin: its balanceOf(${A0}) moved with the native balance of ${A2} at block`,
    );
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\nUSDX,18\n");
    const honest = await solvency(await buildCommitment(dir, "swap-usdx", ["c1,ETH,2.5", "c2,USDX,2"]), [
      "--reserves",
      `ETH=${swapped}#native`,
      "--reserves",
      `USDX=${swapped}#${usd}`,
      "--backing",
      "ETH=anvil",
      "--backing",
      `USDX=anvil:${usd}`,
    ]);
    expect(honest.exitCode, honest.stdout + honest.stderr).toBe(0);
    expect(honest.stdout).toMatch(/^SOLVENT/);
    const v = JSON.parse(
      (await runCli(["reserves", "verify", swapped, "--url", anvil.url, "--json"])).stdout,
    );
    expect(v.exitCode ?? 0).toBe(0);
    expect(v.tracking.tokens).toEqual([{ token: swap, address: A0, follows: A2 }]);
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\nMIR,18\n");
  });

  it("an address of another proof on the chain: solvency raises every proof's addresses at once — NOT COUNTED (reserves verify of the token's proof alone cannot see it)", async () => {
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\nOTH,18\n");
    const c = await buildCommitment(dir, "other-two", ["c1,ETH,3", "c2,OTH,3"]);
    const r = await solvency(c, [
      "--reserves",
      `ETH=${nativeOnly}#native`,
      "--reserves",
      `OTH=${tokenOnly}#${other}`,
      "--backing",
      "ETH=anvil",
      "--backing",
      `OTH=anvil:${other}`,
    ]);
    expect(r.exitCode, r.stdout + r.stderr).toBe(1);
    expect(r.stdout.split("\n")[0]).toMatch(/^NOT SOLVENT: OTH not covered/);
    expect(r.stdout).toContain(
      `tracks the native coin: its balanceOf(${A0}) moved with the native balance of ${A1} at block`,
    );
    expect(r.stdout).toMatch(/ETH .* 3\.0* .* 4\.0* .* 4\.0* .* covered \(proven\)/);
    const alone = JSON.parse(
      (await runCli(["reserves", "verify", tokenOnly, "--url", anvil.url, "--json"])).stdout,
    );
    expect(alone.tracking.tokens).toEqual([]);
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\nMIR,18\n");
  });
});

describe("a follower token listed before the native coin (issue 55: counted at its holder's key first)", () => {
  let fol: string;
  let proofFile: string;

  beforeAll(async () => {
    // balanceOf(A0) = A2.balance: A0 (signed) holds 1 ETH, A2 (not signed) 5
    fol = await deployFollower(anvil.rpc, "FOL", [A0], [A2]);
    await anvil.rpc("anvil_setBalance", [A0, `0x${(1n * 10n ** 18n).toString(16)}`]);
    await anvil.rpc("anvil_setBalance", [A2, `0x${(5n * 10n ** 18n).toString(16)}`]);
    await anvil.rpc("evm_mine", []);
    proofFile = join(dir, "follower-first.json");
    const r = await runCli(
      [
        "reserves",
        "balances",
        A0,
        A2,
        "--native",
        "--token",
        fol,
        "--proof",
        proofFile,
        "--challenge",
        CHALLENGE,
        "--signatures",
        join(dir, "sigs.csv"),
      ],
      { env: { CHAINGW_URL: anvil.url } },
    );
    expect(r.exitCode, r.stderr).toBe(0);
  });

  it("backing ETH itself, given before the native coin: A2's 5 ETH are not proven at A0 — 1 ETH proven, 3 owed NOT SOLVENT; 1 owed SOLVENT", async () => {
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\n");
    const args = [
      "--reserves",
      `ETH=${proofFile}#${fol}`,
      "--reserves",
      `ETH=${proofFile}#native`,
      "--backing",
      `ETH=anvil:${fol}`,
      "--backing",
      "ETH=anvil",
    ];
    const over = await solvency(await buildCommitment(dir, "follower-3", ["c1,ETH,3"]), [...args, "--json"]);
    const j = JSON.parse(over.stdout);
    expect(j.assets[0].proven.base_units, over.stdout).toBe(String(10n ** 18n));
    expect(j.assets[0].proofs[0]).toMatchObject({ id: fol, counted: false });
    expect(j.assets[0].proofs[0].why).toContain(
      `tracks the native coin: its balanceOf(${A0}) moved with the native balance of ${A2} at block`,
    );
    // the same finding, in the same words, as an exchange's token row the probe saw read the native coin
    expect(j.assets[0].proofs[0]).toMatchObject({ code: "reads-native" });
    expect(j.assets[0].proofs[0].why).toContain("the native coin counts once, as itself: not counted as ETH");
    expect(over.exitCode).toBe(1);
    const honest = await solvency(await buildCommitment(dir, "follower-1", ["c1,ETH,1"]), args);
    expect(honest.exitCode, honest.stdout + honest.stderr).toBe(0);
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\nMIR,18\n");
  });
});

describe("a token of a proof whose balanceOf reads another of its tokens (issue 55 item 4: the judge's reads-token, as on an exchange's rows)", () => {
  /** Shadow.sol: balanceOf(a) is USDX's balanceOf(a), + 1 at A2 — USDX's coins again */
  let shd: string;
  /** an ordinary token beside them: 4 at A0 */
  let hon: string;
  let both: string;

  beforeAll(async () => {
    shd = await deployShadow(anvil.rpc, "SHD", usd, A2);
    hon = await deployToken(anvil.rpc, "Token", { symbol: "HON", decimals: 18 });
    await mint(anvil.rpc, hon, [A0], [4n * 10n ** 18n]);
    await anvil.rpc("evm_mine", []);
    both = join(dir, "shadow.json");
    const r = await runCli(
      [
        "reserves",
        "balances",
        A0,
        "--token",
        usd,
        "--token",
        shd,
        "--token",
        hon,
        "--proof",
        both,
        "--challenge",
        CHALLENGE,
        "--signatures",
        join(dir, "sigs.csv"),
      ],
      { env: { CHAINGW_URL: anvil.url } },
    );
    expect(r.exitCode, r.stderr).toBe(0);
  });

  it("USDX 3, SHD 3 and HON 4 owed from one proof: SHD NOT COUNTED, it reads USDX — NOT SOLVENT; USDX and HON covered in the same run; reserves verify names it", async () => {
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nUSDX,18\nSHD,18\nHON,18\n");
    const args = (c: string) => [
      c,
      ...[
        ["USDX", usd],
        ["SHD", shd],
        ["HON", hon],
      ].flatMap(([a, t]) => ["--reserves", `${a}=${both}#${t}`, "--backing", `${a}=anvil:${t}`]),
    ];
    const c = await buildCommitment(dir, "shadow", ["c1,USDX,3", "c2,SHD,3", "c3,HON,4"]);
    const [commitment, ...rest] = args(c);
    const r = await solvency(commitment as string, rest);
    expect(r.exitCode, r.stdout + r.stderr).toBe(1);
    expect(r.stdout.split("\n")[0]).toMatch(/^NOT SOLVENT: SHD not covered/);
    const j = JSON.parse((await solvency(commitment as string, [...rest, "--json"])).stdout);
    const a = (x: string) => j.assets.find((y: { asset: string }) => y.asset === x);
    expect(a("USDX")).toMatchObject({ status: "covered", proven: { amount: "3.000000000000000000" } });
    expect(a("HON")).toMatchObject({ status: "covered", proven: { amount: "4.000000000000000000" } });
    expect(a("SHD")).toMatchObject({ status: "not-covered", proven: { base_units: "0" } });
    const block = JSON.parse(readFileSync(both, "utf8")).block.number;
    expect(a("SHD").proofs[0]).toMatchObject({
      id: shd,
      counted: false,
      code: "reads-token",
      why: `SHD is the token at ${shd} on anvil (chain id 31337), one balance backs one asset: it reads the token at ${usd}: its balanceOf(${A0}) moved when that token answered otherwise at block ${block} (eth_call with a state override): that token's coins again; the token at ${usd} counts once, as itself: not counted as SHD`,
    });
    // reserves verify: the proof holds; its tracking line names the token read
    const v = await runCli(["reserves", "verify", both, "--url", anvil.url]);
    expect(v.exitCode, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toContain(`token ${shd}: reads the token at ${usd}: its balanceOf(${A0}) moved`);
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\nMIR,18\n");
  });
});

describe("two declared tokens that are facades of one undeclared ledger (issue 55 item 4: eth_createAccessList)", () => {
  /** Ledger.sol: FA and FB both answer balanceOf(a) from one Ledger's balances(a) — 3 at A0, once */
  let ledger: string;
  let fa: string;
  let fb: string;
  /** two ordinary tokens, 3 at A0 each: the control */
  let ia: string;
  let ib: string;
  let file: string;
  let accessLists = 0;
  let counting: RawServer;
  let lacking: RawServer;
  const forward = async (e: { id: unknown; method: string; params?: unknown[] }) => {
    try {
      return { jsonrpc: "2.0", id: e.id, result: await anvil.rpc(e.method, e.params) };
    } catch (x) {
      const err = x as { code?: number; message: string };
      return { jsonrpc: "2.0", id: e.id, error: { code: err.code ?? -32000, message: err.message } };
    }
  };

  beforeAll(async () => {
    const l = await deployLedger(anvil.rpc, ["FA", "FB"], [A0], [3n * 10n ** 18n]);
    ledger = l.ledger;
    [fa, fb] = l.facades as [string, string];
    ia = await deployToken(anvil.rpc, "Token", { symbol: "IA", decimals: 18 });
    ib = await deployToken(anvil.rpc, "Token", { symbol: "IB", decimals: 18 });
    await mint(anvil.rpc, ia, [A0], [3n * 10n ** 18n]);
    await mint(anvil.rpc, ib, [A0], [3n * 10n ** 18n]);
    await anvil.rpc("evm_mine", []);
    file = join(dir, "facades.json");
    const r = await runCli(
      [
        "reserves",
        "balances",
        A0,
        ...[fa, fb, ia, ib].flatMap((t) => ["--token", t]),
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
    counting = await entryProxy(async (e) => {
      if (e.method === "eth_createAccessList") accessLists++;
      return forward(e);
    });
    // a node with no eth_createAccessList, as some answer
    lacking = await entryProxy(async (e) =>
      e.method === "eth_createAccessList"
        ? {
            jsonrpc: "2.0",
            id: e.id,
            error: {
              code: -32601,
              message: "the method eth_createAccessList does not exist/is not available",
            },
          }
        : forward(e),
    );
  });
  afterAll(async () => {
    await counting?.close();
    await lacking?.close();
  });

  const owed = ["c1,FA,3", "c2,FB,3", "c3,IA,3", "c4,IB,3"];
  const args = () =>
    [
      ["FA", fa],
      ["FB", fb],
      ["IA", ia],
      ["IB", ib],
    ].flatMap(([a, t]) => ["--reserves", `${a}=${file}#${t}`, "--backing", `${a}=anvil:${t}`]);
  const run = (url: string, commitment: string, more: string[] = []) =>
    runCli([
      "solvency",
      "--liabilities",
      commitment,
      "--verify",
      "--url-for",
      `evm=${url}`,
      "--challenge",
      CHALLENGE,
      ...args(),
      ...more,
    ]);

  it("FA and FB over one ledger, IA and IB independent, 3 of each owed from one proof: FB CANNOT SAY naming the ledger's slot FA reads too, FA, IA, IB covered — 4 eth_createAccessList calls, one a token", async () => {
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nFA,18\nFB,18\nIA,18\nIB,18\n");
    const c = await buildCommitment(dir, "facades", owed);
    accessLists = 0;
    const r = await run(counting.url, c);
    expect(r.exitCode, r.stdout + r.stderr).toBe(3);
    expect(r.stdout.split("\n")[0]).toMatch(/^CANNOT SAY: /);
    expect(accessLists).toBe(4);
    const j = JSON.parse((await run(counting.url, c, ["--json"])).stdout);
    const a = (x: string) => j.assets.find((y: { asset: string }) => y.asset === x);
    for (const x of ["FA", "IA", "IB"])
      expect(a(x)).toMatchObject({ status: "covered", proven: { amount: "3.000000000000000000" } });
    expect(a("FB")).toMatchObject({ status: "cannot-say", proven: { base_units: "0" } });
    expect(a("FB").proofs[0].not_for_this_audit).toMatch(
      new RegExp(
        `^its balanceOf reads the storage of ${ledger} \\(slot 0x[0-9a-f]{64}\\) that the token at ${fa}'s balanceOf reads too \\(eth_createAccessList\\): one ledger's coins may back both, and the token at ${fa} counts them, once; whether these are other coins cannot be said$`,
      ),
    );
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\nMIR,18\n");
  });

  it("the same through a node without eth_createAccessList: every declared token CANNOT SAY, its node cannot tell — never 'holds'", async () => {
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nFA,18\nFB,18\nIA,18\nIB,18\n");
    const c = await buildCommitment(dir, "facades-lacking", owed);
    const j = JSON.parse((await run(lacking.url, c, ["--json"])).stdout);
    expect(j.verdict).toBe("cannot-say");
    for (const x of ["FA", "FB", "IA", "IB"]) {
      const asset = j.assets.find((y: { asset: string }) => y.asset === x);
      expect(asset.status).toBe("cannot-say");
      expect(asset.proofs[0].not_for_this_audit).toContain(
        "whether its balanceOf reads a ledger another declared token reads (the same coins twice) its node cannot tell: the node did not list the storage a balanceOf reads: eth_createAccessList of its balanceOf answered the method eth_createAccessList does not exist/is not available",
      );
    }
    writeFileSync(join(dir, "assets.csv"), "asset,decimals\nETH,18\nMIR,18\n");
  });
});
