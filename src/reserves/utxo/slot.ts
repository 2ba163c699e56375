/**
 * The node's one scan slot by hand: `reserves status` (what each configured node reports of its scan) and
 * `reserves abort` (an abort on each, and what the node says afterwards), one row per endpoint.
 */
import { type GroupName, groupOf } from "../../chains/index.js";
import { UsageError } from "../../errors/index.js";
import type { JsonRpcClient } from "../../rpc/client.js";
import type { Endpoint } from "../../rpc/endpoint.js";
import { sleep } from "../../util/sleep.js";
import { abortAndConfirm, type ScanState, scanStatus } from "./scan.js";

/** Scans need a group with a UTXO set. */
export function checkGroup(group: GroupName | undefined): void {
  if (group && !groupOf(group).utxoScan)
    throw new UsageError(`reserves works on the utxo group (scantxoutset), not on ${group}`);
}

export interface EndpointRow<T> {
  endpoint: string;
  answer?: T;
  error?: string;
}

/**
 * `status` and `abort` by hand ask every configured endpoint: a row each, and an endpoint that did not
 * answer is a row with its error. When none answered, the last error is the command's.
 */
async function perEndpoint<T>(
  client: JsonRpcClient,
  ask: (ep: Endpoint) => Promise<T>,
): Promise<EndpointRow<T>[]> {
  const rows: EndpointRow<T>[] = [];
  let last: unknown;
  for (const ep of client.opts.endpoints) {
    try {
      rows.push({ endpoint: ep.label, answer: await ask(ep) });
    } catch (e) {
      last = e;
      rows.push({ endpoint: ep.label, error: (e as Error).message });
    }
  }
  if (rows.every((r) => r.error !== undefined)) throw last;
  return rows;
}

/** What `reserves status` says of one node: its state, and what a running scan is doing. */
export interface StatusAnswer extends ScanState {
  /** "preparing": still at 100% a second later (Core 0.21 shows the previous scan's figure until the pass begins) */
  phase?: "preparing" | "scanning";
}

/** `reserves status`: what each node reports about its scan slot. */
export async function reservesStatus(client: JsonRpcClient, group?: GroupName, recheckMs = 1000) {
  checkGroup(group);
  const phaseOf = (st: ScanState): StatusAnswer => (st.running ? { ...st, phase: "scanning" } : st);
  return perEndpoint(client, async (ep): Promise<StatusAnswer> => {
    const st = await scanStatus(client, ep);
    if (!st.running || st.progress !== 100) return phaseOf(st);
    // a pass at 100% ends at once: still 100% a moment later is a scan being prepared
    await sleep(recheckMs);
    const again = await scanStatus(client, ep);
    return again.running && again.progress === 100 ? { ...again, phase: "preparing" } : phaseOf(again);
  });
}

/**
 * `reserves abort`: abort on each node and report what the node says afterwards. For a scan another
 * client started, chaingw cannot see its `start` answer: it reports whether the node still scans, not
 * that the scan "was aborted" (Core 0.21 loses an abort sent while it prepares a scan).
 */
export async function reservesAbort(client: JsonRpcClient, boundMs: number, group?: GroupName) {
  checkGroup(group);
  return perEndpoint(client, (ep) => abortAndConfirm(client, ep, boundMs));
}
