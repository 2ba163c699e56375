/**
 * One row of an exchange's address file judged offline, with no node: its address decoded as its coin's or
 * its network's, then its signature in the forms its publisher signs (`signatures.ts`). The verifier's
 * `ownership` step (`verify.ts`) judges every row it reaches with `judgeRow`.
 */
import { bytesToHex } from "@noble/hashes/utils.js";
import type { NetworkName } from "../../chains/coins.js";
import { ed25519NetOf, exchangeChainOf, isTronNetwork, type UtxoCoin, utxoCoinOf } from "./coins.js";
import { hasHtxColumns, type OwnershipLayout, type OwnershipRow } from "./read.js";
import {
  type AccountDigest,
  decodeUtxoAddress,
  type Ed25519Body,
  isEvmAddress,
  isTronAddress,
  type Judged,
  judgeAccount,
  judgeEd25519,
  judgeUtxoScript,
  judgeUtxoSingle,
  scriptOf,
  unsupported,
} from "./signatures.js";

/** Which digests each publisher signs accounts in (from their files and tools; docs/exchange-proofs.md). */
export const DIGESTS: Record<
  "okx" | "htx",
  { evm: AccountDigest[]; tron: AccountDigest[]; ed: Ed25519Body[] }
> = {
  okx: { evm: ["okx-evm", "okx-header"], tron: ["tron-v1", "tron-v2"], ed: ["okx-header"] },
  htx: { evm: ["eip191", "raw-keccak"], tron: ["tron-v1", "tron-v1-raw"], ed: ["raw"] },
};
/** Poloniex's tool is HTX's (the same digests: raw keccak and EIP-191, TRON v1 over the hash or the bytes). */
export const publisherOf = (l: OwnershipLayout) => (hasHtxColumns(l) ? "htx" : "okx");

/**
 * The Bitcoin-family coin a row is of: its network's, or (no network) its coin's. A row whose coin is one
 * Bitcoin-family coin and whose network another is neither: `mismatch` says so.
 */
export function utxoCoinOfRow(
  row: Pick<OwnershipRow, "coin" | "network">,
  network: NetworkName = "main",
): { readonly coin?: UtxoCoin; readonly mismatch?: string } {
  // the tables never change: each coin, network column and network looked up once (three times a row, each
  // a search of the coin tables and a new record: 37 MB of garbage at 50,000 rows)
  const key = `${row.coin}\u0000${row.network}\u0000${network}`;
  const kept = utxoKept.get(key);
  if (kept !== undefined) return kept;
  if (utxoKept.size >= 4096) utxoKept.clear();
  const found = utxoCoinLooked(row, network);
  utxoKept.set(key, found);
  return found;
}

const utxoKept = new Map<string, { readonly coin?: UtxoCoin; readonly mismatch?: string }>();

function utxoCoinLooked(
  row: Pick<OwnershipRow, "coin" | "network">,
  network: NetworkName,
): { coin?: UtxoCoin; mismatch?: string } {
  const base = row.coin.split("-")[0] as string;
  const ofBase = utxoCoinOf(base, network);
  // Omni Layer tokens (USDT-Omni) live on Bitcoin addresses and sign with Bitcoin's message magic
  const ofNetwork =
    row.network === "" ? undefined : utxoCoinOf(/^omni$/i.test(row.network) ? "BTC" : row.network, network);
  if (ofBase && ofNetwork && ofBase.ticker !== ofNetwork.ticker)
    return {
      mismatch: `the row's coin ${base} is ${ofBase.name}'s, its network ${row.network} ${ofNetwork.name}'s: its amount would count as ${ofBase.name} on another coin's signature`,
    };
  const coin = ofNetwork ?? (row.network === "" ? ofBase : undefined);
  return coin ? { coin } : {};
}

/**
 * What an address holds its balance under, whatever its spelling: a Bitcoin-family address's output script
 * (Litecoin's P2SH has two versions, "M…"/"3…", for one script; bech32 in either case), an EVM address in
 * lower case, any other as written.
 */
export function addressKey(row: OwnershipRow, network: NetworkName | undefined): string {
  const a = row.address;
  const { coin } = utxoCoinOfRow(row, network);
  const decoded = coin ? decodeUtxoAddress(coin, a) : undefined;
  if (decoded !== undefined && typeof decoded !== "string") return `script:${bytesToHex(scriptOf(decoded))}`;
  return isEvmAddress(a) || a === a.toUpperCase() ? a.toLowerCase() : a;
}

