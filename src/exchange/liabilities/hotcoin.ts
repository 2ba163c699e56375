/**
 * Hotcoin's Merkle-sum proofs (`hotcoinexchange/proof-of-reserves`, protocol `HOTCOIN-POR-SUM`): the customer's
 * `proof.json` (`{protocol, assets[{coin, decimals}], self{snapshotId, accountId, nonce, balances, leafHash,
 * leafIndex, leafCount}, path[{position, hash, balances}]}`) holds no root; the exchange publishes the root
 * apart, in `anchor.json` (`{protocol, assets, snapshotId, root, leafCount, userTotals}`), which plays --root's
 * part (`--anchor FILE`).
 *
 * Every hash is domain-separated: sha256(one byte of domain ‖ the fields as a compact JSON array of strings)
 * — 3 the asset configuration [protocol, coin, decimals…], 0 a leaf [protocol, snapshotId, config,
 * accountId, nonce, amounts…], 1 a node [protocol, config, L, R, sums…], 2 the padding node [protocol,
 * snapshotId, config] holding zeros. Amounts are canonical (`stripTrailingZeros().toPlainString()`, never
 * negative, no more places than the asset's decimals); the side of each sibling follows from the leaf's index,
 * padding only where the level's width leaves no sibling.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { UsageError } from "../../errors/index.js";
import type { InclusionOptions } from "./check.js";
import { leafStep, rootTotalsStep, step, verifierOf } from "./check.js";
import { addDec, type Dec, strippedDec, ZERO } from "./decimal.js";
import { type Amount, amountsOf, FileReader, isObj, type Obj, type Sums } from "./read.js";

const PROTOCOL = "HOTCOIN-POR-SUM";
const WHAT = "Hotcoin's proof (proof.json)";
const ANCHOR_WHAT = "Hotcoin's anchor file (anchor.json)";

/** Hotcoin's hash: sha256(domain byte ‖ the fields as a compact JSON array of strings), hex. */
export const hotcoinHash = (domain: number, fields: readonly string[]): string => {
  const body = utf8ToBytes(JSON.stringify(fields));
  const bytes = new Uint8Array(body.length + 1);
  bytes[0] = domain;
  bytes.set(body, 1);
  return bytesToHex(sha256(bytes));
};

interface Asset {
  coin: string;
  decimals: number;
}

interface Anchor {
  file: string;
  assets: Asset[];
  snapshotId: string;
  root: string;
  leafCount: number;
  totals: Amount[];
}

interface Doc {
  assets: Asset[];
  snapshotId: string;
  accountId: string;
  nonce: string;
  balances: Amount[];
  leafHash: string;
  leafIndex: number;
  leafCount: number;
  path: { at: string; position: "LEFT" | "RIGHT"; hash: string; balances: Amount[] }[];
  anchor?: Anchor;
  /** the protocol names the two files give (judged by a step) */
  protocols: { at: string; value: string }[];
}

function readAssets(v: unknown, at: string, rd: FileReader, what: string): Asset[] {
  if (!Array.isArray(v)) throw rd.error(`${at} must be an array of {coin, decimals}`);
  return v.map((a, i) => {
    if (!isObj(a)) throw rd.error(`${at}[${i}] must be an object`);
    rd.members(a, ["coin", "decimals"], `${at}[${i}]`, what);
    return {
      coin: rd.field(a, "coin", `${at}[${i}]`, "string"),
      decimals: rd.int(a, "decimals", `${at}[${i}]`),
    };
  });
}

function readAnchor(text: string, rd: FileReader): Anchor & { protocol: string } {
  const a = rd.json(text);
  if (!isObj(a)) throw rd.error(`not ${ANCHOR_WHAT} (an object)`);
  rd.members(a, ["protocol", "assets", "snapshotId", "root", "leafCount", "userTotals"], "", ANCHOR_WHAT);
  return {
    file: rd.file,
    protocol: rd.field(a, "protocol", "", "string"),
    assets: readAssets(a.assets, "assets", rd, ANCHOR_WHAT),
    snapshotId: rd.field(a, "snapshotId", "", "string"),
    root: rd.field(a, "root", "", "string"),
    leafCount: rd.int(a, "leafCount", ""),
    totals: rd.amounts(a.userTotals, "userTotals"),
  };
}

