/**
 * `reserves sign-help`: the command it prints for a Litecoin P2PKH address, run as printed against a real
 * litecoind -regtest wallet, makes a signature that `reserves scan --signatures` proves, in the template it
 * wrote (read as written, the template is refused naming its first empty line); the `cast wallet sign`
 * commands, run as printed, make an EIP-191 signature and OKX's digest; TronWeb's line, run as printed by a
 * TronWeb holding the key, makes the TIP-191 signature `reserves balances --signatures` proves on the TRON
 * stand-in node; --format csv is the table; bad input is exit 2 naming the line.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import * as btc from "@scure/btc-signer";
import { execa } from "execa";
import { TronWeb } from "tronweb";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountDigest, readRsv, recoverAccount20 } from "../src/exchange/ownership/signatures.js";
import { startTronFixture } from "./fixtures/tron.js";
import { runCli } from "./helpers/cli.js";
import { type LitecoinNode, startLitecoind } from "./helpers/litecoind.js";
import { HANG_GUARD_MS, trackDir } from "./helpers/procs.js";

const CHALLENGE = 'chaingw audit 2026-12-07, O\'Brien & "Co"';
const ROOT = fileURLToPath(new URL("../", import.meta.url));
// anvil's first well-known development key and its account
const KEY = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const ACCOUNT = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";

let ltc: LitecoinNode;
let dir: string;
let legacy: string;
let segwit: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "chaingw-sign-help-"));
  trackDir(dir);
  ltc = await startLitecoind({ blocks: 101 });
  legacy = await ltc.rpc<string>("getnewaddress", ["", "legacy"]);
  segwit = await ltc.newAddress();
  await ltc.rpc("sendtoaddress", [legacy, 1.25]);
  await ltc.mine(1);
});

afterAll(async () => {
  await ltc?.stop();
});

/** A printed command run by a shell as the custodian would, the node's connection added to litecoin-cli. */
const sh = async (command: string) => {
  const conn = `-datadir=${ltc.datadir} -rpcport=${ltc.port} -rpcuser=${ltc.user} -rpcpassword=${ltc.password}`;
  const r = await execa("/bin/sh", ["-c", command.replace(/^litecoin-cli /, `litecoin-cli ${conn} `)], {
    reject: false,
    timeout: HANG_GUARD_MS,
    env: { PATH: `${join(ROOT, "node_modules", ".bin")}:${process.env.PATH}` },
  });
  expect(r.exitCode, r.stderr).toBe(0);
  return r.stdout.trim();
};

