/**
 * `liabilities verify`'s checks of a merkle-sum-sha256/v2 proof (a tree per asset, docs/liabilities.md):
 * its reading, its leaves (k parts of each asset held, once each, inside that asset's tree), each leaf
 * recomputed and walked up its tree with single sums to the tree's committed root and total, and the assets
 * its balances must list (the assets held; verify.ts's one balances step checks them for both constructions).
 * verify.ts's steps call them for a v2 proof.
 */
import type { Finding } from "../reserves/verdict.js";
import { fails, ok } from "../reserves/verifier.js";
import { quoted } from "../util/text.js";
import type { Commitment } from "./commitment.js";
import {
  getAmount,
  hex,
  leafInputV2,
  MAX_AMOUNT,
  parentOf,
  putAmount,
  RECORD_V2,
  sha256Native,
} from "./format.js";
import type { ProofLeafV2 } from "./proof.js";
import { isObj, unknownMember } from "./read.js";

const HEX32 = /^[0-9a-f]{64}$/;
const LEAF_MEMBERS = ["asset", "index", "part", "parts", "tag", "hash", "amount", "path"] as const;
const short = (h: string) => `${h.slice(0, 12)}…`;

/** Base units from a proof's text, or a failing finding (not an exception): negative, malformed, past 128 bits. */
export function amount(text: string, where: string, at: string, out: Finding[]): bigint | undefined {
  const bad = (why: string) => {
    out.push(fails("path", `${where} ${why}`, at));
    return undefined;
  };
  if (/^-\d+$/.test(text)) return bad(`is negative (${text})`);
  if (!/^\d{1,40}$/.test(text))
    return bad(`is not a whole number of base units (${quoted(text.slice(0, 40))})`);
  const v = BigInt(text);
  return v > MAX_AMOUNT ? bad(`overflows 128 bits (${text})`) : v;
}

/** A v2 proof's leaves, read (their types only: the values are judged by the steps). */
export function leavesV2From(leaves: unknown[], bad: (why: string) => void): void {
  for (const [i, l] of leaves.entries()) {
    if (!isObj(l)) {
      bad(`leaves[${i}] is not an object`);
      continue;
    }
    const extra = unknownMember(l, LEAF_MEMBERS);
    if (extra !== undefined) bad(`leaves[${i}]: member ${quoted(extra)} is not part of the format`);
    for (const k of ["index", "part", "parts"])
      if (!Number.isSafeInteger(l[k])) bad(`leaves[${i}].${k} is not a whole number`);
    for (const k of ["asset", "tag", "hash", "amount"])
      if (typeof l[k] !== "string") bad(`leaves[${i}].${k} is not text`);
    if (!Array.isArray(l.path)) bad(`leaves[${i}].path is not a list`);
    else
      l.path.forEach((s, j) => {
        if (
          !isObj(s) ||
          unknownMember(s, ["hash", "sum"]) !== undefined ||
          typeof s.hash !== "string" ||
          typeof s.sum !== "string"
        )
          bad(`leaves[${i}].path[${j}] is not {hash, sum}`);
      });
  }
}

/** The leaves: every asset's parts 0 … parts−1 once each, one `parts` for all, inside that asset's tree. */
export function leavesV2(c: Commitment, leaves: ProofLeafV2[]): Finding[] {
  const out: Finding[] = [];
  const bad = (text: string, at = "leaves") => out.push(fails("leaves", text, at));
  const index = new Map(c.assets.map((a, i) => [a.asset, i]));
  const parts = leaves[0]?.parts ?? 0;
  const seen = new Map<string, Set<number>>();
  const places = new Set<string>();
  for (const [k, l] of leaves.entries()) {
    const at = `leaves[${k}]`;
    const a = index.get(l.asset);
    if (a === undefined) {
      bad(`leaf ${l.index}: asset ${quoted(l.asset)} is not in the commitment`, at);
      continue;
    }
    if (l.parts !== parts) bad(`leaf ${l.index} says ${l.parts} parts, another says ${parts}`, at);
    const mine = seen.get(l.asset) ?? new Set<number>();
    seen.set(l.asset, mine);
    if (l.part < 0 || l.part >= parts || mine.has(l.part))
      bad(`${l.asset} leaf ${l.index}: part ${l.part} of ${parts} is out of place or given twice`, at);
    mine.add(l.part);
    if (places.has(`${a} ${l.index}`)) bad(`${l.asset} leaf ${l.index} is given twice`, at);
    places.add(`${a} ${l.index}`);
    const L = 2 ** c.trees![a].height;
    if (l.index < 0 || l.index >= L)
      bad(`${l.asset} leaf index ${l.index} is outside its tree (${L} leaves)`, at);
  }
  for (const [asset, mine] of seen)
    for (let p = 0; p < parts; p++)
      if (!mine.has(p))
        bad(
          `${asset}: part ${p} of ${parts} is missing: the proof does not carry all of this customer's leaves`,
        );
  return out;
}

