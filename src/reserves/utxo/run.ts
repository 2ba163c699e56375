/**
 * `reserves scan` as a workflow (status and abort by hand: slot.ts): typed options in, data out, progress as events, interrupts
 * as an AbortSignal. Nothing here prints or knows the command line (src/cli/commands/reserves/scan.ts is the face).
 * Steps of a scan:
 *  1. read and check the input locally (nothing is sent while anything is wrong);
 *  2. pick a live endpoint (getblockchaininfo, with the client's failover) and ask it about one address of
 *     each prefix (validateaddress): the node settles the network;
 *  3. one `scantxoutset start` with every object, pinned to that endpoint (split only on HTTP 413);
 *  4. check the result (success, BigInt sum = node total); optionally cross-check on another node.
 * An abort of the signal during a scan sends `abort` to the scanning node once, and the statement about
 * what the node did comes from the node: the `start` call's own answer, else `status`.
 */

import { describePrefix } from "../../chains/address.js";
import type { GroupName } from "../../chains/index.js";
import { IntegrityError, InterruptedError, TransportError, UsageError } from "../../errors/index.js";
import type { JsonObject } from "../../json/lossless.js";
import { marksOf } from "../../methods/prepare.js";
import type { Quorum, QuorumNode } from "../../proof/document.js";
import type { JsonRpcClient } from "../../rpc/client.js";
import { type Endpoint, sameNode } from "../../rpc/endpoint.js";
import { nodeName } from "../claims.js";
import { describeUtxoNode, QuorumError, quorumEndpoints } from "../quorum.js";
import { formatCoins } from "./amount.js";
import { buildPlan, type Plan, type PlanInput, type ScanObject } from "./input.js";
import {
  type CheckedScan,
  checkScan,
  compareScans,
  holdings,
  mergeChunks,
  type Report,
  type Unspent,
} from "./report.js";
import {
  type AbortOutcome,
  abortAndConfirm,
  abortTimedOut,
  ScanBusyError,
  type ScanState,
  scanStatus,
  startScan,
  TooLargeError,
} from "./scan.js";
import { checkGroup } from "./slot.js";

export interface ScanOptions extends PlanInput {
  /** per-address subtotals in the report */
  byAddress?: boolean;
  /** the same scan on a second node, compared */
  crossCheck?: boolean;
  /** when the node's scan slot is taken, wait for it (up to scanTimeoutMs) */
  wait?: boolean;
  /** bound of the scan itself (0 = none) */
  scanTimeoutMs: number;
  /** after an interrupt, how long to wait for the node's word on the abort */
  abortWaitMs: number;
  /** the same while the node still prepares the scan (ignoring aborts): the run returns sooner */
  preparingAbortWaitMs?: number;
  /** the chain group the configuration names, if any (the scan needs one that has a UTXO set) */
  group?: GroupName;
  /** status poll interval while the scan runs @default 1000 */
  pollMs?: number;
  /** objects per scan (0 or absent: all in one scan) */
  chunk?: number;
  /** chunks side by side, one per configured node at the same best block */
  parallel?: boolean;
  /** K distinct nodes scan side by side and must agree exactly (same block, same outputs) */
  quorum?: number;
}

/** What a scan reports while it runs; the face decides how to show it. */
export type ReservesEvent =
  | { type: "scan"; endpoint: string; phase: "start" | "end" }
  | { type: "progress"; endpoint: string; state: ScanState; elapsedMs: number }
  | { type: "note"; text: string }
  /** the node may be running a scan that chaingw started: what to say if chaingw must quit now */
  | { type: "node-busy"; endpoint: string | undefined }
  /** after an interrupt: an abort went out to the scanning node (count: aborts sent so far) */
  | { type: "abort-sent"; endpoint: string; count: number };

export type OnEvent = (e: ReservesEvent) => void;

