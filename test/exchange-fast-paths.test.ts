/**
 * Paths made faster for large address files, each giving what the plain path gave (issue 60 item 1).
 *
 * A row is judged in the digest its file's rows last held in first (OKX's TRON v2 rows were recovered twice,
 * v1 tried first): what the user reads is what trying the digests in order gives — each row's form is the
 * digest it was signed in, whatever its neighbours', and a row no digest holds names the key the first digest
 * (TRON v1) recovers. A header line again is found only where a cell reads "address". Signatures by TronWeb (signMessageV2; sign over keccak256(message) with TRON's header:
 * v1), the v1 recovery of the forged row by @noble/curves.
 */
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { TronWeb } from "tronweb";
import { describe, expect, it } from "vitest";
import { runCli } from "./helpers/cli.js";
import { trackDir } from "./helpers/procs.js";

const MESSAGE = "I am an OKX address";
const HEADER =
  "coin,Network,Snapshot Height,address,amount,message,signature1,signature2,redeem script/ public key, eoa1, eoa2";
const tw = new TronWeb({ fullHost: "http://127.0.0.1:1" });
const Trx = tw.trx.constructor as unknown as { signString(m: string, k: string, h: boolean): string };
const keys = [1, 2, 3, 4, 5, 6].map((i) => bytesToHex(keccak_256(utf8ToBytes(`digest-order key ${i}`))));
const addressOf = (key: string) => TronWeb.address.fromPrivateKey(key) as string;
const v2 = (key: string) => tw.trx.signMessageV2(MESSAGE, key) as string;
const v1 = (key: string) => Trx.signString(bytesToHex(keccak_256(utf8ToBytes(MESSAGE))), key, true) as string;

describe("the digest a file's rows last held in, tried first: the same judgments as in order", () => {
  it("TRON v2, v2, v1, a forged row, v1, v2: each row's own form, the forged row named by its v1 key", async () => {
    const dir = mkdtempSync(join(tmpdir(), "chaingw-digest-order-"));
    trackDir(dir);
    // the forged row: key 0's v2 signature listed at key 5's address
    const forged = v2(keys[0] as string);
    const rows: [string, string][] = [
      [addressOf(keys[0] as string), v2(keys[0] as string)],
      [addressOf(keys[1] as string), v2(keys[1] as string)],
      [addressOf(keys[2] as string), v1(keys[2] as string)],
      [addressOf(keys[5] as string), forged],
      [addressOf(keys[3] as string), v1(keys[3] as string)],
      [addressOf(keys[4] as string), v2(keys[4] as string)],
    ];
    const file = join(dir, "okx.csv");
    writeFileSync(
      file,
      `${HEADER}\n${rows.map(([a, s], i) => `USDT,TRON,21000000,${a},${i + 1},${MESSAGE},${s},,,,`).join("\n")}\n`,
    );
    const { stdout, stderr, exitCode } = await runCli(["reserves", "verify", file, "--json"]);
    expect(stderr).toBe("");
    expect(exitCode).toBe(1);
    const report = JSON.parse(stdout) as {
      rows: { line: number; form: string; status: string; reason: string }[];
    };
    const V1 = "TRON TRON v1 signMessage over keccak256(message)";
    const V2 = "TRON TRON v2 signMessageV2";
    expect(report.rows.map((r) => [r.line, r.status, r.form])).toEqual([
      [2, "signed", V2],
      [3, "signed", V2],
      [4, "signed", V1],
      [5, "failed", "TRON signature"],
      [6, "signed", V1],
      [7, "signed", V2],
    ]);
    // the key TRON v1's digest recovers from the forged signature: the first of OKX's TRON digests
    const sig = hexToBytes(forged.replace(/^0x/, ""));
    const digest = keccak_256(
      concatBytes(utf8ToBytes("\x19TRON Signed Message:\n32"), keccak_256(utf8ToBytes(MESSAGE))),
    );
    const pub = secp256k1.Signature.fromBytes(sig.subarray(0, 64), "compact")
      .addRecoveryBit((sig[64] as number) - 27)
      .recoverPublicKey(digest)
      .toBytes(false);
    const recovered = TronWeb.address.fromHex(`41${bytesToHex(keccak_256(pub.subarray(1)).subarray(12))}`);
    expect(report.rows[3]?.reason).toBe(
      `over "${MESSAGE}" in TRON v1 signMessage over keccak256(message) / TRON v2 signMessageV2 it yields ${recovered}, not this address (another key, or another message)`,
    );
  });
});

describe("a header line inside the address table, found only where a cell reads address", () => {
  it("the header again (its address column spaced and in capitals) is refused by line; rows that say address are rows", async () => {
    const dir = mkdtempSync(join(tmpdir(), "chaingw-header-again-"));
    trackDir(dir);
    const key = keys[0] as string;
    const row = `USDT,TRON,21000000,${addressOf(key)},1,${MESSAGE},${v2(key)},,,,`;
    const again = HEADER.replace(",address,", ", ADDRESS ,");
    const file = join(dir, "okx.csv");
    writeFileSync(file, `${HEADER}\n${row}\n${again}\n${row}\n`);
    const refused = await runCli(["reserves", "verify", file, "--json"]);
    expect(refused.exitCode).toBe(2);
    expect(refused.stdout).toBe("");
    expect(refused.stderr).toContain(
      "line 3: a header line again inside the address table; nothing was checked",
    );
    // a row whose cells say "address" in its message and its coin is a row (judged, not refused)
    const wordy = join(dir, "wordy.csv");
    writeFileSync(
      wordy,
      `${HEADER}\n${row}\naddress,TRON,21000000,${addressOf(key)},1,address,${v2(key)},,,,\n`,
    );
    const read = await runCli(["reserves", "verify", wordy, "--json"]);
    expect(read.stderr).toBe("");
    expect(JSON.parse(read.stdout).rows).toHaveLength(2);
  });
});
