/**
 * Proof files as the commands that read several of them take them (`reserves report`, `solvency`): every
 * file read and checked by its format's strict reader before anything is sent, then, with --verify, each
 * verified against its chain (--node names a node per coin, network or group; --url-for is its alias).
 */
import type { GlobalFlags } from "../config/config.js";
import { UsageError } from "../errors/index.js";
import type { CombinedReport, ReadProof } from "../reserves/combined.js";
import { contextFor, type Run } from "./context.js";
import { asUsage, checkWritable, readText } from "./files.js";
import type { NodeChoice, NodeUsed } from "./nodes.js";

/** The flags `reserves report` and `solvency` share. */
export interface ProofSetFlags {
  verify?: boolean;
  urlFor?: string[];
  /** `--node NET=URL` (src/cli/nodes.ts); `--url-for GROUP=URL` is its alias */
  node?: string[];
  html?: string;
  /** solvency: the proofs are verified later (verifyReserveProofs), once they are known to fit together */
  verifyLater?: boolean;
  /** --walk: a UTXO proof's spend walk's most blocks (options.ts) */
  walk?: string;
  /** --stand-in NETWORK: a devnet on that network's chain id is read as standing in for it (nodes.ts) */
  standIn?: string[];
}

export async function loadReserveProofs(
  run: Run,
  files: string[],
  flags: GlobalFlags,
  o: ProofSetFlags,
  command: string,
): Promise<{
  read: ReadProof[];
  proofs: CombinedReport["proofs"];
  nodes: NodeChoice[];
  used: NodeUsed[];
}> {
  const { nodeChoices, standInsOf } = await import("./nodes.js");
  const nodes = await nodeChoices(o.node, o.urlFor);
  const standIns = await standInsOf(o.standIn);
  if (nodes.length && !o.verify && !o.verifyLater)
    throw new UsageError(`${nodes[0]?.flag} names nodes to verify against: give --verify too`);
  if (o.walk !== undefined && !o.verify && !o.verifyLater)
    throw new UsageError("--walk bounds what --verify reads above a UTXO proof's height: give --verify too");
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
  // every named node answers for some proof read (a group may have none), before anything is sent
  const { nodeForProof, refuseUnused } = await import("./nodes.js");
  const { OWN_RESERVES: own } = await import("../formats/registry.js");
  const hit = new Set<NodeChoice>();
  for (const r of read) {
    const m = await (own.find((f) => f.name === r.format) as (typeof own)[number]).load();
    const c = await nodeForProof(nodes, r, m.group(r));
    if (c) hit.add(c);
  }
  await refuseUnused(nodes, hit);
  const used: NodeUsed[] = [];
  const proofs = o.verify
    ? await verifyReserveProofs(run, read, flags, nodes, undefined, used, o.walk, standIns)
    : read.map((r) => ({ ...r.entry }));
  return { read, proofs, nodes, used };
}

/**
 * The command line's node options as they were given (credentials masked), and the devnets declared to stand
 * in for a network (`--stand-in`, as given: without it the same nodes cannot say), for "run it again" lines.
 */
export async function nodeArgs(
  nodes: readonly NodeChoice[],
  standIn: readonly string[] = [],
): Promise<string[]> {
  const [{ redactUrl }, { shellQuote }] = await Promise.all([
    import("../util/redact.js"),
    import("../util/text.js"),
  ]);
  return [
    ...nodes.map((c) => `${c.flag} ${shellQuote(`${c.net}=${redactUrl(c.url)}`)}`),
    ...standIn.map((n) => `--stand-in ${shellQuote(n)}`),
  ];
}

/** Each proof read verified against its chain (--node names a node per coin, network or group). */
export async function verifyReserveProofs(
  run: Run,
  read: ReadProof[],
  flags: GlobalFlags,
  nodes: readonly NodeChoice[],
  /** solvency --challenge: the text every proof's signatures must be over */
  challenge?: string,
  /** filled with each named node and the chain it answered for, once each */
  used?: NodeUsed[],
  /** --walk as given: a UTXO proof's spend walk's most blocks */
  walk?: string,
  /** --stand-in: the networks a devnet on their chain id stands in for (nodes.ts standInsOf) */
  standIns?: ReadonlySet<string>,
): Promise<CombinedReport["proofs"]> {
  const { walkOf } = await import("./options.js");
  const walkBlocks = walkOf(walk);
  const { nodeForProof, nodeUsed, proofChainLabel } = await import("./nodes.js");
  const { OWN_RESERVES } = await import("../formats/registry.js");
  const proofs: CombinedReport["proofs"] = [];
  // every EVM proof's addresses by chain id: each proof's tracking probe raises the others' native balances too
  const nativeAlso = new Map<string, string[]>();
  // and their tokens: a token reading another proof's token on its chain is that token's coins again
  const tokensAlso = new Map<string, string[]>();
  for (const r of read)
    if (r.evm) {
      const id = r.evm.chain.chain_id;
      nativeAlso.set(id, [...(nativeAlso.get(id) ?? []), ...r.evm.addresses]);
      const tokens = r.evm.assets.flatMap((a) => (a.id === "native" ? [] : [a.id.toLowerCase()]));
      tokensAlso.set(id, [...new Set([...(tokensAlso.get(id) ?? []), ...tokens])]);
    }
  for (const r of read) {
    // the module of the format that read it verifies it
    const m = await (OWN_RESERVES.find((f) => f.name === r.format) as (typeof OWN_RESERVES)[number]).load();
    const group = m.group(r);
    const node = await nodeForProof(nodes, r, group);
    const url = node?.url;
    if (node && used) {
      const u = nodeUsed(node, await proofChainLabel(r, standIns));
      if (!used.some((x) => x.net === u.net && x.chain === u.chain)) used.push(u);
    }
    const ctx = contextFor(run, { ...flags, ...(url ? { url: [url] } : {}), chain: group }, group, {
      pooled: true,
    });
    proofs.push(
      await m.verifyEntry(ctx.client, r, ctx.signal, {
        ...(challenge === undefined ? {} : { challenge }),
        ...(nativeAlso.size ? { nativeAlso, tokensAlso } : {}),
        ...(walkBlocks === undefined ? {} : { walkBlocks }),
        ...(standIns?.size ? { standIns } : {}),
      }),
    );
  }
  return proofs;
}
