/**
 * Flipster's customer proof (teamprex/proof-of-reserves, `merkle_proof.json`): `{leaf_index, assets[{currency,
 * balance}], root, proofs[base64]}` — a plain SHA-256 Merkle path with no sums.
 *
 *  - leaf: sha256 of the customer's assets, in one of the two rules Flipster's verifier had:
 *    before 11aac7b ("Fix hashing leaf element", 2025-03-10) Go's `json.Marshal` of the list
 *    (`[{"currency":"BTC","balance":"124.123"},…]`), since then `|BTC:124.123|ETH:10.123…`; the file does not
 *    say which, so both are walked and the one that reaches the root is named (a file reaching it by neither
 *    fails, both roots named);
 *  - node: sha256(left ‖ right) over raw bytes, the side from the index's parity at each level.
 *
 * It proves inclusion only: no node carries a sum, and the leaf hashes no customer id (two customers with the
 * same balances have one leaf), so the root binds no total (`sums: "inclusion-only"`).
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { base64 } from "@scure/base";
import type { InclusionOptions } from "./check.js";
import { compareRoot, refuseNegative, step, verifierOf } from "./check.js";
import { parseDec } from "./decimal.js";
import { FileReader, isObj } from "./read.js";

const WHAT = "Flipster's proof (merkle_proof.json)";

interface Doc {
  index: number;
  assets: { currency: string; balance: string }[];
  root: string;
  proofs: { at: string; hash: Uint8Array }[];
}

function read(text: string, o: InclusionOptions): Doc {
  const rd = new FileReader(o.file);
  const doc = rd.json(text);
  if (!isObj(doc)) throw rd.error(`not ${WHAT} (an object)`);
  rd.members(doc, ["leaf_index", "assets", "root", "proofs"], "", WHAT);
  const index = rd.int(doc, "leaf_index", "");
  if (index < 0) throw rd.error("leaf_index must not be negative");
  const assets = rd.field(doc, "assets", "", "array").map((a, i) => {
    const at = `assets[${i}]`;
    if (!isObj(a)) throw rd.error(`${at} must be an object`);
    rd.members(a, ["currency", "balance"], at, WHAT);
    const balance = rd.field(a, "balance", at, "string");
    if (!/^-?\d+(\.\d+)?$/.test(balance)) throw rd.error(`${at}.balance must be a plain decimal string`);
    return { currency: rd.field(a, "currency", at, "string"), balance };
  });
  const root = rd.field(doc, "root", "", "string");
  if (!/^[0-9a-fA-F]{64}$/.test(root)) throw rd.error("root must be 64 hex digits");
  const proofs = rd.field(doc, "proofs", "", "array").map((p, i) => {
    const at = `proofs[${i}]`;
    if (typeof p !== "string") throw rd.error(`${at} must be a base64 string`);
    let hash: Uint8Array;
    try {
      hash = base64.decode(p);
    } catch {
      throw rd.error(`${at} is not base64`);
    }
    if (hash.length !== 32) throw rd.error(`${at} is ${hash.length} bytes, not a SHA-256 hash's 32`);
    return { at, hash };
  });
  if (proofs.length > 64) throw rd.error(`proofs has ${proofs.length} levels (more than 64)`);
  return { index, assets, root: root.toLowerCase(), proofs };
}

/** Go's json.Marshal of a string: JSON with <, >, &, U+2028 and U+2029 escaped. */
const goString = (s: string) =>
  JSON.stringify(s).replace(
    /[<>&\u2028\u2029]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
  );

/** The two leaf rules of Flipster's verifier, by the commit that defines each. */
const RULES = [
  {
    name: "json.Marshal(assets) (Flipster's verifier before 11aac7b, 2025-03-06)",
    leaf: (d: Doc) =>
      `[${d.assets.map((a) => `{"currency":${goString(a.currency)},"balance":${goString(a.balance)}}`).join(",")}]`,
  },
  {
    name: '"|currency:balance…" (Flipster\'s verifier since 11aac7b "Fix hashing leaf element", 2025-03-10)',
    leaf: (d: Doc) => d.assets.map((a) => `|${a.currency}:${a.balance}`).join(""),
  },
] as const;

const walk = (d: Doc, leaf: Uint8Array): string => {
  let h = leaf;
  let i = d.index;
  for (const p of d.proofs) {
    h = sha256(i % 2 === 0 ? concatBytes(h, p.hash) : concatBytes(p.hash, h));
    i = Math.floor(i / 2);
  }
  return bytesToHex(h);
};

/** The customer's balances: none negative; the index within the tree the path's length makes. */
const documentStep = step<Doc>("document", ({ doc: d }, s) => {
  refuseNegative(
    s,
    d.assets.map((a) => [a.currency, parseDec(a.balance)!]),
    "assets",
    "the customer's leaf",
  );
  if (d.index >= 2 ** d.proofs.length)
    s.fail("document", `leaf_index ${d.index} is beyond a tree of ${d.proofs.length} levels`, "leaf_index");
  s.claim(
    "leaf",
    "the leaf hashes the balances alone, no customer id: two customers with the same balances share one leaf",
  );
});

/** Both leaf rules walked up the path; the one that reaches the file's root named. */
const pathStep = step<Doc>("path", (ctx, s) => {
  const d = ctx.doc;
  const reached = RULES.map((r) => ({ r, root: walk(d, sha256(utf8ToBytes(r.leaf(d)))) }));
  const held = reached.find((x) => x.root === d.root);
  ctx.fileRoot = d.root;
  ctx.rootAt = `level ${d.proofs.length} (root)`;
  if (held) {
    ctx.reached = held.root;
    s.ok("leaf", `the leaf is sha256 of ${held.r.name}`, "assets");
    s.ok("path", `${d.proofs.length} siblings reach ${held.root}`, ctx.rootAt);
  } else {
    ctx.reached = reached[1]!.root;
    s.fail(
      "path",
      `neither leaf rule reaches the file's root ${d.root}: ${reached.map((x) => `${x.r.name} reaches ${x.root}`).join("; ")}`,
      ctx.rootAt,
    );
  }
  if (held || ctx.options.root !== undefined)
    compareRoot(s, ctx.reached, held ? d.root : null, ctx.options.root, ctx.rootAt);
});

export const verify = verifierOf<Doc>({
  name: "flipster",
  sums: "inclusion-only",
  read,
  balances: (d) => d.assets.map((a) => ({ asset: a.currency, amount: a.balance })),
  steps: [documentStep, pathStep],
});
