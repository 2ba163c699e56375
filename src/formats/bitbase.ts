/** Bitbase's customer proof (POR_V1): a plain Merkle path with no sums. */
import { exchangeFormat } from "./inclusion.js";

/** the members that identify its files */
const BITBASE_MARKS = [
  "version",
  "recordId",
  "balances",
  "leafPayload",
  "leafHash",
  "rootHash",
  "proof[].position",
];

export const BITBASE = exchangeFormat({
  name: "bitbase",
  title: "Bitbase customer proof (POR_V1: a Merkle tree without sums)",
  checks: [
    "the leaf's text POR_V1|auditId|recordId|BTC|ETH|USDT|USDC from the file's own balances (each with 8 places), equal to its leafPayload, and its sha256 against leafHash",
    "every level sha256(left hex ‖ right hex), to the file's root and --root",
    "the customer's own balances: a negative amount is refused (Bitbase's tool accepts one)",
  ],
  cannot: [
    "any total: no node carries a sum, so the root binds no total of what is owed (said in every verdict)",
    "other customers' balances, negative or not",
    "the file's period and snapshot time, which are not in the leaf",
    "that the root is the one Bitbase published for everyone, unless --root gives it",
  ],
  catches: [
    "Bitbase's verifier accepts a negative balance in the customer's own leaf (its published example holds ETH −0.2)",
    "its verifier compares with the file's own root unless given one",
  ],
  marks: BITBASE_MARKS,
  verifier: () => import("../exchange/liabilities/bitbase.js").then((m) => m.verify),
});
