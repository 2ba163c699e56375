/**
 * `solvency --backing ASSET=NETWORK[:TOKEN]` read into what backs each liabilities asset; an asset no flag
 * names takes the well-known table's backings (src/chains/assets.ts), or none. Bad values: exit 2 naming the
 * flag, before any file is read further or anything is sent.
 */
import {
  type BackingRef,
  KNOWN_NETWORKS,
  nativeCoinLabel,
  networkLabel,
  networkNamed,
  networkOf,
  tokenHex,
  wellKnownAt,
  wellKnownBackings,
} from "../../chains/assets.js";
import { UsageError } from "../../errors/index.js";
import type { AssetRule } from "../../liabilities/solvency.js";

const HEX64 = /^[0-9a-fA-F]{64}$/;
const CHAIN_ID = /^evm:([1-9][0-9]{0,19})$/;
const TOKEN = /^(0x[0-9a-fA-F]{40}|T[1-9A-HJ-NP-Za-km-z]{33})$/;

function parseNetwork(text: string, flag: string): string {
  if (HEX64.test(text)) return `utxo:${text.toLowerCase()}`;
  const id = CHAIN_ID.exec(text);
  if (id) return `evm:${BigInt(id[1] as string)}`;
  const known = networkNamed(text);
  if (known) return known.id;
  throw new UsageError(
    `${flag}: ${JSON.stringify(text)} is not a network: expected a genesis block hash (64 hex digits), evm:<chain id>, or one of ${KNOWN_NETWORKS.map((n) => n.name).join(", ")}`,
  );
}

function parseToken(text: string, flag: string): string {
  if (!TOKEN.test(text))
    throw new UsageError(
      `${flag}: ${JSON.stringify(text)} is not a token contract (0x + 40 hex digits, or a TRON T-address)`,
    );
  try {
    return tokenHex(text);
  } catch (e) {
    throw new UsageError(`${flag}: ${(e as Error).message}`);
  }
}

/** One `--backing` value read: the asset and the network (and token) that backs it. */
export function parseBacking(v: string): { asset: string; ref: BackingRef } {
  const flag = `--backing ${JSON.stringify(v)}`;
  const m = /^([^=]+)=(evm:[^:]+|[^:]+)(?::(.+))?$/.exec(v);
  if (!m) throw new UsageError(`${flag}: expected ASSET=NETWORK or ASSET=NETWORK:TOKEN`);
  const network = parseNetwork(m[2] as string, flag);
  if (m[3] !== undefined && network.startsWith("utxo:"))
    throw new UsageError(`${flag}: ${m[2]} is a UTXO network: it has no tokens`);
  const token = m[3] === undefined ? undefined : parseToken(m[3], flag);
  // "evm:1" names a chain id: any node answering it, not only the one whose genesis is Ethereum's ("ethereum")
  if (CHAIN_ID.test(m[2] as string) && networkOf(network)?.genesis !== undefined) {
    const on = `chain id ${network.slice(4)}`;
    const label = token ? `the token at ${token} on ${on}` : `the native coin of ${on}`;
    return {
      asset: m[1] as string,
      ref: { network, ...(token ? { token } : {}), label, chainIdOnly: true },
    };
  }
  const label =
    wellKnownAt(network, token)?.label ??
    (token ? `the token at ${token} on ${networkLabel(network)}` : nativeCoinLabel(network));
  return { asset: m[1] as string, ref: { network, ...(token ? { token } : {}), label } };
}

/**
 * What backs each asset: the declared backings, else the well-known table's. A (network, token) may back one
 * asset only — counting one coin for two assets is refused.
 */
export function backingRules(values: string[], assets: { asset: string }[]): Map<string, AssetRule> {
  const declared = new Map<string, BackingRef[]>();
  for (const v of values) {
    const { asset, ref } = parseBacking(v);
    if (!assets.some((a) => a.asset === asset))
      throw new UsageError(
        `--backing ${v}: the liabilities have no asset ${asset} (they have ${assets.map((a) => a.asset).join(", ")})`,
      );
    declared.set(asset, [...(declared.get(asset) ?? []), ref]);
  }
  const rules = new Map<string, AssetRule>();
  for (const { asset } of assets) {
    const d = declared.get(asset);
    const w = wellKnownBackings(asset);
    rules.set(
      asset,
      d
        ? { refs: d, source: "declared" }
        : w
          ? { refs: w.backings, source: "well-known" }
          : { refs: [], source: "none" },
    );
  }
  const owner = new Map<string, string>();
  for (const [asset, r] of rules)
    for (const ref of r.refs) {
      const key = `${ref.network} ${ref.token ?? "native"}`;
      const other = owner.get(key);
      if (other !== undefined && other !== asset)
        throw new UsageError(
          `--backing: ${ref.label} would back both ${other} and ${asset}: one coin counts for one asset; declare another backing for one of them`,
        );
      owner.set(key, asset);
    }
  return rules;
}
