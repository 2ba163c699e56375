/**
 * `liabilities verify`: a customer's proof checked offline against the published commitment. Every leaf is
 * recomputed from the id, the secret and the amounts (nothing the proof says about hashes is trusted), walked
 * to the root with every sum checked (no negative, no overflow, parent = left + right), and the root and its
 * sums compared with the commitment, whose own digest is checked first. The carried tags and leaf hashes only
 * help name what was changed.
 */
import { UsageError } from "../errors/index.js";
import { totalsStatus, totalsWords } from "../judge/words.js";
import { type Finding, verdictOfFindings } from "../reserves/verdict.js";
import { cannotSay, claim, fails, ok, type VerifyStep } from "../reserves/verifier.js";
import { quoted, short as shown } from "../util/text.js";
import { announcedRoot, type Commitment, commitmentFaults, type Total, totalOf } from "./commitment.js";
import { rootBindsTotals } from "./commitment-totals.js";
import {
  AMOUNT_BYTES,
  bindsAssets,
  CONSTRUCTIONS,
  type Construction,
  FORMAT_VERSION,
  getAmount,
  hex,
  isForest,
  leafHash,
  PROOF_FORMAT,
  parentOf,
  putAmount,
  recordBytes,
  tagOf,
} from "./format.js";
import type { AnyProof, ProofDocument, ProofDocumentV2, ProofLeaf } from "./proof.js";
import { isObj, strictJsonDocuments, unknownMember } from "./read.js";
import { namesFindings, sameTable, tableFrom, tableText } from "./verify-table.js";
import { amount, heldBy, leavesV2, leavesV2From, walkLeafV2 } from "./verify-v2.js";

export interface LiabilitiesVerdict {
  verdict: "holds" | "fails";
  /** the id the proof is for */
  customer: string;
  /** the id the customer said is theirs (`--customer`), when given */
  expected_customer?: string;
  /** what the proof shows the customer holds in the committed liabilities */
  balances: Total[];
  root: string;
  label?: string;
  /** the audit's challenge the commitment was built for (`liabilities build --challenge`), when it has one */
  challenge?: string;
  /** the commitment's `created` (RFC 3339) */
  created: string;
  /** the commitment's digest */
  commitment: string;
  /**
   * whether the commitment's root binds its totals, as this check saw it (the `totals` finding says how):
   * bound (v2's root hashes them; v1's children it carries, or this proof's path, reach the root with them),
   * not-bound (they are not the root's), unread (`--root` alone, or no path reached the root)
   */
  totals_binding: "bound" | "not-bound" | "unread";
  /**
   * whether the root binds the asset table (each asset's name and decimals): bound (merkle-sum-sha256/v1.1,
   * v2.1: the root hashes it), not-bound (v1, v2: the leaf holds, but by position only)
   */
  names_binding: "bound" | "not-bound";
  /** what failed, most telling first; empty when the proof holds (the failing findings' texts) */
  faults: string[];
  /** every step's findings, in order (claim / ok / fails, with the field or leaf they concern) */
  findings: Finding[];
}

const HEX32 = /^[0-9a-f]{64}$/;
const PROOF_MEMBERS = [
  "format",
  "version",
  "construction",
  "commitment",
  "root",
  "assets",
  "label",
  "customer",
  "secret",
  "balances",
  "leaves",
] as const;
const LEAF_MEMBERS = ["index", "part", "parts", "tag", "hash", "amounts", "path"] as const;

/**
 * Reads one proof document (an object from {@link strictJsonDocuments}); UsageError (exit 2) when it is not
 * one: a member the format does not have, another format, version or construction, a field of the wrong
 * type. Values are judged by the verifier.
 */