const busyHint = (ep: Endpoint) =>
  [
    `  The node allows one scan at a time. With the same endpoint options (${ep.label}):`,
    "    chaingw reserves status     shows the running scan's progress",
    "    chaingw reserves abort      stops it (only if it is yours or abandoned)",
    "  or run this scan again with --wait to start as soon as the slot is free.",
  ].join("\n");

/** Step 2: a live endpoint, its chain name, and the node's word on one address of each prefix. */
async function preflight(client: JsonRpcClient, plan: Plan): Promise<{ endpoint: Endpoint; chain?: string }> {
  const info = await client.call("getblockchaininfo", [], marksOf("getblockchaininfo", "utxo"));
  const chain = (info.result as JsonObject | null)?.chain;
  const endpoint = info.endpoint;
  const refused: string[] = [];
  for (const rep of plan.representatives) {
    const { result } = await client.call("validateaddress", [rep.address], {
      ...marksOf("validateaddress", "utxo"),
      pinned: endpoint,
    });
    if ((result as JsonObject | null)?.isvalid !== true) {
      const n = plan.addresses.filter((a) => a.prefix === rep.prefix).length;
      refused.push(
        `${rep.origin}: ${rep.address}: the node (chain ${String(chain ?? "?")}) says it is not one of its addresses; ${n} address${n === 1 ? "" : "es"} with ${describePrefix(rep.prefix)}`,
      );
    }
  }
  if (refused.length)
    throw new UsageError(
      `reserves: addresses of another network for ${endpoint.label}; no scan was started`,
      {
        details: refused,
      },
    );
  return { endpoint, chain: typeof chain === "string" ? chain : undefined };
}

interface ScanRun {
  scan: CheckedScan;
  chunks: number;
  chunkNote?: string;
  startedAt: Date;
  durationMs: number;
}

/** The statement about an interrupted scan, from the nodes' own answers. */
function interruptedError(sig: string, outcomes: { ep: Endpoint; a?: AbortOutcome; why?: string }[]) {
  const details = outcomes.map((x) =>
    x.a
      ? `${x.ep.label}: ${x.a.statement}`
      : `${x.ep.label}: abort failed: ${x.why}; check with: chaingw reserves status`,
  );
  const scanning = outcomes.map((x) => (x.a ? x.a.nodeScanning : null));
  const idle = scanning.every((x) => x === false);
  const one = outcomes.length === 1 ? outcomes[0] : undefined;
  return new InterruptedError(`interrupted (${sig}): the scan did not complete; nothing was proven`, {
    details,
    hint:
      outcomes.length && !idle
        ? "the node may still be scanning: `chaingw reserves status` shows it, `chaingw reserves abort` stops it"
        : undefined,
    facts: {
      interrupted_by: sig,
      ...(one
        ? {
            endpoint: one.ep.label,
            aborts_sent: one.a?.aborts ?? 0,
            node_scanning: one.a ? one.a.nodeScanning : null,
            ...(one.a?.startAnswer ? { start_answer: one.a.startAnswer } : {}),
          }
        : outcomes.length
          ? {
              nodes: outcomes.map((x) => ({
                endpoint: x.ep.label,
                aborts_sent: x.a?.aborts ?? 0,
                node_scanning: x.a ? x.a.nodeScanning : null,
              })),
            }
          : {}),
    },
  });
}

/**
 * One `reserves scan`: the nodes it may be scanning on (so an interrupt aborts each), the start times of
 * its scans, and its steps — one scan split where a node refuses the size (`scanOnce`), all objects in
 * chunks at one block (`scanAll`), the same scan on a quorum (`scanOnQuorum`), the report (`report`), and
 * what an interrupt or a failure leaves on the nodes (`failed`).
 */
class ScanSession {
  /** the nodes that may be running a scan of ours, and the `start` call out on each */
  readonly running = new Map<Endpoint, Promise<unknown>>();
  readonly starts: Date[] = [];
  readonly pollMs: number;

