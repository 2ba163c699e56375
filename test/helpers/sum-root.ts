/**
 * An exchange's Merkle-sum inclusion proof built to chosen totals, in CoinEx's format (leaf sha256(nonce ‖ Go
 * JSON of the balances), each level sha256(L ‖ R ‖ Go JSON of the sums): keys sorted, amounts quoted), whose
 * root binds the totals it carries: one customer and one sibling whose sums are the totals. OKX v1's roots
 * do not bind theirs (its sums are concatenated with no separator: `docs/exchange-proofs.md`), so solvency
 * takes none of them. `write` stores the file's text and returns its path.
 */
import { createHash } from "node:crypto";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

/** `x` + `y` as decimal text, exactly (trailing zeros stripped, as the exchanges write a sum). */
function sum(x: string, y: string): string {
  const scale = Math.max(...[x, y].map((v) => (v.split(".")[1] ?? "").length));
  const units = (v: string) => {
    const [w, f = ""] = v.split(".");
    return BigInt(w as string) * 10n ** BigInt(scale) + BigInt(f.padEnd(scale, "0") || "0");
  };
  const t = (units(x) + units(y)).toString().padStart(scale + 1, "0");
  return scale ? `${t.slice(0, -scale)}.${t.slice(-scale)}`.replace(/\.?0+$/, "") : t;
}

/** Go's json.Marshal of a map of decimals: keys sorted, values quoted. */
const goJson = (m: Record<string, string>) =>
  `{${Object.keys(m)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${JSON.stringify(m[k])}`)
    .join(",")}}`;

export function sumRootProof(
  mine: Record<string, string>,
  sibling: Record<string, string>,
  write: (text: string) => string,
): { file: string; root: string } {
  const nonce = "5e".repeat(32);
  const leaf = sha(`${nonce}${goJson(mine)}`);
  const sib = "ab".repeat(32);
  const totals = Object.fromEntries(
    Object.keys(mine).map((a) => [a, sum(mine[a] as string, sibling[a] as string)]),
  );
  const root = sha(`${leaf}${sib}${goJson(totals)}`);
  const doc = {
    root: { hash: root, balances: totals },
    self: { nonce, balances: mine },
    path: [{ hash: sib, pos: "right", balances: sibling }],
  };
  return { file: write(JSON.stringify(doc)), root };
}
