/** The Binance family's zk user proofs (user_config.json): Binance, Gate, HTX v2. */
import { exchangeFormat } from "./inclusion.js";

const BINANCE_MARKS = ["AccountIndex", "AccountIdHash", "Assets[].Equity", "Assets[].Debt", "Root", "Proof"];
const GATE_MARKS = [
  "Arrangement",
  "UniqueIdentification",
  "AssetDetails[].Equity",
  "TreeRootHash",
  "MerkleProofEncode",
];
const HTX_MARKS = ["AccountIndex", "AccountIdHash", "Assets[].Balance", "Root", "Proof"];

const CHECKS = [
  "the file's shape: the account index within a tree of depth 28, 28 siblings of 32 bytes, every sibling and the root a BN254 field element",
  "every amount whole, not negative and within 64 bits; the asset list ascending",
  "the root against --root",
];
const PATH = [
  "the leaf Poseidon(id, equity, debt, assets commitment) and its 28 Poseidon siblings to the root, with the Poseidon of the bnb-chain gnark-crypto fork the tool pins (state[1] out, 12 inputs a block); at the asset slot counts the tool's versions used and no others (--asset-slots N tries another)",
];
const CANNOT = [
  "the Groth16 batch proofs that bind the totals to the balances and every account's non-negativity",
];
const verifier = (f: "verifyBinance" | "verifyGate" | "verifyHtx") => () =>
  import("../exchange/liabilities/zk.js").then((m) => m[f]);

export const BINANCE = exchangeFormat({
  name: "binance",
  title: "Binance zk-SNARK user proof (user_config.json)",
  checks: [
    ...CHECKS,
    "the leaf Poseidon(id, equity, debt, collateral, assets commitment) and its 28 Poseidon siblings to the root: five amounts a slot packed three to an element with the fork's Poseidon of 12 inputs a block (the published sample's form, 350 slots), else Binance's numbered 50/500-slot form of Sep 2024 with 16 a block; each version (Dec 2022, Jul 2024's VipLoan, Sep 2024's Loan) told apart by its members; --asset-slots N tries another count",
  ],
  cannot: CANNOT,
  marks: BINANCE_MARKS,
  verifier: verifier("verifyBinance"),
});

export const GATE = exchangeFormat({
  name: "gate",
  title: "Gate zk-SNARK user proof (user_config.json, a Binance fork)",
  checks: [...CHECKS, ...PATH],
  cannot: CANNOT,
  marks: GATE_MARKS,
  verifier: verifier("verifyGate"),
});

export const HTX_ZK = exchangeFormat({
  name: "htx-zk",
  title: "HTX zk-SNARK user proof (user_config.json, a Binance fork)",
  checks: [...CHECKS, ...PATH],
  cannot: CANNOT,
  marks: HTX_MARKS,
  verifier: verifier("verifyHtx"),
});

/** The zk-SNARK user proofs of the Binance family, in the registry's order: the formats `--asset-slots` is for. */
export const ZK_FORMATS = [BINANCE, GATE, HTX_ZK] as const;
