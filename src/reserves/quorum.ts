/**
 * k-of-n agreement (`--quorum K`): every read that enters a proof is answered by K distinct nodes at the
 * same block, and the answers must be equal; a disagreement stops the run (exit 1) naming the nodes by URL
 * (credentials stripped: the endpoint's label) and as they describe themselves (client version, chain, tip),
 * with each node's answer. A proof records the nodes without URLs. What the quorum protects against and what it does not: docs/proofs.md, "Quorum".
 */
import { IntegrityError, TransportError, UsageError } from "../errors/index.js";
import type { QuorumNode } from "../proof/document.js";
import type { EvmProof } from "../proof/evm-document.js";
import { JsonRpcClient } from "../rpc/client.js";
import { type Endpoint, sameNode } from "../rpc/endpoint.js";
import { nodeName } from "./claims.js";
import { type Finding, type Findings, findingCode, type Verdict, verdictOf } from "./verdict.js";

/** The nodes disagree: exit 1, each node named by what it says of itself, with both answers. */
export class QuorumError extends IntegrityError {}

const READ = { idempotent: true, heavy: false } as const;

/**
 * The first K distinct nodes among the configured endpoints (two URLs of one host and port are one node).
 * Fewer than K is bad usage: nothing is sent.
 */
export function quorumEndpoints(client: JsonRpcClient, k: number, what: string): Endpoint[] {
  if (!Number.isSafeInteger(k) || k < 2)
    throw new UsageError(`--quorum: ${k} is not a number of nodes of at least 2`);
  const out: Endpoint[] = [];
  for (const ep of client.endpoints) if (!out.some((x) => sameNode(x, ep))) out.push(ep);
  if (out.length < k)
    throw new UsageError(
      `--quorum ${k}: ${what} needs ${k} distinct nodes, ${out.length === 1 ? "one is" : `${out.length} are`} configured; give --url (or --gateway) once per node`,
    );
  return out.slice(0, k);
}

/** A client that asks `ep` alone (no failover: each node's answer is its own). */
export function clientOn(client: JsonRpcClient, ep: Endpoint): JsonRpcClient {
  return new JsonRpcClient({ ...client.opts, endpoints: [ep], transport: client.transport });
}

/** A bitcoind-family node as it describes itself: subversion, chain, tip. */
export async function describeUtxoNode(client: JsonRpcClient, ep: Endpoint): Promise<QuorumNode> {
  const [net, info] = await Promise.all([
    client.call("getnetworkinfo", [], { ...READ, pinned: ep }),
    client.call("getblockchaininfo", [], { ...READ, pinned: ep }),
  ]);
  const n = net.result as { subversion?: unknown };
  const i = info.result as { chain?: unknown; blocks?: unknown; bestblockhash?: unknown };
  return {
    client: typeof n.subversion === "string" ? n.subversion : "unknown",
    chain: String(i.chain ?? "unknown"),
    height: Number(i.blocks ?? 0),
    block_hash: String(i.bestblockhash ?? ""),
  };
}

/** An EVM node as it describes itself: web3_clientVersion (when it answers), chain id, a block. */
export async function describeEvmNode(
  client: JsonRpcClient,
  ep: Endpoint,
  block: { number: number; hash: string },
): Promise<QuorumNode> {
  let version = "unknown";
  try {
    const v = (await client.call("web3_clientVersion", [], { ...READ, pinned: ep })).result;
    if (typeof v === "string") version = v;
  } catch {
    // some providers do not answer web3_clientVersion; the chain id and the block still name the node
  }
  const id = (await client.call("eth_chainId", [], { ...READ, pinned: ep })).result;
  return {
    client: version,
    chain: typeof id === "string" ? BigInt(id).toString() : "unknown",
    height: block.number,
    block_hash: block.hash,
  };
}

/** One node's verdict in a quorum run: who (URL without credentials, what it says of itself) and what it said. */
export type QuorumVerdict = QuorumNode & { url: string; verdict: Verdict; summary: string };

const SAYS: Record<Verdict, string> = {
  holds: "says it holds",
  fails: "says it does not hold",
  "cannot-say": "cannot say",
};

/**
 * One verifier run on each of K nodes. The same verdict everywhere is the verdict, and only then does the
 * summary say the nodes agree. Otherwise each node's verdict is named (by URL, credentials stripped, and by
 * what it says of itself): "holds" on one node and "fails" on another is a failure (the disagreement, each
 * node's answer, and the failing node's items); a node that cannot say leaves the quorum unmet (cannot say).
 * `findings` are merged as `failures` and `cannot_say` are: the first node's, then each other node's that the
 * first did not make, its text prefixed with the node's name; the disagreement itself is a finding too.
 */
export async function verifyOnQuorum<
  R extends Findings & { verdict: Verdict; summary: string; findings?: Finding[] },