  constructor(
    readonly client: JsonRpcClient,
    readonly o: ScanOptions,
    readonly plan: Plan,
    readonly onEvent: OnEvent,
    readonly signal: AbortSignal | undefined,
  ) {
    this.pollMs = o.pollMs ?? 1000;
  }

  /** One scan of `objects` on `ep`, split in halves while the endpoint answers HTTP 413. */
  async scanOnce(ep: Endpoint, objects: ScanObject[], parts: CheckedScan[][], note: (t: string) => void) {
    const queue: ScanObject[][] = [objects];
    const done: CheckedScan[] = [];
    while (queue.length) {
      const part = queue.shift()!;
      try {
        const r = await startScan({
          client: this.client,
          endpoint: ep,
          objects: part,
          scanTimeoutMs: this.o.scanTimeoutMs,
          wait: this.o.wait ?? false,
          pollMs: this.pollMs,
          signal: this.signal,
          onProgress: (state, elapsedMs) =>
            this.onEvent({ type: "progress", endpoint: ep.label, state, elapsedMs }),
          onStartSent: (start) => {
            if (start) this.running.set(ep, start);
            else this.running.delete(ep);
            this.onEvent({ type: "node-busy", endpoint: this.running.size ? ep.label : undefined });
          },
          onBusy: (p) =>
            this.onEvent({
              type: "note",
              text: `a scan is already running on ${ep.label}${p === null ? "" : ` (${p}%)`}; --wait: starting as soon as it ends`,
            }),
        });
        done.push(checkScan(r.result, ep.label));
        this.starts.push(r.startedAt);
      } catch (e) {
        if (!(e instanceof TooLargeError) || part.length < 2) throw e;
        const half = Math.ceil(part.length / 2);
        queue.unshift(part.slice(0, half), part.slice(half));
        note(
          `${ep.label} refused one request of ${part.length} objects (${/HTTP 413\b/.test(e.message) ? "HTTP 413" : "request too large"}), so the objects were scanned in parts`,
        );
      }
    }
    parts.push(done);
  }

  /**
   * All objects in chunks (--chunk), on one node or side by side on every node (--parallel), then every
   * chunk at one block: chunks that stand at another block than the newest are scanned again (the chain
   * moved between them), a bounded number of rounds. A proof is never stitched across two heights.
   */
  async scanAll(eps: Endpoint[]): Promise<ScanRun> {
    const t0 = Date.now();
    const size = this.o.chunk && this.o.chunk > 0 ? this.o.chunk : this.plan.objects.length;
    let chunks: ScanObject[][] = [];
    for (let i = 0; i < this.plan.objects.length; i += size)
      chunks.push(this.plan.objects.slice(i, i + size));
    let scans = 0;
    let chunkNote: string | undefined;
    const note = (t: string) => {
      chunkNote ??= t;
    };
    const settled = new Map<ScanObject[], CheckedScan[]>();
    for (const ep of eps) this.onEvent({ type: "scan", endpoint: ep.label, phase: "start" });
    try {
      for (let round = 0; round < MAX_ROUNDS && chunks.length; round++) {
        if (round > 0)
          this.onEvent({
            type: "note",
            text: `the chain moved while scanning: ${chunks.length} chunk${chunks.length === 1 ? "" : "s"} scanned again at the newest block`,
          });
        const todo = [...chunks];
        // one worker per node; each takes the next chunk
        await Promise.all(
          eps.map(async (ep) => {
            for (let c = todo.shift(); c; c = todo.shift()) {
              const parts: CheckedScan[][] = [];
              await this.scanOnce(ep, c, parts, note);
              scans += parts[0].length;
              settled.set(c, parts[0]);
            }
          }),
        );
        const tipOf = (x: CheckedScan) => `${x.height} ${x.bestblock}`;
        const all = [...settled.values()].flat();
        const newest = all.reduce((a, b) => (b.height > a.height ? b : a));
        chunks = [...settled].filter(([, r]) => r.some((x) => tipOf(x) !== tipOf(newest))).map(([c]) => c);
      }
    } finally {
      for (const ep of eps) this.onEvent({ type: "scan", endpoint: ep.label, phase: "end" });
    }
    if (chunks.length)
      throw new IntegrityError(
        `the chain kept moving: after ${MAX_ROUNDS} rounds, ${chunks.length} chunks still stand at another block; run again`,
      );
    const scan = mergeChunks([...settled.values()].flat(), eps.map((e) => e.label).join(", "));
    const startedAt = new Date(Math.min(t0, ...this.starts.map((d) => d.getTime())));
    const several = scans > 1;
    return {
      scan,
      chunks: scans,
      chunkNote: several
        ? `${chunkNote ? `${chunkNote}: ` : ""}${scans} scans${eps.length > 1 ? ` on ${eps.length} nodes` : ""}, all at block ${scan.height}`
        : chunkNote,
      startedAt,
      durationMs: Date.now() - startedAt.getTime(),
    };
  }

