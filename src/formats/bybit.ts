/** Bybit's customer inclusion proof (self with userHash and balance, path to the root), every coin list. */
import { exchangeFormat } from "./inclusion.js";

/** the members that identify its files (`balance`, not OKX's `balances`; `userHash`) */
const BYBIT_MARKS = [
  "self.userHash",
  "self.balance",
  "self.hash",
  "path[].balance",
  "path[].hash",
  "path[].height",
];

export const BYBIT = exchangeFormat({
  name: "bybit",
  title: "Bybit customer inclusion proof (the website's proof file, bybit-exchange/merkle-proof)",
  checks: [
    "the coin list: the file's coins exactly one of Bybit's lists (4, 20, 32, 40, 50 coins; BIT → MNT, RNDR → RENDER, MATIC → POL, FTM → S, EOS → A), a coin no list has refused by name",
    "the leaf: sha256(userHash ‖ the amounts in the list's order) against self.hash",
    "every level: sha256(left ‖ right ‖ each sum cut to 8 places ‖ height), the side from the sibling's type, heights 1…n",
    "the root matched on its hash, its totals and its height; no negative amount on the path, no hash below 128 bits",
  ],
  cannot: [
    "that the root is the one Bybit published for everyone, unless --root gives it",
    "that userHash is this customer's (Bybit derives it from the account; the file holds no account id)",
    "other leaves than the path's",
    "which of two coin lists of one length a file is, when they differ by a renamed coin: the hash binds each amount's place in the list, not the coin's name (a v3 file with POL written MATIC is a v2 file that holds)",
  ],
  catches: [
    "Bybit's validator accepts negative amounts on the path and compares with the root inside the same file",
  ],
  marks: BYBIT_MARKS,
  verifier: () => import("../exchange/liabilities/bybit.js").then((m) => m.verify),
});
