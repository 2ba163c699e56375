/**
 * The Bitget family's Merkle-sum proofs: Bitget (2022 and 2025 layouts), its fork UZX, and Bitunix.
 *
 *  - leaf: sha256(encryptUid "," nonce "," JSON(balances)), Bitget and UZX keeping the first 16 hex digits
 *    (64 bits), Bitunix all 64;
 *  - node: sha256(L R "," JSON(sums) "," level) cut the same way, level the parent's (the root is 1);
 *  - JSON: the keys in Java HashMap's iteration order (not sorted, not the file's), the values as the tool
 *    spells them — Bitget 2025 quoted `stripTrailingZeros().toPlainString()`, UZX and Bitget 2022 bare
 *    `BigDecimal.toString()` with the scale kept (`0E-16`, `1.000000000E-7`), Bitunix quoted at each asset's
 *    precision.
 *  - Bitget's code hashed quoted files two ways over time: fastjson's default for its `Map<String,BigDecimal>`
 *    (unquoted `BigDecimal.toString()`, the scale kept: `86012252.80897580`; 6863e2d … 0fd82e9, the Sep 2025
 *    file ce8c0b9), then its own JSONUtils (quoted, trailing zeros stripped; 779bf2f, the Nov 2025 file).
 *    The file does not say which: the one that reproduces the customer's own leaf is used for the whole path
 *    and named (the values hashed are the file's either way; only their spelling differs), else the later.
 */
import type { InclusionOptions } from "./check.js";
import { checkSibling, leafStep, pathVerifier, refuseNegative, sha256Hex, step, walkEnded } from "./check.js";
import { addDec, type Dec, javaDec, plainDec, strippedDec, truncateDec, ZERO } from "./decimal.js";
import { type Amount, amountsOf, FileReader, isObj, type Sums } from "./read.js";

/** Java's `String.hashCode` (UTF-16 code units, 32-bit wrap). */
const javaHash = (s: string): number => {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(31, h) + s.charCodeAt(i)) | 0;
  return h;
};

/**
 * The order a `java.util.HashMap` of these keys (put in this order) iterates in: by bucket
 * `(h ^ h>>>16) & (capacity−1)` at the capacity the map grew to (16, doubled past 3/4 full), ties in the
 * order they were put (a resize keeps it).
 */
export function hashMapOrder(keys: readonly string[]): string[] {
  let cap = 16;
  while (keys.length > cap * 0.75) cap *= 2;
  const bucket = (k: string) => {
    const h = javaHash(k);
    return (h ^ (h >>> 16)) & (cap - 1);
  };
  return keys
    .map((k, i) => ({ k, i, b: bucket(k) }))
    .sort((x, y) => x.b - y.b || x.i - y.i)
    .map((x) => x.k);
}

type Spelling = "quoted-stripped" | "java" | "quoted-precision";

interface Variant {
  name: string;
  /** hex digits kept of each hash */
  cut: number;
  spelling: Spelling;
  /** the file's member names */
  leafKey: "merkelLeaf" | "merkleLeaf";
  levelKey: "level" | "height";
  sideKey: "role" | "type";
  /** every member a node of the tool's files has (beside `precisions` of Bitunix's self) */
  members: readonly string[];
  /** the tool's files, in words */
  what: string;
}

const BITGET: Variant = {
  name: "bitget",
  cut: 16,
  spelling: "quoted-stripped",
  leafKey: "merkelLeaf",
  levelKey: "level",
  sideKey: "role",
  members: ["auditId", "balances", "encryptUid", "level", "merkelLeaf", "nonce", "role"],
  what: "Bitget's proof (merkel_tree_bg.json)",
};
const UZX: Variant = { ...BITGET, name: "uzx", spelling: "java", what: "UZX's proof (merkel_tree_uzx.json)" };
const BITUNIX: Variant = {
  name: "bitunix",
  cut: 64,
  spelling: "quoted-precision",
  leafKey: "merkleLeaf",
  levelKey: "height",
  sideKey: "type",
  members: ["balances", "encryptUid", "height", "merkleLeaf", "nonce", "type"],
  what: "Bitunix's proof (merkle_tree_bitunix.json)",
};