/** Whether a file's name is an EVM chain's (a network column, or the part of a coin after its "-"). */
const isEvmNetwork = (name: string): boolean => exchangeChainOf(name)?.kind === "hex";

/**
 * The account chain a row is on, from its network (else its coin, when the coin is a chain's own): EVM,
 * TRON or an ed25519 chain, or undefined when the name is none chaingw knows. `strict`: a network column
 * that names an EVM chain, whose address must then be an EVM one (a coin such as ETC with no network may
 * be listed with another chain's address form).
 */
function accountFamilyOf(
  row: OwnershipRow,
): { kind: "hex" | "tron" | "ed25519"; name: string; strict: boolean; byCoin?: boolean } | undefined {
  const base = (row.coin.split("-")[0] as string).toUpperCase();
  const net = (row.network || base).toUpperCase();
  if (ed25519NetOf(net) ?? (row.network === "" ? ed25519NetOf(base) : undefined))
    return { kind: "ed25519", name: net, strict: false };
  if (isTronNetwork(net)) return { kind: "tron", name: "TRON", strict: true };
  if (isEvmNetwork(net)) return { kind: "hex", name: net, strict: row.network !== "" };
  // HTX also writes the chain before the token ("SOL-USDC", "BEP20-USDC"): its network cell is then the
  // token's name, and the chain is the coin's first part
  if (row.network !== "" && row.coin.includes("-")) {
    if (ed25519NetOf(base)) return { kind: "ed25519", name: base, strict: false, byCoin: true };
    if (isTronNetwork(base)) return { kind: "tron", name: "TRON", strict: false, byCoin: true };
    if (isEvmNetwork(base)) return { kind: "hex", name: base, strict: false, byCoin: true };
  }
  return undefined;
}

/**
 * A row's judgment: a signature's (`Judged`), or cannot-say for a key on a network chaingw cannot name;
 * `digest`, the digest an EVM or TRON row's signature held in.
 */
export type RowJudged = Omit<Judged, "status"> & {
  status: Judged["status"] | "cannot-say";
  digest?: AccountDigest;
};

/** The digest an EVM and a TRON row last held in, of the rows judged before (`judgeRows`): tried first. */
export type HeldDigests = Partial<Record<"hex" | "tron", AccountDigest>>;

/**
 * Rows judged one after another (a share of a window, `parallel.ts`, on a thread): each account row's
 * digests tried from the one the row of its kind before held in — a file's rows sign in one.
 */
export function judgeRows(
  rows: readonly OwnershipRow[],
  layout: OwnershipLayout,
  network: NetworkName = "main",
): RowJudged[] {
  const held: HeldDigests = {};
  return rows.map((row) => {
    const j = judgeRow(row, layout, network, held);
    if (j.digest) held[isTronAddress(row.address) ? "tron" : "hex"] = j.digest;
    return j;
  });
}

/** The judged signature forms of one row, with no node (contract ownership is decided later). */
export function judgeRow(
  row: OwnershipRow,
  layout: OwnershipLayout,
  network: NetworkName = "main",
  held: HeldDigests = {},
): RowJudged {
  const [sig] = row.signatures;
  if (!sig) return unsupported("none", "unsigned");
  if (row.type && /staking/i.test(row.type) && !isEvmAddress(row.address))
    return unsupported(
      `${row.type}`,
      `a staking validator key (${row.type}): its withdrawal credentials are on the beacon chain, which chaingw does not read`,
    );
  // a Bitcoin-family row's address must be its coin's: an EVM or TRON key's signature proves no bitcoin
  const { coin, mismatch } = utxoCoinOfRow(row, network);
  if (mismatch) return { status: "failed", form: `${row.coin} on ${row.network}`, detail: mismatch };
  return coin ? judgeUtxoRow(coin, row, sig) : judgeAccountRow(row, sig, DIGESTS[publisherOf(layout)], held);
}