>(
  client: JsonRpcClient,
  k: number,
  describe: (c: JsonRpcClient, ep: Endpoint) => Promise<QuorumNode>,
  verify: (c: JsonRpcClient) => Promise<R>,
): Promise<{ report: R; nodes: QuorumVerdict[] }> {
  const eps = quorumEndpoints(client, k, "reserves verify");
  const runs = await Promise.all(
    eps.map(async (ep) => {
      const c = clientOn(client, ep);
      return { report: await verify(c), node: await describe(client, ep) };
    }),
  );
  const nodes = runs.map((r, i) => ({
    ...r.node,
    url: eps[i]!.label,
    verdict: r.report.verdict,
    summary: r.report.summary,
  }));
  const named = (i: number) => nodeName(nodes[i]!, i, nodes[i]!.url);
  const report = runs[0]!.report;
  const failures = [...report.failures];
  const cannot = [...report.cannot_say];
  const findings = report.findings === undefined ? undefined : [...report.findings];
  const same = (a: Finding, b: Finding) =>
    a.status === b.status && a.step === b.step && a.at === b.at && a.text === b.text;
  const agree = runs.every((r) => r.report.verdict === report.verdict);
  // where they differ, each node's answer
  const each = `the nodes disagree: ${runs.map((r, i) => `${named(i)} ${SAYS[r.report.verdict]}`).join("; ")}`;
  const held = runs.some((r) => r.report.verdict === "holds");
  const failed = runs.findIndex((r) => r.report.verdict === "fails");
  if (!agree && held && failed >= 0) {
    const text = `${each}; ${named(failed)}: ${runs[failed]!.report.failures[0] ?? ""}`;
    failures.push(text);
    findings?.push({ status: "fails", step: "quorum", code: findingCode("quorum", "fails"), text });
  } else if (!agree) {
    cannot.push(each);
    findings?.push({
      status: "cannot-say",
      step: "quorum",
      code: findingCode("quorum", "cannot-say"),
      text: each,
    });
  }
  runs.forEach((r, i) => {
    if (i === 0) return;
    for (const f of r.report.failures) if (!failures.includes(f)) failures.push(`${named(i)}: ${f}`);
    for (const c of r.report.cannot_say) if (!cannot.includes(c)) cannot.push(`${named(i)}: ${c}`);
    for (const f of r.report.findings ?? [])
      if (findings !== undefined && !report.findings?.some((g) => same(f, g)))
        findings.push({ ...f, text: `${named(i)}: ${f.text}` });
  });
  const verdict = verdictOf({ failures, cannot_say: cannot });
  const summary = agree
    ? `${report.summary} (${nodes.length} nodes agree)`
    : verdict === "fails"
      ? `the proof does not hold: ${failures.length} failing item${failures.length === 1 ? "" : "s"} (${each})`
      : verdict === "cannot-say"
        ? `cannot say whether the proof holds: ${each}`
        : report.summary;
  return {
    report: { ...report, verdict, failures, cannot_say: cannot, summary, ...(findings && { findings }) },
    nodes,
  };
}

/**
 * `reserves balances --quorum K`: the proof read on the first node is read again, at its block, on each
 * other node of the quorum (every balance, every token's decimals and symbol, every ownership answer); any
 * answer that differs stops the run naming both nodes and both answers. The proof then records the nodes.
 */
export async function agreeOnEvmProof(
  client: JsonRpcClient,
  eps: Endpoint[],
  proof: EvmProof,
  onNote: (text: string) => void = () => {},
  signal?: AbortSignal,
): Promise<EvmProof> {
  const { verify } = await import("./evm/balances-verify.js");
  const { verifyContext } = await import("./verifier.js");
  const { digestOf } = await import("../proof/jcs.js");
  const nodes = await Promise.all(eps.map((ep) => describeEvmNode(client, ep, proof.block)));
  for (let i = 1; i < eps.length; i++) {
    onNote(
      `--quorum: reading the same ${proof.addresses.length} addresses again on ${nodeName(nodes[i]!, i, eps[i]!.label)}`,
    );
    const r = await verify(verifyContext(clientOn(client, eps[i]!), { signal }), proof);
    if (r.verdict === "fails") {
      const m = r.mismatches[0];
      throw new QuorumError(
        m
          ? `the nodes disagree at block ${proof.block.number} ${proof.block.hash}: ${m.asset === "native" ? "the balance" : `token ${m.asset}'s balance`} of ${m.address} is ${m.proof} on ${nodeName(nodes[0]!, 0, eps[0]!.label)} and ${m.node} on ${nodeName(nodes[i]!, i, eps[i]!.label)}; not a proof`
          : `the nodes disagree at block ${proof.block.number}: ${nodeName(nodes[0]!, 0, eps[0]!.label)} reads it as the proof says; ${nodeName(nodes[i]!, i, eps[i]!.label)}: ${r.failures[0]}; not a proof`,
        { details: r.failures.slice(0, 20) },
      );
    }
    if (r.verdict === "cannot-say")
      throw new QuorumUnmetError(
        `--quorum: ${nodeName(nodes[i]!, i, eps[i]!.label)} cannot answer the reads at block ${proof.block.number}: ${r.cannot_say[0]}`,
      );
  }
  const { digest: _, ...doc } = proof;
  const withQuorum = { ...doc, quorum: { k: eps.length, nodes } };
  return { ...withQuorum, digest: digestOf(withQuorum) };
}

/** A node of the quorum cannot answer (behind, no state at the block): exit 3, the quorum is not met. */
export class QuorumUnmetError extends TransportError {}
