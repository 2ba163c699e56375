/** Hotcoin's customer proof (protocol HOTCOIN-POR-SUM), its root in the anchor file published apart. */
import { exchangeFormat } from "./inclusion.js";

/** the members that identify its proof files */
const HOTCOIN_MARKS = [
  "protocol",
  "assets[].coin",
  "assets[].decimals",
  "self.accountId",
  "self.leafHash",
  "self.leafIndex",
  "path[].position",
  "path[].balances",
];

/** the members of its anchor file (the root published apart), which is not a customer's proof */
export const HOTCOIN_ANCHOR_MARKS = [
  "protocol",
  "assets[].coin",
  "snapshotId",
  "root",
  "leafCount",
  "userTotals",
];

export const HOTCOIN = exchangeFormat({
  name: "hotcoin",
  title: "Hotcoin customer proof (proof.json, HOTCOIN-POR-SUM; its root in anchor.json: --anchor FILE)",
  checks: [
    "every hash domain-separated as Hotcoin's protocol makes it: sha256(domain byte ‖ the fields as a JSON array of strings) — the asset configuration (3), the leaf (0), each node (1), the padding node (2)",
    "the leaf from the snapshot, the configuration, the account id, the nonce and the amounts, against self.leafHash",
    "every level: the sibling's side from the leaf's index, padding only where the level's width leaves no node (and then exactly the padding node holding zero), the sums carried up, the path used up when the width reaches one",
    "with the anchor (--anchor FILE): its protocol, assets, snapshot and leaf count the proof's, its root reached and its totals the path's sums",
    "every amount canonical (no trailing zeros, within the asset's decimals) and never negative; every hash 64 lower-case hex digits",
  ],
  cannot: [
    "without the anchor file (or --root), any root: the proof holds none (cannot say)",
    "that the anchor is the one Hotcoin published for everyone: it must come from Hotcoin's own channel",
    "other leaves than the path's",
  ],
  catches: [
    "Hotcoin's verifier returns a bare false for a malformed file; chaingw names the member, the line and the level",
  ],
  marks: HOTCOIN_MARKS,
  verifier: () => import("../exchange/liabilities/hotcoin.js").then((m) => m.verify),
});
