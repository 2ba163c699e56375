/**
 * An OKX v1 inclusion proof built to chosen totals, with OKX's hashing (leaf sha256(nonce ‖ Go JSON of the
 * balances), node sha256(L ‖ R ‖ each sum ‖ height)): one customer and one sibling whose sums are the totals.
 * `write` stores the file's text and returns its path.
 */
import { createHash } from "node:crypto";

const sha = (s: string) => createHash("sha256").update(s).digest("hex");

/** `x` + `y` as decimal text, exactly (trailing zeros stripped, as OKX writes a sum). */
function sum(x: string, y: string): string {
  const scale = Math.max(...[x, y].map((v) => (v.split(".")[1] ?? "").length));
  const units = (v: string) => {
    const [w, f = ""] = v.split(".");
    return BigInt(w as string) * 10n ** BigInt(scale) + BigInt(f.padEnd(scale, "0") || "0");
  };
  const t = (units(x) + units(y)).toString().padStart(scale + 1, "0");
  return scale ? `${t.slice(0, -scale)}.${t.slice(-scale)}`.replace(/\.?0+$/, "") : t;
}

export function okxV1Proof(
  mine: Record<string, string>,
  sibling: Record<string, string>,
  write: (text: string) => string,
): { file: string; root: string } {
  const nonce = "5e".repeat(32);
  const leaf = sha(`${nonce}${JSON.stringify(mine)}`);
  const sib = "ab".repeat(32);
  const assets = Object.keys(mine);
  const total = (a: string) => sum(mine[a] as string, sibling[a] as string);
  const totals = Object.fromEntries(assets.map((a) => [a, total(a)]));
  const root = sha(`${leaf}${sib}${assets.map(total).join("")}2`);
  const doc = {
    self: { nonce, hash: leaf, balances: mine, type: 2, height: 1 },
    path: [
      { balances: sibling, type: 2, hash: sib, height: 1 },
      { balances: totals, type: 3, hash: root, height: 2 },
    ],
  };
  return { file: write(JSON.stringify(doc)), root };
}