function proofFrom(v: unknown, file: string): AnyProof {
  const bad = (why: string): never => {
    throw new UsageError(`${file}: not a liabilities proof: ${why}`);
  };
  if (!isObj(v)) return bad("not a JSON object");
  if (v.format !== PROOF_FORMAT) bad(`format is ${shown(v.format)}, expected "${PROOF_FORMAT}"`);
  const extra = unknownMember(v, PROOF_MEMBERS);
  if (extra !== undefined) bad(`member ${quoted(extra)} is not part of the format`);
  if (v.version !== FORMAT_VERSION) bad(`version ${shown(v.version)} (this chaingw reads ${FORMAT_VERSION})`);
  if (!CONSTRUCTIONS.includes(v.construction as Construction))
    bad(`construction ${shown(v.construction)}, expected one of ${CONSTRUCTIONS.join(", ")}`);
  tableFrom(v.assets, v.construction as Construction, bad);
  for (const k of ["commitment", "root", "customer", "secret"])
    if (typeof v[k] !== "string") bad(`${k} is not text`);
  if (v.label !== undefined && typeof v.label !== "string") bad("label is not text");
  if (
    !Array.isArray(v.balances) ||
    v.balances.some(
      (b) =>
        !isObj(b) ||
        unknownMember(b, ["asset", "amount", "base_units"]) !== undefined ||
        typeof b.asset !== "string" ||
        typeof b.amount !== "string" ||
        typeof b.base_units !== "string",
    )
  )
    bad("balances is not a list of {asset, amount, base_units}");
  if (!Array.isArray(v.leaves)) bad("leaves is not a list");
  if (isForest(v.construction as Construction)) {
    leavesV2From(v.leaves as unknown[], bad);
    return v as unknown as ProofDocumentV2;
  }
  for (const [i, l] of (v.leaves as unknown[]).entries()) {
    if (!isObj(l)) {
      bad(`leaves[${i}] is not an object`);
      continue;
    }
    const extraLeaf = unknownMember(l, LEAF_MEMBERS);
    if (extraLeaf !== undefined) bad(`leaves[${i}]: member ${quoted(extraLeaf)} is not part of the format`);
    for (const k of ["index", "part", "parts"])
      if (!Number.isSafeInteger(l[k])) bad(`leaves[${i}].${k} is not a whole number`);
    for (const k of ["tag", "hash"]) if (typeof l[k] !== "string") bad(`leaves[${i}].${k} is not text`);
    if (!Array.isArray(l.amounts) || l.amounts.some((x) => typeof x !== "string"))
      bad(`leaves[${i}].amounts is not a list of decimal strings`);
    if (!Array.isArray(l.path)) bad(`leaves[${i}].path is not a list`);
    (l.path as unknown[]).forEach((s, j) => {
      if (
        !isObj(s) ||
        unknownMember(s, ["hash", "sums"]) !== undefined ||
        typeof s.hash !== "string" ||
        !Array.isArray(s.sums) ||
        s.sums.some((x) => typeof x !== "string")
      )
        bad(`leaves[${i}].path[${j}] is not {hash, sums}`);
    });
  }
  return v as unknown as ProofDocument;
}

/** Reads a proof file: one proof, or JSON Lines of several (as `liabilities proof ID ID…` prints them). */
export function parseProofs(text: string, file: string): AnyProof[] {
  const docs = strictJsonDocuments(text, file);
  return docs.map((d) => proofFrom(d.value, docs.length > 1 ? `${file} line ${d.line}` : file));
}

function record(hashHex: string, sums: bigint[]): Uint8Array {
  const r = new Uint8Array(recordBytes(sums.length));
  r.set(Buffer.from(hashHex, "hex"), 0);
  sums.forEach((s, a) => {
    putAmount(r, 32 + a * AMOUNT_BYTES, s);
  });
  return r;
}

const short = (h: string) => `${h.slice(0, 12)}…`;

/** The options of `liabilities verify` on chaingw's own proofs. */
export interface LiabilitiesOptions {
  /** the id the customer knows as theirs (`--customer`): a proof for anyone else fails first of all */
  customer?: string;
  /** the root the exchange announced (`--root`, lowercase hex): the commitment's root must be it */
  root?: string;
  /**
   * no commitment was read (`--root` alone): the commitment here is the proof's own frame around `root`, so
   * its digest, label, created and root totals are not checked
   */
  rootOnly?: boolean;
}

