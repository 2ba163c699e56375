/**
 * The Binance family's zk-SNARK user proofs (Binance's `user_config.json`, and its forks Gate and HTX v2):
 * an account leaf Poseidon(AccountIdHash, TotalEquity, TotalDebt[, TotalCollateral], assets commitment) over
 * the BN254 scalar field, 28 Poseidon siblings (base64) to the account tree root, the direction bits from the
 * account index.
 *
 * HTX's and Gate's leaves and paths are recomputed with the Poseidon of the bnb-chain gnark-crypto fork they
 * pin (poseidon.ts): the leaf Poseidon(id, equity, debt, assets commitment), the commitment Poseidon over the
 * assets (HTX: each asset's balance; Gate: equity and debt packed three to an element as a·2^128 + b·2^64 +
 * c) for the tool's number of asset slots, which the file does not say: the counts the version's code used
 * are tried, no others (a file that reaches no root there names `--asset-slots N`, which tries N), and the one
 * that reaches the root is named. Each version is told apart by its members (`ZkVersion`: Binance's of Dec
 * 2022 packs Equity and Debt as Gate does; of Jul 2024 names the loan `VipLoan`, of Sep 2024 `Loan`); a member
 * no version has is refused by name. Binance's 2024
 * files add TotalCollateral to the leaf and pack five amounts a slot (Equity, Debt, Loan, Margin,
 * PortfolioMargin) as Gate packs two — the form its published sample reaches its root with, 350 slots —; its
 * code since Sep 2024 (5d26d4f) hashes another form, tried next: each slot [Index, Equity, Debt, Loan, Margin,
 * PortfolioMargin] with the slots it pads numbered, 50 or 500 slots, and the Poseidon of the later fork (16
 * inputs a block). Always checked: the shape, every sibling and the root a BN254 field element, the index
 * within the tree, the amounts whole and not negative, the root against --root.
 */
import { JsonNumber, type JsonValue } from "../../json/value.js";
import { amountText } from "../../util/units.js";
import type { CustomerBalance, InclusionFormat, InclusionOptions } from "./check.js";
import { OWN_ROOT, step, verifierOf } from "./check.js";
import { FileReader, isObj, type Obj } from "./read.js";

/** BN254's scalar field (gnark's fr): every sibling and root must be below it. */
const FR = 0x30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001n;
const DEPTH = 28;

/**
 * One version of a tool's user proof, told apart by its members: the totals in the leaf and each asset's
 * amounts (in the order the tool packs them, as this version's files name them), the asset slot counts its
 * code used (tried in that order, and no others: a file that reaches no root at them names --asset-slots N).
 */
export interface ZkVersion {
  /** "2022-12", and the publisher's commit that defines it */
  label: string;
  commit: string;
  totals: readonly string[];
  amounts: readonly string[];
  /**
   * The assets this version's code surely writes at 2 places (×100): its `AssetTypeForTwoDigits` matched on a
   * lower-cased symbol. Where unset, a symbol of the family's two-place lists may be at 2 or 8 places: the
   * code looked the symbol up as the exchange's input spelled it, against upper-case keys.
   */
  twoPlaces?: ReadonlySet<string>;
  knownSlots: readonly number[];
  /** the publisher's commits whose code used a count (where the count alone tells the versions apart) */
  slotCommits?: Readonly<Record<number, string>>;
  /** Binance's code since Sep 2024: slot counts of its numbered-slot commitment, tried when no count reaches */
  indexedTiers?: readonly number[];
  /**
   * Set when the publisher's own sample was built before the version's code, by hashing chaingw cannot redo:
   * what that was. A file of the version that misses its root, and whose tree shows that hashing (its two top
   * siblings chain as empty subtrees under the Poseidon before the fork's "Fix poseidon output": state[0]
   * out), is then "cannot say"; any other miss does not hold, since the code's own hashing is reproduced.
   */
  prerelease?: string;
}

