/**
 * Bybit's Merkle-sum inclusion proofs (`bybit-exchange/merkle-proof`): `{self{auditId, balance, type, hash,
 * height, nonce, userHash}, path[{auditId, balance, type, hash, height, nonce}…, root]}`.
 *
 *  - leaf: sha256(userHash ‖ the amounts as written, in the coin list's order) — Java's `EnumMap` order of the
 *    version's coin enum, not the file's;
 *  - node: sha256(L ‖ R ‖ each sum ‖ height), every sum `setScale(8, DOWN).toPlainString()` (the first version:
 *    BTC and ETH at 8 places, USDT and USDC at 4), height the node's own (the leaf is 1);
 *  - a sibling of type 1 is on the left, any other on the right; the last node is the root (type 3), matched on
 *    its hash, its totals and its height.
 *
 * Bybit's coin list changed with its audits (coins added, BUSD and DAI dropped, BIT → MNT, RNDR → RENDER,
 * MATIC → POL, FTM → S, EOS → A): each list is a version, told apart by the file's coins, which must be
 * exactly one version's (a coin no version lists is refused by name and line).
 */
import { UsageError } from "../../errors/index.js";
import type { InclusionOptions } from "./check.js";
import {
  isHex,
  leafStep,
  pathVerifier,
  refuseNegative,
  refuseShortHash,
  sha256Hex,
  step,
  walkEnded,
} from "./check.js";
import { addDec, plainDec, truncateDec, ZERO } from "./decimal.js";
import { type Amount, amountsOf, FileReader, isObj, type Obj, type Sums } from "./read.js";

/** One coin list of Bybit's validator: its coins in the enum's order, each sum's places. */
export interface BybitVersion {
  label: string;
  /** the bybit-exchange/merkle-proof commit that defines it */
  commit: string;
  coins: readonly string[];
  /** places of each coin's sums (8 unless named) */
  places?: Readonly<Record<string, number>>;
}

const LIST20 = "AGLA APT ATOM AVAX BIT BTC BUSD DAI DOGE DOT DYDX EOS ETH FTM LTC MATIC SOL USDC USDT XRP";
const ADDED32 = "SHIB OP SAND LDO LINK COMP UNI MANA CRV BLUR SUSHI PEPE";
const ADDED40 = "WLD BEAM AGI FET IMX RNDR GALA APEX SHRAP";
const ADDED50 = "GRAM XAUT HYPE STABLE ENA ARB ASTER ONDO AAVE USD1";
const words = (s: string) => s.split(" ");
const rename = (list: readonly string[], from: string, to: string) => list.map((c) => (c === from ? to : c));
const MNT20 = rename(words(LIST20), "BIT", "MNT");
const V32 = [...MNT20, ...words(ADDED32)];
/** BUSD is offline from the 40-coin list on (in the enum, never summed: a file holding it cannot reach its root) */
const V40 = [...V32.filter((c) => c !== "BUSD"), ...words(ADDED40)];
const V40_2 = [...rename(V40, "RNDR", "RENDER").filter((c) => c !== "DAI"), "USDE"];
const V40_3 = rename(V40_2, "MATIC", "POL");
const V40_4 = rename(V40_3, "FTM", "S");
const V40_5 = rename(V40_4, "EOS", "A");

/** Every coin list of Bybit's validator, oldest first. */
export const BYBIT_VERSIONS: readonly BybitVersion[] = [
  {
    label: "4 coins (Dec 2022)",
    commit: "db52d2a",
    coins: ["BTC", "ETH", "USDT", "USDC"],
    places: { USDT: 4, USDC: 4 },
  },
  { label: "20 coins (Apr 2023)", commit: "e17ff10", coins: words(LIST20) },
  { label: "20 coins, BIT → MNT", commit: "ba26183", coins: MNT20 },
  { label: "32 coins", commit: "ba26183", coins: V32 },
  { label: "40 coins (Apr 2024)", commit: "ba26183", coins: V40 },
  { label: "40 coins v2 (Aug 2024: DAI out, RNDR → RENDER, USDE)", commit: "98000af", coins: V40_2 },
  { label: "40 coins v3 (Oct 2024: MATIC → POL)", commit: "a6b8956", coins: V40_3 },
  { label: "40 coins v4 (Jan 2025: FTM → S)", commit: "6b45130", coins: V40_4 },
  { label: "40 coins v5 (Jun 2025: EOS → A)", commit: "5630782", coins: V40_5 },
  { label: "50 coins (Jul 2026)", commit: "3f0e2da", coins: [...V40_5, ...words(ADDED50)] },
];

const WHAT = "Bybit's proof";
const SELF = ["auditId", "balance", "type", "hash", "height", "nonce", "userHash"];
const NODE = ["auditId", "balance", "type", "hash", "height", "nonce"];

interface Node {
  at: string;
  hash: string;
  type: number;
  height: number;
  balances: Amount[];
}

interface Doc {
  version: BybitVersion;
  userHash: string;
  self: Node;
  path: Node[];
}

/** The version whose coins are exactly these; else a usage error naming the coin the closest one lacks. */
function versionOf(balance: Obj, at: string, rd: FileReader): BybitVersion {
  const coins = Object.keys(balance);
  const exact = BYBIT_VERSIONS.find(
    (v) => v.coins.length === coins.length && coins.every((c) => v.coins.includes(c)),
  );
  if (exact) return exact;
  const miss = (v: BybitVersion) =>
    coins.filter((c) => !v.coins.includes(c)).length + v.coins.filter((c) => !coins.includes(c)).length;
  const closest = BYBIT_VERSIONS.reduce((a, b) => (miss(b) < miss(a) ? b : a));
  const extra = coins.find((c) => !closest.coins.includes(c));
  if (extra !== undefined)
    throw new UsageError(
      `${rd.where(balance, extra)}: ${at}.${extra}: no coin list of Bybit's has ${extra} beside these coins (the closest, ${closest.label}, ${closest.commit}, has ${closest.coins.join(" ")})`,
    );
  const lacking = closest.coins.filter((c) => !coins.includes(c));
  throw new UsageError(
    `${rd.file}: ${at} lacks ${lacking.join(", ")}: every coin of Bybit's list ${closest.label} (${closest.commit}) is in every node`,
  );
}

