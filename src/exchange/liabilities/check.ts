/**
 * What every exchange inclusion-proof verifier returns, and the steps they share: a customer's balances, the
 * root the path reached, and one Finding per check (the Finding of reserves/verdict.ts), each naming its
 * level. A verifier never throws on what the file says: a file that cannot be read is a usage error (exit 2)
 * before anything is judged; everything after that is a finding.
 */
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { type Finding, type Verdict, verdictOfFindings } from "../../reserves/verdict.js";
import { cannotSay, claim, fails, ok } from "../../reserves/verifier.js";
import { compareDec, type Dec, plainDec } from "./decimal.js";
import { type Amount, amountsOf, type Sums } from "./read.js";

/** What the command gives a verifier beside the file's text. */
export interface InclusionOptions {
  /** the file's name, for messages */
  file: string;
  /** the root published elsewhere (--root), hex; without it the file's own: cannot say */
  root?: string;
  /** a second file the format needs (OKX v2's full tree), its text and name */
  tree?: { text: string; file: string };
  /** Hotcoin: the anchor file the exchange published beside the proofs (its root, totals, leaf count) */
  anchor?: { text: string; file: string };
  /** BitMEX/River: the customer's account number and secret (nonce, or River's account key and e-mail) */
  account?: string;
  nonce?: string;
  accountKey?: string;
  email?: string;
  /** SwissBorg: the customer's audit credential (a secret: never printed) */
  credential?: string;
  /** a leaf list (the auditors' tool): the customer's leaf hash, as their exchange gives it */
  leaf?: string;
  /** the Binance family: the tool's number of asset slots (else the counts its versions used, and no others) */
  assetSlots?: number;
}

export interface Balance {
  asset: string;
  amount: string;
}

/** A customer's balance as the report prints it: a Balance, or (the zk files) the file's integer beside it. */
export interface CustomerBalance {
  asset: string;
  /** in coin units: as the file writes it, or its integer read at the places its tool writes (zk); null where they are not known */
  amount: string | null;
  /** the file's integer, where it writes base units (the zk files): beside `amount`, or alone when its places are not known */
  base_units?: string;
}

/**
 * What a format's inner node binds of its children's sums (the Maxwell flaw): `per-child` each child's own
 * sum (BitMEX, River); `full-tree` only their total, but every node is rebuilt from the published leaves
 * (OKX v2 with its tree); `total` only their total (OKX, Bitget, MEXC, CoinEx: the exchange can give each
 * customer's path a sibling sum other than what that subtree holds, so the root's total can be understated
 * without any customer noticing); `none`: the tree carries no sums, only the exchange's zk proofs bind them;
 * `inclusion-only`: a plain Merkle tree (Bitbase) with no sums and nothing else binding a total.
 */
export type SumBinding = "per-child" | "full-tree" | "total" | "none" | "inclusion-only";

export const SUM_BINDING_TEXT: Record<SumBinding, string> = {
  "per-child":
    "each inner node's hash commits to both children's own sums, so no subtree's sum can be shown otherwise than it is on any path",
  "full-tree":
    "each inner node's hash commits only to its children's total, but the full tree is given and every inner node rebuilt from its children: the root's total is the sum of the published leaves, each of which its customer can find",
  total:
    "each inner node's hash commits to the total of its two children, not to each child's own sum: the exchange can show each customer's path a sibling sum other than what that subtree holds, so the root's total can be understated without any customer noticing (the Maxwell flaw; a path that holds does not bound the total)",
  none: "the tree carries no sums: the totals are bound only by the exchange's zk batch proofs, which chaingw does not verify; the root bounds no total",
  "inclusion-only":
    "the tree hashes no sums at all: a path shows the customer's leaf is in the tree and nothing about the total owed (a tree of any total, or with negative leaves, has a root all the same); the root bounds no total",
};

