/**
 * `liabilities verify`: a customer's proof checked offline against the published commitment. Every leaf is
 * recomputed from the id, the secret and the amounts (nothing the proof says about hashes is trusted), walked
 * to the root with every sum checked (no negative, no overflow, parent = left + right), and the root and its
 * sums compared with the commitment, whose own digest is checked first. The carried tags and leaf hashes only
 * help name what was changed.
 */
import { UsageError } from "../errors/index.js";
import { quoted, short as shown } from "../util/text.js";
import { type Commitment, commitmentFaults, parseCommitment, type Total, totalOf } from "./commitment.js";
import {
  AMOUNT_BYTES,
  CONSTRUCTION,
  FORMAT_VERSION,
  getAmount,
  hex,
  leafHash,
  MAX_AMOUNT,
  PROOF_FORMAT,
  parentOf,
  putAmount,
  recordBytes,
  tagOf,
} from "./format.js";
import type { ProofDocument } from "./proof.js";
import { isObj, strictJsonDocuments, unknownMember } from "./read.js";

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
  /** the commitment's `created` (RFC 3339) */
  created: string;
  /** the commitment's digest */
  commitment: string;
  /** what failed, most telling first; empty when the proof holds */
  faults: string[];
}

const HEX32 = /^[0-9a-f]{64}$/;
const PROOF_MEMBERS = [
  "format",
  "version",
  "construction",
  "commitment",
  "root",
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
function proofFrom(v: unknown, file: string): ProofDocument {
  const bad = (why: string): never => {
    throw new UsageError(`${file}: not a liabilities proof: ${why}`);
  };
  if (!isObj(v)) return bad("not a JSON object");
  if (v.format !== PROOF_FORMAT) bad(`format is ${shown(v.format)}, expected "${PROOF_FORMAT}"`);
  const extra = unknownMember(v, PROOF_MEMBERS);
  if (extra !== undefined) bad(`member ${quoted(extra)} is not part of the format`);
  if (v.version !== FORMAT_VERSION) bad(`version ${shown(v.version)} (this chaingw reads ${FORMAT_VERSION})`);
  if (v.construction !== CONSTRUCTION) bad(`construction ${shown(v.construction)}, expected ${CONSTRUCTION}`);
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
export function parseProofs(text: string, file: string): ProofDocument[] {
  const docs = strictJsonDocuments(text, file);
  return docs.map((d) => proofFrom(d.value, docs.length > 1 ? `${file} line ${d.line}` : file));
}

/** Reads a file holding exactly one proof; UsageError (exit 2) when `text` is not one. */
export function parseProof(text: string, file: string): ProofDocument {
  const docs = parseProofs(text, file);
  if (docs.length !== 1) throw new UsageError(`${file}: ${docs.length} proofs, expected one`);
  return docs[0];
}

/** Base units from a proof's text: a fault (not an exception) when negative, malformed or past 128 bits. */
function amount(text: string, where: string, faults: string[]): bigint | undefined {
  if (/^-\d+$/.test(text)) {
    faults.push(`${where} is negative (${text})`);
    return undefined;
  }
  if (!/^\d{1,40}$/.test(text)) {
    faults.push(`${where} is not a whole number of base units (${quoted(text.slice(0, 40))})`);
    return undefined;
  }
  const v = BigInt(text);
  if (v > MAX_AMOUNT) {
    faults.push(`${where} overflows 128 bits (${text})`);
    return undefined;
  }
  return v;
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

/**
 * Checks `proof` against `commitment`; with `customer` (the id the customer knows as theirs), a proof for
 * anyone else fails first of all, however well it verifies.
 */
export function verifyLiabilityProof(
  proof: ProofDocument,
  commitment: Commitment,
  customer?: string,
): LiabilitiesVerdict {
  const c = commitment;
  const A = c.assets.length;
  const faults: string[] = [];
  if (customer !== undefined && proof.customer !== customer)
    faults.push(
      `this proof is customer ${quoted(proof.customer)}'s, not ${quoted(customer)}'s: it says nothing of your balance`,
    );
  faults.push(...commitmentFaults(c));
  const id = Buffer.from(proof.customer, "utf8");

  if (proof.label !== c.label)
    faults.push(
      `the proof's label ${proof.label === undefined ? "is missing" : quoted(proof.label)}, the commitment's ${c.label === undefined ? "is missing" : quoted(c.label)}`,
    );
  if (proof.commitment !== c.digest || proof.root !== c.root)
    faults.push(
      `the proof is for another build: root ${short(proof.root)} (commitment ${short(proof.commitment)}), this commitment's root is ${short(c.root)} (digest ${short(c.digest)})`,
    );
  const secretOk = /^[0-9a-f]{64}$/.test(proof.secret);
  if (!secretOk) faults.push("the secret is not 64 hex digits");
  const secret = secretOk ? Buffer.from(proof.secret, "hex") : new Uint8Array(32);
  const tag = tagOf(secret, id);
  const tagHex = hex(tag);

  // the leaves: all of the customer's parts, once each
  const leaves = proof.leaves;
  if (!leaves.length) faults.push("the proof carries no leaf: the customer is not shown in the tree");
  const parts = leaves[0]?.parts ?? 0;
  const present = new Set<number>();
  const indices = new Set<number>();
  for (const l of leaves) {
    if (l.parts !== parts) faults.push(`leaf ${l.index} says ${l.parts} parts, another says ${parts}`);
    if (l.part < 0 || l.part >= parts || present.has(l.part))
      faults.push(`leaf ${l.index}: part ${l.part} of ${parts} is out of place or given twice`);
    present.add(l.part);
    if (indices.has(l.index)) faults.push(`leaf ${l.index} is given twice`);
    indices.add(l.index);
    if (l.index < 0 || l.index >= c.leaves)
      faults.push(`leaf index ${l.index} is outside the tree (${c.leaves} leaves)`);
  }
  for (let p = 0; p < parts; p++)
    if (!present.has(p))
      faults.push(`part ${p} of ${parts} is missing: the proof does not carry all of this customer's leaves`);

  const sum = c.assets.map(() => 0n);
  for (const l of leaves) {
    const at = `leaf ${l.index}`;
    if (l.amounts.length !== A) {
      faults.push(`${at} has ${l.amounts.length} amounts, the commitment ${A} assets`);
      continue;
    }
    const amounts = l.amounts.map((x, a) => amount(x, `${at}: the ${c.assets[a].asset} amount`, faults));
    if (amounts.some((x) => x === undefined)) continue;
    amounts.forEach((x, a) => {
      sum[a] += x!;
    });
    if (l.path.length !== c.height) {
      faults.push(`${at}: the path has ${l.path.length} steps, the tree is ${c.height} high`);
      continue;
    }
    const own = new Uint8Array(A * AMOUNT_BYTES);
    amounts.forEach((x, a) => {
      putAmount(own, a * AMOUNT_BYTES, x!);
    });
    const computed = hex(leafHash(tag, l.part, l.parts, own));
    // name the change the proof's own fields give away (the walk below decides)
    if (computed !== l.hash) {
      if (l.tag !== tagHex)
        faults.push(
          `${at} is another customer's: its tag is not HMAC-SHA256(secret, ${quoted(proof.customer)})`,
        );
      else
        faults.push(
          `${at}: the amounts (or the part) were edited: they do not hash to the leaf the path starts from`,
        );
    }
    let node: Uint8Array | undefined = record(computed, amounts as bigint[]);
    let i = l.index;
    for (let level = 0; level < c.height && node; level++) {
      const step = l.path[level];
      if (!HEX32.test(step.hash) || step.sums.length !== A) {
        faults.push(`${at}: path step ${level} is not a 32-byte hash with ${A} sums`);
        node = undefined;
        break;
      }
      const sums = step.sums.map((x, a) =>
        amount(x, `${at}: the sibling's ${c.assets[a].asset} sum at level ${level}`, faults),
      );
      if (sums.some((x) => x === undefined)) {
        node = undefined;
        break;
      }
      const sib = record(step.hash, sums as bigint[]);
      node = i & 1 ? parentOf(sib, node, A) : parentOf(node, sib, A);
      if (!node) faults.push(`${at}: a sum overflows 128 bits at level ${level + 1}: it does not add up`);
      i >>= 1;
    }
    if (!node) continue;
    const rootHex = hex(node.subarray(0, 32));
    if (rootHex !== c.root)
      faults.push(`${at}: the path leads to ${short(rootHex)}, not to the committed root ${short(c.root)}`);
    c.assets.forEach((asset, a) => {
      const got = getAmount(node!, 32 + a * AMOUNT_BYTES);
      if (got.toString() !== c.totals[a].base_units)
        faults.push(
          `${at}: the path's ${asset.asset} sums add up to ${got} base units at the root, the commitment's total is ${c.totals[a].base_units}: a sum does not add up`,
        );
    });
  }

  // the balances the proof states are what the leaves add up to
  const balances = c.assets.map((a, i) => totalOf(a, sum[i]));
  if (proof.balances.length !== A || proof.balances.some((b, i) => b.asset !== c.assets[i].asset))
    faults.push("the balances do not list the commitment's assets in its order");
  else
    proof.balances.forEach((b, i) => {
      if (b.base_units !== balances[i].base_units || b.amount !== balances[i].amount)
        faults.push(
          `the ${b.asset} balance says ${b.amount}, the leaves add up to ${balances[i].amount}: an amount was edited`,
        );
    });
  return {
    verdict: faults.length ? "fails" : "holds",
    customer: proof.customer,
    ...(customer !== undefined ? { expected_customer: customer } : {}),
    balances,
    root: c.root,
    ...(c.label !== undefined ? { label: c.label } : {}),
    created: c.created,
    commitment: c.digest,
    faults,
  };
}

/**
 * Checks `proofs` against `commitment`. With `customer`, only that customer's proofs are checked, and a
 * file holding none of theirs fails (a file of someone else's proof included).
 */
export function checkProofs(
  proofs: ProofDocument[],
  commitment: Commitment,
  customer?: string,
): LiabilitiesVerdict[] {
  const theirs = customer === undefined ? proofs : proofs.filter((p) => p.customer === customer);
  if (theirs.length) return theirs.map((p) => verifyLiabilityProof(p, commitment, customer));
  // none of theirs: the first proof is checked, and fails on whose it is
  const v = verifyLiabilityProof(proofs[0], commitment, customer);
  if (proofs.length > 1)
    v.faults.unshift(`the file holds ${proofs.length} proofs, none of them customer ${quoted(customer!)}'s`);
  return [v];
}

/** Reads and checks: the proofs in `proofText` (one, or JSON Lines) against the commitment in `commitmentText`. */
export function verifyLiabilities(
  proofText: string,
  proofFile: string,
  commitmentText: string,
  commitmentFile: string,
  customer?: string,
): LiabilitiesVerdict[] {
  const commitment = parseCommitment(commitmentText, commitmentFile);
  return checkProofs(parseProofs(proofText, proofFile), commitment, customer);
}
