/**
 * BitMEX's and River's full liabilities tree (`block_height:N`, then `hash,value` a line, breadth-first, root
 * first): a binary Merkle-sum tree over raw 32-byte hashes and unsigned 64-bit satoshi amounts.
 *
 *  - node: sha256(L ‖ le64(Lv) ‖ R ‖ le64(Rv)), value Lv + Rv;
 *  - leaf: HMAC-SHA256(key, le64(value) ‖ le64(leaf index)), the key the customer's own:
 *    BitMEX sha256(account nonce ‖ le64(height) ‖ le64(account)); River sha256(subkey ‖ le64(height) ‖
 *    le64(account)), the subkey sha256(account key ‖ e-mail ‖ le64(account)) (or the key itself, given alone).
 *
 * Every inner node of the file is rebuilt; the customer's leaves are those their key opens.
 */
import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, concatBytes, hexToBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { UsageError } from "../../errors/index.js";
import { amountText } from "../../util/units.js";
import type { InclusionOptions } from "./check.js";
import { isHex, rootStep, step, verifierOf } from "./check.js";
import { FileReader } from "./read.js";

const U64 = (1n << 64n) - 1n;
const le64 = (v: bigint): Uint8Array => {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, v & U64, true);
  return b;
};

interface Row {
  hash: string;
  value: bigint;
  line: number;
}

function readTree(text: string, rd: FileReader): { height: bigint; rows: Row[] } {
  const lines = text.split(/\r?\n/);
  const head = /^block_height:(\d+)\s*$/.exec(lines[0] ?? "");
  if (!head) throw new UsageError(`${rd.file} line 1: not "block_height:N"`);
  const rows: Row[] = [];
  for (let i = 1; i < lines.length; i++) {
    const l = lines[i] as string;
    if (!l.trim()) continue;
    const m = /^([0-9a-fA-F]*),(-?\d+)\s*$/.exec(l);
    if (!m) throw new UsageError(`${rd.file} line ${i + 1}: not "hash,value"`);
    rows.push({ hash: (m[1] as string).toLowerCase(), value: BigInt(m[2] as string), line: i + 1 });
  }
  if (!rows.length) throw rd.error(`no tree lines after block_height`);
  return { height: BigInt(head[1] as string), rows };
}

/** The customer's leaf key from the options, or undefined when none was given. */
function keyOf(o: InclusionOptions, height: bigint): Uint8Array | undefined {
  if (o.nonce === undefined && o.accountKey === undefined) return undefined;
  if (o.account === undefined || !/^\d+$/.test(o.account))
    throw new UsageError("--account: your account number (digits) is needed with --nonce or --account-key");
  const id = BigInt(o.account);
  if (id > U64) throw new UsageError("--account: above 2^64 − 1");
  const hex = (o.nonce ?? o.accountKey) as string;
  const flag = o.nonce !== undefined ? "--nonce" : "--account-key";
  if (!isHex(hex) || hex.length % 2) throw new UsageError(`${flag}: not hex bytes`);
  let secret = hexToBytes(hex);
  if (o.nonce === undefined && o.email !== undefined)
    secret = sha256(concatBytes(secret, utf8ToBytes(o.email), le64(id)));
  return sha256(concatBytes(secret, le64(height), le64(id)));
}

interface Doc {
  height: bigint;
  rows: Row[];
}

const at = (d: Doc, i: number) => `node ${i} (line ${d.rows[i]!.line})`;
const firstLeaf = (d: Doc) => (d.rows.length - 1) >> 1;
const shaped = (d: Doc) => ((d.rows.length + 1) & d.rows.length) === 0;