/** What every step of one proof's check runs with: the commitment it is checked against, the options. */
export interface LiabilitiesContext {
  commitment: Commitment;
  options: LiabilitiesOptions;
}

/** What the steps learn as they go: the customer's tag (from the secret) and the amounts the leaves add up to. */
export interface LiabilitiesState {
  proof: AnyProof;
  tag: Uint8Array;
  /** per asset of the commitment, the sum of the leaves' amounts */
  sum: bigint[];
  /** v1: a leaf's path reached the committed root with the commitment's totals */
  reached?: boolean;
}

/** A step of the one verifier shape (reserves/verifier.ts `VerifyStep`), synchronous: the check is offline. */
interface Step extends VerifyStep<LiabilitiesContext, LiabilitiesState> {
  run(ctx: LiabilitiesContext, st: LiabilitiesState): Finding[];
}

/** The proof is the customer's own (`--customer`): anyone else's says nothing of their balance. */
const customerStep: Step = {
  name: "customer",
  run: ({ options: { customer } }, { proof }) =>
    customer === undefined
      ? [claim("customer", `the proof is customer ${quoted(proof.customer)}'s`, "customer")]
      : proof.customer === customer
        ? [ok("customer", `the proof is customer ${quoted(customer)}'s, as --customer says`, "customer")]
        : [
            fails(
              "customer",
              `this proof is customer ${quoted(proof.customer)}'s, not ${quoted(customer)}'s: it says nothing of your balance`,
              "customer",
            ),
          ],
};

/** The commitment's digest still matches its content. */
const commitmentStep: Step = {
  name: "commitment",
  run: ({ commitment: c, options }) => {
    if (options.rootOnly)
      return [
        claim(
          "commitment",
          "no --commitment: checked against the root given with --root alone; the commitment document (its digest, created, the root's totals) was not read",
          "digest",
        ),
      ];
    const bad = commitmentFaults(c);
    return bad.length
      ? bad.map((t) => fails("commitment", t, "digest"))
      : [ok("commitment", `the commitment's content hashes to its digest ${short(c.digest)}`, "digest")];
  },
};

/** The proof names this build: its label, its commitment digest and root. */
const buildStep: Step = {
  name: "build",
  run: ({ commitment: c, options }, { proof }) => {
    const out: Finding[] = [];
    if (options.root !== undefined && c.root !== options.root)
      out.push(
        fails(
          "build",
          `the commitment's root ${c.root} is not the announced root ${options.root} (--root)`,
          "root",
        ),
      );
    else if (options.root !== undefined && !options.rootOnly)
      out.push(
        ok("build", `the commitment's root is the announced root ${short(options.root)} (--root)`, "root"),
      );
    if (options.rootOnly) {
      if (proof.root !== c.root)
        out.push(
          fails(
            "build",
            `the proof names the root ${proof.root}, not the announced root ${c.root} (--root)`,
            "root",
          ),
        );
      return out;
    }
    if (proof.label !== c.label)
      out.push(
        fails(
          "build",
          `the proof's label ${proof.label === undefined ? "is missing" : quoted(proof.label)}, the commitment's ${c.label === undefined ? "is missing" : quoted(c.label)}`,
          "label",
        ),
      );
    if (proof.construction !== c.construction)
      out.push(
        fails(
          "build",
          `the proof is of ${proof.construction}, the commitment of ${c.construction}`,
          "construction",
        ),
      );
    if (
      bindsAssets(c.construction) &&
      !isForest(c.construction) &&
      proof.construction === c.construction &&
      !sameTable(proof.assets, c.assets)
    )
      out.push(
        fails(
          "build",
          `the proof's asset table (${tableText(proof.assets ?? [])}) is not the commitment's (${tableText(c.assets)}), which its root hashes`,
          "assets",
        ),
      );
    if (proof.commitment !== c.digest || proof.root !== c.root)
      out.push(
        fails(
          "build",
          `the proof is for another build: root ${short(proof.root)} (commitment ${short(proof.commitment)}), this commitment's root is ${short(c.root)} (digest ${short(c.digest)})`,
          "root",
        ),
      );
    return out;
  },
};

