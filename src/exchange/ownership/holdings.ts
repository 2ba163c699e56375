/**
 * An exchange's address file's row as what it holds (issue 55, one evidence model): its chain as its node
 * answers (else the name the file gives it), its contract, its amount exactly, and how it stands to an asset
 * owed by the one identity rule (`assetAt`). The exchange's reader only translates; solvency.ts judges.
 */
import {
  type AssetRule,
  assetAt,
  type NetworkId,
  networkLabel,
  networkNamed,
  tokenHex,
  wellKnownBackings,
} from "../../chains/assets.js";
import { COINS, type NetworkName } from "../../chains/coins.js";
import type { Holding, ReadStatus } from "../../judge/holding.js";
import { readsFinding } from "../../judge/reads.js";
import type { AuditFault, HoldingFinding } from "../../judge/words.js";
import { isTronRow, networkOf, nodeOfRow } from "./balances.js";
import { exchangeChainOf, nativeOn } from "./coins.js";
import { addressKey } from "./judge.js";
import type { OwnershipRow } from "./read.js";
import type { RowResult } from "./report.js";
import { isTronAddress } from "./signatures.js";

/**
 * What backs each asset of the liabilities (`--backing ASSET=NETWORK[:TOKEN]`, else the well-known table, else
 * nothing: the one rule of chaingw's own proofs, `assetAt`), and what tells a row's chain and contract: each `--node`'s network as its node answers (`getblockhash 0`,
 * `eth_chainId`; null: not read), the contracts its balances were read at (`--token`), the Bitcoin-family
 * addresses' network (`--network`).
 */
export interface RowBackings {
  rules: Map<string, AssetRule>;
  nodes: { network: string; id: NetworkId | null }[];
  tokens: Map<string, string>;
  tronTokens: Map<string, string>;
  network: NetworkName;
}

/**
 * A row's chain and contract: the network its node answers for (without a node, the one its name claims:
 * a Bitcoin-family coin's on `--network`, TRON's names tron-mainnet, a chain's name in the files its network
 * table row — `EXCHANGE_CHAINS`: "ERC20" ethereum, "BSC" bnb-smart-chain —, else the table's own name), and
 * the contract its balance is read at (`--token SYMBOL=…`, else the well-known one there; none: the
 * network's own coin). null: not told.
 */
export function rowIdentity(row: OwnershipRow, b: RowBackings): RowIdentity {
  // one answer per coin, network and address form a file: asked several times a row (each asset owed, the
  // snapshot, the holding), it was ~15 % of solvency's allocations at 50,000 rows (issue 60 item 3)
  let byCoin = identities.get(b);
  if (!byCoin) {
    byCoin = new Map();
    identities.set(b, byCoin);
  }
  let byNetwork = byCoin.get(row.coin);
  if (!byNetwork) {
    byNetwork = new Map();
    byCoin.set(row.coin, byNetwork);
  }
  let pair = byNetwork.get(row.network);
  if (!pair) {
    pair = [undefined, undefined];
    byNetwork.set(row.network, pair);
  }
  const tron = isTronAddress(row.address) ? 1 : 0;
  const known = pair[tron];
  if (known) return known;
  const id = identityOf(row, b);
  pair[tron] = id;
  return id;
}

/** A row's chain and contract (`rowIdentity`). */
type RowIdentity = { network: NetworkId | null; token: string | undefined | null };

/** `rowIdentity`'s answers by the backings, coin, network and whether the address is a TRON one. */
const identities = new WeakMap<
  RowBackings,
  Map<string, Map<string, [RowIdentity | undefined, RowIdentity | undefined]>>
>();

function identityOf(row: OwnershipRow, b: RowBackings): RowIdentity {
  const name = networkOf(row);
  const symbol = (row.coin.split("-")[0] as string).toUpperCase();
  const utxo = COINS.find((c) => c.ticker === name);
  const node = nodeOfRow(b.nodes, row);
  const genesis = utxo?.networks[b.network]?.genesis;
  const named = isTronRow(row)
    ? networkNamed("tron-mainnet")?.id
    : networkNamed(exchangeChainOf(name)?.network ?? name.toLowerCase())?.id;
  const network = node ? node.id : utxo ? (genesis ? `utxo:${genesis}` : null) : (named ?? null);
  const known = (n: NetworkId | null) =>
    wellKnownBackings(symbol)?.backings.find((x) => x.network === n && x.token)?.token ?? null;
  if (utxo) return { network, token: symbol === utxo.ticker ? undefined : null };
  if (isTronRow(row)) {
    const t = b.tronTokens.get(symbol);
    return { network, token: symbol === "TRX" ? undefined : t ? tokenHex(t) : known(network) };
  }
  const t = b.tokens.get(symbol);
  return { network, token: t ? t.toLowerCase() : nativeOn(symbol, name) ? undefined : known(network) };
}

