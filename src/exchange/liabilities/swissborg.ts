/**
 * SwissBorg's proof of liabilities (SwissBorg/proof-of-liabilities, `merkle.ts` at 7ad8737, unchanged in
 * what it hashes since 284c982, 2023-04): the customer's file `userLiab_N.json` (`{audit_id, user_id,
 * liabilities[{audit_partition_id, liability, proof{leaf_index, nonce, witnesses[{digest, liability}]}}]}`)
 * and the audit's file `auditRoots_N.json` (`{audit{id, time, commitment{digest}, partitions[{id, currency,
 * commitment{digest, liability}}]}}`), given as the second file; the customer's credential `--credential`.
 *
 *  - one Merkle-sum tree per currency (a partition); a customer's balance may be split over several leaves;
 *  - leaf: sha256("leaf," nonce "," user_id "," liability as written), the nonce derived from the credential:
 *    HMAC-SHA256 chains keyed by text — audit nonce (credential, "SB PoL - Audit nonce derivation,<audit>"),
 *    the tree's (audit nonce, "SB PoL - Currency Merkle tree nonce derivation,<currency>"), the leaf's
 *    (tree nonce, "SB PoL - Leaf nonce derivation,<index>"); the file's `proof.nonce` is the leaf's hash (Dec 7
 *    and 9, 2022) or its nonce (from SBPOL20221216): both walked, the one that reaches the root named;
 *  - node: sha256("inner," left sum "," right sum "," left hash "," right hash) — each child's own sum, so
 *    no subtree's sum can be shown otherwise on another path (`per-child`); the side from the leaf's index in
 *    the heap `index + 2^depth − 1` (odd: a left child); sums never negative;
 *  - the partitions' roots end at the audit commitment: sha256("SB PoL - Audit commitment hash" then
 *    ",id,liability,digest" of each partition in the order of its currency), which `--root` gives.
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { UsageError } from "../../errors/index.js";
import type { JsonValue } from "../../json/lossless.js";
import type { InclusionOptions } from "./check.js";
import { compareRoot, refuseNegative, type Steps, sha256Hex, step, verifierOf } from "./check.js";
import { addDec, compareDec, type Dec, parseDec, strippedDec, ZERO } from "./decimal.js";
import { FileReader, isObj, type Obj } from "./read.js";

const WHAT = "SwissBorg's user liabilities (userLiab_N.json)";
const ROOTS = "SwissBorg's audit roots (auditRoots_N.json)";
const HASH = /^[0-9a-f]{64}$/;

interface Node {
  digest: string;
  text: string;
  value: Dec;
}
interface Leaf {
  at: string;
  partition: string;
  liability: Node;
  index: number;
  witnesses: Node[];
}
interface Partition {
  id: string;
  currency: string;
  root: Node;
}
interface Doc {
  auditId: string;
  userId: string;
  leaves: Leaf[];
  roots?: { auditId: string; commitment: string; partitions: Partition[]; file: string };
}

const amount = (rd: FileReader, o: Obj, key: string, at: string): Node & { digest: "" } => {
  const text = rd.field(o, key, at, "string");
  const value = parseDec(text);
  if (value === undefined || !/^-?\d+(\.\d+)?$/.test(text))
    throw rd.error(`${at}.${key} must be a plain decimal string`);
  return { digest: "", text, value };
};

const node = (rd: FileReader, n: JsonValue | undefined, at: string, what: string): Node => {
  if (!isObj(n)) throw rd.error(`${at} must be an object`);
  rd.members(n, ["digest", "liability"], at, what);
  const digest = rd.field(n, "digest", at, "string");
  if (!HASH.test(digest)) throw rd.error(`${at}.digest must be 64 lower-case hex digits`);
  return { ...amount(rd, n, "liability", at), digest };
};

function readRoots(text: string, file: string): NonNullable<Doc["roots"]> {
  const rd = new FileReader(file);
  const doc = rd.json(text);
  if (!isObj(doc)) throw rd.error(`not ${ROOTS} (an object with audit)`);
  rd.members(doc, ["audit"], "", ROOTS);
  const a = rd.field(doc, "audit", "", "object");
  rd.members(a, ["commitment", "id", "partitions", "time"], "audit", ROOTS);
  const c = rd.field(a, "commitment", "audit", "object");
  rd.members(c, ["digest"], "audit.commitment", ROOTS);
  const partitions = rd.field(a, "partitions", "audit", "array").map((p, i) => {
    const at = `audit.partitions[${i}]`;
    if (!isObj(p)) throw rd.error(`${at} must be an object`);
    rd.members(p, ["commitment", "currency", "id"], at, ROOTS);
    return {
      id: rd.field(p, "id", at, "string"),
      currency: rd.field(p, "currency", at, "string"),
      root: node(rd, p.commitment, `${at}.commitment`, ROOTS),
    };
  });
  return {
    auditId: rd.field(a, "id", "audit", "string"),
    commitment: rd.field(c, "digest", "audit.commitment", "string"),
    partitions,
    file,
  };
}

function read(text: string, o: InclusionOptions): Doc {
  const rd = new FileReader(o.file);
  const doc = rd.json(text);
  if (!isObj(doc)) throw rd.error(`not ${WHAT} (an object)`);
  rd.members(doc, ["audit_id", "liabilities", "user_id"], "", WHAT);
  const leaves = rd.field(doc, "liabilities", "", "array").map((l, i): Leaf => {
    const at = `liabilities[${i}]`;
    if (!isObj(l)) throw rd.error(`${at} must be an object`);
    rd.members(l, ["audit_partition_id", "liability", "proof"], at, WHAT);
    const p = rd.field(l, "proof", at, "object");
    rd.members(p, ["leaf_index", "nonce", "witnesses"], `${at}.proof`, WHAT);
    const nonce = rd.field(p, "nonce", `${at}.proof`, "string");
    if (!HASH.test(nonce)) throw rd.error(`${at}.proof.nonce must be 64 lower-case hex digits`);
    const index = rd.int(p, "leaf_index", `${at}.proof`);
    const witnesses = rd
      .field(p, "witnesses", `${at}.proof`, "array")
      .map((w, k) => node(rd, w, `${at}.proof.witnesses[${k}]`, WHAT));
    if (witnesses.length > 64) throw rd.error(`${at}.proof has ${witnesses.length} witnesses (more than 64)`);
    if (index < 0 || index >= 2 ** witnesses.length)
      throw rd.error(`${at}.proof.leaf_index ${index} is not a leaf of a tree ${witnesses.length} deep`);
    return {
      at,
      partition: rd.field(l, "audit_partition_id", at, "string"),
      liability: { ...amount(rd, l, "liability", at), digest: nonce },
      index,
      witnesses,
    };
  });
  if (leaves.length === 0) throw rd.error("liabilities is empty");
  if (o.tree === undefined)
    throw new UsageError(
      `${o.file}: SwissBorg's user liabilities need the audit's roots: give auditRoots_N.json as the second file (or --tree FILE)`,
    );
  return {
    auditId: rd.field(doc, "audit_id", "", "string"),
    userId: rd.field(doc, "user_id", "", "string"),
    leaves,
    roots: readRoots(o.tree.text, o.tree.file),
  };
}

const kdf = (key: string, ctx: string) => bytesToHex(hmac(sha256, utf8ToBytes(key), utf8ToBytes(ctx)));
/** SwissBorg's leaf hash from the customer's credential (merkle.ts fullLeafHashDerive). */
export function swissborgLeaf(
  cred: string,
  audit: string,
  currency: string,
  index: number,
  user: string,
  liability: string,
): string {
  const auditNonce = kdf(cred, `SB PoL - Audit nonce derivation,${audit}`);
  const treeNonce = kdf(auditNonce, `SB PoL - Currency Merkle tree nonce derivation,${currency}`);
  const leafNonce = kdf(treeNonce, `SB PoL - Leaf nonce derivation,${index}`);
  return sha256Hex(`leaf,${leafNonce},${user},${liability}`);
}