/** The secret, from which the customer's tag is HMAC-SHA256(secret, id). */
const secretStep: Step = {
  name: "secret",
  run: (_, st) => {
    const good = /^[0-9a-f]{64}$/.test(st.proof.secret);
    st.tag = tagOf(
      good ? Buffer.from(st.proof.secret, "hex") : new Uint8Array(32),
      Buffer.from(st.proof.customer, "utf8"),
    );
    return good ? [] : [fails("secret", "the secret is not 64 hex digits", "secret")];
  },
};

/** The leaves: all of the customer's parts, once each, inside the tree. */
const leavesStep: Step = {
  name: "leaves",
  run: ({ commitment: c }, { proof }) => {
    // v2: a customer holding nothing has no leaf (their balances say nothing is held)
    if (isForest(proof.construction)) return leavesV2(c, (proof as ProofDocumentV2).leaves);
    const { leaves } = proof;
    const out: Finding[] = [];
    const bad = (text: string, at = "leaves") => out.push(fails("leaves", text, at));
    if (!leaves.length) bad("the proof carries no leaf: the customer is not shown in the tree");
    const parts = leaves[0]?.parts ?? 0;
    const present = new Set<number>();
    const indices = new Set<number>();
    for (const [k, l] of leaves.entries()) {
      const at = `leaves[${k}]`;
      if (l.parts !== parts) bad(`leaf ${l.index} says ${l.parts} parts, another says ${parts}`, at);
      if (l.part < 0 || l.part >= parts || present.has(l.part))
        bad(`leaf ${l.index}: part ${l.part} of ${parts} is out of place or given twice`, at);
      present.add(l.part);
      if (indices.has(l.index)) bad(`leaf ${l.index} is given twice`, at);
      indices.add(l.index);
      if (l.index < 0 || l.index >= c.leaves)
        bad(`leaf index ${l.index} is outside the tree (${c.leaves} leaves)`, at);
    }
    for (let p = 0; p < parts; p++)
      if (!present.has(p))
        bad(`part ${p} of ${parts} is missing: the proof does not carry all of this customer's leaves`);
    return out;
  },
};

/**
 * Each leaf recomputed from the tag, its part and its amounts, and walked to the root with every sum checked
 * (no negative, no overflow, parent = left + right); the root and its sums against the commitment. The
 * carried tag and leaf hash only help name what was changed.
 */
const pathStep: Step = {
  name: "path",
  run: (ctx, st) => {
    const c = ctx.commitment;
    const out: Finding[] = [];
    const { proof } = st;
    if (isForest(proof.construction))
      for (const [k, l] of (proof as ProofDocumentV2).leaves.entries())
        out.push(...walkLeafV2(c, st.tag, st.sum, l, `leaves[${k}]`));
    else
      for (const [k, l] of (proof as ProofDocument).leaves.entries())
        out.push(...walkLeaf(c, st, l, `leaves[${k}]`, ctx.options.rootOnly));
    return out;
  },
};

