/**
 * How the tracking probe (tracking-read.ts `readTracking`) asks a token: straight, as the balance itself is
 * read (`readBalanceOutcomes`: an eth_call to the token, no `from`, no contract between), one call an address,
 * with only the state override under test. A token sees who calls it: asked through a contract (the probe's
 * code reading many holders in one call), `msg.sender != tx.origin` told it apart from the balance read, and a
 * balanceOf that is the native coin — or another declared token — when read straight answered the probe a
 * fixed amount, so nothing moved and the same coins backed two assets (test/probe-context.test.ts). The
 * answers of one ask are joined into the one outcome, a word an address, that the probe reads.
 */

import { ChaingwError, RpcError } from "../../errors/index.js";
import type { Prepared } from "../../methods/prepare.js";
import type { BatchOutcome } from "../../rpc/batch.js";

/** One ask of the probe: the probe contract's one call (`probe`), or a token's balanceOf at each of `who`. */
export type ProbeAsk =
  | { probe: Prepared }
  | { token: string; who: readonly string[]; override?: Record<string, unknown> };

/** The words of `who`'s balances as one answer: each call's first word (the probe took no less), in order. */
function joined(parts: readonly (BatchOutcome | undefined)[]): BatchOutcome | undefined {
  const words: string[] = [];
  for (const o of parts) {
    if (o === undefined || o instanceof ChaingwError) return o;
    const hex = o.result;
    // an answer that is not a word is the answer shown (the probe's words cannot be read from it)
    if (typeof hex !== "string" || !/^0x[0-9a-fA-F]{64}/.test(hex)) return o;
    words.push(hex.slice(2, 66));
  }
  const first = parts[0];
  if (first === undefined || first instanceof ChaingwError) return first;
  const result = `0x${words.join("")}`;
  return { result, raw: JSON.stringify(result), endpoint: first.endpoint };
}

/**
 * Every ask's one answer, in order, the calls made in one `read`: a probe call's as the node gave it, a token's
 * balanceOf asked straight at each holder (`call`: the eth_call's params prepared) joined a word an address.
 */
export async function askProbe(
  asks: readonly ProbeAsk[],
  /** the block parameter sent: a number, a tag or an EIP-1898 object */
  block: string | { blockHash: string },
  call: (params: unknown[]) => Prepared,
  read: (entries: Prepared[]) => Promise<BatchOutcome[]>,
): Promise<(BatchOutcome | undefined)[]> {
  const word = (a: string) => a.slice(2).toLowerCase().padStart(64, "0");
  const groups = asks.map((a) =>
    "probe" in a
      ? [a.probe]
      : a.who.map((w) =>
          call([
            { to: a.token, data: `0x70a08231${word(w)}` },
            block,
            ...(a.override === undefined ? [] : [a.override]),
          ]),
        ),
  );
  const res = await read(groups.flat());
  let i = 0;
  return asks.map((a, k) => {
    const n = (groups[k] as Prepared[]).length;
    const part = res.slice(i, i + n);
    i += n;
    return "probe" in a ? part[0] : joined(part);
  });
}

/** A node's answer to one call of the probe as text, short (its error's message, or what it answered). */
export function probeAnswer(o: BatchOutcome | undefined): string {
  const text =
    o === undefined
      ? "nothing"
      : o instanceof ChaingwError
        ? o instanceof RpcError
          ? o.rpcMessage
          : o.message
        : JSON.stringify(o.result);
  return text.length > 160 ? `${text.slice(0, 157)}...` : text;
}

/** The probe's answer as `n` words, or undefined (an error, or not that many words). */
export function probeWords(o: BatchOutcome | undefined, n: number): bigint[] | undefined {
  if (o === undefined || o instanceof ChaingwError) return undefined;
  const hex = o.result;
  if (typeof hex !== "string" || hex.length !== 2 + 64 * n || !/^0x[0-9a-fA-F]*$/.test(hex)) return undefined;
  return Array.from({ length: n }, (_, k) => BigInt(`0x${hex.slice(2 + 64 * k, 66 + 64 * k)}`));
}