interface Node {
  at: string;
  hash: string;
  level: number;
  side: number | undefined;
  balances: Amount[];
}

function readNode(n: unknown, at: string, v: Variant, rd: FileReader): Node {
  if (!isObj(n)) throw rd.error(`${at} must be an object`);
  const extra = at === "self" && v.spelling === "quoted-precision" ? ["precisions"] : [];
  rd.members(n, [...v.members, ...extra], at, v.what);
  return {
    at,
    hash: rd.field(n, v.leafKey, at, "string"),
    level: rd.int(n, v.levelKey, at),
    side: n[v.sideKey] === undefined ? undefined : rd.int(n, v.sideKey, at),
    balances: rd.amounts(n.balances, `${at}.balances`),
  };
}

/** How Bitget's code spelled the amounts it hashed, by its commits (the quoted files' two versions). */
const BITGET_CODE: Record<"quoted-stripped" | "java", string> = {
  java: "as fastjson writes a Map<String,BigDecimal> by default: unquoted, the scale kept (Bitget's code 6863e2d … 0fd82e9, to Sep 2025)",
  "quoted-stripped": "as Bitget's JSONUtils writes them: quoted, trailing zeros stripped (779bf2f, Nov 2025)",
};

interface Doc {
  v: Variant;
  /** the spelling its amounts are hashed in (Bitget's quoted files: the version whose leaf held) */
  spelling: Spelling;
  self: Node;
  uid: string;
  nonce: string;
  path: Node[];
  /** Bitunix: each asset's places */
  precision: Map<string, number>;
}

function readFamily(v: Variant, text: string, o: InclusionOptions): Doc {
  const rd = new FileReader(o.file);
  const doc = rd.json(text);
  if (!isObj(doc)) throw rd.error(`not a ${v.name} proof (an object with path and self)`);
  rd.members(doc, ["path", "self"], "", v.what);
  const selfObj = rd.field(doc, "self", "", "object");
  const path = rd.field(doc, "path", "", "array").map((n, i) => readNode(n, `path[${i}]`, v, rd));
  if (!path.length) throw rd.error(`path is empty (it ends with the root)`);
  const precision = new Map<string, number>();
  if (v.spelling === "quoted-precision") {
    const p = selfObj.precisions;
    if (!isObj(p)) throw rd.error(`self.precisions must be an object (each asset's places)`);
    for (const asset of Object.keys(p)) {
      const places = rd.int(p, asset, "self.precisions");
      if (places < 0 || places > 36)
        throw rd.error(`self.precisions.${asset} ${places}: not a number of places (0 to 36)`);
      precision.set(asset, places);
    }
  }
  const self = readNode(selfObj, "self", v, rd);
  cutNothing(precision, [self, ...path], rd);
  return {
    v,
    spelling: v.spelling,
    self,
    uid: rd.field(selfObj, "encryptUid", "self", "string"),
    nonce: rd.field(selfObj, "nonce", "self", "string"),
    path,
    precision,
  };
}

/**
 * Bitunix's nodes hash each sum cut to its asset's precision (`self.precisions`, which the file states): an
 * amount with more places than that is bound by no hash past them — with precision -3 (or 0 beside amounts of
 * eight places) a sibling's 5,998 ETH written 4,999 reaches the same root, the root's total 5,999 written
 * 5,000. Every amount at most its precision's places (the real files write them at exactly that), so the cut
 * drops nothing and the totals are bound; else exit 2, naming the member.
 */
function cutNothing(precision: Map<string, number>, nodes: Node[], rd: FileReader): void {
  for (const n of nodes)
    for (const a of n.balances) {
      const p = precision.get(a.asset);
      if (p !== undefined && a.value.scale > p)
        throw rd.error(
          `${n.at}.balances.${a.asset} ${a.text}: more places than the asset's precision ${p} (self.precisions): the nodes hash sums cut to ${p} places, so the digits past them are bound by no hash`,
        );
    }
}

