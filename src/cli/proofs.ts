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
import { onePerKey } from "./options.js";

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
  const pairs = (o.urlFor ?? []).map((v): [GroupName, string] => {
    const m = /^([a-z-]+)=(.+)$/.exec(v);
    if (!m)
      throw new UsageError(
        `--url-for ${JSON.stringify(v)}: expected group=url, like evm=http://127.0.0.1:8545/`,
      );
    return [parseChainName(m[1], "--url-for group") as GroupName, m[2] as string];
  });
  const urlFor = new Map<GroupName, string>(onePerKey("--url-for", pairs));
  if (urlFor.size && !o.verify && !o.verifyLater)
    throw new UsageError("--url-for names nodes to verify against: give --verify too");
  checkWritable(o.html, "--html");
  const { detectFormat, formatList, OWN_RESERVES } = await import("../formats/registry.js");
  // every file is read and checked before anything is sent, by the reader of its format
  const read: ReadProof[] = [];
  for (const f of files) {
    const text = readText(f, command);
    // a file none of the formats recognises is read as the first: its refusal names the field, the hint
    // what the command reads
    const detected = detectFormat(text, "reserves");
    const found = OWN_RESERVES.find((x) => x === detected);
    const m = await (found ?? (OWN_RESERVES[0] as (typeof OWN_RESERVES)[number])).load();
    const hint = found ? undefined : `${command} reads ${formatList(OWN_RESERVES)}`;
    read.push(await asUsage(f, () => m.read(f, text), hint));
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
  const { OWN_RESERVES } = await import("../formats/registry.js");
  const proofs: CombinedReport["proofs"] = [];
  // every EVM proof's addresses by chain id: each proof's tracking probe raises the others' native balances too
  const nativeAlso = new Map<string, string[]>();
  for (const r of read)
    if (r.evm)
      nativeAlso.set(r.evm.chain.chain_id, [
        ...(nativeAlso.get(r.evm.chain.chain_id) ?? []),
        ...r.evm.addresses,
      ]);
  for (const r of read) {
    // the module of the format that read it verifies it
    const m = await (OWN_RESERVES.find((f) => f.name === r.format) as (typeof OWN_RESERVES)[number]).load();
    const group = m.group(r);
    const url = urlFor.get(group);
    const ctx = contextFor(run, { ...flags, ...(url ? { url: [url] } : {}), chain: group }, group, {
      pooled: true,
    });
    proofs.push(
      await m.verifyEntry(ctx.client, r, ctx.signal, {
        ...(challenge === undefined ? {} : { challenge }),
        ...(nativeAlso.size ? { nativeAlso } : {}),
      }),
    );
  }
  return proofs;
}