interface Variant {
  name: string;
  title: string;
  index: string;
  id: string;
  assets: string;
  root: string;
  proof: string;
  /** how the assets enter the leaf: HTX's balances one an element; Gate's and Binance's amounts packed three to an element */
  commitment: "balances" | "packed";
  /** the versions its publisher's history shows, oldest first */
  versions: readonly ZkVersion[];
  /**
   * How the tool writes an amount: the decimal × 10^8 cut to a whole number (`ConvertFloatStrToUint64(…,
   * 100000000)`, shopspring's `BigInt()`), × 100 for the symbols of `AssetTypeForTwoDigits` — here every
   * symbol any commit of the publisher listed there (upper-case), and where the code is.
   */
  places: { twoPlaceSymbols: ReadonlySet<string>; source: string };
}

const set = (words: string): ReadonlySet<string> => new Set(words.split(" "));

const BINANCE: Variant = {
  name: "binance",
  title: "Binance",
  index: "AccountIndex",
  id: "AccountIdHash",
  assets: "Assets",
  root: "Root",
  proof: "Proof",
  commitment: "packed",
  versions: [
    {
      label: "2022-12",
      commit: "c1884aa",
      totals: ["TotalEquity", "TotalDebt"],
      amounts: ["Equity", "Debt"],
      // c1884aa's code: 350 slots and the fork at 7c643ad1, whose own constants chaingw reproduces (the empty
      // account leaf 221970e0…, the empty tree root 0118925954…); its sample predates it (docs/exchange-proofs.md)
      knownSlots: [350],
      prerelease:
        "Binance's Dec 2022 sample was built before that code, with the Poseidon of bnb-chain/gnark-crypto 6e0195f2 (state[0] out) and a 256-element assets commitment; chaingw rebuilds its tree's empty subtrees but not its leaf",
    },
    {
      label: "2024-07",
      commit: "cf2a676",
      totals: ["TotalEquity", "TotalDebt", "TotalCollateral"],
      amounts: ["Equity", "Debt", "VipLoan", "Margin", "PortfolioMargin"],
      knownSlots: [350],
    },
    {
      label: "2024-09",
      commit: "49843ea",
      totals: ["TotalEquity", "TotalDebt", "TotalCollateral"],
      amounts: ["Equity", "Debt", "Loan", "Margin", "PortfolioMargin"],
      // 5d26d4f lower-cases each symbol and lists both spellings: these at 2 places (symbols added later may not be)
      twoPlaces: set("1000SATS BIDR BONK BTTC DOGE DOGS FLOKI HOT IDRT LUNC PEPE SHIB SPELL WIN XEC"),
      knownSlots: [350, 500, 50],
      indexedTiers: [50, 500],
    },
  ],
  places: {
    twoPlaceSymbols: set(
      "1000CHEEMS 1000PEPPER 1000SATS 1MBABYDOGE BIDR BOME BONK BTTC DOGE DOGS FLOKI HMSTR HOT IDR IDRT LUNC MONKY NEIRO NFT NOT PEPE PUMP SHIB SPELL WIN WLFI XEC",
    ),
    source:
      "binance/zkmerkle-proof-of-solvency src/utils/utils.go ReadUserDataFromCsvFile, constants.go AssetTypeForTwoDigits (c1884aa … 9a3e5b7)",
  },
};
const GATE: Variant = {
  name: "gate",
  title: "Gate",
  index: "Arrangement",
  id: "UniqueIdentification",
  assets: "AssetDetails",
  root: "TreeRootHash",
  proof: "MerkleProofEncode",
  commitment: "packed",
  versions: [
    {
      // 350 slots from 7490ef5 (Oct 2023), 500 for a day at cf0d653 (Jun 2025, back to 350 at 71d3045), 800
      // from edd8fc8 (Jul 2025, the file in the repository since); the members never changed
      label: "2023-10",
      commit: "7490ef5",
      totals: ["TotalAssetEquity", "TotalAssetDebt"],
      amounts: ["Equity", "Debt"],
      knownSlots: [800, 500, 350],
      slotCommits: { 350: "7490ef5, 71d3045", 500: "cf0d653", 800: "edd8fc8" },
    },
  ],
  places: {
    twoPlaceSymbols: set(
      "1CAT AIDOGE AKE AKITA APEPE APU ATLAS AXL BABYDOGE BGSC BIDR BITBOARD BOME BONK BRISE BTT BTTC CAT CHEEMS COQ DBC DOG DOGE DOGELONMARS DOGS DSD ELON FLOKI FUNTOKEN GF HIPPO HMSTR HOT HTX KCT KICK KISHU LADYS LAI LEVER LOBO LOVE LUNC MAGA MOG MOODENGETH MYRIA NATIX NEIRO NEIROCTO NFT OMI PEIPEI PEPE PEPPER PIG PTB PUMP QUBIC RACA RATS REEF REKTCOIN SATS SAY SHIB SIDUS SNEK SPELL SUPRA TAG TOSHI TROLL TURBO VINU VRA WEN WGRT WHY WIN WKC WOJAK WUF X XEC XEN XPIN ZBAI ZBCN",
    ),
    source:
      "gateio/proof-of-reserves utils/utils.go, utils/constants.go AssetTypeForTwoDigits (7490ef5 … 87db18d)",
  },
};
const HTX: Variant = {
  name: "htx-zk",
  title: "HTX",
  index: "AccountIndex",
  id: "AccountIdHash",
  assets: "Assets",
  root: "Root",
  proof: "Proof",
  commitment: "balances",
  versions: [
    {
      // 205 slots at f57c44d (Sep 2023), 174 from 5390028 (Sep 2023); the sample's 168 is the count it reaches
      label: "2023-09",
      commit: "f57c44d",
      totals: ["TotalEquity", "TotalDebt"],
      amounts: ["Balance"],
      knownSlots: [168, 174, 205],
      slotCommits: { 174: "5390028", 205: "f57c44d" },
    },
  ],
  places: {
    twoPlaceSymbols: set(
      "AIDOGE BABYDOGE BIDR BONK BRISE BTT BTTC CAW DOGE HOT LADYS LOVELY LUNC NFT PEPE SHIB SPELL WIN XEC XEN",
    ),
    source:
      "huobiapi/Tool-Go-MerkleVerify merkle_groth16/src/utils/utils.go, constants.go AssetTypeForTwoDigits (f57c44d … bc0adce)",
  },
};

