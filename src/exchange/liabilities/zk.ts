/**
 * The Binance family's zk-SNARK user proofs (Binance's `user_config.json`, and its forks Gate and HTX v2):
 * an account leaf Poseidon(AccountIdHash, TotalEquity, TotalDebt[, TotalCollateral], assets commitment) over
 * the BN254 scalar field, 28 Poseidon siblings (base64) to the account tree root, the direction bits from the
 * account index.
 *
 * HTX's and Gate's leaves and paths are recomputed with the Poseidon of the bnb-chain gnark-crypto fork they
 * pin (poseidon.ts): the leaf Poseidon(id, equity, debt, assets commitment), the commitment Poseidon over the
 * assets (HTX: each asset's balance; Gate: equity and debt packed three to an element as a·2^128 + b·2^64 +
 * c) for the tool's number of asset slots, which the file does not say: the counts the tools' histories used
 * are tried first, then every count up to 1024, and the one that reaches the root is named. Binance's 2024
 * files add TotalCollateral to the leaf and pack five amounts a slot (Equity, Debt, Loan, Margin,
 * PortfolioMargin) as Gate packs two — the form its published sample reaches its root with, 350 slots —; its
 * code since Sep 2024 (5d26d4f) hashes another form, tried next: each slot [Index, Equity, Debt, Loan, Margin,
 * PortfolioMargin] with the slots it pads numbered, 50 or 500 slots, and the Poseidon of the later fork (16
 * inputs a block). Always checked: the shape, every sibling and the root a BN254 field element, the index
 * within the tree, the amounts whole and not negative, the root against --root.
 */
import { UsageError } from "../../errors/index.js";
import { JsonNumber, type JsonValue } from "../../json/value.js";
import {
  type InclusionFormat,
  type InclusionOptions,
  isObj,
  type Obj,
  readJson,
  step,
  verifierOf,
} from "./check.js";

/** BN254's scalar field (gnark's fr): every sibling and root must be below it. */
const FR = 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001n;
const DEPTH = 28;
/** the largest number of asset slots tried when the file's is not among the known ones */
const MAX_SLOTS = 1024;

interface Variant {
  name: string;
  title: string;
  index: string;
  id: string;
  totals: string[];
  assets: string;
  amounts: string[];
  root: string;
  proof: string;
  /** how the assets enter the leaf: HTX's balances one an element; Gate's and Binance's amounts packed three to an element */
  commitment: "balances" | "packed";
  /** asset slot counts the tool's published versions used, tried first */
  knownSlots?: number[];
  /** Binance's code since Sep 2024: slot counts of its numbered-slot commitment, tried when no count reaches */
  indexedTiers?: number[];
}

const BINANCE: Variant = {
  name: "binance",
  title: "Binance",
  index: "AccountIndex",
  id: "AccountIdHash",
  totals: ["TotalEquity", "TotalDebt", "TotalCollateral"],
  assets: "Assets",
  amounts: ["Equity", "Debt", "Loan", "Margin", "PortfolioMargin"],
  root: "Root",
  proof: "Proof",
  commitment: "packed",
  knownSlots: [350, 500, 50],
  indexedTiers: [50, 500],
};
const GATE: Variant = {
  name: "gate",
  title: "Gate",
  index: "Arrangement",
  id: "UniqueIdentification",
  totals: ["TotalAssetEquity", "TotalAssetDebt"],
  assets: "AssetDetails",
  amounts: ["Equity", "Debt"],
  root: "TreeRootHash",
  proof: "MerkleProofEncode",
  commitment: "packed",
  knownSlots: [800, 500, 350],
};
const HTX: Variant = {
  name: "htx-zk",
  title: "HTX",
  index: "AccountIndex",
  id: "AccountIdHash",
  totals: ["TotalEquity", "TotalDebt"],
  assets: "Assets",
  amounts: ["Balance"],
  root: "Root",
  proof: "Proof",
  commitment: "balances",
  knownSlots: [168, 174, 205],
};