function read(text: string, o: InclusionOptions): Doc {
  const rd = new FileReader(o.file);
  if (o.tree !== undefined)
    throw new UsageError(`${o.tree.file}: Hotcoin's proofs take one more file, the anchor: --anchor FILE`);
  const doc = rd.json(text);
  if (!isObj(doc)) throw rd.error(`not ${WHAT} (an object)`);
  rd.members(doc, ["protocol", "assets", "self", "path"], "", WHAT);
  const self = rd.field(doc, "self", "", "object");
  rd.members(
    self,
    ["snapshotId", "accountId", "nonce", "balances", "leafHash", "leafIndex", "leafCount"],
    "self",
    WHAT,
  );
  const path = rd.field(doc, "path", "", "array").map((n, i) => {
    const at = `path[${i}]`;
    if (!isObj(n)) throw rd.error(`${at} must be an object`);
    rd.members(n, ["position", "hash", "balances"], at, WHAT);
    const position = rd.field(n, "position", at, "string");
    if (position !== "LEFT" && position !== "RIGHT")
      throw rd.error(`${at}.position must be "LEFT" or "RIGHT"`);
    return {
      at,
      position: position as "LEFT" | "RIGHT",
      hash: rd.field(n, "hash", at, "string"),
      balances: rd.amounts(n.balances, `${at}.balances`),
    };
  });
  const anchor =
    o.anchor === undefined ? undefined : readAnchor(o.anchor.text, new FileReader(o.anchor.file));
  return {
    assets: readAssets(doc.assets, "assets", rd, WHAT),
    snapshotId: rd.field(self, "snapshotId", "self", "string"),
    accountId: rd.field(self, "accountId", "self", "string"),
    nonce: rd.field(self, "nonce", "self", "string"),
    balances: rd.amounts(self.balances, "self.balances"),
    leafHash: rd.field(self, "leafHash", "self", "string"),
    leafIndex: rd.int(self, "leafIndex", "self"),
    leafCount: rd.int(self, "leafCount", "self"),
    path,
    anchor,
    protocols: [
      { at: `${o.file} protocol`, value: rd.field(doc as Obj, "protocol", "", "string") },
      ...(anchor ? [{ at: `${anchor.file} protocol`, value: anchor.protocol }] : []),
    ],
  };
}

const HASH = /^[0-9a-f]{64}$/;
const COIN = /^[A-Z][A-Z0-9]{0,15}$/;
const SNAPSHOT = /^(?:[A-Za-z0-9_-]{1,64}|\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})$/;
const AMOUNT = /^[0-9]+(?:\.[0-9]+)?$/;
const LEAF_AT = "level 0 (self)";

const configHash = (d: Doc) =>
  hotcoinHash(3, [PROTOCOL, ...d.assets.flatMap((a) => [a.coin, String(a.decimals)])]);
const amountsText = (d: Doc, sums: Sums) => d.assets.map((a) => strippedDec(sums.get(a.coin) ?? ZERO));
const leafOf = (d: Doc) =>
  hotcoinHash(0, [
    PROTOCOL,
    d.snapshotId,
    configHash(d),
    d.accountId,
    d.nonce,
    ...amountsText(d, new Map(amountsOf(d.balances))),
  ]);

/**
 * The document as Hotcoin's verifier takes it: the protocol, the assets (1-32, named, decimals 0-30, each
 * once) and the anchor's the same, the snapshot and leaf count the anchor's, the index within the count, every
 * hash 64 lower-case hex digits, and every node's amounts canonical: exactly the assets, not negative, no more
 * places than the asset's decimals, no trailing zeros.
 */