const inner = (l: Node, r: Node) =>
  sha256Hex(`inner,${strippedDec(l.value)},${strippedDec(r.value)},${l.digest},${r.digest}`);

const partitionOf = (d: Doc, l: Leaf) => d.roots!.partitions.find((p) => p.id === l.partition);

/** The audit's commitment over every partition's root, against --root (else its own file's: cannot say). */
const commitmentStep = step<Doc>("commitment", (ctx, s) => {
  const r = ctx.doc.roots!;
  if (r.auditId !== ctx.doc.auditId)
    s.fail(
      "document",
      `the audit roots are of audit ${r.auditId}, the liabilities of ${ctx.doc.auditId}`,
      r.file,
    );
  const sorted = [...r.partitions].sort((a, b) =>
    a.currency.toUpperCase() < b.currency.toUpperCase() ? -1 : 1,
  );
  const text = [
    "SB PoL - Audit commitment hash",
    ...sorted.flatMap((p) => [p.id, p.root.text, p.root.digest]),
  ].join(",");
  const got = sha256Hex(text);
  ctx.reached = got;
  ctx.fileRoot = r.commitment;
  ctx.rootAt = "audit commitment";
  if (got === r.commitment)
    s.ok(
      "commitment",
      `the ${r.partitions.length} partitions' roots hash to the audit commitment ${got}`,
      ctx.rootAt,
    );
  for (const p of r.partitions)
    refuseNegative(s, [[p.currency, p.root.value]], `${p.id} (root)`, "the partition's root");
  compareRoot(s, got, r.commitment, ctx.options.root, ctx.rootAt);
});