/** A Bitcoin-family row: its address decoded as its coin's, then signmessage (or a multisig's script). */
function judgeUtxoRow(coin: UtxoCoin, row: OwnershipRow, sig: string): Judged {
  const addr = decodeUtxoAddress(coin, row.address);
  if (typeof addr === "string" && coin.cashaddr && !/^[13]/.test(row.address))
    return unsupported(
      `${coin.ticker} CashAddr`,
      `${coin.name}'s CashAddr addresses are not decoded here (${addr})`,
    );
  if (typeof addr === "string")
    return {
      status: "failed",
      form: `${coin.ticker} address`,
      detail: `the address does not decode as ${coin.name}'s: ${addr}`,
    };
  if (row.script || row.signatures.length > 1) {
    if (!row.script)
      return {
        status: "failed",
        form: `${coin.ticker} script`,
        detail: `${row.signatures.length} signatures and no script: which keys the address needs is not given`,
      };
    if (addr.kind === "p2pkh" || addr.kind === "p2wpkh") return judgeUtxoSingle(coin, addr, sig, row.message);
    return judgeUtxoScript(coin, addr, row.script, row.signatures, row.message);
  }
  return judgeUtxoSingle(coin, addr, sig, row.message);
}

/**
 * An account chain's row (EVM, TRON, the ed25519 chains): its address must be its network's form, then the
 * signature in one of the digests its publisher signs.
 */
function judgeAccountRow(
  row: OwnershipRow,
  sig: string,
  pub: { evm: AccountDigest[]; tron: AccountDigest[]; ed: Ed25519Body[] },
  held: HeldDigests,
): RowJudged {
  const base = row.coin.split("-")[0] as string;
  const family = accountFamilyOf(row);
  const kind = isEvmAddress(row.address) ? "hex" : isTronAddress(row.address) ? "tron" : undefined;
  // an account network's row must carry that network's address: an EVM key's signature proves no TRX,
  // no SOL; a TRON key's none on Ethereum
  if (family && kind && family.kind !== kind)
    return {
      status: "failed",
      form: `${family.name} address`,
      detail: `the row is on ${family.name} (${row.network && !family.byCoin ? `network ${row.network}` : `coin ${row.coin}`}), but its address is ${kind === "hex" ? "an EVM" : "a TRON"} address: its amount would count on ${family.name} on another chain's key`,
    };
  if (kind) {
    const j = judgeAccount(row.address, sig, row.message, kind === "tron" ? pub.tron : pub.evm, held[kind]);
    // a key's signature on a network chaingw cannot name: control of a key, on no chain it can read
    // (a TRON address is TRON's by its form; an EVM address may be any EVM chain's)
    if (family || kind === "tron" || j.status !== "proven") return j;
    const net = row.network || row.coin;
    return {
      ...j,
      status: "cannot-say",
      detail: `${j.detail}; but ${JSON.stringify(net)} is no network chaingw knows: which chain holds the amount cannot be told, so the signature proves no balance`,
    };
  }
  if (family?.kind === "hex" && family.strict)
    return {
      status: "failed",
      form: "EVM address",
      detail: `the address does not decode: the row is on ${family.name}, and ${row.address.startsWith("0x") ? `${row.address.length - 2} hex digits are` : "it is"} not an EVM address (0x + 40 hex digits)`,
    };
  const ed = ed25519NetOf(row.network) ?? ed25519NetOf(base);
  const net = (row.network || base).toUpperCase();
  // an account network's address in no form of it: a failure, never a form chaingw "does not support"
  if (!ed && isTronNetwork(net))
    return {
      status: "failed",
      form: "TRON address",
      detail: "the address does not decode: not a TRON base58 address (T + 33 characters)",
    };
  if (
    !ed &&
    row.address.startsWith("0x") &&
    exchangeChainOf(net)?.kind !== "other" &&
    !sig.startsWith("SIG_K1_")
  )
    return {
      status: "failed",
      form: "EVM address",
      detail: `the address does not decode: ${row.address.length - 2} hex digits, not an EVM address (0x + 40)`,
    };
  if (ed) return judgeEd25519(ed, row.address, sig, row.script, row.message, pub.ed, row.owners[0]);
  if (sig.startsWith("SIG_K1_"))
    return unsupported(
      "EOS SIG_K1",
      `EOS-style signatures (account ${row.address}: its keys are on chain) are not supported`,
    );
  return unsupported(
    `${row.network || row.coin}`,
    `signatures of ${row.network || row.coin} addresses are not supported (address ${row.address})`,
  );
}