/**
 * The coin a row's amount is of, whatever the spelling: the first part of its coin that is not a chain's or
 * a token standard's name ("USDT-ERC20", "ERC20-USDT", "USDT-ETH" → USDT), else its first part ("ETH-ARBITRUM"
 * → ETH, "TRX" → TRX).
 */
export function tickerOf(row: Pick<OwnershipRow, "coin">): string {
  const parts = row.coin.split("-").map((p) => p.trim().toUpperCase());
  return parts.find((p) => !exchangeChainOf(p)) ?? (parts[0] as string);
}

/**
 * How a row stands to `asset` by the one identity rule (`assetAt`): "mine" (its chain and contract back the
 * asset: the well-known ones, or those `--backing` declared), "other" (they back another asset owed), its
 * identity (named as the asset, it is something else: not counted), or "unrelated".
 */
export function backingOf(
  row: OwnershipRow,
  asset: string,
  b: RowBackings,
): "mine" | "other" | "unrelated" | ReturnType<typeof rowIdentity> {
  const id = rowIdentity(row, b);
  const at = assetAt(b.rules, id.network, id.token);
  if (at) return at.asset === asset ? "mine" : "other";
  return tickerOf(row) === asset.toUpperCase() ? id : "unrelated";
}

/** An amount exactly: base units at `scale` places. */
export interface Exact {
  units: bigint;
  scale: number;
}

/** A row's amount exactly: base units of `places` (a file of base units), else the decimal as written. */
export function exactOf(text: string, places: number | undefined): Exact {
  if (places !== undefined) return significant({ units: BigInt(text), scale: places });
  const [w, f = ""] = text.split(".");
  return significant({ units: BigInt(`${w || "0"}${f}`), scale: f.length });
}

/** The same amount at its significant places only ("2.50000" is 2.5): trailing zeros are no places it states. */
export function significant(x: Exact): Exact {
  let { units, scale } = x;
  while (scale > 0 && units % 10n === 0n) {
    units /= 10n;
    scale--;
  }
  return { units, scale };
}

/** `x` in base units at `scale` (never fewer places than its own: nothing is cut). */
export const at = (x: Exact, scale: number): bigint => x.units * 10n ** BigInt(scale - x.scale);

/**
 * What a row's amount is a balance of: its chain (the network its node answers for, else the name the file
 * gives it) and its contract (none: the chain's own coin; a token not named: its ticker).
 */
export function holdingOf(j: { backings: RowBackings }, row: OwnershipRow): string {
  const id = j.backings ? rowIdentity(row, j.backings) : { network: null, token: null };
  return `${id.network ?? `named ${networkOf(row)}`}|${id.token === undefined ? "" : (id.token ?? `named ${tickerOf(row)}`)}`;
}

/**
 * What one snapshot binds (one snapshot per chain, as chaingw's own EVM proofs of one chain share one block):
 * the row's chain as its node answers (else the name the file gives it). Every asset's rows on it together —
 * ether read at one block and the same coins wrapped into a declared WETH, or swapped into a USDT owed too,
 * read at a later one would count at both. undefined: the row backs no asset owed.
 */
export function snapshotGroupOf(j: { backings: RowBackings }, row: OwnershipRow): string | undefined {
  const id = rowIdentity(row, j.backings);
  // a row that backs no asset owed moves nothing that is counted
  return assetAt(j.backings.rules, id.network, id.token) ? (id.network as NetworkId) : undefined;
}

/**
 * A TRON row read at a TRC-20: the tracking probe is not asked (java-tron's JSON-RPC takes no state override),
 * so whether its balanceOf reads TRX again its node cannot tell — as an EVM node that ignores the override.
 */
function tronUntracked(
  row: OwnershipRow,
  b: RowBackings,
): { tracks: null; detail: string; why: string } | undefined {
  if (!isTronRow(row) || typeof rowIdentity(row, b).token !== "string") return undefined;
  const why = "java-tron's JSON-RPC takes no state override";
  return {
    tracks: null,
    detail: `whether its balanceOf reads the native coin its node cannot tell: ${why}`,
    why,
  };
}

