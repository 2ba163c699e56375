/**
 * `liabilities proof`: a customer's inclusion proof, read from a build directory without rebuilding — the
 * customer's line through the index, then for each of their leaves the leaf record and one sibling record per
 * level.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../errors/index.js";
import { type Commitment, parseCommitment, type Total, totalOf } from "./commitment.js";
import {
  AMOUNT_BYTES,
  bindsAssets,
  type CONSTRUCTION,
  type CONSTRUCTION_V1_1,
  type CONSTRUCTION_V2,
  type CONSTRUCTION_V2_1,
  FORMAT_VERSION,
  getAmount,
  hex,
  isForest,
  PROOF_FORMAT,
  sha256Native,
  tagOf,
} from "./format.js";
import type { Asset } from "./input.js";
import { BuildStore, COMMITMENT_FILE, type CustomerEntry } from "./store.js";

export interface PathStep {
  /** the sibling's hash */
  hash: string;
  /** the sibling's sums, base units per asset in the commitment's order */
  sums: string[];
}

export interface ProofLeaf {
  index: number;
  part: number;
  parts: number;
  /** HMAC-SHA256(secret, id), hex: the verifier recomputes it; carried to name another customer's leaf */
  tag: string;
  /** the leaf's hash as in the tree (the verifier recomputes it) */
  hash: string;
  /** base units per asset */
  amounts: string[];
  /** siblings from the leaf's up to the root's children */
  path: PathStep[];
}

/** v2: one leaf in one asset's tree, its path of single sums */
export interface ProofLeafV2 {
  /** the asset's name; its tree is the commitment's trees[asset's index] */
  asset: string;
  index: number;
  part: number;
  parts: number;
  tag: string;
  hash: string;
  /** base units */
  amount: string;
  path: { hash: string; sum: string }[];
}

/** v2's proof: the balances held (not zero), in the commitment's asset order; k leaves per asset held. */
export interface ProofDocumentV2 extends Omit<ProofDocument, "construction" | "leaves"> {
  construction: typeof CONSTRUCTION_V2 | typeof CONSTRUCTION_V2_1;
  leaves: ProofLeafV2[];
}

/** A proof of either construction. */
export type AnyProof = ProofDocument | ProofDocumentV2;

export interface ProofDocument {
  format: typeof PROOF_FORMAT;
  version: typeof FORMAT_VERSION;
  construction: typeof CONSTRUCTION | typeof CONSTRUCTION_V1_1;
  /** the commitment's digest and root this proof is for */
  commitment: string;
  root: string;
  /**
   * v1.1: the commitment's asset table (each asset's name and decimals, in order), which the root hashes: the
   * proof reaches the root with it, so the customer's balances are of the assets it names (v2.1: the
   * commitment's, which a v2.1 proof is always checked against)
   */
  assets?: Asset[];
  label?: string;
  customer: string;
  /** hex; what lets the customer recompute their leaves */
  secret: string;
  balances: Total[];
  leaves: ProofLeaf[];
}

/**
 * v1.1: the asset table the root hashes, as a proof carries it (`assets`: checked against an announced root alone,
 * or in the customer's page); a v2.1 proof is checked against the commitment's table (its size grows with what
 * is held, not with the assets), v1 and v2 have none.
 */
const tableOf = (c: Commitment): { assets?: Asset[] } =>
  bindsAssets(c.construction) && !isForest(c.construction)
    ? { assets: c.assets.map((a) => ({ asset: a.asset, decimals: a.decimals })) }
    : {};

/** A build opened for proofs. */
export class ProofSource {
  readonly store: BuildStore;
  readonly commitment: Commitment;