  /**
   * --quorum: the same scan on each node of the quorum, side by side; the same best block (scanned again,
   * a bounded number of times, while a new block reaches the nodes at different moments) and then exactly
   * the same outputs, or a QuorumError naming the nodes and both answers.
   */
  async scanOnQuorum(eps: Endpoint[]): Promise<{ primary: ScanRun; quorum: Quorum }> {
    const described = await Promise.all(eps.map((ep) => describeUtxoNode(this.client, ep)));
    let last = "";
    for (let attempt = 1; attempt <= QUORUM_ATTEMPTS; attempt++) {
      const runs = await Promise.all(eps.map((ep) => this.scanAll([ep])));
      const nodes = runs.map((r, i) => ({
        ...(described[i] as QuorumNode),
        height: r.scan.height,
        block_hash: r.scan.bestblock,
      }));
      const first = runs[0]!.scan;
      const other = runs.findIndex((r) => r.scan.bestblock !== first.bestblock);
      if (other < 0) {
        for (let i = 1; i < runs.length; i++) {
          const diff = unspentDiff(first, runs[i]!.scan);
          if (diff)
            throw new QuorumError(
              `the nodes disagree at block ${first.height} ${first.bestblock}: ${nodeName(nodes[0]!, 0, eps[0]!.label)} answers ${diff.here}; ${nodeName(nodes[i]!, i, eps[i]!.label)} answers ${diff.there}; not a proof`,
              { details: diff.lines },
            );
        }
        return { primary: runs[0]!, quorum: { k: eps.length, nodes } };
      }
      last = `${nodeName(nodes[0]!, 0, eps[0]!.label)} scanned at block ${first.height} ${first.bestblock}, ${nodeName(nodes[other]!, other, eps[other]!.label)} at ${runs[other]!.scan.height} ${runs[other]!.scan.bestblock}`;
      if (attempt < QUORUM_ATTEMPTS)
        this.onEvent({ type: "note", text: `--quorum: ${last}; scanning again (attempt ${attempt + 1})` });
    }
    throw new QuorumError(
      `the nodes disagree about the chain: ${last} after ${QUORUM_ATTEMPTS} attempts; not a proof`,
      {
        hint: "One node is on another branch or behind; compare them (getchaintips) before proving reserves.",
      },
    );
  }