/** A JSON whole number (any size), or a usage error naming the field; its sign kept for the finding. */
function whole(v: JsonValue | undefined, at: string, file: string): bigint {
  if (!(v instanceof JsonNumber) || !/^-?\d+$/.test(v.raw))
    throw new UsageError(`${file}: ${at} must be a whole number`);
  return BigInt(v.raw);
}

const hexField = (h: string): bigint | undefined =>
  /^(0x)?[0-9a-fA-F]{1,64}$/.test(h) ? BigInt(`0x${h.replace(/^0x/, "")}`) : undefined;

/** A file of the family as read: every member the checks need, of its type (else exit 2, naming it). */
interface Doc {
  v: Variant;
  doc: Obj;
  index: bigint;
  id: string;
  assets: Obj[];
  root: string;
  proof: string[];
}

function read(v: Variant, text: string, o: InclusionOptions): Doc {
  const doc = readJson(text, o.file);
  if (!isObj(doc)) throw new UsageError(`${o.file}: not a ${v.title} zk user proof (an object)`);
  const need = (key: string): JsonValue => {
    if (!(key in doc)) throw new UsageError(`${o.file}: ${key} is missing`);
    return doc[key] as JsonValue;
  };
  const index = whole(need(v.index), v.index, o.file);
  for (const t of v.totals.filter((t, i) => i < 2 || t in doc)) whole(need(t), t, o.file);
  const id = need(v.id);
  if (typeof id !== "string" || hexField(id) === undefined)
    throw new UsageError(`${o.file}: ${v.id} must be hex (32 bytes)`);
  const assets = need(v.assets);
  if (!Array.isArray(assets)) throw new UsageError(`${o.file}: ${v.assets} must be an array`);
  for (const [i, a] of assets.entries()) {
    const at = `${v.assets}[${i}]`;
    if (!isObj(a)) throw new UsageError(`${o.file}: ${at} must be an object`);
    whole(a.Index, `${at}.Index`, o.file);
    for (const [j, k] of v.amounts.entries()) if (j < 2 || k in a) whole(a[k], `${at}.${k}`, o.file);
  }
  const root = need(v.root);
  if (typeof root !== "string" || hexField(root) === undefined)
    throw new UsageError(`${o.file}: ${v.root} must be hex (32 bytes)`);
  const proof = need(v.proof);
  if (!Array.isArray(proof) || proof.some((p) => typeof p !== "string"))
    throw new UsageError(`${o.file}: ${v.proof} must be an array of base64 strings`);
  return { v, doc, index, id, assets: assets as Obj[], root, proof: proof as string[] };
}

/** The document: every field element of BN254, the index within the tree, no negative amount, assets ascending. */
const documentStep = step<Doc>("document", (ctx, s) => {
  const { v, doc, index, id, assets, root, proof } = ctx.doc;
  const file = ctx.options.file;
  for (const t of v.totals.filter((t, i) => i < 2 || t in doc))
    if (whole(doc[t], t, file) >= FR) s.fail("leaf", `${t} is not a BN254 field element`, t);
  if (index < 0n || index >= 1n << BigInt(DEPTH))
    s.fail("path", `${v.index} ${index} is outside a tree of depth ${DEPTH}`, v.index);
  if ((hexField(id) as bigint) >= FR) s.fail("leaf", `${v.id} is not a BN254 field element`, v.id);
  // the first two totals and amounts are in every version; Binance's later ones (collateral, loan, margin)
  // only in files from 2024
  for (const [i, t] of v.totals.entries()) {
    if (i >= 2 && !(t in doc)) continue;
    const x = whole(doc[t], t, file);
    if (x < 0n) s.fail("balances", `${t} is negative (${x})`, t);
  }
  const balances: { asset: string; amount: string }[] = [];
  let last = -1n;
  for (const [i, a] of assets.entries()) {
    const at = `${v.assets}[${i}]`;
    const idx = whole(a.Index, `${at}.Index`, file);
    if (idx <= last) s.fail("leaf", `asset index ${idx} after ${last}: the list must ascend`, at);
    last = idx;
    for (const [j, k] of v.amounts.entries()) {
      if (j >= 2 && !(k in a)) continue;
      const x = whole(a[k], `${at}.${k}`, file);
      if (x < 0n) s.fail("balances", `asset #${idx} ${k} is negative (${x})`, at);
      else if (x >= 1n << 64n) s.fail("balances", `asset #${idx} ${k} does not fit 64 bits (${x})`, at);
      // the customer's balances: what they hold and owe (in the tool's base units); the rest is collateral
      if (j === 0 || (j === 1 && x !== 0n))
        balances.push({ asset: `#${idx} ${k.toLowerCase()}`, amount: x.toString() });
    }
  }
  ctx.balances = balances;
  if ((hexField(root) as bigint) >= FR) s.fail("root", `${v.root} is not a BN254 field element`, v.root);
  if (proof.length !== DEPTH)
    s.fail("path", `${proof.length} siblings; the account tree has depth ${DEPTH}`, v.proof);
  for (const [i, p] of proof.entries()) {
    const at = `level ${i + 1} (${v.proof}[${i}])`;
    const bytes = Buffer.from(p, "base64");
    if (bytes.toString("base64") !== p || bytes.length !== 32) {
      s.fail("hash", `sibling is not 32 bytes of base64 (${bytes.length} bytes)`, at);
      continue;
    }
    if (BigInt(`0x${bytes.toString("hex")}`) >= FR)
      s.fail("hash", "sibling is not a BN254 field element", at);
  }
  if (!s.failed())
    s.ok(
      "document",
      `${DEPTH} siblings and the root are BN254 field elements; ${assets.length} assets, none negative`,
    );
});