function walkLeaf(
  c: Commitment,
  st: LiabilitiesState,
  l: ProofLeaf,
  where: string,
  rootOnly = false,
): Finding[] {
  const A = c.assets.length;
  const out: Finding[] = [];
  const at = `leaf ${l.index}`;
  const bad = (text: string, field = where) => out.push(fails("path", text, field));
  if (l.amounts.length !== A) {
    bad(`${at} has ${l.amounts.length} amounts, the commitment ${A} assets`, `${where}.amounts`);
    return out;
  }
  const amounts = l.amounts.map((x, a) =>
    amount(x, `${at}: the ${c.assets[a].asset} amount`, `${where}.amounts[${a}]`, out),
  );
  if (amounts.some((x) => x === undefined)) return out;
  amounts.forEach((x, a) => {
    st.sum[a] += x!;
  });
  if (l.path.length !== c.height) {
    bad(`${at}: the path has ${l.path.length} steps, the tree is ${c.height} high`, `${where}.path`);
    return out;
  }
  const own = new Uint8Array(A * AMOUNT_BYTES);
  amounts.forEach((x, a) => {
    putAmount(own, a * AMOUNT_BYTES, x!);
  });
  const computed = hex(leafHash(st.tag, l.part, l.parts, own));
  // name the change the proof's own fields give away (the walk below decides)
  if (computed !== l.hash) {
    if (l.tag !== hex(st.tag))
      bad(`${at} is another customer's: its tag is not HMAC-SHA256(secret, ${quoted(st.proof.customer)})`);
    else
      bad(`${at}: the amounts (or the part) were edited: they do not hash to the leaf the path starts from`);
  }
  let node: Uint8Array | undefined = record(computed, amounts as bigint[]);
  let i = l.index;
  for (let level = 0; level < c.height; level++) {
    const step = l.path[level];
    const stepAt = `${where}.path[${level}]`;
    if (!HEX32.test(step.hash) || step.sums.length !== A) {
      bad(`${at}: path step ${level} is not a 32-byte hash with ${A} sums`, stepAt);
      return out;
    }
    const sums = step.sums.map((x, a) =>
      amount(
        x,
        `${at}: the sibling's ${c.assets[a].asset} sum at level ${level}`,
        `${stepAt}.sums[${a}]`,
        out,
      ),
    );
    if (sums.some((x) => x === undefined)) return out;
    const sib = record(step.hash, sums as bigint[]);
    node = i & 1 ? parentOf(sib, node, A) : parentOf(node, sib, A);
    if (!node) {
      bad(`${at}: a sum overflows 128 bits at level ${level + 1}: it does not add up`, stepAt);
      return out;
    }
    i >>= 1;
  }
  // v1.1: the announced root hashes the asset table with the tree's top
  const rootHex = announcedRoot(c, node);
  const top = `${where}.path[${c.height - 1}]`;
  if (rootHex !== c.root)
    bad(`${at}: the path leads to ${short(rootHex)}, not to the committed root ${short(c.root)}`, top);
  let added = true;
  // the root's totals are the commitment's; with --root alone they are what the path adds up to, said as such
  if (!rootOnly)
    c.assets.forEach((asset, a) => {
      const got = getAmount(node!, 32 + a * AMOUNT_BYTES);
      if (got.toString() !== c.totals[a].base_units) {
        added = false;
        bad(
          `${at}: the path's ${asset.asset} sums add up to ${got} base units at the root, the commitment's total is ${c.totals[a].base_units}: a sum does not add up`,
          top,
        );
      }
    });
  if (rootHex === c.root && added) {
    if (!rootOnly) st.reached = true;
    out.push(
      ok(
        "path",
        rootOnly
          ? `${at} reaches the announced root ${short(c.root)}`
          : `${at} reaches the committed root ${short(c.root)} with its totals`,
        where,
      ),
    );
  }
  return out;
}

/**
 * Whether the commitment's root binds its totals (issue 55 item 2), said in every verdict: v2's root hashes
 * them; v1's root's two children the commitment carries must hash to it and sum to them; a v1 commitment built
 * before it carried them is bound through this proof's path, which reached the root with them (pathStep).
 */
const totalsStep: Step = {
  name: "totals",
  run: ({ commitment: c, options }, st) => {
    if (options.rootOnly) return [claim("totals", totalsWords({ code: "totals-unread" }), "root")];
    const f =
      rootBindsTotals(c) ?? (st.reached ? ({ code: "totals-bound", by: "path" } as const) : undefined);
    if (!f) return [];
    const status = totalsStatus(f);
    return [
      (status === "bound" ? ok : status === "fails" ? fails : cannotSay)("totals", totalsWords(f), "totals"),
    ];
  },
};

/** Whether the root binds the asset table (verify-table.ts), said in every verdict. */
const namesStep: Step = { name: "names", run: ({ commitment: c }) => namesFindings(c) };

/**
 * The balances the proof states are what the leaves add up to: they list exactly the assets `listed` (v1:
 * every asset of the commitment; v2: the assets the leaves are of), in the commitment's order, each the
 * leaves' sum — one check for both constructions.
 */
