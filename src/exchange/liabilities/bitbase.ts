/**
 * Bitbase's proofs (`BitbaseGlobal/proof-of-reserves-verifier`, algorithm `POR_V1`): a plain Merkle tree with
 * no sums — `{version, auditId, period, snapshotTime, recordId, balances{BTC, ETH, USDT, USDC}, leafPayload,
 * leafHash, rootHash, proof[{position, hash}]}`.
 *
 *  - leaf: sha256 of the text `POR_V1|auditId=…|recordId=…|BTC=…|ETH=…|USDT=…|USDC=…`, each amount with
 *    exactly 8 places, which the file also gives as `leafPayload` (it must be that text);
 *  - node: sha256 of the two children's hex, the sibling first when its position is LEFT.
 *
 * It proves inclusion only: no node carries a sum, so the root binds no total of what is owed, and a
 * negative balance (which Bitbase's own verifier accepts) could hide another customer's: the customer's own
 * negative amount is refused, and every verdict says the tree binds no total (`sums: "inclusion-only"`).
 */
import { UsageError } from "../../errors/index.js";
import { JsonNumber } from "../../json/value.js";
import type { InclusionOptions } from "./check.js";
import { compareRoot, leafStep, refuseShortHash, sha256Hex, step, verifierOf } from "./check.js";
import { FileReader, isObj } from "./read.js";

const WHAT = "Bitbase's proof (POR_V1)";
const COINS = ["BTC", "ETH", "USDT", "USDC"] as const;
const AMOUNT = /^-?(?:0|[1-9]\d*)\.\d{8}$/;
const HASH = /^[0-9a-f]{64}$/;

interface Doc {
  version: string;
  auditId: string;
  period: string | undefined;
  recordId: string;
  amounts: { asset: string; text: string; negative: boolean }[];
  leafPayload: string;
  leafHash: string;
  rootHash: string;
  proof: { at: string; left: boolean; hash: string }[];
}

function read(text: string, o: InclusionOptions): Doc {
  const rd = new FileReader(o.file);
  const doc = rd.json(text);
  if (!isObj(doc)) throw rd.error(`not ${WHAT} (an object)`);
  rd.members(
    doc,
    [
      "version",
      "auditId",
      "period",
      "snapshotTime",
      "recordId",
      "balances",
      "leafPayload",
      "leafHash",
      "rootHash",
      "proof",
    ],
    "",
    WHAT,
  );
  const balances = rd.field(doc, "balances", "", "object");
  rd.members(balances, COINS, "balances", WHAT);
  const read = rd.amounts(balances, "balances");
  const amounts = COINS.map((c) => {
    const a = read.find((x) => x.asset === c);
    if (!a) throw rd.error(`balances.${c} is missing (${WHAT} has BTC, ETH, USDT and USDC)`);
    if (!AMOUNT.test(a.text) || !a.raw.startsWith('"'))
      throw new UsageError(
        `${o.file}: balances.${c} must be a string with exactly 8 places (Bitbase's form)`,
      );
    return { asset: c, text: a.text, negative: a.value.units < 0n };
  });
  const audit = doc.auditId;
  const auditId =
    audit instanceof JsonNumber && /^[1-9]\d*$/.test(audit.raw) && Number.isSafeInteger(Number(audit.raw))
      ? audit.raw
      : typeof audit === "string" && /^[1-9]\d*$/.test(audit)
        ? audit
        : undefined;
  if (auditId === undefined) throw rd.error(`auditId must be a positive whole number`);
  const proof = rd.field(doc, "proof", "", "array").map((n, i) => {
    const at = `proof[${i}]`;
    if (!isObj(n)) throw rd.error(`${at} must be an object`);
    rd.members(n, ["position", "hash"], at, WHAT);
    const position = rd.field(n, "position", at, "string");
    if (position !== "LEFT" && position !== "RIGHT")
      throw rd.error(`${at}.position must be "LEFT" or "RIGHT"`);
    return { at, left: position === "LEFT", hash: rd.field(n, "hash", at, "string") };
  });
  if (proof.length > 256) throw rd.error(`proof has ${proof.length} levels (Bitbase's tool takes 256)`);
  return {
    version: rd.field(doc, "version", "", "string"),
    auditId,
    period: typeof doc.period === "string" ? doc.period : undefined,
    recordId: rd.field(doc, "recordId", "", "string"),
    amounts,
    leafPayload: rd.field(doc, "leafPayload", "", "string"),
    leafHash: rd.field(doc, "leafHash", "", "string"),
    rootHash: rd.field(doc, "rootHash", "", "string"),
    proof,
  };
}