const documentStep = step<Doc>("document", ({ doc: d }, s) => {
  for (const p of d.protocols)
    if (p.value !== PROTOCOL)
      s.fail("document", `protocol ${JSON.stringify(p.value)}, not ${PROTOCOL}`, p.at);
  if (d.assets.length < 1 || d.assets.length > 32)
    s.fail("document", `${d.assets.length} assets (Hotcoin's protocol has 1…32)`, "assets");
  const seen = new Set<string>();
  for (const a of d.assets) {
    if (!COIN.test(a.coin)) s.fail("document", `coin ${JSON.stringify(a.coin)} is not a coin name`, "assets");
    if (a.decimals < 0 || a.decimals > 30)
      s.fail("document", `${a.coin} has ${a.decimals} decimals (0…30)`, "assets");
    if (seen.has(a.coin)) s.fail("document", `${a.coin} listed twice`, "assets");
    seen.add(a.coin);
  }
  if (!SNAPSHOT.test(d.snapshotId))
    s.fail("document", `snapshot ${JSON.stringify(d.snapshotId)} is not a snapshot id`, "self.snapshotId");
  for (const [what, h] of [
    ["self.leafHash", d.leafHash],
    ["self.accountId", d.accountId],
    ["self.nonce", d.nonce],
  ] as const)
    if (!HASH.test(h)) s.fail("hash", `${what} is not 64 lower-case hex digits`, what);
  if (d.leafIndex < 0 || d.leafIndex >= d.leafCount)
    s.fail("path", `leaf ${d.leafIndex} is outside the tree's ${d.leafCount} leaves`, LEAF_AT);
  const canonical = (balances: Amount[], at: string, whose: string) => {
    const coins = balances.map((b) => b.asset);
    for (const a of d.assets)
      if (!coins.includes(a.coin)) s.fail("balances", `${whose} has no ${a.coin} amount`, at);
    for (const b of balances) {
      const asset = d.assets.find((a) => a.coin === b.asset);
      if (!asset) s.fail("balances", `${whose} holds ${b.asset}, not among the assets`, at);
      else if (b.value.units < 0n || !AMOUNT.test(b.text))
        s.fail(
          "balances",
          `${whose} holds ${b.asset} ${b.text}: Hotcoin's amounts are plain and never negative`,
          at,
        );
      else if (b.value.scale > asset.decimals)
        s.fail("balances", `${whose} holds ${b.asset} ${b.text}, past its ${asset.decimals} decimals`, at);
      else if (strippedDec(b.value) !== b.text)
        s.fail(
          "balances",
          `${whose} holds ${b.asset} ${b.text}, not written canonically (${strippedDec(b.value)})`,
          at,
        );
    }
  };
  canonical(d.balances, LEAF_AT, "the customer's leaf");
  for (const [i, n] of d.path.entries()) {
    if (!HASH.test(n.hash))
      s.fail("hash", "the sibling's hash is not 64 lower-case hex digits", `level ${i} (${n.at})`);
    canonical(n.balances, `level ${i} (${n.at})`, "the sibling");
  }
  const a = d.anchor;
  if (a) {
    if (JSON.stringify(a.assets) !== JSON.stringify(d.assets))
      s.fail(
        "document",
        "the anchor's assets are not the proof's (coins, decimals and order)",
        `${a.file} assets`,
      );
    if (a.snapshotId !== d.snapshotId)
      s.fail(
        "document",
        `the anchor is of snapshot ${a.snapshotId}, the proof of ${d.snapshotId}`,
        `${a.file} snapshotId`,
      );
    if (a.leafCount !== d.leafCount || a.leafCount <= 0)
      s.fail(
        "path",
        `the anchor counts ${a.leafCount} leaves, the proof ${d.leafCount}`,
        `${a.file} leafCount`,
      );
    if (!HASH.test(a.root))
      s.fail("hash", "the anchor's root is not 64 lower-case hex digits", `${a.file} root`);
    canonical(a.totals, `${a.file} userTotals`, "the anchor's totals");
  }
  if (!s.failed())
    s.ok(
      "document",
      `${d.assets.length} assets (${d.assets.map((x) => x.coin).join(", ")}), leaf ${d.leafIndex} of ${d.leafCount}, every amount canonical`,
    );
});

/** The leaf: the domain-0 hash of the protocol, snapshot, configuration, account id, nonce and amounts. */
const leaf = leafStep<Doc>((d) => ({
  at: LEAF_AT,
  balances: d.balances,
  claimed: d.leafHash,
  computed: leafOf(d),
  formula: "sha256(0x00 ‖ [protocol, snapshot, config, accountId, nonce, amounts…])",
}));

/**
 * Every level: the sibling's side from the index (even: the sibling on the right), a padding sibling only
 * where the level's width leaves none and then exactly the domain-2 padding node holding zeros, the sums
 * canonical, the node the domain-1 hash; the path used up exactly when the width reaches one.
 */