/**
 * The path (when the document holds): the leaf Poseidon(id, totals, assets commitment) for the tool's number
 * of asset slots (tried, or --asset-slots), and its 28 Poseidon siblings, against the file's root.
 */
const pathStep = step<Doc>("path", async (ctx, s) => {
  const { v, doc, index, id, assets, root, proof } = ctx.doc;
  const o = ctx.options;
  if (!s.failed()) {
    const { PoseidonChain, poseidonHash } = await import("./poseidon.js");
    // every amount the variant hashes; a later one (Binance's Loan, Margin…) absent from a file counts 0
    const fields = v.amounts.length;
    const amounts = assets.map((a) => ({
      index: Number(whole((a as Obj).Index, "Index", o.file)),
      values: v.amounts.map((k) => (k in (a as Obj) ? whole((a as Obj)[k], k, o.file) : 0n)),
    }));
    const top = Math.max(-1, ...amounts.map((a) => a.index)) + 1;
    const leafTotals = v.totals.filter((t, i) => i < 2 || t in doc);
    const totals = leafTotals.map((t) => whole(doc[t], t, o.file));
    const idHash = hexField(id as string) as bigint;
    const siblings = (proof as string[]).map((p) => BigInt(`0x${Buffer.from(p, "base64").toString("hex")}`));
    const rootValue = hexField(root as string) as bigint;
    const pack3 = (flat: bigint[], n: number) =>
      Array.from(
        { length: n },
        (_, i) => ((flat[3 * i] ?? 0n) << 128n) + ((flat[3 * i + 1] ?? 0n) << 64n) + (flat[3 * i + 2] ?? 0n),
      );
    // the asset elements for the largest count tried, asset #i at slot i; a count takes a prefix of them
    const flat = new Array<bigint>(MAX_SLOTS * fields).fill(0n);
    for (const a of amounts) for (const [j, x] of a.values.entries()) flat[fields * a.index + j] = x;
    const packed = v.commitment === "packed";
    const countOf = (slots: number) => (packed ? Math.floor((slots * fields + 2) / 3) : slots);
    const chain = new PoseidonChain(packed ? pack3(flat, countOf(MAX_SLOTS)) : flat);
    const reach = (commitment: bigint): bigint => {
      let node = poseidonHash([idHash, ...totals, commitment]);
      for (let i = 0; i < DEPTH; i++)
        node =
          (index >> BigInt(i)) & 1n
            ? poseidonHash([siblings[i] as bigint, node])
            : poseidonHash([node, siblings[i] as bigint]);
      return node;
    };
    const tries =
      o.assetSlots !== undefined
        ? [o.assetSlots]
        : [
            ...new Set([
              ...(v.knownSlots ?? []).filter((n) => n >= top),
              ...Array.from({ length: MAX_SLOTS }, (_, i) => i + 1).filter((n) => n >= Math.max(top, 1)),
            ]),
          ];
    if (o.assetSlots !== undefined && o.assetSlots < top)
      s.fail("leaf", `--asset-slots ${o.assetSlots}: the file holds asset #${top - 1}`, v.assets);
    const leafText = `the leaf Poseidon(${v.id}, ${leafTotals.join(", ")}, assets)`;
    let reached: string | undefined;
    const slots = tries.find((n) => reach(chain.hashPrefix(countOf(n))) === rootValue);
    if (slots !== undefined)
      reached = `${leafText} with ${slots} asset slots${o.assetSlots !== undefined ? " (--asset-slots)" : ""}`;
    else if (v.indexedTiers) {
      // Binance's code since Sep 2024: each slot [Index, amounts…], the padding slots numbered too, the
      // smallest tier that holds the list, and the later fork's Poseidon (16 inputs a block)
      const tier = o.assetSlots ?? v.indexedTiers.find((t) => t >= assets.length);
      if (tier !== undefined && tier >= assets.length) {
        const w = fields + 1;
        const slotted = new Array<bigint>(tier * w).fill(0n);
        let at = 0;
        let next = 0;
        let padded = 0;
        for (const a of amounts) {
          for (let j = next; j < a.index && padded < tier - assets.length; j++, padded++)
            slotted[w * at++] = BigInt(j);
          slotted[w * at] = BigInt(a.index);
          for (const [k, x] of a.values.entries()) slotted[w * at + 1 + k] = x;
          at++;
          next = a.index + 1;
        }
        for (; at < tier; at++) slotted[w * at] = BigInt(next++);
        if (reach(poseidonHash(pack3(slotted, Math.floor((tier * w + 2) / 3)), 16)) === rootValue)
          reached = `${leafText} with ${tier} numbered asset slots (Binance's code since Sep 2024)`;
      }
    }
    const rootAt = `level ${DEPTH} (${v.root})`;
    if (reached !== undefined)
      s.ok("path", `${reached} and its ${DEPTH} Poseidon siblings reach the root`, rootAt);
    else
      s.fail(
        "path",
        `the leaf and its ${DEPTH} Poseidon siblings ${o.assetSlots !== undefined ? `miss the file's root with ${o.assetSlots} asset slots (--asset-slots)` : `reach the file's root with no count of asset slots up to ${MAX_SLOTS}`}${v.indexedTiers ? `, nor with the numbered slots of Binance's code since Sep 2024 (${o.assetSlots ?? v.indexedTiers.join(" or ")} slots)` : ""}: a balance, a total, the index or a sibling is not the one the root was built from`,
        rootAt,
      );
  }
});

