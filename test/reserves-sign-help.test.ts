/**
 * `reserves sign-help`: the command it prints for a Litecoin P2PKH address, run as printed against a real
 * litecoind -regtest wallet, makes a signature that `reserves scan --signatures` proves, in the template it
 * wrote (read as written, the template is refused naming its first empty line); the `cast wallet sign`
 * commands, run as printed, make an EIP-191 signature and OKX's digest; --format csv is the table; bad input
 * is exit 2 naming the line.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { execa } from "execa";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { accountDigest, readRsv, recoverAccount20 } from "../src/exchange/ownership/signatures.js";
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
