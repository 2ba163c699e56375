/**
 * `liabilities verify`: a customer's proof checked offline against the published commitment. Every leaf is
 * recomputed from the id, the secret and the amounts (nothing the proof says about hashes is trusted), walked
 * to the root with every sum checked (no negative, no overflow, parent = left + right), and the root and its
 * sums compared with the commitment, whose own digest is checked first. The carried tags and leaf hashes only
 * help name what was changed.
 */
import { UsageError } from "../errors/index.js";
import { type Commitment, commitmentFaults, parseCommitment, type Total, totalOf } from "./commitment.js";
import {
  AMOUNT_BYTES,
  CONSTRUCTION,
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

export interface LiabilitiesVerdict {
  verdict: "holds" | "fails";
  customer: string;
  /** what the proof shows the customer holds in the committed liabilities */
  balances: Total[];
  root: string;
  label?: string;
  /** the commitment's digest */
  commitment: string;
  /** what failed, most telling first; empty when the proof holds */
  faults: string[];
}

const HEX32 = /^[0-9a-f]{64}$/;
const isObj = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);

/** Reads a proof document; UsageError (exit 2) when `text` is not one. Values are judged by the verifier. */
export function parseProof(text: string, file: string): ProofDocument {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new UsageError(`${file}: not JSON (${(e as Error).message})`);
  }
  const bad = (why: string): never => {
    throw new UsageError(`${file}: not a liabilities proof: ${why}`);
  };
  if (!isObj(v)) return bad("not a JSON object");
  if (v.format !== PROOF_FORMAT) bad(`format is ${JSON.stringify(v.format)}, expected "${PROOF_FORMAT}"`);
  for (const k of ["construction", "commitment", "root", "customer", "secret"])
    if (typeof v[k] !== "string") bad(`${k} is not text`);
  if (!Array.isArray(v.balances) || v.balances.some((b) => !isObj(b) || typeof b.asset !== "string"))
    bad("balances is not a list of {asset, amount, base_units}");
  if (!Array.isArray(v.leaves)) bad("leaves is not a list");
  for (const [i, l] of (v.leaves as unknown[]).entries()) {
    if (!isObj(l)) {
      bad(`leaves[${i}] is not an object`);
      continue;
    }
    for (const k of ["index", "part", "parts"])
      if (!Number.isInteger(l[k])) bad(`leaves[${i}].${k} is not a whole number`);
    for (const k of ["tag", "hash"]) if (typeof l[k] !== "string") bad(`leaves[${i}].${k} is not text`);
    if (!Array.isArray(l.amounts) || l.amounts.some((x) => typeof x !== "string"))
      bad(`leaves[${i}].amounts is not a list of decimal strings`);
    if (!Array.isArray(l.path)) bad(`leaves[${i}].path is not a list`);
    (l.path as unknown[]).forEach((s, j) => {
      if (
        !isObj(s) ||
        typeof s.hash !== "string" ||
        !Array.isArray(s.sums) ||
        s.sums.some((x) => typeof x !== "string")
      )
        bad(`leaves[${i}].path[${j}] is not {hash, sums}`);
    });
  }
  return v as unknown as ProofDocument;
}

/** Base units from a proof's text: a fault (not an exception) when negative, malformed or past 128 bits. */
function amount(text: string, where: string, faults: string[]): bigint | undefined {
  if (/^-\d+$/.test(text)) {
    faults.push(`${where} is negative (${text})`);
    return undefined;
  }
  if (!/^\d{1,40}$/.test(text)) {
    faults.push(`${where} is not a whole number of base units (${JSON.stringify(text.slice(0, 40))})`);
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

/** Checks `proof` against `commitment`. */
export function verifyLiabilityProof(proof: ProofDocument, commitment: Commitment): LiabilitiesVerdict {
  const c = commitment;
  const A = c.assets.length;
  const faults: string[] = [...commitmentFaults(c)];
  const id = Buffer.from(proof.customer, "utf8");

  if (proof.construction !== CONSTRUCTION)
    faults.push(`construction ${proof.construction}, not ${CONSTRUCTION}`);
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
        faults.push(`${at} is another customer's: its tag is not HMAC-SHA256(secret, "${proof.customer}")`);
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
    balances,
    root: c.root,
    ...(c.label !== undefined ? { label: c.label } : {}),
    commitment: c.digest,
    faults,
  };
}

/** Reads and checks: `proofText` from `proofFile`, `commitmentText` from `commitmentFile`. */
export function verifyLiabilities(
  proofText: string,
  proofFile: string,
  commitmentText: string,
  commitmentFile: string,
): LiabilitiesVerdict {
  const commitment = parseCommitment(commitmentText, commitmentFile);
  const proof = parseProof(proofText, proofFile);
  return verifyLiabilityProof(proof, commitment);
}