/**
 * Whether the root's hash binds the totals it carries (the encoding, apart from `SumBinding`'s Maxwell flaw):
 * `bound` where each node's preimage reads back into its amounts one way only (fixed widths, separators,
 * JSON, binary); `ambiguous` where the amounts are text concatenated with no separator nor fixed width, so
 * digits move from one total to the next under the same hash (OKX: "2.5"‖"25000" and "2.52"‖"5000" hash
 * alike) — the same root holds other totals, which `solvency` never takes as liabilities; `none`: the root
 * carries no totals.
 */
export type TotalsBinding = "bound" | "ambiguous" | "none";

export interface InclusionCheck {
  verdict: Verdict;
  /** the registry's name of the format */
  format: string;
  /** what the format's inner nodes bind of their children's sums (SUM_BINDING_TEXT), said in every verdict */
  sum_binding: SumBinding;
  /** the root the path reached (hex as the format spells it), or null when none was reached */
  root: string | null;
  /** where the root compared against came from: --root, the file itself, Hotcoin's anchor file (--anchor), or nowhere (Hotcoin's proof without its anchor) */
  root_source: "given" | "file" | "anchor" | "none";
  balances: CustomerBalance[];
  /** the root node's totals per coin, as the file states them (Merkle-sum formats; absent for others) */
  totals?: Balance[];
  /** whether the root's hash binds those totals (`TotalsBinding`), and why not where it does not */
  totals_binding: TotalsBinding;
  totals_unbound?: string;
  findings: Finding[];
}

/**
 * What every step of an inclusion verifier runs over (the one verifier shape, reserves/verifier.ts: named
 * steps over one context, each returning `Finding`s): the file as its reader read it, the options, and what
 * the steps learn for the ones after them and for the shared steps below (`rootTotalsStep`, `reachStep`,
 * `rootStep`, and the hash-width check every verifier ends with).
 */
export interface InclusionContext<D> {
  doc: D;
  options: InclusionOptions;
  /** the findings of the steps run so far */
  findings: Finding[];
  /** every hash the file gives, with where: judged for width once every step ran */
  hashes: { hash: string; at: string }[];
  /** the customer's balances, as the report prints them */
  balances: CustomerBalance[];
  /** the root the path reached (null: none reached) */
  reached: string | null;
  /** the root the file states (null: it states none), and where it stands ("level 24 (root)") */
  fileRoot: string | null;
  rootAt: string;
  /** Merkle-sum paths: the sums carried to the top, the root's stated totals, what was walked ("23 siblings") */
  sums?: Sums;
  rootTotals?: Amount[];
  walked?: string;
  /** where the root came from, when a format knows better than the options (Hotcoin's proof holds none) */
  rootSource?: InclusionCheck["root_source"];
}

/**
 * Where a Merkle-sum path's walk ended, for the shared steps after it (`rootTotalsStep`, `reachStep`,
 * `rootStep`): the hash `reached`, the file's `root` (its hash and stated totals), where the root stands, the
 * sums carried up and what was walked ("23 siblings").
 */
export function walkEnded<D>(
  ctx: InclusionContext<D>,
  reached: string,
  root: { hash: string; balances: Amount[] },
  end: { rootAt: string; sums: Sums; walked: string },
): void {
  Object.assign(ctx, { reached, fileRoot: root.hash, rootTotals: root.balances, ...end });
}

/** One named check of an inclusion verifier: what it found (and what it learnt, on the context). */
export interface InclusionStep<D> {
  name: string;
  run(ctx: InclusionContext<D>): Finding[] | Promise<Finding[]>;
}

/** An exchange's format as its verifier: its strict reader (bad input: exit 2) and its steps, in order. */
export interface InclusionFormat<D> {
  /** the registry's name */
  name: string;
  read(text: string, o: InclusionOptions): D;
  /** the balances known from the file alone (a step may set others) */
  balances?(doc: D): Balance[];
  steps: readonly InclusionStep<D>[];
  /** what its inner nodes bind of their children's sums (OKX v2: per child only with the full tree) */
  sums: SumBinding | ((o: InclusionOptions) => SumBinding);
  /** why its nodes' encoding does not bind the totals they carry (`TotalsBinding` "ambiguous"); absent: bound */
  ambiguous?: string;
}

