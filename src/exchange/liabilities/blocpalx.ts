/**
 * BlocPalX's published tree file (Blocpal-Inc/proof-of-reserves `audit_files/…_merkletree.txt`, its tool
 * `js/proof.js` at bbf11a1 … f8a2d5f): a header (`BlocPalX proof of reserves merkle tree file`, `Proof id:`,
 * `Root hash:`, `Balance totals:`), then `proofSentenceHash,proofBalanceString,proofRewardCode` and one line
 * per customer — every leaf with its balances.
 *
 *  - leaf: sha256(proofSentenceHash "," proofBalanceString) as hex text (the reward code is not hashed);
 *  - tree: merkle-tools without double hashing — each pair sha256(left ‖ right) over the bytes, an odd node
 *    carried up — to the root, which `--root` gives (the file's own line is the file's word);
 *  - the customer: sha256 of their proof sentence (`--credential "SENTENCE"`, as BlocPalX's page shows it) is
 *    their line's proofSentenceHash, and the sentence's balances (its 4th [bracket]) are that line's.
 *
 * Every leaf and its balances is in the file, so the totals are the exact sums of the published lines (and
 * the header's line is compared with them): the root binds every balance (`full-tree`); a negative balance
 * is named with its line.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";
import type { InclusionOptions } from "./check.js";
import { compareRoot, refuseNegative, sha256Hex, step, verifierOf } from "./check.js";
import { addDec, compareDec, type Dec, parseDec, plainDec, ZERO } from "./decimal.js";
import { leafListRoot } from "./leaf-list.js";
import { FileReader } from "./read.js";

const HEAD = "BlocPalX proof of reserves merkle tree file";
const COLUMNS = "proofSentenceHash,proofBalanceString,proofRewardCode";

interface Line {
  line: number;
  hash: string;
  balances: string;
  amounts: [string, Dec][];
}
interface Doc {
  proofId: string;
  root: string;
  totals: [string, Dec][];
  lines: Line[];
}

/** "6.72909851 BTC:5.17708755 USDT20" → [asset, amount] pairs ("none": no balance); undefined when malformed. */
function amountsOf(text: string): [string, Dec][] | undefined {
  if (text === "none") return [];
  const out: [string, Dec][] = [];
  for (const part of text.split(":")) {
    const m = /^(-?\d+(?:\.\d+)?) ([A-Za-z0-9]+)$/.exec(part);
    const d = m ? parseDec(m[1]!) : undefined;
    if (!m || !d || out.some(([a]) => a === m[2])) return undefined;
    out.push([m[2]!, d]);
  }
  return out;
}

function read(text: string, o: InclusionOptions): Doc {
  const rd = new FileReader(o.file);
  const lines = text.replace(/^\uFEFF/, "").split(/\r?\n/);
  const header = (i: number, name: string) => {
    const m = new RegExp(`^${name}: (.+)$`).exec(lines[i] ?? "");
    if (!m) throw rd.error(`line ${i + 1}: not "${name}: …" (BlocPalX's tree file)`);
    return m[1]!.trim();
  };
  if (lines[0] !== HEAD) throw rd.error(`line 1: not "${HEAD}"`);
  const proofId = header(1, "Proof id");
  const root = header(2, "Root hash");
  if (!/^[0-9a-f]{64}$/.test(root)) throw rd.error("line 3: the root hash is not 64 lower-case hex digits");
  const totals = amountsOf(header(3, "Balance totals").replaceAll(",", ":"));
  if (!totals) throw rd.error('line 4: the totals are not "amount ASSET,…"');
  if (lines[4] !== COLUMNS) throw rd.error(`line 5: not "${COLUMNS}"`);
  const out: Line[] = [];
  for (let i = 5; i < lines.length; i++) {
    const raw = lines[i]!;
    if (raw.trim() === "" || raw.startsWith("#")) continue;
    const [hash, balances, code, ...more] = raw.split(",");
    const amounts = balances === undefined ? undefined : amountsOf(balances.trim());
    if (!hash || !/^[0-9a-f]{64}$/.test(hash.trim()) || !amounts || code === undefined || more.length)
      throw rd.error(`line ${i + 1}: not "sentence hash (64 hex),amount ASSET:…,reward code"`);
    out.push({ line: i + 1, hash: hash.trim(), balances: balances!.trim(), amounts });
  }
  if (out.length === 0) throw rd.error("the file lists no customer");
  return { proofId, root, totals, lines: out };
}