const payloadOf = (d: Doc) =>
  `POR_V1|auditId=${d.auditId}|recordId=${d.recordId}|${d.amounts.map((a) => `${a.asset}=${a.text}`).join("|")}`;

/** The document: the algorithm, the record id and every hash 64 lower-case hex digits, the payload the balances'. */
const documentStep = step<Doc>("document", ({ doc: d }, s) => {
  if (d.version !== "POR_V1")
    s.fail("document", `version ${JSON.stringify(d.version)}: Bitbase's tool knows POR_V1`, "version");
  if (!HASH.test(d.recordId)) s.fail("document", "recordId is not 64 lower-case hex digits", "recordId");
  for (const [at, h] of [
    ["leafHash", d.leafHash],
    ["rootHash", d.rootHash],
    ...d.proof.map((p): [string, string] => [`level ${Number(p.at.slice(6, -1)) + 1} (${p.at})`, p.hash]),
  ] as const) {
    refuseShortHash(s, h, at);
    if (!HASH.test(h)) s.fail("hash", `${JSON.stringify(h)} is not 64 lower-case hex digits`, at);
  }
  if (d.leafPayload !== payloadOf(d))
    s.fail("leaf", `leafPayload is not the text of the file's own balances (${payloadOf(d)})`, "leafPayload");
  if (!s.failed()) s.ok("document", "POR_V1, the leaf's text the file's own balances");
});

/** The leaf: sha256 of the payload, and the customer's own amounts (never negative). */
const leaf = leafStep<Doc>((d) => ({
  at: "level 0 (leaf)",
  balances: d.amounts.map((a) => ({
    asset: a.asset,
    raw: JSON.stringify(a.text),
    text: a.text,
    value: { units: BigInt(a.text.replace(".", "")), scale: 8 },
  })),
  claimed: d.leafHash,
  computed: sha256Hex(payloadOf(d)),
  formula: "sha256(POR_V1|auditId|recordId|BTC|ETH|USDT|USDC)",
}));

/** The path: each level sha256 of the two children's hex, the root against the file's and --root's. */
const pathStep = step<Doc>("path", (ctx, s) => {
  const d = ctx.doc;
  let cur = sha256Hex(payloadOf(d));
  for (const p of d.proof) cur = sha256Hex(p.left ? `${p.hash}${cur}` : `${cur}${p.hash}`);
  ctx.reached = cur;
  ctx.fileRoot = d.rootHash;
  ctx.rootAt = `level ${d.proof.length} (root)`;
  if (cur === d.rootHash) s.ok("path", `${d.proof.length} siblings reach ${cur}`, ctx.rootAt);
  compareRoot(s, cur, d.rootHash, ctx.options.root, ctx.rootAt);
  if (d.period !== undefined)
    s.claim(
      "document",
      `period ${d.period} and snapshotTime are not in the leaf: the file's date is its word only`,
      "period",
    );
});

export const verify = verifierOf<Doc>({
  name: "bitbase",
  sums: "inclusion-only",
  read,
  balances: (d) => d.amounts.map((a) => ({ asset: a.asset, amount: a.text })),
  steps: [documentStep, leaf, pathStep],
});
