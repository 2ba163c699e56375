/**
 * From a checked scan to a proof document (format chaingw-reserves-proof/1, src/proof/document.ts): every
 * unspent output with the block that created it, per-address subtotals, the total, the challenge, the
 * ownership signatures checked offline, and the RFC 8785 digest. Litecoin Core 0.21's scantxoutset gives
 * each unspent's height but not its block hash (Core 28 adds `blockhash`): the hashes are asked for, one
 * getblockhash per distinct height, in batch arrays.
 */
import { coinOfNode } from "../../chains/coins.js";
import { IntegrityError, UsageError } from "../../errors/index.js";
import { marksOf } from "../../methods/prepare.js";
import type {
  AddressTotal,
  ExcludedOutput,
  Ownership,
  Proof,
  ProofOutput,
  ScanObject,
  SignatureLine,
} from "../../proof/document.js";
import { PROOF_FORMAT, type Quorum } from "../../proof/document.js";
import { digestOf } from "../../proof/jcs.js";
import { verifyMessage } from "../../proof/message.js";
import type { JsonRpcClient } from "../../rpc/client.js";
import { formatCoins } from "./amount.js";
import type { Plan } from "./input.js";
import { readAll } from "./reads.js";
import type { CheckedScan, Unspent } from "./report.js";

export interface ProofOptions {
  /** the text the custodian was asked to sign; null when none */
  challenge?: string;
  /** outputs with fewer confirmations at the scan height are listed apart, not counted */
  minConf?: number;
  /** `address,signature` lines over the challenge */
  signatures?: SignatureLine[];
  /** the node's chain name (getblockchaininfo) */
  chain?: string;
  /** the nodes that scanned alike (--quorum) */
  quorum?: Quorum;
  createdAt: Date;
}

/**
 * The node's coin (a coin table id whose messages chaingw reads), from its chain's genesis block (the
 * user-agent only between coins that share one); undefined if unknown.
 */
async function nodeCoin(client: JsonRpcClient): Promise<string | undefined> {
  const [net, genesis] = await Promise.all([
    client.call("getnetworkinfo", [], marksOf("getnetworkinfo", "utxo")),
    blockHashes(client, [0]),
  ]);
  const sub = String((net.result as { subversion?: unknown } | null)?.subversion ?? "");
  const c = coinOfNode(genesis.get(0) ?? "", sub);
  return c?.uses.messages ? c.id : undefined;
}

/** Block hashes of the heights given (getblockhash, batched), by height. */
export async function blockHashes(
  client: JsonRpcClient,
  heights: Iterable<number>,
): Promise<Map<number, string>> {
  const list = [...new Set(heights)];
  const hashes = await readAll(
    client,
    "getblockhash",
    list.map((h) => [h]),
  );
  return new Map(list.map((h, i) => [h, String(hashes[i])]));
}

/** The scan objects as given: addresses as addresses, descriptors with their ranges. */
export const scanObjectsOf = (plan: Plan): ScanObject[] => [
  ...plan.addresses.map((a) => a.address),
  ...plan.descriptors.map((d) => (d.range ? { desc: d.desc, range: d.range } : d.desc)),
];

/** Ownership: each signature checked offline over the challenge; the total split into proven and claimed. */
export function ownershipOf(
  lines: SignatureLine[],
  challenge: string,
  byAddress: AddressTotal[],
  totalSats: bigint,
  coin?: string,
): Ownership {
  const signatures = lines.map((l) => {
    // the node's coin decides the message magic, as verify will judge it
    const r = verifyMessage(l.address, l.signature, challenge, { coin });
    return { address: l.address, signature: l.signature, valid: r.valid, format: r.format, detail: r.detail };
  });
  const proven = new Set(signatures.filter((s) => s.valid).map((s) => s.address));
  const provenSats = byAddress
    .filter((a) => proven.has(a.address))
    .reduce((s, a) => s + BigInt(a.amount_sats), 0n);
  return {
    signatures,
    proven_sats: provenSats.toString(),
    claimed_only_sats: (totalSats - provenSats).toString(),
  };
}

/** The proof document of one scan (all chunks at one block), digest included. */
export async function buildProof(
  client: JsonRpcClient,
  plan: Plan,
  scan: CheckedScan,
  o: ProofOptions,
): Promise<Proof> {
  if (scan.unspents.some((u) => u.height === null))
    throw new IntegrityError(
      "the node gave an unspent without its height; a proof needs each output's block",
    );
  // the node's own block hashes where it gives them (Core 28+); asked for the rest (Core 0.21)
  const hashes = await blockHashes(client, [
    scan.height,
    ...scan.unspents.filter((u) => !u.blockHash).map((u) => u.height as number),
  ]);
  for (const u of scan.unspents) if (u.blockHash) hashes.set(u.height as number, u.blockHash);
  if (hashes.get(scan.height) !== scan.bestblock)
    throw new IntegrityError(
      `the chain moved during the proof: block ${scan.height} is now ${hashes.get(scan.height)}, the scan saw ${scan.bestblock}; run again`,
    );
  const output = (u: Unspent): ProofOutput => ({
    txid: u.txid,
    vout: u.vout,
    amount: formatCoins(u.sats),
    amount_sats: u.sats.toString(),
    script_pubkey: u.scriptPubKey ?? "",
    matched: u.address ?? u.desc,
    height: u.height as number,
    block_hash: hashes.get(u.height as number) as string,
  });
  const outputs: ProofOutput[] = [];
  const excluded: ExcludedOutput[] = [];
  for (const u of scan.unspents) {
    const confirmations = scan.height - (u.height as number) + 1;
    if (o.minConf !== undefined && confirmations < o.minConf) excluded.push({ ...output(u), confirmations });
    else outputs.push(output(u));
  }
  // every address asked (zero ones included), then what descriptors matched
  const by = new Map<string, { sats: bigint; outputs: number }>();
  for (const a of plan.addresses) by.set(a.address, { sats: 0n, outputs: 0 });
  for (const out of outputs) {
    const t = by.get(out.matched) ?? { sats: 0n, outputs: 0 };
    t.sats += BigInt(out.amount_sats);
    t.outputs++;
    by.set(out.matched, t);
  }
  const byAddress: AddressTotal[] = [...by].map(([address, t]) => ({
    address,
    amount: formatCoins(t.sats),
    amount_sats: t.sats.toString(),
    outputs: t.outputs,
  }));
  const totalSats = outputs.reduce((s, x) => s + BigInt(x.amount_sats), 0n);
  const challenge = o.challenge ?? null;
  const doc: Omit<Proof, "digest"> & { digest?: string } = {
    format: PROOF_FORMAT,
    chain: o.chain ?? "unknown",
    height: scan.height,
    block_hash: scan.bestblock,
    created_at: o.createdAt.toISOString(),
    challenge,
    ...(o.minConf === undefined ? {} : { min_conf: o.minConf }),
    scan_objects: scanObjectsOf(plan),
    outputs,
    ...(o.minConf === undefined ? {} : { excluded }),
    by_address: byAddress,
    total: { amount: formatCoins(totalSats), amount_sats: totalSats.toString(), outputs: outputs.length },
  };
  if (o.signatures?.length) {
    if (challenge === null)
      throw new UsageError(
        "--signatures needs --challenge: the signatures are checked over the challenge text",
      );
    doc.ownership = ownershipOf(o.signatures, challenge, byAddress, totalSats, await nodeCoin(client));
  }
  if (o.quorum) doc.quorum = o.quorum;
  return { ...doc, digest: digestOf(doc) } as Proof;
}