/** A JSON whole number (any size), or a usage error naming the field; its sign kept for the finding. */
function whole(v: JsonValue | undefined, at: string, rd: FileReader): bigint {
  if (!(v instanceof JsonNumber) || !/^-?\d+$/.test(v.raw)) throw rd.error(`${at} must be a whole number`);
  return BigInt(v.raw);
}

const hexField = (h: string): bigint | undefined =>
  /^(0x)?[0-9a-fA-F]{1,64}$/.test(h) ? BigInt(`0x${h.replace(/^0x/, "")}`) : undefined;

/** A file of the family as read: every member the checks need, of its type (else exit 2, naming it). */
interface Doc {
  v: Variant;
  version: ZkVersion;
  doc: Obj;
  index: bigint;
  id: string;
  assets: Obj[];
  root: string;
  proof: string[];
  /** the assets' names by index, from the exchange's own asset list (the second file), and that file's name */
  names?: { by: Map<bigint, string>; file: string };
}

/**
 * The exchange's asset list, given as the second file: Binance's config.json (`CexAssetsInfo`: each asset's
 * `Symbol` and `Index`), or that list alone. It names the file's numbered assets; nothing in the proof binds
 * the names (the Groth16 batch proofs do, which chaingw does not check).
 */
function namesOf(t: { text: string; file: string }): { by: Map<bigint, string>; file: string } {
  const rd = new FileReader(t.file);
  const doc = rd.json(t.text);
  const list = Array.isArray(doc) ? doc : isObj(doc) ? doc.CexAssetsInfo : undefined;
  if (!Array.isArray(list))
    throw rd.error(
      "not the exchange's asset list: the second file of a zk user proof is its config.json (CexAssetsInfo: each asset's Symbol and Index)",
    );
  const by = new Map<bigint, string>();
  for (const [i, a] of list.entries()) {
    const at = `CexAssetsInfo[${i}]`;
    if (!isObj(a) || typeof a.Symbol !== "string" || a.Symbol.trim() === "")
      throw rd.error(`${at}.Symbol must be the asset's name`);
    const idx = whole(a.Index, `${at}.Index`, rd);
    if (by.has(idx)) throw rd.error(`${at}: asset index ${idx} named twice`);
    by.set(idx, a.Symbol);
  }
  return { by, file: t.file };
}

/**
 * The version whose members are exactly the file's (top level and every asset), else a usage error naming the
 * member the closest version does not have (with its line), or the one it lacks.
 */