const pathStep = step<Doc>("path", (ctx, s) => {
  const d = ctx.doc;
  const config = configHash(d);
  const padding = hotcoinHash(2, [PROTOCOL, d.snapshotId, config]);
  let cur = leafOf(d);
  let sums: Sums = new Map(amountsOf(d.balances));
  let index = d.leafIndex;
  let width = d.anchor?.leafCount ?? d.leafCount;
  let used = 0;
  for (; width > 1; used++) {
    const n = d.path[used];
    const at = `level ${used}${n ? ` (${n.at})` : ""}`;
    if (!n) {
      s.fail("path", `the path ends at level ${used}; a tree of ${d.leafCount} leaves needs more`, at);
      break;
    }
    const expected = index % 2 === 0 ? "RIGHT" : "LEFT";
    if (n.position !== expected)
      s.fail(
        "path",
        `the sibling stands ${n.position}; leaf ${d.leafIndex}'s sibling here is ${expected}`,
        at,
      );
    if ((index ^ 1) >= width && (n.hash !== padding || n.balances.some((b) => b.value.units !== 0n)))
      s.fail(
        "path",
        `no node stands here (the level is ${width} wide): the sibling must be the padding node ${padding} holding zero`,
        at,
      );
    const next: Sums = new Map();
    for (const a of d.assets)
      next.set(
        a.coin,
        addDec(sums.get(a.coin) ?? ZERO, n.balances.find((b) => b.asset === a.coin)?.value ?? ZERO),
      );
    sums = next;
    const [l, r] = expected === "RIGHT" ? [cur, n.hash] : [n.hash, cur];
    cur = hotcoinHash(1, [PROTOCOL, config, l, r, ...amountsText(d, sums)]);
    index = Math.floor(index / 2);
    width = Math.ceil(width / 2);
  }
  if (!s.failed()) s.ok("path", `${used} siblings reach ${cur}`, `level ${used} (root)`);
  if (used < d.path.length)
    s.fail(
      "path",
      `${d.path.length - used} siblings past the root (a tree of ${d.leafCount} leaves has ${used} levels)`,
      `level ${used}`,
    );
  const rootAt = `level ${used} (root)`;
  Object.assign(ctx, {
    reached: cur,
    fileRoot: d.anchor?.root ?? null,
    rootAt,
    sums: new Map([...sums].map(([k, v]): [string, Dec] => [k, v])),
    rootTotals: d.anchor?.totals,
    walked: `${used} siblings`,
  });
});

/** The root reached against the anchor's (and --root's): without either, the proof binds to no root. */
const rootStep = step<Doc>("root", (ctx, s) => {
  const { anchor } = ctx.doc;
  const given = ctx.options.root?.toLowerCase().replace(/^0x/, "");
  if (ctx.reached === null) return;
  if (anchor) {
    if (ctx.reached === anchor.root)
      s.ok("root", `the path reaches the anchor's root ${anchor.root} (${anchor.file})`, ctx.rootAt);
    else s.fail("root", `the path reaches ${ctx.reached}, not the anchor's root ${anchor.root}`, ctx.rootAt);
  }
  if (given !== undefined) {
    if (ctx.reached === given) s.ok("root", `the path reaches the given root ${given}`, ctx.rootAt);
    else s.fail("root", `the path reaches ${ctx.reached}, not the given root ${given}`, ctx.rootAt);
  }
  if (!anchor && given === undefined) ctx.rootSource = "none";
  if (!anchor && given === undefined)
    s.cannot(
      "root",
      `the path reaches ${ctx.reached}; Hotcoin's proof holds no root: its anchor file (--anchor FILE, published apart) gives the root and totals to compare`,
      ctx.rootAt,
    );
  if (!anchor)
    s.cannot(
      "sums",
      "the totals the sums must reach are in Hotcoin's anchor file (--anchor FILE)",
      ctx.rootAt,
    );
});

/** The root's totals, when the anchor gives them. */
const totalsStep = step<Doc>("sums", async (ctx, s) => {
  if (!ctx.doc.anchor) return;
  for (const f of await rootTotalsStep.run(ctx)) s.findings.push(f);
});

export const verify = verifierOf<Doc>({
  name: "hotcoin",
  sums: "total",
  read,
  balances: (d) => d.balances.map((b) => ({ asset: b.asset, amount: b.text })),
  steps: [documentStep, leaf, pathStep, totalsStep, rootStep],
});