/** The tree: a full binary tree, every value within 64 bits, every hash 32 bytes, every inner node rebuilt. */
const treeStep = step<Doc>("tree", (ctx, s) => {
  const d = ctx.doc;
  const { rows } = d;
  const n = rows.length;
  if (!shaped(d)) s.fail("tree", `${n} nodes: a full binary tree has 2^k − 1`, `line ${rows.at(-1)!.line}`);
  let good = true;
  for (const [i, r] of rows.entries()) {
    if (r.value < 0n) {
      good = false;
      s.fail("balances", `a negative value (${r.value})`, at(d, i));
    } else if (r.value > U64) {
      good = false;
      s.fail("balances", `a value above 2^64 − 1 (${r.value})`, at(d, i));
    }
    s.hashes.push({ hash: r.hash, at: at(d, i) });
    if (!isHex(r.hash, 64)) {
      good = false;
      if (r.hash.length >= 32) s.fail("hash", `hash ${r.hash} is not 32 bytes`, at(d, i));
    }
  }
  let broken = 0;
  if (shaped(d) && good)
    for (let i = 0; i < firstLeaf(d); i++) {
      const [l, r] = [rows[2 * i + 1]!, rows[2 * i + 2]!];
      const want = bytesToHex(
        sha256(concatBytes(hexToBytes(l.hash), le64(l.value), hexToBytes(r.hash), le64(r.value))),
      );
      if (want !== rows[i]!.hash) {
        broken++;
        s.fail("tree", `the children's hash is ${want}, the line says ${rows[i]!.hash}`, at(d, i));
      }
      if (l.value + r.value !== rows[i]!.value) {
        broken++;
        s.fail("sums", `the children sum to ${l.value + r.value}, the line says ${rows[i]!.value}`, at(d, i));
      }
    }
  const whole = shaped(d) && good && !broken;
  // the root step compares a tree that rebuilds; one that does not reaches no root
  Object.assign(ctx, { reached: whole ? rows[0]!.hash : null, fileRoot: rows[0]!.hash, rootAt: at(d, 0) });
  if (whole)
    s.ok("tree", `all ${firstLeaf(d)} inner nodes rebuild from their children; ${n - firstLeaf(d)} leaves`);
  else if (ctx.options.root !== undefined)
    s.fail("root", "the tree does not rebuild, so it reaches no root", at(d, 0));
});

/** The customer's leaves: those their key (--account with --nonce, or --account-key) opens. */
const leafStep = step<Doc>("leaf", (ctx, s) => {
  const d = ctx.doc;
  const o = ctx.options;
  const key = keyOf(o, d.height);
  let mine = 0n;
  let found = 0;
  if (key === undefined)
    s.cannot(
      "leaf",
      "your leaves are found with your secret: --account N and --nonce HEX (BitMEX) or --account-key HEX [--email] (River)",
    );
  else if (shaped(d)) {
    for (let j = 0; firstLeaf(d) + j < d.rows.length; j++) {
      const r = d.rows[firstLeaf(d) + j]!;
      if (r.value < 0n || r.value > U64) continue;
      if (bytesToHex(hmac(sha256, key, concatBytes(le64(r.value), le64(BigInt(j))))) === r.hash) {
        found++;
        mine += r.value;
        s.ok("leaf", `leaf ${j} is yours: ${r.value} sat`, at(d, firstLeaf(d) + j));
      }
    }
    if (!found)
      s.fail(
        "leaf",
        `no leaf of the ${d.rows.length - firstLeaf(d)} opens with account ${o.account}'s key at block height ${d.height}: your balance is not in this tree (or the secret is not the one for it)`,
      );
  }
  ctx.balances = found ? [{ asset: "BTC", amount: amountText(mine, 8) }] : [];
});

/** The tree's total, as the file says it: a claim (only the customer's own leaves are theirs to check). */
const totalStep = step<Doc>("tree", ({ doc: { rows, height } }, s) => {
  s.claim(
    "tree",
    `block height ${height}; total liabilities ${amountText(rows[0]!.value, 8)} BTC (${rows[0]!.value} sat)`,
  );
});

export const verify = verifierOf<Doc>({
  name: "bitmex",
  sums: "per-child",
  read: (text, o) => readTree(text, new FileReader(o.file)),
  steps: [treeStep, leafStep, rootStep, totalStep],
});
