/** Many reads of one UTXO-node method in batch arrays (the client's batch path, fresh connections). */
import { ChaingwError } from "../../errors/index.js";
import type { JsonValue } from "../../json/lossless.js";
import { prepareRaw } from "../../methods/prepare.js";
import { type BatchOutcome, callChunked } from "../../rpc/batch.js";
import type { JsonRpcClient } from "../../rpc/client.js";

/** Each item's outcome kept: a node error for one item (a missing transaction) is the caller's verdict. */
export function readEach(
  client: JsonRpcClient,
  method: string,
  paramsList: unknown[][],
): Promise<BatchOutcome[]> {
  const entries = paramsList.map((p) => prepareRaw(method, p, "utxo"));
  return callChunked(client, entries, { fresh: true });
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