function versionOf(v: Variant, doc: Obj, assets: JsonValue[], rd: FileReader): ZkVersion {
  const what = (x: ZkVersion) => `${v.title}'s user proof of ${x.label} (${x.commit})`;
  const problems = v.versions.map((x) => {
    const out: { n: number; first?: () => never } = { n: 0 };
    const note = (f: () => never) => {
      out.n++;
      out.first ??= f;
    };
    const top = [v.index, v.id, ...x.totals, v.assets, v.root, v.proof];
    for (const k of Object.keys(doc))
      if (!top.includes(k)) note(() => rd.members(doc, top, "", what(x)) as never);
    for (const k of top)
      if (!(k in doc))
        note(() => {
          throw rd.error(`${k} is missing (${what(x)} has it)`);
        });
    const slot = ["Index", ...x.amounts];
    for (const [i, a] of assets.entries()) {
      if (!isObj(a)) continue;
      const at = `${v.assets}[${i}]`;
      for (const k of Object.keys(a))
        if (!slot.includes(k)) note(() => rd.members(a, slot, at, what(x)) as never);
      for (const k of slot)
        if (!(k in a))
          note(() => {
            throw rd.error(`${at}.${k} is missing (${what(x)} has it)`);
          });
    }
    return out;
  });
  const exact = v.versions.find((_, i) => problems[i]!.n === 0);
  if (exact) return exact;
  const closest = problems.reduce((a, b) => (b.n < a.n ? b : a));
  return closest.first!();
}

function read(v: Variant, text: string, o: InclusionOptions): Doc {
  const rd = new FileReader(o.file);
  const doc = rd.json(text);
  if (!isObj(doc)) throw rd.error(`not a ${v.title} zk user proof (an object)`);
  const assets = doc[v.assets];
  if (!Array.isArray(assets)) throw rd.error(`${v.assets} must be an array`);
  const version = versionOf(v, doc, assets, rd);
  const index = whole(doc[v.index], v.index, rd);
  for (const t of version.totals) whole(doc[t], t, rd);
  const id = doc[v.id];
  if (typeof id !== "string" || hexField(id) === undefined) throw rd.error(`${v.id} must be hex (32 bytes)`);
  for (const [i, a] of assets.entries()) {
    const at = `${v.assets}[${i}]`;
    if (!isObj(a)) throw rd.error(`${at} must be an object`);
    whole(a.Index, `${at}.Index`, rd);
    for (const k of version.amounts) whole(a[k], `${at}.${k}`, rd);
  }
  const root = doc[v.root];
  if (typeof root !== "string" || hexField(root) === undefined)
    throw rd.error(`${v.root} must be hex (32 bytes)`);
  const proof = doc[v.proof];
  if (!Array.isArray(proof) || proof.some((p) => typeof p !== "string"))
    throw rd.error(`${v.proof} must be an array of base64 strings`);
  return {
    v,
    version,
    doc,
    index,
    id,
    assets: assets as Obj[],
    root,
    proof: proof as string[],
    ...(o.tree ? { names: namesOf(o.tree) } : {}),
  };
}