function read(text: string, o: InclusionOptions): Doc {
  const rd = new FileReader(o.file);
  const doc = rd.json(text);
  if (!isObj(doc)) throw rd.error(`not a Bybit proof (an object with self and path)`);
  rd.members(doc, ["self", "path"], "", WHAT);
  const selfObj = rd.field(doc, "self", "", "object");
  rd.members(selfObj, SELF, "self", WHAT);
  const version = versionOf(rd.field(selfObj, "balance", "self", "object"), "self.balance", rd);
  const node = (n: Obj, at: string): Node => {
    const balance = rd.field(n, "balance", at, "object");
    if (versionOf(balance, `${at}.balance`, rd) !== version)
      throw rd.error(`${at}.balance: another coin list than self's (${version.label})`);
    return {
      at,
      hash: rd.field(n, "hash", at, "string"),
      type: rd.int(n, "type", at),
      height: rd.int(n, "height", at),
      balances: rd.amounts(balance, `${at}.balance`),
    };
  };
  const path = rd.field(doc, "path", "", "array").map((n, i) => {
    const at = `path[${i}]`;
    if (!isObj(n)) throw rd.error(`${at} must be an object`);
    rd.members(n, NODE, at, WHAT);
    return node(n, at);
  });
  if (path.length < 2) throw rd.error(`path has ${path.length} nodes (a sibling, then the root)`);
  return {
    version,
    userHash: rd.field(selfObj, "userHash", "self", "string"),
    self: node(selfObj, "self"),
    path,
  };
}

/** The amounts in the version's order (the enum's), as written. */
const ordered = (d: Doc, a: Amount[]): Amount[] => d.version.coins.map((c) => a.find((x) => x.asset === c)!);
const leafOf = (d: Doc) =>
  sha256Hex(
    `${d.userHash}${ordered(d, d.self.balances)
      .map((x) => x.text)
      .join("")}`,
  );
const LEAF_AT = "level 1 (self)";

/** The leaf: sha256(userHash ‖ amounts in the coin list's order) against the file's. */
const leaf = leafStep<Doc>((d) => ({
  at: LEAF_AT,
  balances: d.self.balances,
  claimed: d.self.hash,
  computed: leafOf(d),
  formula: `sha256(userHash ‖ the ${d.version.coins.length} amounts in Bybit's coin order)`,
}));

/** Every level: the sibling's side and height, its amounts added, the node hashed with its sums and height. */
const pathStep = step<Doc>("path", (ctx, s) => {
  const d = ctx.doc;
  const { self, path, version } = d;
  const root = path.at(-1)!;
  const rootAt = `level ${path.length} (root)`;
  if (root.type !== 3) s.fail("path", `the last node has type ${root.type}, not 3 (the root)`, root.at);
  if (self.type !== 1 && self.type !== 2)
    s.fail("path", `self has type ${self.type}: neither left (1) nor right (2)`, LEAF_AT);
  if (path[0]!.type === self.type)
    s.fail("path", `self and its sibling are both of type ${self.type}`, LEAF_AT);
  if (self.height !== 1) s.fail("path", `self has height ${self.height}, not 1`, LEAF_AT);
  let cur = leafOf(d);
  let sums: Sums = new Map(amountsOf(self.balances));
  for (const [i, n] of path.slice(0, -1).entries()) {
    const at = `level ${i + 1} (${n.at})`;
    if (n.height !== i + 1) s.fail("path", `sibling of height ${n.height} where ${i + 1} belongs`, at);
    if (n.type < 1 || n.type > 4) s.fail("path", `sibling of type ${n.type} (Bybit's are 1…4)`, at);
    refuseShortHash(s, n.hash, at);
    if (!isHex(n.hash, 64)) s.fail("hash", `hash ${JSON.stringify(n.hash)} is not 64 hex digits`, at);
    refuseNegative(s, amountsOf(n.balances), at, "the sibling");
    const next: Sums = new Map();
    for (const c of version.coins) {
      const sib = n.balances.find((x) => x.asset === c)!.value;
      next.set(c, truncateDec(addDec(sums.get(c) ?? ZERO, sib), version.places?.[c] ?? 8));
    }
    sums = next;
    const height = i + 2;
    refuseNegative(s, sums, `level ${height}`, "the path's node");
    const text = version.coins.map((c) => plainDec(sums.get(c)!)).join("");
    cur =
      n.type === 1
        ? sha256Hex(`${n.hash}${cur}${text}${height}`)
        : sha256Hex(`${cur}${n.hash}${text}${height}`);
  }
  if (root.height !== path.length)
    s.fail("path", `the root has height ${root.height}; the path makes it ${path.length}`, rootAt);
  walkEnded(ctx, cur, root, { rootAt, sums, walked: `${path.length - 1} siblings (${version.label})` });
});

export const verify = pathVerifier<Doc>({
  name: "bybit",
  sums: "total",
  read,
  balances: (d) => ordered(d, d.self.balances).map((a) => ({ asset: a.asset, amount: a.text })),
  leaf,
  path: pathStep,
});