/**
 * The findings of one step, built in order: `new Steps(ctx)` inside a step (see `step`); the hashes it notes
 * go on the context, `failed()` sees the steps before it too.
 */
export class Steps {
  readonly findings: Finding[] = [];
  constructor(private readonly ctx: Pick<InclusionContext<unknown>, "findings" | "hashes">) {}
  get hashes(): { hash: string; at: string }[] {
    return this.ctx.hashes;
  }
  ok(step: string, text: string, at?: string): void {
    this.findings.push(ok(step, text, at));
  }
  fail(step: string, text: string, at?: string): void {
    this.findings.push(fails(step, text, at));
  }
  cannot(step: string, text: string, at?: string): void {
    this.findings.push(cannotSay(step, text, at));
  }
  claim(step: string, text: string, at?: string): void {
    this.findings.push(claim(step, text, at));
  }
  failed = (): boolean => [...this.ctx.findings, ...this.findings].some((f) => f.status === "fails");
}

/** A step written as a body adding to its `Steps`: `step("leaf", (ctx, s) => { … s.fail(…) … })`. */
export const step = <D>(
  name: string,
  body: (ctx: InclusionContext<D>, s: Steps) => void | Promise<void>,
): InclusionStep<D> => ({
  name,
  run: async (ctx) => {
    const s = new Steps(ctx);
    await body(ctx, s);
    return s.findings;
  },
});

/** Runs a format's verifier on a file: read (usage errors first), every step in order, the hash widths. */
export async function verifyInclusion<D>(
  f: InclusionFormat<D>,
  text: string,
  o: InclusionOptions,
): Promise<InclusionCheck> {
  const doc = f.read(text, o);
  const ctx: InclusionContext<D> = {
    doc,
    options: o,
    findings: [],
    hashes: [],
    balances: f.balances?.(doc) ?? [],
    reached: null,
    fileRoot: null,
    rootAt: "root",
  };
  for (const st of [...f.steps, hashStep]) ctx.findings.push(...(await st.run(ctx)));
  const totalsBinding: TotalsBinding = !ctx.rootTotals?.length ? "none" : f.ambiguous ? "ambiguous" : "bound";
  // the customer's own leaf may hold: the totals the root carries cannot be told from others it hashes alike
  if (totalsBinding === "ambiguous")
    ctx.findings.push(
      cannotSay(
        "totals",
        `the root's hash does not bind the totals it carries: ${f.ambiguous}; the same root holds other totals, so they cannot be relied on (the customer's own leaf is judged above)`,
        ctx.rootAt,
      ),
    );
  const binding = typeof f.sums === "function" ? f.sums(o) : f.sums;
  ctx.findings.push(claim("scheme", `${f.name}: ${SUM_BINDING_TEXT[binding]}`));
  return {
    verdict: verdictOfFindings(ctx.findings),
    format: f.name,
    sum_binding: binding,
    root: ctx.reached,
    root_source:
      ctx.rootSource ?? (o.root !== undefined ? "given" : o.anchor !== undefined ? "anchor" : "file"),
    balances: ctx.balances,
    ...(ctx.rootTotals ? { totals: ctx.rootTotals.map((a) => ({ asset: a.asset, amount: a.text })) } : {}),
    totals_binding: totalsBinding,
    ...(totalsBinding === "ambiguous" ? { totals_unbound: f.ambiguous } : {}),
    findings: ctx.findings,
  };
}

/** A format's verifier as the registry's modules call it: `(text, options) → InclusionCheck`. */
export const verifierOf =
  <D>(f: InclusionFormat<D>) =>
  (text: string, o: InclusionOptions): Promise<InclusionCheck> =>
    verifyInclusion(f, text, o);

export const sha256Hex = (text: string): string => bytesToHex(sha256(utf8ToBytes(text)));

