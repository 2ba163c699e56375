#!/usr/bin/env node
// Signatures per second of `chaingw reserves verify` on an exchange's ownership file, side by side with a
// raw @noble/curves loop over the same signatures (key recovery and the address compare, nothing else).
// The file is made here in OKX's 2022 layout: N rows (default 10,000), a mix like OKX's own files — EVM
// personal_sign over keccak(message), TRON v1, and Bitcoin signmessage P2PKH — each signed by its own key.
// chaingw is timed as a user runs it (a process: start-up, reading, judging, the JSON report); the raw loop
// in this process, after a warm-up. Runs are interleaved; the machine is shared, medians are used.
// Usage: node scripts/build.mjs && node bench/exchange-sigs.mjs [--rows 10000] [--runs 3]
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { secp256k1 } from "@noble/curves/secp256k1.js";
import { ripemd160 } from "@noble/hashes/legacy.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { keccak_256 } from "@noble/hashes/sha3.js";
import { bytesToHex, concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { base64, createBase58check } from "@scure/base";
import { banner, CHAINGW, dur, loadNote, runOnce, stats, table, tempDir } from "./lib.mjs";

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const ROWS = arg("rows", 10_000);
const RUNS = arg("runs", 3);
const MESSAGE = "I am an OKX address";
const b58c = createBase58check(sha256);
const prefixed = (p, body, len = String(body.length)) =>
  keccak_256(concatBytes(utf8ToBytes(`${p}${len}`), body));
const m = utf8ToBytes(MESSAGE);
const DIGEST = {
  evm: prefixed("\x19Ethereum Signed Message:\n", keccak_256(m)),
  tron: prefixed("\x19TRON Signed Message:\n", keccak_256(m), "32"),
  // Bitcoin Core's MessageHash: sha256d(varstr(magic) ‖ varstr(message))
  btc: (() => {
    const magic = utf8ToBytes("Bitcoin Signed Message:\n");
    const b = concatBytes(Uint8Array.of(magic.length), magic, Uint8Array.of(m.length), m);
    return sha256(sha256(b));
  })(),
};
const account20 = (pub) => keccak_256(pub.subarray(1)).subarray(12);
const hash160 = (b) => ripemd160(sha256(b));

// the file: one key per row, derived from the row number
const rows = [];
const raw = [];
for (let i = 0; i < ROWS; i++) {
  const priv = sha256(utf8ToBytes(`exchange bench key ${i}`));
  const kind = i % 10 < 6 ? "evm" : i % 10 < 9 ? "tron" : "btc";
  const sig = secp256k1.sign(DIGEST[kind], priv, { prehash: false, format: "recovered" });
  const rec = sig[0];
  const rs = sig.subarray(1);
  if (kind === "btc") {
    const pub = secp256k1.getPublicKey(priv, true);
    const address = b58c.encode(concatBytes(Uint8Array.of(0), hash160(pub)));
    rows.push(`BTC,${address},1000,${MESSAGE},${base64.encode(concatBytes(Uint8Array.of(31 + rec), rs))},,`);
    raw.push({ kind, rs, rec, want: bytesToHex(hash160(pub)) });
  } else {
    const a = account20(secp256k1.getPublicKey(priv, false));
    const address = kind === "evm" ? `0x${bytesToHex(a)}` : b58c.encode(concatBytes(Uint8Array.of(0x41), a));
    rows.push(
      `${kind === "evm" ? "ETH" : "USDT-TRC20"},${address},1000,${MESSAGE},0x${bytesToHex(rs)}${(27 + rec).toString(16)},,`,
    );
    raw.push({ kind, rs, rec, want: bytesToHex(a) });
  }
}
const dir = tempDir("chaingw-exchange-bench-");
const file = join(dir, "okx.csv");
writeFileSync(
  file,
  `coin,address,amount,message,signature1,signature2,redeem script/ public key\n${rows.join("\n")}\n`,
);

/** The raw loop: recover each key over its digest, derive the address bytes, compare. */
function rawLoop() {
  let ok = 0;
  for (const r of raw) {
    const s = secp256k1.Signature.fromBytes(r.rs, "compact").addRecoveryBit(r.rec);
    const pub = s.recoverPublicKey(DIGEST[r.kind]);
    const got =
      r.kind === "btc" ? bytesToHex(hash160(pub.toBytes(true))) : bytesToHex(account20(pub.toBytes(false)));
    if (got === r.want) ok++;
  }
  if (ok !== raw.length) throw new Error(`raw loop: ${ok} of ${raw.length} verified`);
}

banner(`exchange ownership file: ${ROWS.toLocaleString("en")} rows (60% EVM, 30% TRON v1, 10% BTC P2PKH)`);
rawLoop(); // warm-up
runOnce([...CHAINGW, "reserves", "verify", file, "--json"], { capture: true });
const cli = [];
const loop = [];
for (let r = 0; r < RUNS; r++) {
  const out = runOnce([...CHAINGW, "reserves", "verify", file, "--json"], { capture: true });
  const report = JSON.parse(out.stdout);
  if (report.counts.proven !== ROWS) throw new Error(`chaingw proved ${report.counts.proven} of ${ROWS}`);
  cli.push(out.ms);
  const t0 = process.hrtime.bigint();
  rawLoop();
  loop.push(Number(process.hrtime.bigint() - t0) / 1e6);
}
const c = stats(cli);
const l = stats(loop);
const perSec = (ms) => Math.round((ROWS * 1000) / ms).toLocaleString("en");
table(
  ["what", "median", "p90", "signatures/s"],
  [
    [
      "chaingw reserves verify --json (a process: start-up, read, judge, report)",
      dur(c.median),
      dur(c.p90),
      perSec(c.median),
    ],
    [
      "raw @noble/curves loop (recover + address compare, in process)",
      dur(l.median),
      dur(l.p90),
      perSec(l.median),
    ],
  ],
);
console.log(`chaingw / raw: ${(c.median / l.median).toFixed(2)}× the raw loop's time. ${loadNote()}`);