/** The JSON the tool hashes: HashMap order, each value spelled as the tool does. */
function json(d: Doc, entries: [string, { raw?: string; value: Dec }][]): string {
  const byKey = new Map(entries);
  const spell = (asset: string, x: Dec): string =>
    d.spelling === "java"
      ? javaDec(x)
      : d.spelling === "quoted-stripped"
        ? JSON.stringify(strippedDec(x))
        : JSON.stringify(plainDec(truncateDec(x, d.precision.get(asset) ?? x.scale)));
  return `{${hashMapOrder(entries.map(([k]) => k))
    .map((k) => {
      const x = byKey.get(k)!;
      // the tools parse the amounts and write them again: only Bitunix's precision form keeps the file's text
      return `${JSON.stringify(k)}:${(d.spelling === "quoted-precision" ? x.raw : undefined) ?? spell(k, x.value)}`;
    })
    .join(",")}}`;
}

const cut = (d: Doc, h: string) => h.slice(0, d.v.cut);
const leafOf = (d: Doc) =>
  cut(
    d,
    sha256Hex(
      `${d.uid},${d.nonce},${json(
        d,
        d.self.balances.map((a) => [a.asset, a]),
      )}`,
    ),
  );

/**
 * Bitget's quoted files: the version of its code whose spelling reproduces the customer's leaf (the later one
 * when neither does), used for every level after.
 */
function bitgetVersion(d: Doc): Doc {
  if (d.v !== BITGET) return d;
  const older: Doc = { ...d, spelling: "java" };
  return leafOf(d) !== d.self.hash.toLowerCase() && leafOf(older) === d.self.hash.toLowerCase() ? older : d;
}

/** The leaf: sha256(encryptUid, nonce, balances), cut to the family's width, against the file's. */
const leaf = leafStep<Doc>((d) => ({
  at: `level ${d.self.level} (self)`,
  balances: d.self.balances,
  claimed: d.self.hash,
  computed: leafOf(d),
  formula: `sha256(encryptUid, nonce, balances${d.v === BITGET ? ` ${BITGET_CODE[d.spelling as "java"]}` : ""})`,
}));

/** Every sibling up to the root: its level and side, the sums in HashMap order, the parent's hash. */
const pathStep = step<Doc>("path", (ctx, s) => {
  const d = ctx.doc;
  const root = d.path.at(-1)!;
  let cur = leafOf(d);
  let level = d.self.level;
  let sums: Sums = new Map(amountsOf(d.self.balances));
  let mySide = d.self.side;
  for (const n of d.path.slice(0, -1)) {
    const at = `level ${n.level} (${n.at})`;
    if (n.level !== level) s.fail("path", `a sibling at level ${n.level} where level ${level} belongs`, at);
    checkSibling(s, n, at);
    const left = n.side === 1 || (n.side === 0 && mySide === 2);
    // the sum map: the left child's keys in its order, then the right child's new ones
    const next: Sums = new Map();
    for (const [asset, x] of left ? [...amountsOf(n.balances), ...sums] : [...sums, ...amountsOf(n.balances)])
      next.set(asset, addDec(next.get(asset) ?? ZERO, x));
    sums = next;
    level -= 1;
    const sumsJson = json(
      d,
      [...sums].map(([k, x]) => [k, { value: x }]),
    );
    if (n.side !== 1 && n.side !== 2 && n.side !== 0)
      s.fail(
        "path",
        `sibling with ${d.v.sideKey} ${n.side}: neither left (1), right (2) nor padding (0)`,
        at,
      );
    cur = cut(d, sha256Hex(`${left ? n.hash + cur : cur + n.hash},${sumsJson},${level}`));
    refuseNegative(s, sums, `level ${level}`, "the path's node");
    mySide = undefined;
  }
  const rootAt = `level ${root.level} (root)`;
  if (root.level !== level)
    s.fail("path", `the root is at level ${root.level}; the path ends at ${level}`, rootAt);
  walkEnded(ctx, cur, root, { rootAt, sums, walked: `${d.path.length - 1} siblings` });
});

const family = (v: Variant) =>
  pathVerifier<Doc>({
    name: v.name,
    sums: "total",
    read: (text, o) => bitgetVersion(readFamily(v, text, o)),
    balances: (d) => d.self.balances.map((a) => ({ asset: a.asset, amount: strippedDec(a.value) })),
    leaf,
    path: pathStep,
  });

export const verifyBitget = family(BITGET);
export const verifyUzx = family(UZX);
export const verifyBitunix = family(BITUNIX);