const record = (hashHex: string, sum: bigint): Uint8Array => {
  const r = new Uint8Array(RECORD_V2);
  r.set(Buffer.from(hashHex, "hex"), 0);
  putAmount(r, 32, sum);
  return r;
};

/**
 * A leaf recomputed from the tag, its asset, part and amount, walked up its asset's tree (every sibling sum
 * checked, every addition against overflow) to that tree's committed root and total; `sum[a]` gets its amount.
 */
export function walkLeafV2(
  c: Commitment,
  tag: Uint8Array,
  sum: bigint[],
  l: ProofLeafV2,
  where: string,
): Finding[] {
  const out: Finding[] = [];
  const a = c.assets.findIndex((x) => x.asset === l.asset);
  if (a < 0) return out;
  const tree = c.trees![a];
  const at = `${l.asset} leaf ${l.index}`;
  const bad = (text: string, field = where) => out.push(fails("path", text, field));
  const x = amount(l.amount, `${at}: the amount`, `${where}.amount`, out);
  if (x === undefined) return out;
  sum[a] += x;
  if (l.path.length !== tree.height) {
    bad(
      `${at}: the path has ${l.path.length} steps, the ${l.asset} tree is ${tree.height} high`,
      `${where}.path`,
    );
    return out;
  }
  const own = new Uint8Array(16);
  putAmount(own, 0, x);
  const computed = hex(sha256Native(leafInputV2(tag, a, l.part, l.parts, own)));
  if (computed !== l.hash) {
    if (l.tag !== hex(tag)) bad(`${at} is another customer's: its tag is not HMAC-SHA256(secret, id)`);
    else bad(`${at}: the amount (or the part) was edited: it does not hash to the leaf the path starts from`);
  }
  let node: Uint8Array | undefined = record(computed, x);
  let i = l.index;
  for (let level = 0; level < tree.height; level++) {
    const step = l.path[level];
    const stepAt = `${where}.path[${level}]`;
    if (!HEX32.test(step.hash)) {
      bad(`${at}: path step ${level} is not a 32-byte hash`, stepAt);
      return out;
    }
    const s = amount(step.sum, `${at}: the sibling's sum at level ${level}`, `${stepAt}.sum`, out);
    if (s === undefined) return out;
    const sib = record(step.hash, s);
    node = i & 1 ? parentOf(sib, node, 1) : parentOf(node, sib, 1);
    if (!node) {
      bad(`${at}: a sum overflows 128 bits at level ${level + 1}: it does not add up`, stepAt);
      return out;
    }
    i >>= 1;
  }
  const rootHex = hex(node.subarray(0, 32));
  const top = `${where}.path[${tree.height - 1}]`;
  if (rootHex !== tree.root)
    bad(
      `${at}: the path leads to ${short(rootHex)}, not to the committed ${l.asset} root ${short(tree.root)}`,
      top,
    );
  const got = getAmount(node, 32);
  if (got.toString() !== c.totals[a].base_units)
    bad(
      `${at}: the path's sums add up to ${got} base units at the ${l.asset} root, the commitment's total is ${c.totals[a].base_units}: a sum does not add up`,
      top,
    );
  else if (rootHex === tree.root)
    out.push(
      ok("path", `${at} reaches the committed ${l.asset} root ${short(tree.root)} with its total`, where),
    );
  return out;
}

/** The assets a v2 proof's leaves are of, in the commitment's order: what its balances must list. */
export function heldBy(c: Commitment, leaves: ProofLeafV2[]): number[] {
  return c.assets.map((_, a) => a).filter((a) => leaves.some((l) => l.asset === c.assets[a].asset));
}