/** Each negative amount of a node: a failure named with its level. */
export function refuseNegative(s: Steps, amounts: Iterable<[string, Dec]>, at: string, whose: string): void {
  for (const [asset, d] of amounts)
    if (d.units < 0n)
      s.fail(
        "balances",
        `${whose} holds a negative ${asset} amount (${plainDec(d)}): a negative sum hides other customers' balances`,
        at,
      );
}

/**
 * A hash shorter than 128 bits (32 hex digits) can be forged by search: a failure naming where. Noted here
 * and said at the end: one finding when every hash of the file is cut alike (Bitget's 64 bits), else one
 * per level.
 */
export function refuseShortHash(s: Steps, hash: string, at: string): void {
  s.hashes.push({ hash, at });
}

/** Hash width, every verifier's last step: one finding when every hash is cut alike (Bitget's 64 bits), else one per level. */
const hashStep: InclusionStep<unknown> = step("hash", (ctx, s) => {
  const short = ctx.hashes.filter((h) => h.hash.length > 0 && h.hash.length < 32);
  const text = (bits: number, what: string) =>
    `${what} cut to ${bits} bits (below 128): a different set of balances with the same hash can be searched for`;
  const bits = new Set(short.map((h) => h.hash.length * 4));
  if (short.length > 1 && short.length === ctx.hashes.length && bits.size === 1) {
    const first = short[0]!;
    s.fail(
      "hash",
      text(first.hash.length * 4, `every hash of the file (${short.length}) is`),
      `${first.at} … ${short.at(-1)!.at}`,
    );
  } else for (const h of short) s.fail("hash", text(h.hash.length * 4, `hash ${h.hash} is`), h.at);
});

/** A node beside the path (or on it): its hash not cut short, none of its amounts negative. */
export function checkSibling(
  s: Steps,
  n: { hash: string; balances: Amount[] },
  at: string,
  whose = "the sibling",
): void {
  refuseShortHash(s, n.hash, at);
  refuseNegative(s, amountsOf(n.balances), at, whose);
}

/** `h` is a lower- or upper-case hex string of `len` digits (any length when omitted). */
export const isHex = (h: string, len?: number): boolean =>
  /^[0-9a-fA-F]*$/.test(h) && (len === undefined ? h.length > 0 : h.length === len);

/**
 * The root the path reached against the root compared with: `--root` when given, else the file's own, and
 * then said so (a root the same server sent shows nothing until compared with the one published elsewhere).
 */
export function compareRoot(
  s: Steps,
  reached: string | null,
  fileRoot: string | null,
  given: string | undefined,
  at: string,
): void {
  if (reached === null) return;
  const norm = (h: string) => h.toLowerCase().replace(/^0x/, "");
  if (fileRoot !== null && norm(reached) !== norm(fileRoot))
    s.fail("root", `the path reaches ${reached}, not the file's root ${fileRoot}`, at);
  if (given !== undefined) {
    if (norm(reached) === norm(given)) s.ok("root", `the path reaches the given root ${reached}`, at);
    else s.fail("root", `the path reaches ${reached}, not the given root ${given}`, at);
  } else if (fileRoot === null || norm(reached) === norm(fileRoot)) s.cannot("root", OWN_ROOT(reached), at);
}

/**
 * Without `--root`: the file agrees with a root it wrote itself, which a forger recomputes with the path —
 * cannot say (exit 3) until the root the exchange published elsewhere is given.
 */
export const OWN_ROOT = (reached: string): string =>
  `the path reaches ${reached}, the root written in this same file: consistent with its own root; give the published root (--root HEX) — a root from the file itself shows nothing, since whoever edits the file recomputes it`;

