#!/usr/bin/env node
// An OKX-layout address file (the 2024-26 header) of N rows, each its own key, signed by real signers:
// ethers' Wallet (OKX's EVM form, personal_sign over keccak256(message)) for 70 % of the rows, TronWeb's
// signMessageV2 (OKX's TRON v2 form) for 30 %. Beside it FILE.bin: each row's digest, r ‖ s and recovery id
// (97 bytes a row), the input of the libsecp256k1 floor (bench/secp-floor.c) over the same signatures.
// Rows [from, to) only with --from/--to (the bench makes a large file in parts, one process a core).
// Usage: node bench/exchange-file.mjs --rows N --out FILE [--from A --to B] [--height H]
import { writeFileSync } from "node:fs";
import { getBytes, keccak256, Signature, toUtf8Bytes, Wallet } from "ethers";
import { TronWeb } from "tronweb";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : dflt;
};
const ROWS = Number(arg("rows", "1000"));
const OUT = arg("out");
const FROM = Number(arg("from", "0"));
const TO = Number(arg("to", String(ROWS)));
const HEIGHT = arg("height", "21000000");
const MESSAGE = "I am an OKX address";
export const HEADER =
  "coin,Network,Snapshot Height,address,amount,message,signature1,signature2,redeem script/ public key, eoa1, eoa2";
const okxEvm = getBytes(keccak256(toUtf8Bytes(MESSAGE)));
// the digests the signers sign, for the floor: EIP-191 over the 32 bytes; TIP-191 over the message's text
const prefixed = (p, body) =>
  getBytes(keccak256(new Uint8Array([...toUtf8Bytes(`${p}${body.length}`), ...body])));
const DIGEST = {
  evm: prefixed("\x19Ethereum Signed Message:\n", okxEvm),
  tron: prefixed("\x19TRON Signed Message:\n", toUtf8Bytes(MESSAGE)),
};
const tw = new TronWeb({ fullHost: "http://127.0.0.1:1" });

const rows = [];
const bin = Buffer.alloc((TO - FROM) * 97);
for (let i = FROM; i < TO; i++) {
  const key = keccak256(toUtf8Bytes(`chaingw exchange bench key ${i}`));
  const tron = i % 10 >= 7;
  let sig;
  if (tron) {
    const address = TronWeb.address.fromPrivateKey(key.slice(2));
    sig = tw.trx.signMessageV2(MESSAGE, key.slice(2));
    rows.push(`USDT,TRON,${HEIGHT},${address},${(i % 997) + 1}.5,${MESSAGE},${sig},,,,`);
  } else {
    const w = new Wallet(key);
    sig = w.signMessageSync(okxEvm);
    rows.push(`ETH,ETH,${HEIGHT},${w.address},0.${(i % 97) + 1},${MESSAGE},${sig},,,,`);
  }
  const s = Signature.from(sig);
  const at = (i - FROM) * 97;
  bin.set(tron ? DIGEST.tron : DIGEST.evm, at);
  bin.set(getBytes(s.r), at + 32);
  bin.set(getBytes(s.s), at + 64);
  bin[at + 96] = s.yParity;
}
writeFileSync(OUT, `${FROM === 0 ? `${HEADER}\n` : ""}${rows.join("\n")}\n`);
writeFileSync(`${OUT}.bin`, bin);
