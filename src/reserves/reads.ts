/** Many reads of one UTXO-node method in batch arrays (the client's batch path, fresh connections). */
import { ChaingwError } from "../errors/index.js";
import type { JsonValue } from "../json/lossless.js";
import { prepareRaw } from "../methods/prepare.js";
import { type BatchOutcome, callBatch } from "../rpc/batch.js";
import type { JsonRpcClient } from "../rpc/client.js";

/** calls per batch array */
const BATCH = 250;

/** Each item's outcome kept: a node error for one item (a missing transaction) is the caller's verdict. */
export async function readEach(
  client: JsonRpcClient,
  method: string,
  paramsList: unknown[][],
): Promise<BatchOutcome[]> {
  const out: BatchOutcome[] = [];
  for (let i = 0; i < paramsList.length; i += BATCH) {
    const entries = paramsList.slice(i, i + BATCH).map((p) => prepareRaw(method, p, "utxo"));
    out.push(...(await callBatch(client, entries, { fresh: true })));
  }
  return out;
}

/** The values; the first error (none expected for these reads) is thrown. */
export async function readAll(
  client: JsonRpcClient,
  method: string,
  paramsList: unknown[][],
): Promise<JsonValue[]> {
  return (await readEach(client, method, paramsList)).map((r) => {
    if (r instanceof ChaingwError) throw r;
    return r.result;
  });
}