/** Totals compared asset by asset (absent = 0); a mismatch names the asset and both amounts. */
export function compareTotals(s: Steps, got: Sums, want: Amount[], at: string, whose: string): boolean {
  let same = true;
  const assets = new Set([...got.keys(), ...want.map((w) => w.asset)]);
  for (const asset of assets) {
    const g = got.get(asset) ?? { units: 0n, scale: 0 };
    const w = want.find((x) => x.asset === asset)?.value ?? { units: 0n, scale: 0 };
    if (compareDec(g, w) !== 0) {
      same = false;
      s.fail("sums", `${whose} ${asset}: the path sums to ${plainDec(g)}, the file says ${plainDec(w)}`, at);
    }
  }
  return same;
}

/** A leaf as a path format gives it: where, its balances, the hash the file says, the one recomputed, how. */
export interface LeafClaim {
  at: string;
  balances: Amount[];
  claimed: string;
  computed: string;
  /** the formula in words: "sha256(nonce ‖ balances)" */
  formula: string;
}

/** The customer's leaf: no negative amount, its hash's width, recomputed against the file's. */
export const leafStep = <D>(leaf: (doc: D) => LeafClaim): InclusionStep<D> =>
  step<D>("leaf", ({ doc }, s) => {
    const { at, balances, claimed, computed, formula } = leaf(doc);
    refuseNegative(s, amountsOf(balances), at, "the customer's leaf");
    refuseShortHash(s, claimed, at);
    if (computed === claimed.toLowerCase()) s.ok("leaf", `${formula} = ${computed}`, at);
    else s.fail("leaf", `${formula} is ${computed}, the file says ${claimed}`, at);
  });

/**
 * Merkle-sum paths (OKX v1, MEXC, the Bitget family, CoinEx): the root the file states, its hash's width, no
 * negative total, and the sums the path carried up (`ctx.sums`) equal to its totals (`ctx.rootTotals`).
 */
export const rootTotalsStep: InclusionStep<unknown> = step("sums", (ctx, s) => {
  const totals = ctx.rootTotals ?? [];
  if (ctx.fileRoot !== null) refuseShortHash(s, ctx.fileRoot, ctx.rootAt);
  refuseNegative(s, amountsOf(totals), ctx.rootAt, "the root");
  if (compareTotals(s, ctx.sums ?? new Map(), totals, ctx.rootAt, "the root's"))
    s.ok("sums", `the path's sums equal the root's ${totals.length} totals`, ctx.rootAt);
});

/** The path reached the file's root: said once (`ctx.walked`: "23 siblings", "8 levels"). */
export const reachStep: InclusionStep<unknown> = step("path", (ctx, s) => {
  if (ctx.reached !== null && ctx.reached === ctx.fileRoot?.toLowerCase())
    s.ok("path", `${ctx.walked} reach ${ctx.reached}`, ctx.rootAt);
});

/** The root reached against `--root`, else against the file's own root (and said so): `compareRoot`. */
export const rootStep: InclusionStep<unknown> = step("root", (ctx, s) => {
  compareRoot(s, ctx.reached, ctx.fileRoot, ctx.options.root, ctx.rootAt);
});

/**
 * The verifier of a Merkle-sum path format (OKX v1, MEXC, the Bitget family, CoinEx): its reader, its own
 * leaf and path steps (the path step sets `reached`, `fileRoot`, `rootAt`, `sums`, `rootTotals`, `walked`),
 * then the shared root totals, the reach (or the format's own) and the root against --root.
 */
export const pathVerifier = <D>(f: {
  name: string;
  sums: InclusionFormat<D>["sums"];
  read: InclusionFormat<D>["read"];
  balances: NonNullable<InclusionFormat<D>["balances"]>;
  leaf: InclusionStep<D>;
  path: InclusionStep<D>;
  reach?: InclusionStep<D>;
  ambiguous?: string;
}) =>
  verifierOf<D>({
    name: f.name,
    sums: f.sums,
    ...(f.ambiguous === undefined ? {} : { ambiguous: f.ambiguous }),
    read: f.read,
    balances: f.balances,
    steps: [f.leaf, f.path, rootTotalsStep, f.reach ?? reachStep, rootStep],
  });
