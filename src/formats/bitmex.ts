/** BitMEX's and River's full liabilities tree (block_height:N, then hash,value lines, root first). */
import { exchangeFormat } from "./inclusion.js";

export const BITMEX = exchangeFormat({
  name: "bitmex",
  title: "BitMEX / River full liabilities tree (block_height:N, hash,value lines; HMAC leaves)",
  checks: [
    "every inner node of the published tree: sha256(L ‖ le64(Lv) ‖ R ‖ le64(Rv)) and Lv + Rv",
    "every value an unsigned 64-bit amount (no negative), every hash 32 bytes, the tree full (2^k − 1 nodes)",
    "with your secret (--account and --nonce for BitMEX, --account-key [--email] for River): the leaves your key opens, HMAC-SHA256(key, le64(value) ‖ le64(index)), and their sum",
  ],
  cannot: [
    "that the tree is the one published for everyone, unless --root gives its root",
    "your leaves without your secret (cannot say)",
  ],
  catches: [
    "the root compared with the file's own: BitMEX's README prints root 85b0a839… for a tree whose root line is ceb08dfd…, and its demo nonces open none of the demo tree's leaves",
  ],
  also: (t) => /^block_height:\d+\r?\n[0-9a-fA-F]+,-?\d+/.test(t),
  verifier: () => import("../exchange/liabilities/bitmex.js").then((m) => m.verify),
});