/**
 * A token row whose balanceOf the tracking probe saw move with a native balance (balances.ts, tracking.ts): the
 * native coin again, so it backs nothing — the native coin's own rows count it, once (`notCounted`, its finding). A
 * token row whose node could not tell (refused or ignored the state override) proves nothing for the audit,
 * cannot say (`fault`) — unless it backs `asset` as the well-known contract it is.
 */
export function trackingFault(
  r: RowResult,
  row: OwnershipRow,
  asset: string,
  b: RowBackings,
): { notCounted: HoldingFinding } | { fault: AuditFault } | undefined {
  const t = r.balance?.tracking ?? tronUntracked(row, b);
  if (!t || t.tracks === false) return undefined;
  const id = rowIdentity(row, b);
  if (t.tracks && t.reads) return { notCounted: readsFinding(t.reads, { asset, coin: r.coin, is: id }) };
  if (b.rules.get(asset)?.source === "well-known") return undefined;
  // a "cannot tell" with no node's reason is the shared-ledger rule's (tracking.ts ledgersOf: judge/reads.ts
  // sharedLedgers, its words sharedLedgerWords / ledgerUntoldWords), not the native-coin probe's
  if (t.why === undefined) return { fault: { code: "ledger-untold", detail: t.detail } };
  return {
    fault: {
      code: "tracking-untold",
      network: id.network === null ? null : networkLabel(id.network),
      reason: t.why ?? t.detail,
    },
  };
}

/** What the verifier's row status says was re-read on chain. */
const READ: Record<RowResult["status"], ReadStatus> = {
  proven: "proven",
  signed: "claimed",
  failed: "failed",
  unsigned: "claimed",
  unsupported: "cannot-say",
  "cannot-say": "cannot-say",
};

/**
 * A row as a holding record (judge/holding.ts): its chain as its node answers (else the name the file gives,
 * `named …`), its contract (a token not named: its ticker), its address in one spelling, its amount exactly,
 * its snapshot, the text its signature covers and the key that signed it (`signer`), whether the signature
 * holds, what the node re-read, and the audit's fault of its time, if any.
 */
export function rowHolding(
  row: OwnershipRow,
  r: RowResult,
  amount: Exact,
  snap: { height: number; time: { time: number | null } | undefined } | undefined,
  b: RowBackings,
  fault: Holding["fault"],
  signer: { text: string | null; by: string },
): Holding {
  const id = rowIdentity(row, b);
  return {
    source: `line ${r.line}`,
    kind: "balance",
    chain: id.network ?? `named ${networkOf(row)}`,
    ...(id.token === undefined ? {} : { contract: id.token ?? `named ${tickerOf(row)}` }),
    key: addressKey(row, b.network),
    address: r.address,
    amount: amount.units,
    scale: amount.scale,
    snapshot: snap ? { height: snap.height, time: snap.time?.time ?? null } : null,
    signed: { ...signer, valid: r.signed ?? (r.status === "proven" || r.status === "signed") },
    read: READ[r.status],
    ...(fault ? { fault } : {}),
  };
}

/**
 * The text a row's signature covers and the key that signed it: its own message and address; a contract
 * wallet's, its owners' (HTX lists their rows under it, each signing its own message: `owned`, by owner
 * address; OKX's eoa1/eoa2 sign the wallet row's message). Owners who signed different texts sign no one
 * text (null: proven for no challenge, judge/holding.ts), each named with theirs in `by`. No signature, no
 * owners: no text.
 */
export function signerOf(
  row: OwnershipRow,
  r: RowResult,
  owned: ReadonlyMap<string, string>,
): { text: string | null; by: string } {
  const owners = r.owners ?? [];
  if (owners.length === 0) return { text: row.signatures.length ? row.message : null, by: row.address };
  const texts = owners.map((o) => owned.get(o.address.toLowerCase()) ?? row.message);
  const one = texts.every((t) => t === texts[0]);
  return {
    text: one ? (texts[0] as string) : null,
    by: owners.map((o, k) => (one ? o.address : `${o.address} (${JSON.stringify(texts[k])})`)).join(" and "),
  };
}

/** The messages a contract wallet's owner rows sign, by owner address (lower case): each row's own string. */
export function ownerMessages(rows: readonly OwnershipRow[]): Map<string, string> {
  const m = new Map<string, string>();
  for (const o of rows)
    if (o.ownerOf !== undefined && !m.has(o.address.toLowerCase())) m.set(o.address.toLowerCase(), o.message);
  return m;
}