/**
 * What `proof.nonce` is: in the audits of Dec 7 and 9, 2022 the leaf's hash; from SBPOL20221216 on the leaf's
 * nonce (the leaf then sha256(leaf, nonce, user id, liability)). SwissBorg's verifier reads neither (it
 * derives the leaf from the credential); the file does not say which, so both are walked and the one that
 * reaches the partition's root named.
 */
const NONCE_FORMS = [
  {
    name: "proof.nonce the leaf's nonce (audits from SBPOL20221216)",
    leaf: (l: Leaf, user: string) => sha256Hex(`leaf,${l.liability.digest},${user},${l.liability.text}`),
    nonce: true,
  },
  {
    name: "proof.nonce the leaf's hash (audits SBPOL20221207, SBPOL20221209)",
    leaf: (l: Leaf) => l.liability.digest,
    nonce: false,
  },
] as const;

/** A leaf walked up its witnesses: the root hash and sum it reaches. */
function walk(l: Leaf, leaf: string): Node {
  let cur: Node = { ...l.liability, digest: leaf };
  let heap = l.index + 2 ** l.witnesses.length - 1;
  for (const w of l.witnesses) {
    const digest = heap % 2 === 1 ? inner(cur, w) : inner(w, cur);
    cur = { digest, text: "", value: addDec(cur.value, w.value) };
    heap = Math.floor((heap - 1) / 2);
  }
  return cur;
}

/** One leaf: the nonce form that reaches the root (named), against the credential when given. */
function judgeLeaf(s: Steps, d: Doc, l: Leaf, p: Partition, credential: string | undefined): void {
  refuseNegative(s, [[p.currency, l.liability.value]], l.at, "your leaf");
  for (const [k, w] of l.witnesses.entries())
    refuseNegative(s, [[p.currency, w.value]], `${l.at}.proof.witnesses[${k}]`, "the sibling");
  const tries = NONCE_FORMS.map((f) => ({ f, end: walk(l, f.leaf(l, d.userId)) }));
  const held = tries.find((t) => t.end.digest === p.root.digest);
  const what = `${p.currency} leaf ${l.index}`;
  if (!held) {
    s.fail(
      "path",
      `${what}: the path reaches the partition's root ${p.root.digest} under neither form of proof.nonce (${tries.map((t) => `${t.f.name}: ${t.end.digest}`).join("; ")})`,
      l.at,
    );
    return;
  }
  if (compareDec(held.end.value, p.root.value) !== 0)
    s.fail(
      "sums",
      `${p.currency}: the path sums to ${strippedDec(held.end.value)}, the partition's root says ${strippedDec(p.root.value)}`,
      l.at,
    );
  else
    s.ok(
      "path",
      `${what} (${held.f.name}): ${l.witnesses.length} siblings reach the partition's root ${p.root.digest} (${strippedDec(p.root.value)})`,
      l.at,
    );
  if (credential === undefined) return;
  const auditNonce = kdf(credential, `SB PoL - Audit nonce derivation,${d.auditId}`);
  const treeNonce = kdf(auditNonce, `SB PoL - Currency Merkle tree nonce derivation,${p.currency}`);
  const leafNonce = kdf(treeNonce, `SB PoL - Leaf nonce derivation,${l.index}`);
  const mine = held.f.nonce ? leafNonce : sha256Hex(`leaf,${leafNonce},${d.userId},${l.liability.text}`);
  if (mine === l.liability.digest)
    s.ok("leaf", `${what}: your credential makes its ${held.f.nonce ? "nonce" : "hash"}, ${mine}`, l.at);
  else
    s.fail(
      "leaf",
      `${what}: your credential makes ${mine}, the file's ${held.f.nonce ? "nonce" : "hash"} is ${l.liability.digest}: not your leaf`,
      l.at,
    );
}

/** Each leaf walked to its partition's root; recomputed from the credential (else: cannot say whose it is). */
const leavesStep = step<Doc>("path", ({ doc: d, options: o }, s) => {
  if (o.credential === undefined)
    s.cannot(
      "leaf",
      "whether the leaves are yours: each leaf's nonce derives from your credential; give it (--credential TEXT)",
    );
  for (const l of d.leaves) {
    const p = partitionOf(d, l);
    if (p) judgeLeaf(s, d, l, p, o.credential);
    else s.fail("path", `partition ${l.partition} is not in the audit's roots`, l.at);
  }
});

/** The customer's balances: the sum of their leaves per currency. */
function balances(d: Doc) {
  const sums = new Map<string, Dec>();
  for (const l of d.leaves) {
    const c = partitionOf(d, l)?.currency ?? l.partition;
    sums.set(c, addDec(sums.get(c) ?? ZERO, l.liability.value));
  }
  return [...sums].map(([asset, v]) => ({ asset, amount: strippedDec(v) }));
}

export const verify = verifierOf<Doc>({
  name: "swissborg",
  sums: "per-child",
  read,
  balances,
  steps: [leavesStep, commitmentStep],
});