/** The file's root against --root, else said to come from the file itself. */
const rootZk = step<Doc>("root", (ctx, s) => {
  const { v, root } = ctx.doc;
  const o = ctx.options;
  const r = root.toLowerCase().replace(/^0x/, "");
  ctx.reached = r;
  if (o.root !== undefined) {
    if (o.root.toLowerCase().replace(/^0x/, "") === r)
      s.ok("root", `the file's root is the given root ${r}`, v.root);
    else s.fail("root", `the file's proof is for root ${r}, not the given root ${o.root}`, v.root);
  } else s.claim("root", `the file's root ${r} came from the file itself (--root HEX compares it)`, v.root);
});

/** What the file cannot show: the totals and every other account, proven only by the Groth16 batch proofs. */
const sumsClaim = step<Doc>("sums", (_, s) => {
  s.claim(
    "sums",
    "the totals against the balances (at the exchange's prices) and every other account's non-negative balances are proven only by the exchange's Groth16 batch proofs, which chaingw does not check",
  );
});

const family = (v: Variant): InclusionFormat<Doc> => ({
  name: v.name,
  read: (text, o) => read(v, text, o),
  steps: [documentStep, pathStep, rootZk, sumsClaim],
});

export const verifyBinance = verifierOf(family(BINANCE));
export const verifyGate = verifierOf(family(GATE));
export const verifyHtx = verifierOf(family(HTX));
