/**
 * Proof files as the commands that read several of them take them (`reserves report`, `solvency`): every
 * file read and checked by its format's strict reader before anything is sent, then, with --verify, each
 * verified against its chain (--url-for names a node per chain).
 */
import { type GroupName, parseChainName } from "../chains/index.js";
import type { GlobalFlags } from "../config/config.js";
import { UsageError } from "../errors/index.js";
import type { CombinedReport, ReadProof } from "../reserves/combined.js";
import { contextFor, type Run } from "./context.js";
import { asUsage, checkWritable, readText } from "./files.js";

/** The flags `reserves report` and `solvency` share. */
export interface ProofSetFlags {
  verify?: boolean;
  urlFor?: string[];
  html?: string;
  /** solvency: the proofs are verified later (verifyReserveProofs), once they are known to fit together */
  verifyLater?: boolean;
}

export async function loadReserveProofs(
  run: Run,
  files: string[],
  flags: GlobalFlags,
  o: ProofSetFlags,
  command: string,
): Promise<{ read: ReadProof[]; proofs: CombinedReport["proofs"]; urlFor: Map<GroupName, string> }> {
  const urlFor = new Map<GroupName, string>();
  for (const v of o.urlFor ?? []) {
    const m = /^([a-z-]+)=(.+)$/.exec(v);
    if (!m)
      throw new UsageError(
        `--url-for ${JSON.stringify(v)}: expected group=url, like evm=http://127.0.0.1:8545/`,
      );
    urlFor.set(parseChainName(m[1], "--url-for group") as GroupName, m[2] as string);
  }
  if (urlFor.size && !o.verify && !o.verifyLater)
    throw new UsageError("--url-for names nodes to verify against: give --verify too");
  checkWritable(o.html, "--html");
  const { formatOf, EVM_PROOF_FORMAT, readEvmProof } = await import("../proof/evm-document.js");
  const { readProof } = await import("../proof/document.js");
  const { evmEntry, utxoEntry } = await import("../reserves/combined.js");
  // every file is read and checked before anything is sent
  const read: ReadProof[] = [];
  for (const f of files) {
    const text = readText(f, command);
    if (formatOf(text) === EVM_PROOF_FORMAT) {
      const p = await asUsage(f, () => readEvmProof(text));
      read.push({ entry: evmEntry(f, p), evm: p });
    } else {
      const p = await asUsage(f, () => readProof(text));
      read.push({ entry: utxoEntry(f, p), utxo: p });
    }
  }
  const proofs = o.verify
    ? await verifyReserveProofs(run, read, flags, urlFor)
    : read.map((r) => ({ ...r.entry }));
  return { read, proofs, urlFor };
}

/** Each proof read verified against its chain (--url-for names a node per group). */
export async function verifyReserveProofs(
  run: Run,
  read: ReadProof[],
  flags: GlobalFlags,
  urlFor: Map<GroupName, string>,
  /** solvency --challenge: the text every proof's signatures must be over */
  challenge?: string,
): Promise<CombinedReport["proofs"]> {
  const { verifyEntry } = await import("../reserves/combined.js");
  const proofs: CombinedReport["proofs"] = [];
  for (const r of read) {
    const group: GroupName = r.evm ? r.evm.chain.group : "utxo";
    const url = urlFor.get(group);
    const ctx = contextFor(run, { ...flags, ...(url ? { url: [url] } : {}), chain: group }, group, {
      pooled: true,
    });
    proofs.push(await verifyEntry(ctx.client, r, ctx.signal, challenge === undefined ? {} : { challenge }));
  }
  return proofs;
}