  /** The scan (on one node, side by side, or on the quorum) and the report of it; --cross-check after. */
  async report(
    endpoint: Endpoint,
    chain: Report["chain"],
    quorumNodes: Endpoint[] | undefined,
  ): Promise<Report> {
    let nodes = [endpoint];
    if (this.o.parallel) {
      nodes = await sameTipNodes(this.client, endpoint);
      if (nodes.length < 2)
        this.onEvent({
          type: "note",
          text: "--parallel: only one node at the best block; scanning on it alone",
        });
    }
    let quorum: Quorum | undefined;
    let primary: ScanRun;
    if (quorumNodes) {
      nodes = quorumNodes;
      ({ primary, quorum } = await this.scanOnQuorum(quorumNodes));
    } else primary = await this.scanAll(nodes);
    const funded = new Set(primary.scan.unspents.map((u) => u.address ?? u.desc));
    const report: Report = {
      chain,
      endpoint: nodes.map((n) => n.label).join(", "),
      startedAt: primary.startedAt,
      durationMs: primary.durationMs,
      addressesAsked: this.plan.addresses.length,
      descriptorsAsked: this.plan.descriptors.length,
      duplicatesRemoved: this.plan.duplicates,
      chunks: primary.chunks,
      chunkNote: primary.chunkNote,
      scan: primary.scan,
      holdings: this.o.byAddress ? holdings(this.plan, primary.scan) : undefined,
      addressesWithFunds: funded.size,
      plan: this.plan,
      ...(quorum ? { quorum } : {}),
    };
    if (this.o.crossCheck) {
      const other = this.client.endpoints.find((e) => e !== endpoint)!;
      this.onEvent({ type: "note", text: `cross-check: scanning the same objects on ${other.label}` });
      const second = await this.scanAll([other]);
      report.crossCheck = compareScans(primary.scan, second.scan, other.label);
    }
    if (this.signal?.aborted) throw new InterruptedError("interrupted");
    return report;
  }

  /**
   * What a failed scan leaves: after an interrupt, an abort sent to every node that may be scanning and the
   * node's confirmation awaited (bounded); after a failure, the hint for a busy node, or a look at whether
   * the start went through. Returns the error to throw.
   */
  async failed(e: unknown, endpoint: Endpoint): Promise<unknown> {
    if (this.signal?.aborted) {
      const sig = String(this.signal.reason ?? "interrupted");
      if (!this.running.size) return interruptedError(sig, []);
      const eps = [...this.running.keys()];
      this.onEvent({
        type: "note",
        text: `${sig}: sending abort to ${eps.map((x) => x.label).join(", ")} and waiting for the node to confirm (Ctrl-C again quits without waiting)`,
      });
      const outcomes = await Promise.all(
        [...this.running].map(async ([ep, start]) => {
          try {
            const a = await abortAndConfirm(this.client.withoutSignal(), ep, this.o.abortWaitMs, {
              start,
              preparingBoundMs: this.o.preparingAbortWaitMs,
              onAbortSent: (n) => this.onEvent({ type: "abort-sent", endpoint: ep.label, count: n }),
            });
            return { ep, a };
          } catch (err) {
            return { ep, why: (err as Error).message };
          }
        }),
      );
      if (outcomes.every((x) => x.a?.nodeScanning === false))
        this.onEvent({ type: "node-busy", endpoint: undefined });
      return interruptedError(sig, outcomes);
    }
    if (e instanceof ScanBusyError) e.hint = busyHint(endpoint);
    const first = this.running.keys().next().value;
    if (e instanceof TransportError && first) await afterFailedStart(this.client, this.o, first, e);
    return e;
  }
}

/**
 * The reserves scan. Returns the report (data); throws UsageError for bad input (nothing sent),
 * IntegrityError when the node's answer is not a proof, InterruptedError when `signal` aborted.
 */
export async function scanReserves(
  client: JsonRpcClient,
  o: ScanOptions,
  onEvent: OnEvent = () => {},
  signal?: AbortSignal,
): Promise<Report> {
  checkGroup(o.group);
  const plan = buildPlan(o);
  const quorumNodes = checkNodeOptions(client, o);
  const { endpoint, chain } = await preflight(client, plan);
  const session = new ScanSession(client, o, plan, onEvent, signal);
  try {
    return await session.report(endpoint, chain, quorumNodes);
  } catch (e) {
    throw await session.failed(e, endpoint);
  }
}

