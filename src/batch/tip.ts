/** The chain's tip height, so a `--range` never walks past it. */
import { type GroupName, groupOf } from "../chains/index.js";
import { quantityOf } from "../json/lossless.js";
import type { JsonRpcClient } from "../rpc/client.js";

/** The tip height as the group's node reports it; undefined when the group has no tip method. */
export async function chainTip(client: JsonRpcClient, group: GroupName): Promise<number | undefined> {
  const tip = groupOf(group).tip;
  if (!tip) return undefined;
  const { result } = await client.call(tip.method, [], { idempotent: true, heavy: false });
  const n = quantityOf(result);
  return n !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}