const balancesStep: Step = {
  name: "balances",
  run: ({ commitment: c }, { proof, sum }) => {
    const v2 = isForest(proof.construction);
    const listed = v2 ? heldBy(c, (proof as ProofDocumentV2).leaves) : c.assets.map((_, a) => a);
    if (
      proof.balances.length !== listed.length ||
      proof.balances.some((b, i) => b.asset !== c.assets[listed[i]].asset)
    )
      return [
        fails(
          "balances",
          v2
            ? "the balances do not list the assets the leaves are of, in the commitment's order (v2 lists what is held)"
            : "the balances do not list the commitment's assets in its order",
          "balances",
        ),
      ];
    const out: Finding[] = [];
    proof.balances.forEach((b, i) => {
      const t = totalOf(c.assets[listed[i]], sum[listed[i]]);
      if (b.base_units !== t.base_units || b.amount !== t.amount)
        out.push(
          fails(
            "balances",
            `the ${b.asset} balance says ${b.amount}, the leaves add up to ${t.amount}: an amount was edited`,
            `balances[${i}]`,
          ),
        );
    });
    return out.length ? out : [ok("balances", "the balances are what the leaves add up to", "balances")];
  },
};

/** The steps of one proof's check, in the order they depend on one another (the secret before the path). */
export const STEPS: readonly Step[] = [
  customerStep,
  commitmentStep,
  buildStep,
  secretStep,
  leavesStep,
  pathStep,
  totalsStep,
  namesStep,
  balancesStep,
];

/**
 * Checks `proof` against `commitment` (the one verifier shape: named steps over one context, each returning
 * findings); with `options.customer` (the id the customer knows as theirs), a proof for anyone else fails
 * first of all, however well it verifies.
 */
export function verifyLiabilityProof(
  proof: AnyProof,
  commitment: Commitment,
  options: LiabilitiesOptions = {},
): LiabilitiesVerdict {
  const c = commitment;
  const ctx: LiabilitiesContext = { commitment: c, options };
  const st: LiabilitiesState = { proof, tag: new Uint8Array(32), sum: c.assets.map(() => 0n) };
  const findings = STEPS.flatMap((s) => s.run(ctx, st));
  const { customer } = options;
  const totals = findings.find((f) => f.step === "totals");
  return {
    verdict: verdictOfFindings(findings) === "holds" ? "holds" : "fails",
    customer: proof.customer,
    ...(customer !== undefined ? { expected_customer: customer } : {}),
    balances: c.assets.map((a, i) => totalOf(a, st.sum[i])),
    root: c.root,
    ...(c.label !== undefined ? { label: c.label } : {}),
    ...(c.challenge !== undefined ? { challenge: c.challenge } : {}),
    created: c.created,
    commitment: c.digest,
    totals_binding: totals?.status === "ok" ? "bound" : totals?.status === "fails" ? "not-bound" : "unread",
    names_binding: bindsAssets(c.construction) ? "bound" : "not-bound",
    faults: findings.filter((f) => f.status === "fails").map((f) => f.text),
    findings,
  };
}

/**
 * Checks `proofs` against `commitment`. With `options.customer`, only that customer's proofs are checked,
 * and a file holding none of theirs fails (a file of someone else's proof included).
 */
export function checkProofs(
  proofs: AnyProof[],
  commitment: Commitment,
  options: LiabilitiesOptions = {},
): LiabilitiesVerdict[] {
  const { customer } = options;
  const theirs = customer === undefined ? proofs : proofs.filter((p) => p.customer === customer);
  if (theirs.length) return theirs.map((p) => verifyLiabilityProof(p, commitment, options));
  // none of theirs: the first proof is checked, and fails on whose it is
  const v = verifyLiabilityProof(proofs[0], commitment, options);
  if (proofs.length > 1) {
    const text = `the file holds ${proofs.length} proofs, none of them customer ${quoted(customer!)}'s`;
    v.faults.unshift(text);
    v.findings.unshift(fails("customer", text, "customer"));
  }
  return [v];
}