/** --cross-check needs two distinct nodes; --quorum K its K nodes and neither of the others. */
function checkNodeOptions(client: JsonRpcClient, o: ScanOptions): Endpoint[] | undefined {
  if (o.crossCheck) {
    const eps = client.endpoints;
    if (eps.length < 2)
      throw new UsageError("--cross-check needs a second endpoint: give --url (or --gateway) twice");
    if (sameNode(eps[0], eps[1]))
      throw new UsageError(
        `--cross-check: ${eps[0].label} and ${eps[1].label} are the same node; a cross-check needs two nodes`,
      );
  }
  const quorumNodes = o.quorum ? quorumEndpoints(client, o.quorum, "reserves scan") : undefined;
  if (quorumNodes && (o.crossCheck || o.parallel))
    throw new UsageError(
      "--quorum already scans on every node of the quorum: leave out --cross-check and --parallel",
    );
  return quorumNodes;
}

/** Rounds of scans on a quorum whose nodes stand at different blocks. */
const QUORUM_ATTEMPTS = 3;

/** The outputs two scans at one block disagree on, or undefined when they are the same set. */
function unspentDiff(
  a: CheckedScan,
  b: CheckedScan,
): { here: string; there: string; lines: string[] } | undefined {
  const key = (u: Unspent) => `${u.txid}:${u.vout} ${u.sats} sats ${u.scriptPubKey ?? ""}`;
  const A = new Set(a.unspents.map(key));
  const B = new Set(b.unspents.map(key));
  const onlyA = [...A].filter((x) => !B.has(x));
  const onlyB = [...B].filter((x) => !A.has(x));
  if (!onlyA.length && !onlyB.length) return undefined;
  const sum = (s: CheckedScan) => `${formatCoins(s.totalSats)} in ${s.unspents.length} outputs`;
  return {
    here: sum(a),
    there: sum(b),
    lines: [
      ...onlyA.slice(0, 10).map((x) => `only the first node: ${x}`),
      ...onlyB.slice(0, 10).map((x) => `only the other node: ${x}`),
    ],
  };
}

/** Rounds of re-scans for chunks that stand at another block than the newest. */
const MAX_ROUNDS = 5;

/** --parallel: the configured nodes at the first node's best block (each node is asked). */
async function sameTipNodes(client: JsonRpcClient, first: Endpoint): Promise<Endpoint[]> {
  const best = async (ep: Endpoint) =>
    String(
      (await client.call("getbestblockhash", [], { idempotent: true, heavy: false, pinned: ep })).result,
    );
  const want = await best(first);
  const out = [first];
  for (const ep of client.endpoints) {
    if (ep === first || out.some((x) => sameNode(x, ep))) continue;
    try {
      if ((await best(ep)) === want) out.push(ep);
    } catch {
      // an endpoint that does not answer takes no chunks
    }
  }
  return out;
}

/** The report's verdict for the face: a cross-check that disagrees is not a proof (exit 1). */
export function crossCheckFailure(report: Report): IntegrityError | undefined {
  if (report.crossCheck?.verdict !== "mismatch") return undefined;
  return new IntegrityError(
    `cross-check failed: ${report.crossCheck.endpoint} is at the same block but reports different reserves (${report.crossCheck.detail}); not a proof`,
  );
}

/**
 * `start` failed without an answer. After a --scan-timeout the node is still scanning for nobody: abort it
 * (scan.ts abortTimedOut). After another transport failure the scan may or may not be ours: only say what
 * the node reports.
 */
async function afterFailedStart(client: JsonRpcClient, o: ScanOptions, ep: Endpoint, e: TransportError) {
  const control = client.withoutSignal();
  if (await abortTimedOut(control, ep, e, o)) return;
  try {
    const s = await scanStatus(control, ep);
    if (s.running) {
      e.hint = `${ep.label} still reports a scan running (${s.progress}%), possibly this one: chaingw reserves status / chaingw reserves abort`;
      e.facts = { ...e.facts, endpoint: ep.label, node_scanning: true };
    }
  } catch {
    // the endpoint is unreachable; the error says so
  }
}
