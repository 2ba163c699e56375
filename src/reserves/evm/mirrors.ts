/**
 * Tokens that are their network's native coin again: a contract whose balanceOf is each address's native
 * balance (Polygon's MRC20 at 0x…1010, Celo's GoldToken: `return account.balance`). Counting the native
 * balance and such a token's counts one coin twice, so `solvency` keys both as the native coin and
 * `reserves balances` names the mirror. Data in, data out.
 */
import { knownNativeMirror, type NetworkId, networkLabel } from "../../chains/assets.js";
import type { EvmProof } from "../../proof/evm-document.js";
import { counted } from "../verdict.js";

/**
 * The mirrors among `docs`' tokens, by `network token`, each with how it was told: a known mirror contract
 * (chains/assets.ts), or a token whose balance equals the native balance at every address some document reads
 * both for at one block, and is not zero at one of them at least.
 */
export function nativeMirrorsOf(docs: readonly { doc: EvmProof; network: NetworkId }[]): Map<string, string> {
  const out = new Map<string, string>();
  const native = new Map<string, string>();
  for (const { doc, network } of docs)
    for (const bal of doc.assets.find((a) => a.id === "native")?.balances ?? [])
      native.set(`${network} ${doc.block.number} ${bal.address}`, bal.base_units);
  for (const { doc, network } of docs)
    for (const a of doc.assets) {
      const key = `${network} ${a.id}`;
      if (a.id === "native" || out.has(key)) continue;
      const known = knownNativeMirror(network, a.id);
      const token = `the token${a.symbol ? ` named ${a.symbol}` : ""} at ${a.id} on ${networkLabel(network)}`;
      if (known) {
        out.set(key, `${token} is ${known}: its balances are the native coin's`);
        continue;
      }
      let common = 0;
      let equal = true;
      let nonzero = false;
      for (const bal of a.balances) {
        const n = native.get(`${network} ${doc.block.number} ${bal.address}`);
        if (n === undefined) continue;
        common++;
        if (n !== bal.base_units) equal = false;
        if (n !== "0") nonzero = true;
      }
      if (common && equal && nonzero)
        out.set(
          key,
          `${token} mirrors the native coin: its balanceOf equals the native balance at each of the ${counted(common, "address")} read at block ${doc.block.number}`,
        );
    }
  return out;
}