/** Every line's balances: none negative, their exact sums against the header's totals. */
const sumsStep = step<Doc>("sums", ({ doc: d }, s) => {
  const sums = new Map<string, Dec>();
  for (const l of d.lines) {
    refuseNegative(s, l.amounts, `line ${l.line}`, "the customer's line");
    for (const [a, v] of l.amounts) sums.set(a, addDec(sums.get(a) ?? ZERO, v));
  }
  let same = true;
  for (const a of new Set([...sums.keys(), ...d.totals.map(([x]) => x)])) {
    const got = sums.get(a) ?? ZERO;
    const said = d.totals.find(([x]) => x === a)?.[1] ?? ZERO;
    if (compareDec(got, said) !== 0) {
      same = false;
      s.fail(
        "sums",
        `${a}: the ${d.lines.length} lines sum to ${plainDec(got)}, the header says ${plainDec(said)}`,
        "line 4",
      );
    }
  }
  if (same)
    s.ok("sums", `the ${d.lines.length} lines sum to the header's ${d.totals.length} totals`, "line 4");
});

/** The customer's line: sha256 of their proof sentence, its balances the sentence's. */
const customerStep = step<Doc>("leaf", ({ doc: d, options: o }, s) => {
  if (o.credential === undefined && o.leaf === undefined) {
    s.cannot(
      "leaf",
      'whether your line is in the file: give your proof sentence (--credential "SENTENCE", as BlocPalX shows it) or its hash (--leaf HEX)',
    );
    return;
  }
  const sentence = o.credential ?? "";
  const mine = o.credential === undefined ? o.leaf!.toLowerCase() : sha256Hex(o.credential);
  if (o.credential !== undefined && o.leaf !== undefined && o.leaf.toLowerCase() !== mine)
    s.fail("leaf", `--leaf ${o.leaf} is not the hash of your sentence (${mine})`);
  const l = d.lines.find((x) => x.hash === mine);
  const parts = sentence.match(/\[[^\]]*\]/g) ?? [];
  const id = parts[2]?.slice(1, -1);
  if (id !== undefined && id !== d.proofId)
    s.fail(
      "leaf",
      `your sentence is of proof ${JSON.stringify(id)}, the file of ${JSON.stringify(d.proofId)}`,
    );
  if (!l) {
    s.fail("leaf", `your sentence hash ${mine} is on no line of the file (${d.lines.length} lines)`);
    return;
  }
  const said = parts[3]?.slice(1, -1);
  if (said !== undefined && said !== l.balances)
    s.fail(
      "leaf",
      `your sentence's balances "${said}" are not your line's "${l.balances}"`,
      `line ${l.line}`,
    );
  else s.ok("leaf", `your sentence hash ${mine} is line ${l.line}: ${l.balances}`, `line ${l.line}`);
});

/** The tree rebuilt from every line, its root against the file's and --root. */
const rootStep = step<Doc>("root", (ctx, s) => {
  const leaves = ctx.doc.lines.map((l) => sha256(new TextEncoder().encode(`${l.hash},${l.balances}`)));
  const root = bytesToHex(leafListRoot(leaves).root);
  ctx.reached = root;
  ctx.fileRoot = ctx.doc.root;
  ctx.rootAt = "line 3 (root)";
  if (root === ctx.doc.root)
    s.ok("path", `the tree of the ${leaves.length} lines reaches ${root}`, ctx.rootAt);
  compareRoot(s, root, ctx.doc.root, ctx.options.root, ctx.rootAt);
});

export const verify = verifierOf<Doc>({
  name: "blocpalx",
  sums: "full-tree",
  read,
  steps: [sumsStep, customerStep, rootStep],
});