describe("reserves sign-help", () => {
  it("litecoin-cli signmessage as printed, in the template it writes, is proven by reserves scan --signatures", async () => {
    const list = join(dir, "addresses.txt");
    writeFileSync(list, `# the custodian's addresses\n${legacy}\n${segwit}  # a segwit key\n`);
    const template = join(dir, "signatures.csv");
    const r = await runCli([
      "--network",
      "regtest",
      "--json",
      "reserves",
      "sign-help",
      "--challenge",
      CHALLENGE,
      "--file",
      list,
      "--coin",
      "litecoin",
      "--template",
      template,
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout);
    expect(out.addresses.map((a: { at: string }) => a.at)).toEqual([`${list}: line 2`, `${list}: line 3`]);
    const [first, second] = out.addresses;
    expect(first.kind).toBe("Litecoin regtest P2PKH");
    expect(first.commands).toEqual([`litecoin-cli -regtest signmessage ${legacy} ${shellQuoted(CHALLENGE)}`]);
    // the nodes' signmessage refuses segwit: Electrum-LTC's command instead, said why
    expect(second.kind).toBe("Litecoin regtest P2WPKH");
    expect(second.commands).toEqual([
      `electrum-ltc --regtest signmessage ${segwit} ${shellQuoted(CHALLENGE)}`,
    ]);
    expect(second.note).toContain("refuse segwit addresses");
    expect(readFileSync(template, "utf8")).toBe(
      [
        `# signatures over the challenge ${JSON.stringify(CHALLENGE)}`,
        "# after each address's comma, the signature its command printed (base64, or 0x… for EVM and TRON)",
        "address,signature",
        `${legacy},`,
        `${segwit},`,
        "",
      ].join("\n"),
    );

    // read as written, reserves scan refuses it naming the first line to fill; nothing is sent
    const scan = (sigs: string, ...addresses: string[]) =>
      runCli([
        "--url",
        ltc.authUrl,
        "reserves",
        "scan",
        ...addresses,
        "--proof",
        join(dir, "p.json"),
        "--challenge",
        CHALLENGE,
        "--signatures",
        sigs,
      ]);
    const unfilled = await scan(template, legacy);
    expect(unfilled.exitCode).toBe(2);
    expect(unfilled.stderr).toContain(`${template}: line 4: empty signature; nothing was sent`);

    // the printed command, run by a shell: its signature, filled in, proves the address
    const sig = await sh(first.commands[0]);
    const filled = join(dir, "filled.csv");
    writeFileSync(
      filled,
      readFileSync(template, "utf8")
        .replace(`${legacy},\n`, `${legacy},${sig}\n`)
        .replace(`${segwit},\n`, ""),
    );
    const s = await scan(filled, legacy);
    expect(s.exitCode, s.stderr).toBe(0);
    const proof = JSON.parse(readFileSync(join(dir, "p.json"), "utf8"));
    expect(proof.ownership.signatures).toMatchObject([{ address: legacy, valid: true }]);
    expect(proof.ownership.proven_sats).toBe("125000000");
  });

  it("cast wallet sign as printed makes EIP-191 over the text, and with --form okx OKX's digest", async () => {
    const text = "0x is how this audit's text starts";
    const ask = (...extra: string[]) =>
      runCli(["--json", "reserves", "sign-help", "--challenge", text, ACCOUNT, ...extra]);
    const own = JSON.parse((await ask()).stdout).addresses[0];
    const okx = JSON.parse((await ask("--form", "okx")).stdout).addresses[0];
    const signed = async (c: string) => sh(c.replace("--interactive", `--private-key ${KEY}`));
    const ownSig = await signed(own.commands[0]);
    // chaingw's reader: EIP-191 over the text itself (cast would read a bare 0x… argument as hex)
    const v = await runCli(["verify-message", ACCOUNT, ownSig, text]);
    expect(v.stdout.trim()).toBe("true");
    expect(v.exitCode).toBe(0);
    // OKX's: personal_sign over the 32 bytes of keccak256(text); EIP-191 over the text does not hold for it
    const okxSig = await signed(okx.commands[0]);
    const rsv = readRsv(okxSig);
    if (typeof rsv === "string") throw new Error(rsv);
    expect(`0x${recoverAccount20(rsv, accountDigest("okx-evm", text))}`).toBe(ACCOUNT);
    expect((await runCli(["verify-message", ACCOUNT, okxSig, text])).exitCode).toBe(1);
  });

  it("TronWeb's signMessageV2 line, run as printed by a TronWeb holding the key, is proven by reserves balances --signatures in the template it wrote", async () => {
    const key = KEY.slice(2);
    const account = TronWeb.address.fromPrivateKey(key) as string;
    const template = join(dir, "tron-signatures.csv");
    const r = await runCli([
      "--json",
      "reserves",
      "sign-help",
      "--challenge",
      CHALLENGE,
      account,
      "--template",
      template,
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const way = JSON.parse(r.stdout).addresses[0];
    expect(way.kind).toBe("TRON account");
    expect(way.commands).toEqual([`await tronWeb.trx.signMessageV2(${JSON.stringify(CHALLENGE)})`]);
    // the line as printed, run as JavaScript where `tronWeb` holds the key (TronLink's, or Node's as here)
    const tronWeb = new TronWeb({ fullHost: "http://127.0.0.1:1", privateKey: key });
    const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor;
    const sig: string = await new AsyncFunction("tronWeb", `return ${way.commands[0]};`)(tronWeb);
    expect(sig).toMatch(/^0x[0-9a-f]{130}$/);
    const filled = join(dir, "tron-filled.csv");
    writeFileSync(filled, readFileSync(template, "utf8").replace(`${account},\n`, `${account},${sig}\n`));
    const tron = await startTronFixture();
    try {
      const proof = join(dir, "tron.json");
      const b = await runCli([
        "--chain",
        "evm-compat",
        "--url",
        tron.url,
        "reserves",
        "balances",
        account,
        "--challenge",
        CHALLENGE,
        "--signatures",
        filled,
        "--proof",
        proof,
      ]);
      expect(b.exitCode, b.stderr).toBe(0);
      const p = JSON.parse(readFileSync(proof, "utf8"));
      expect(p.ownership.signatures).toMatchObject([{ valid: true, format: "tip191" }]);
      expect(p.ownership.proven[0].base_units).toBe(p.assets[0].balances[0].base_units);
    } finally {
      await tron.stop();
    }
  });

  it("Electrum's signmessage line (Debian's electrum), run as printed against a wallet holding the key, makes a signature chaingw's verifier proves: P2WPKH and P2SH-P2WPKH", async () => {
    // a key of the test's, its addresses as @scure/btc-signer derives them; Electrum restores it offline
    const key = Uint8Array.from(
      Buffer.from("0c28fca386c7a227600b2fe50b7cae11ec86d3bf1fbe471be89827e19d72aa1d", "hex"),
    );
    const pub = secp256k1.getPublicKey(key, true);
    const wif = btc.WIF().encode(key);
    for (const [kind, address, script] of [
      ["P2WPKH", btc.p2wpkh(pub).address as string, "p2wpkh"],
      ["P2SH", btc.p2sh(btc.p2wpkh(pub)).address as string, "p2wpkh-p2sh"],
    ] as const) {
      const r = await runCli([
        "--json",
        "reserves",
        "sign-help",
        "--challenge",
        CHALLENGE,
        "--coin",
        "bitcoin",
        address,
      ]);
      expect(r.exitCode, r.stderr).toBe(0);
      const way = JSON.parse(r.stdout).addresses[0];
      expect(way.kind).toBe(`Bitcoin main ${kind}`);
      expect(way.commands).toEqual([`electrum signmessage ${address} ${shellQuoted(CHALLENGE)}`]);
      const data = join(dir, `electrum-${script}`);
      const wallet = join(data, "wallet");
      const electrum = (args: string[]) =>
        execa("electrum", ["--offline", "-D", data, ...args], {
          reject: false,
          timeout: HANG_GUARD_MS,
          env: { HOME: data },
        });
      const restored = await electrum(["restore", `${script}:${wif}`, "-w", wallet]);
      expect(restored.exitCode, restored.stderr + restored.stdout).toBe(0);
      // the printed command, run by a shell, Electrum's wallet and offline flags added as the node's connection is
      const signed = await execa(
        "/bin/sh",
        ["-c", way.commands[0].replace(/^electrum /, `electrum --offline -D ${data} -w ${wallet} `)],
        { reject: false, timeout: HANG_GUARD_MS, env: { HOME: data, PATH: process.env.PATH } },
      );
      expect(signed.exitCode, signed.stderr).toBe(0);
      const sig = signed.stdout.trim();
      const v = await runCli(["--json", "verify-message", address, sig, CHALLENGE]);
      expect(v.exitCode, v.stderr).toBe(0);
      expect(JSON.parse(v.stdout)).toMatchObject({ valid: true, format: "legacy", chain: "bitcoin" });
      expect((await runCli(["verify-message", address, sig, `${CHALLENGE} `])).exitCode).toBe(1);
    }
  });

  it("Electrum-LTC's line cannot be run here (no electrum-ltc in Debian or npm): the form it names — the key's own header over Litecoin's message magic, as Electrum signs a segwit key — made by litecoind's signmessagewithprivkey with each address's key, is proven by reserves scan --signatures in the template sign-help wrote: P2WPKH and P2SH-P2WPKH", async () => {
    const wrapped = await ltc.rpc<string>("getnewaddress", ["", "p2sh-segwit"]);
    await ltc.rpc("sendtoaddress", [segwit, 0.5]);
    await ltc.rpc("sendtoaddress", [wrapped, 0.25]);
    await ltc.mine(1);
    const template = join(dir, "electrum-ltc.csv");
    const r = await runCli([
      "--network",
      "regtest",
      "--json",
      "reserves",
      "sign-help",
      "--challenge",
      CHALLENGE,
      "--coin",
      "litecoin",
      segwit,
      wrapped,
      "--template",
      template,
    ]);
    expect(r.exitCode, r.stderr).toBe(0);
    const ways = JSON.parse(r.stdout).addresses;
    expect(ways.map((w: { kind: string }) => w.kind)).toEqual([
      "Litecoin regtest P2WPKH",
      "Litecoin regtest P2SH",
    ]);
    expect(ways.map((w: { commands: string[] }) => w.commands)).toEqual([
      [`electrum-ltc --regtest signmessage ${segwit} ${shellQuoted(CHALLENGE)}`],
      [`electrum-ltc --regtest signmessage ${wrapped} ${shellQuoted(CHALLENGE)}`],
    ]);
    expect(ways[0].form).toBe(
      "legacy signed message with the key's header (as Electrum signs segwit keys), or BIP-322 simple (smp…)",
    );
    // Electrum's signmessage: the compact signature of the key, its header the key's (31-34, compressed),
    // over the coin's magic, whatever the address's script — signmessagewithprivkey's bytes exactly
    let filled = readFileSync(template, "utf8");
    for (const address of [segwit, wrapped]) {
      const key = await ltc.rpc<string>("dumpprivkey", [address]);
      const sig = await ltc.rpc<string>("signmessagewithprivkey", [key, CHALLENGE]);
      expect(Buffer.from(sig, "base64")[0]).toBeGreaterThanOrEqual(31);
      filled = filled.replace(`${address},\n`, `${address},${sig}\n`);
    }
    const signed = join(dir, "electrum-ltc-filled.csv");
    writeFileSync(signed, filled);
    const proof = join(dir, "electrum-ltc.json");
    const s = await runCli([
      "--url",
      ltc.authUrl,
      "reserves",
      "scan",
      segwit,
      wrapped,
      "--proof",
      proof,
      "--challenge",
      CHALLENGE,
      "--signatures",
      signed,
    ]);
    expect(s.exitCode, s.stderr).toBe(0);
    expect(s.stdout).toContain(`checks out  ${segwit} (legacy)`);
    expect(s.stdout).toContain(`checks out  ${wrapped} (legacy)`);
    const p = JSON.parse(readFileSync(proof, "utf8"));
    expect(p.ownership.signatures).toMatchObject([
      { address: segwit, valid: true },
      { address: wrapped, valid: true },
    ]);
    expect(p.ownership.proven_sats).toBe("75000000");
  });

  it("BIP-322: no signer of it installs here (npm or Debian), so its line is checked against BIP-322's published vectors: the form sign-help names for their addresses (simple, the smp prefix) is the one their signatures verify in", async () => {
    // github.com/bitcoin/bips bip-0322: the P2WPKH key's "Hello World" and the P2TR key path's vector
    const vectors = [
      {
        address: "bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l",
        text: "Hello World",
        sig: "AkcwRAIgZRfIY3p7/DoVTty6YZbWS71bc5Vct9p9Fia83eRmw2QCICK/ENGfwLtptFluMGs2KsqoNSk89pO7F29zJLUx9a/sASECx/EgAxlkQpQ9hYjgGu6EBCPMVPwVIVJqO4XCsMvViHI=",
        kind: "Bitcoin main P2WPKH",
      },
      {
        address: "bc1pss0zhytly75awhm6x2hhvd5lnzv3vssgrf9axfheq8ldyzn88ges79fler",
        text: "No prefix fallback",
        sig: "AUCJYOwOjxYAvatTAGYaVlNXBVyFuc4MwNQkOuK2tl8xhfKDONd0NjfYyNSYcRqeCp8hsAnCEPHAVEkO9h6vbQ/R",
        kind: "Bitcoin main P2TR",
      },
    ];
    for (const v of vectors) {
      const r = await runCli(["--json", "reserves", "sign-help", "--challenge", v.text, v.address]);
      expect(r.exitCode, r.stderr).toBe(0);
      const way = JSON.parse(r.stdout).addresses[0];
      expect(way.kind).toBe(v.kind);
      expect(way.form).toContain("BIP-322 simple (smp…)");
      // the signature in the form named: "smp" and the vector's base64
      const ok = await runCli(["--json", "verify-message", v.address, `smp${v.sig}`, v.text]);
      expect(ok.exitCode, ok.stderr).toBe(0);
      expect(JSON.parse(ok.stdout)).toMatchObject({ valid: true, format: "bip322-simple" });
      // over another text it does not hold
      expect((await runCli(["verify-message", v.address, `smp${v.sig}`, `${v.text}!`])).exitCode).toBe(1);
    }
  });

  it("docs/ownership.md's sign-help table shows each line sign-help prints, and says Electrum-LTC's is not run", async () => {
    const doc = readFileSync(join(ROOT, "docs", "ownership.md"), "utf8");
    const table = doc.slice(doc.indexOf("## Signing the challenge: `reserves sign-help`"));
    const rowOf = (line: string) =>
      table.split("\n").find((l) => l.startsWith("|") && l.includes(`\`${line}\``));
    const text = "TEXT here";
    const asked = async (coin: string[], ...args: string[]) =>
      JSON.parse(
        (await runCli([...coin, "--json", "reserves", "sign-help", "--challenge", text, ...args])).stdout,
      ).addresses[0].commands[0] as string;
    const lines: [string[], string[]][] = [
      [
        ["--network", "regtest"],
        ["--coin", "litecoin", legacy],
      ],
      [
        ["--network", "regtest"],
        ["--coin", "litecoin", segwit],
      ],
      [[], ["--coin", "bitcoin", "bc1q9vza2e8x573nczrlzms0wvx3gsqjx7vavgkx0l"]],
      [[], [ACCOUNT]],
      [[], [ACCOUNT, "--form", "okx"]],
      [[], [TronWeb.address.fromPrivateKey(KEY.slice(2)) as string]],
    ];
    for (const [globals, args] of lines) {
      const printed = (await asked(globals, ...args))
        .replace(args.find((a) => /^(0x|T|m|n|bc1|rltc1)/.test(a)) as string, "ADDR")
        .replace(shellQuoted(text), "'TEXT'")
        .replace(JSON.stringify(text), '"TEXT"');
      expect(rowOf(printed), printed).toBeTruthy();
    }
    expect(rowOf("electrum-ltc --regtest signmessage ADDR 'TEXT'")).toContain("**not run");
  });

  it("--format csv prints the table; bad input is exit 2 naming the line or flag", async () => {
    const c = await runCli(["--format", "csv", "reserves", "sign-help", "--challenge", "audit", ACCOUNT]);
    expect(c.exitCode, c.stderr).toBe(0);
    expect(c.stdout.split("\n")[0]).toBe("address,at,kind,form,tool,command,note");
    expect(c.stdout.split("\n")[1]).toMatch(new RegExp(`^${ACCOUNT},argument 1,EVM account,`));
    const list = join(dir, "bad.txt");
    writeFileSync(list, `${ACCOUNT}\nnot-an-address\n`);
    const bad = await runCli(["reserves", "sign-help", "--challenge", "audit", "-f", list]);
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain(`${list}: line 2: not-an-address`);
    const again = await runCli([
      "reserves",
      "sign-help",
      "--challenge",
      "audit",
      ACCOUNT,
      ACCOUNT.toUpperCase().replace("0X", "0x"),
    ]);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain("argument 2");
    expect(again.stderr).toContain("repeats argument 1");
    const form = await runCli(["reserves", "sign-help", "--challenge", "audit", "--form", "htx", ACCOUNT]);
    expect(form.exitCode).toBe(2);
    expect(form.stderr).toContain('--form "htx": not a form chaingw knows (chaingw or okx)');
    const empty = await runCli(["reserves", "sign-help", "--challenge", " ", ACCOUNT]);
    expect(empty.exitCode).toBe(2);
    expect(empty.stderr).toContain("--challenge: empty");
  });
});

const shellQuoted = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;