  constructor(dir: string) {
    const file = join(dir, COMMITMENT_FILE);
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      throw new UsageError(`${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? e})`);
    }
    this.commitment = parseCommitment(text, file);
    this.store = new BuildStore(dir);
    const c = this.commitment;
    const v2 = isForest(c.construction);
    if (
      this.store.assets !== c.assets.length ||
      this.store.height !== c.height ||
      (this.store.version === 2) !== v2 ||
      (v2 && c.trees?.some((t, a) => t.height !== this.store.trees[a].height))
    )
      throw new UsageError(`${dir}: the tree file does not match commitment.json`);
  }

  /** Customer `id`'s proof; undefined when the build has no such customer. */
  proofOf(id: string): AnyProof | undefined {
    const e = this.store.lookup(id);
    return e && this.proofFor(e);
  }

  proofFor(e: CustomerEntry): AnyProof {
    return e.held ? this.proofV2(e, e.held) : this.proofV1(e);
  }

  /** v2: per asset held, its k leaves in its tree, each with its path of single sums. */
  private proofV2(e: CustomerEntry, held: number[]): ProofDocumentV2 {
    const { store, commitment: c } = this;
    const k = held.length ? e.leaves.length / held.length : 0;
    const tag = hex(tagOf(e.secret, Buffer.from(e.id, "utf8")));
    const balances = held.map(() => 0n);
    const leaves = e.leaves.map((index, j): ProofLeafV2 => {
      const h = Math.floor(j / k);
      const a = held[h];
      const rec = store.node(0, index, a);
      const amount = getAmount(rec, 32);
      balances[h] += amount;
      const path: ProofLeafV2["path"] = [];
      for (let level = 0; level < store.trees[a].height; level++) {
        const sib = store.node(level, (index >> level) ^ 1, a);
        path.push({ hash: hex(sib.subarray(0, 32)), sum: getAmount(sib, 32).toString() });
      }
      const asset = c.assets[a].asset;
      return {
        asset,
        index,
        part: j % k,
        parts: k,
        tag,
        hash: hex(rec.subarray(0, 32)),
        amount: `${amount}`,
        path,
      };
    });
    return {
      format: PROOF_FORMAT,
      version: FORMAT_VERSION,
      construction: c.construction as ProofDocumentV2["construction"],
      commitment: c.digest,
      root: c.root,
      ...tableOf(c),
      ...(c.label !== undefined ? { label: c.label } : {}),
      customer: e.id,
      secret: hex(e.secret),
      balances: held.map((a, h) => totalOf(c.assets[a], balances[h])),
      leaves,
    };
  }

  private proofV1(e: CustomerEntry): ProofDocument {
    const { store, commitment: c } = this;
    const A = store.assets;
    const amountsOf = (rec: Uint8Array) =>
      Array.from({ length: A }, (_, a) => getAmount(rec, 32 + a * AMOUNT_BYTES).toString());
    const balances = c.assets.map(() => 0n);
    const tag = hex(tagOf(e.secret, Buffer.from(e.id, "utf8")));
    const leaves = e.leaves.map((index, part): ProofLeaf => {
      const rec = store.node(0, index);
      for (let a = 0; a < A; a++) balances[a] += getAmount(rec, 32 + a * AMOUNT_BYTES);
      const path: PathStep[] = [];
      for (let level = 0; level < store.height; level++) {
        const sib = store.node(level, (index >> level) ^ 1);
        path.push({ hash: hex(sib.subarray(0, 32)), sums: amountsOf(sib) });
      }
      return {
        index,
        part,
        parts: e.leaves.length,
        tag,
        hash: hex(rec.subarray(0, 32)),
        amounts: amountsOf(rec),
        path,
      };
    });
    return {
      format: PROOF_FORMAT,
      version: FORMAT_VERSION,
      construction: c.construction as ProofDocument["construction"],
      commitment: c.digest,
      root: c.root,
      ...tableOf(c),
      ...(c.label !== undefined ? { label: c.label } : {}),
      customer: e.id,
      secret: hex(e.secret),
      balances: c.assets.map((a, i) => totalOf(a, balances[i])),
      leaves,
    };
  }

  /** Every customer's proof, in the customers file's order; upper tree levels held in memory. */
  async *all(cacheBytes = 256 << 20): AsyncGenerator<AnyProof> {
    this.store.cacheLevels(cacheBytes);
    for await (const e of this.store.entries()) yield this.proofFor(e);
  }

  close(): void {
    this.store.close();
  }
}

/** the longest escaped id kept whole in a file name (file systems allow 255 bytes) */
const NAME_MAX = 160;

/**
 * The file a customer's proof is written to under `proof --dir`, for any id: ASCII letters, digits, `_` and
 * `-` kept, every other byte of the UTF-8 id written `%XX` (so `.`, `/`, `\`, `..`, control characters and
 * a leading dot never reach the file system as themselves, and the name decodes back to the id); an
 * escaped id longer than 160 bytes is cut there and `~` and the first 16 hex digits of the id's SHA-256
 * added. Upper case is kept: on a case-insensitive file system two ids differing only in case name one
 * file, which the exclusive write then refuses rather than replace.
 */
export function proofFileName(id: string): string {
  let name = "";
  for (const b of Buffer.from(id, "utf8")) {
    const c = String.fromCharCode(b);
    name += /[A-Za-z0-9_-]/.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, "0")}`;
  }
  if (name.length > NAME_MAX) {
    // not inside a %XX
    const cut = name.lastIndexOf("%", NAME_MAX) > NAME_MAX - 3 ? name.lastIndexOf("%", NAME_MAX) : NAME_MAX;
    name = `${name.slice(0, cut)}~${hex(sha256Native(Buffer.from(id, "utf8"))).slice(0, 16)}`;
  }
  return `${name}.json`;
}