/** The document: every field element of BN254, the index within the tree, no negative amount, assets ascending. */
const documentStep = step<Doc>("document", (ctx, s) => {
  const { v, version, doc, index, id, assets, root, proof, names } = ctx.doc;
  const rd = new FileReader(ctx.options.file);
  // an asset by its name where the exchange's list names it, else by its number in the file
  const nameOf = (idx: bigint) => names?.by.get(idx) ?? `#${idx}`;
  for (const t of version.totals)
    if (whole(doc[t], t, rd) >= FR) s.fail("leaf", `${t} is not a BN254 field element`, t);
  if (index < 0n || index >= 1n << BigInt(DEPTH))
    s.fail("path", `${v.index} ${index} is outside a tree of depth ${DEPTH}`, v.index);
  if ((hexField(id) as bigint) >= FR) s.fail("leaf", `${v.id} is not a BN254 field element`, v.id);
  for (const t of version.totals) {
    const x = whole(doc[t], t, rd);
    if (x < 0n) s.fail("balances", `${t} is negative (${x})`, t);
  }
  const balances: CustomerBalance[] = [];
  // the places the tool wrote an asset's amounts at: 8, 2 for the symbols its version surely writes so, else
  // unknown (an asset the file only numbers, or a symbol some version writes at 2 places and this one may not)
  const placesOf = (idx: bigint): number | undefined => {
    const sym = names?.by.get(idx)?.toUpperCase();
    if (sym === undefined) return undefined;
    if (version.twoPlaces?.has(sym)) return 2;
    return v.places.twoPlaceSymbols.has(sym) ? undefined : 8;
  };
  let last = -1n;
  for (const [i, a] of assets.entries()) {
    const at = `${v.assets}[${i}]`;
    const idx = whole(a.Index, `${at}.Index`, rd);
    if (idx <= last) s.fail("leaf", `asset index ${idx} after ${last}: the list must ascend`, at);
    last = idx;
    for (const [j, k] of version.amounts.entries()) {
      const x = whole(a[k], `${at}.${k}`, rd);
      if (x < 0n) s.fail("balances", `asset #${idx} ${k} is negative (${x})`, at);
      else if (x >= 1n << 64n) s.fail("balances", `asset #${idx} ${k} does not fit 64 bits (${x})`, at);
      // the customer's balances: what they hold and owe (in the tool's base units); the rest is collateral
      if (j === 0 || (j === 1 && x !== 0n)) {
        const places = placesOf(idx);
        balances.push({
          asset: `${nameOf(idx)} ${k.toLowerCase()}`,
          amount: places === undefined ? null : amountText(x, places),
          base_units: x.toString(),
        });
      }
    }
  }
  const unnamed = assets.map((a) => whole(a.Index, "Index", rd)).filter((i) => !names?.by.has(i));
  if (names)
    s.claim(
      "balances",
      `the assets named by ${names.file}, the exchange's own asset list (the proof binds numbers, not names)${unnamed.length ? `; not named there: ${unnamed.map((i) => `#${i}`).join(", ")}` : ""}`,
    );
  else
    s.claim(
      "balances",
      "the file numbers its assets (#0, #1…): the exchange's asset list names them (its config.json, CexAssetsInfo: give it as the second file)",
    );
  // the places, said where they come from: the tool's code, not the file (which writes integers)
  const at2 = [...new Set(assets.map((a) => whole(a.Index, "Index", rd)).filter((i) => placesOf(i) === 2))];
  const unsure = [
    ...new Set(
      assets
        .map((a) => whole(a.Index, "Index", rd))
        .filter((i) => names?.by.has(i) && placesOf(i) === undefined),
    ),
  ];
  const of = (l: bigint[]) => l.map(nameOf).join(", ");
  s.claim(
    "balances",
    `amounts read in coin units: ${v.title}'s tool writes each as the decimal × 10^8, cut to a whole number (${v.places.source})${at2.length ? `; ${of(at2)} × 100, 2 places, as this version's code writes ${at2.length === 1 ? "it" : "them"}` : ""}${unsure.length ? `; ${of(unsure)} in base units: ${v.title}'s code writes ${unsure.length === 1 ? "it" : "them"} × 100 or × 10^8 by version and by how its input spelled the symbol, which the file does not show` : ""}${unnamed.length ? `; ${unnamed.map((i) => `#${i}`).join(", ")} in base units: the places depend on the asset's name` : ""}`,
  );
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
  const { v, version, doc, index, id, assets, root, proof } = ctx.doc;
  const o = ctx.options;
  const rd = new FileReader(o.file);
  if (!s.failed()) {
    const { PoseidonChain, poseidonHash } = await import("./poseidon.js");
    // every amount this version hashes (each read: the reader refused a file lacking one)
    const fields = version.amounts.length;
    const amounts = assets.map((a) => ({
      index: Number(whole((a as Obj).Index, "Index", rd)),
      values: version.amounts.map((k) => whole((a as Obj)[k], k, rd)),
    }));
    const top = Math.max(-1, ...amounts.map((a) => a.index)) + 1;
    const leafTotals = version.totals;
    const totals = leafTotals.map((t) => whole(doc[t], t, rd));
    const idHash = hexField(id as string) as bigint;
    const siblings = (proof as string[]).map((p) => BigInt(`0x${Buffer.from(p, "base64").toString("hex")}`));
    const rootValue = hexField(root as string) as bigint;
    const pack3 = (flat: bigint[], n: number) =>
      Array.from(
        { length: n },
        (_, i) => ((flat[3 * i] ?? 0n) << 128n) + ((flat[3 * i + 1] ?? 0n) << 64n) + (flat[3 * i + 2] ?? 0n),
      );
    // the counts tried: --asset-slots N, else the ones this version's code used, and no search beyond them
    // (a forged file must not make chaingw hash for seconds): the work is bounded by the file's asset list
    const tries =
      o.assetSlots !== undefined ? [o.assetSlots] : version.knownSlots.filter((n) => n >= Math.max(top, 1));
    if (o.assetSlots !== undefined && o.assetSlots < top)
      s.fail("leaf", `--asset-slots ${o.assetSlots}: the file holds asset #${top - 1}`, v.assets);
    const most = Math.max(0, ...tries);
    // the asset elements for the largest count tried, asset #i at slot i; a count takes a prefix of them
    const flat = new Array<bigint>(most * fields).fill(0n);
    for (const a of amounts)
      if (a.index < most) for (const [j, x] of a.values.entries()) flat[fields * a.index + j] = x;
    const packed = v.commitment === "packed";
    const countOf = (slots: number) => (packed ? Math.floor((slots * fields + 2) / 3) : slots);
    const chain = new PoseidonChain(packed ? pack3(flat, countOf(most)) : flat);
    const reach = (commitment: bigint): bigint => {
      let node = poseidonHash([idHash, ...totals, commitment]);
      for (let i = 0; i < DEPTH; i++)
        node =
          (index >> BigInt(i)) & 1n
            ? poseidonHash([siblings[i] as bigint, node])
            : poseidonHash([node, siblings[i] as bigint]);
      return node;
    };
    const leafText = `the leaf Poseidon(${v.id}, ${leafTotals.join(", ")}, assets)`;
    let reached: string | undefined;
    const slots = tries.find((n) => reach(chain.hashPrefix(countOf(n))) === rootValue);
    if (slots !== undefined) {
      const code = version.slotCommits?.[slots];
      reached = `${leafText} with ${slots} asset slots${o.assetSlots !== undefined ? " (--asset-slots)" : code !== undefined ? ` (${v.title}'s code of ${code})` : ""}`;
    } else if (version.indexedTiers) {
      // Binance's code since Sep 2024: each slot [Index, amounts…], the padding slots numbered too, the
      // smallest tier that holds the list, and the later fork's Poseidon (16 inputs a block)
      const tier = o.assetSlots ?? version.indexedTiers.find((t) => t >= assets.length);
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
    else if (
      version.prerelease !== undefined &&
      poseidonHash([siblings[DEPTH - 2] as bigint, siblings[DEPTH - 2] as bigint], 12, 0) ===
        siblings[DEPTH - 1]
    )
      s.cannot(
        "path",
        `the leaf and its ${DEPTH} Poseidon siblings miss the file's root ${o.assetSlots !== undefined ? `with ${o.assetSlots} asset slots (--asset-slots)` : `at the asset slot counts ${v.title}'s code of ${version.label} used (${version.knownSlots.join(", ")})`}, but the file's tree was not built by that code: its top siblings are empty subtrees under the Poseidon before bnb-chain/gnark-crypto's "Fix poseidon output" — ${version.prerelease} — --asset-slots N tries N`,
        rootAt,
      );
    else
      s.fail(
        "path",
        `the leaf and its ${DEPTH} Poseidon siblings ${o.assetSlots !== undefined ? `miss the file's root with ${o.assetSlots} asset slots (--asset-slots)` : `miss the file's root at the asset slot counts ${v.title}'s code of ${version.label} used (${version.knownSlots.join(", ")})`}${version.indexedTiers ? `, and with the numbered slots of Binance's code since Sep 2024 (${o.assetSlots ?? version.indexedTiers.join(" or ")} slots)` : ""}: a balance, a total, the index or a sibling is not the one the root was built from${o.assetSlots === undefined ? " — or the tool used another count: --asset-slots N tries N" : ""}`,
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
  } else s.cannot("root", OWN_ROOT(r), v.root);
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
  sums: "none",
  read: (text, o) => read(v, text, o),
  steps: [documentStep, pathStep, rootZk, sumsClaim],
});

export const verifyBinance = verifierOf(family(BINANCE));
export const verifyGate = verifierOf(family(GATE));
export const verifyHtx = verifierOf(family(HTX));
