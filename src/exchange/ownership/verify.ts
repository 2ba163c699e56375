/**
 * The verifier of exchanges' ownership files (OKX, HTX): every row judged offline (its signature forms,
 * its address decoded, a multisig's distinct keys, a contract wallet's owners), signatures reused from an
 * older file flagged, balances re-read at the snapshot where a node is given (`balances.ts`), and one verdict:
 * holds only when every row with a balance is proven.
 */

import type { NetworkName } from "../../chains/coins.js";
import { type Finding, type Verdict, verdictOfFindings } from "../../reserves/verdict.js";
import type { ChainChecks } from "./balances.js";
import { decimalsOf, type UtxoCoin, utxoCoinOf } from "./coins.js";
import type { OwnershipFile, OwnershipLayout, OwnershipRow, SummaryLine } from "./read.js";
import {
  type AccountDigest,
  decodeUtxoAddress,
  type Ed25519Body,
  ed25519NetOf,
  isEvmAddress,
  isTronAddress,
  type Judged,
  judgeAccount,
  judgeEd25519,
  judgeUtxoScript,
  judgeUtxoSingle,
  unsupported,
} from "./signatures.js";

export type RowStatus = "proven" | "failed" | "unsigned" | "unsupported" | "cannot-say";

export interface OwnerResult {
  address: string;
  proven: boolean;
  reason: string;
}

export interface RowResult {
  line: number;
  coin: string;
  network: string;
  address: string;
  /** the amount as the file claims it (OKX 2022: base units), null where the row has none */
  amount: string | null;
  height: string | null;
  /** true: the signature (and, for a contract wallet, its owners and the chain) shows control; false: it
   * does not (a failed or missing signature); null: chaingw cannot judge the form, or could not check */
  proven: boolean | null;
  status: RowStatus;
  reason: string;
  form?: string;
  /** an owner row under a contract wallet: the wallet row's line */
  wallet?: number;
  /** a contract wallet's owners (OKX eoa1/eoa2; HTX's owner rows) */
  owners?: OwnerResult[];
  /** the balance re-read at the snapshot block, where a node was given */
  balance?: { value: string | null; block: string | null; holds: boolean | null; detail: string };
}

export interface Tally {
  rows: number;
  proven: number;
  failed: number;
  unsigned: number;
  unsupported: number;
  cannot_say: number;
}

export interface OwnershipReport {
  format: OwnershipLayout;
  verdict: Verdict;
  holds: boolean;
  units: OwnershipFile["units"];
  counts: Tally;
  /** per coin: the amounts the rows of each status claim (summed exactly, as written) */
  amounts: Record<string, Record<Exclude<RowStatus, never>, string>>;
  summary: SummaryLine[];
  rows: RowResult[];
  findings: Finding[];
  summary_text: string;
}

/** Which digests each publisher signs accounts in (from their files and tools; docs/exchange-proofs.md). */
const DIGESTS: Record<"okx" | "htx", { evm: AccountDigest[]; tron: AccountDigest[]; ed: Ed25519Body[] }> = {
  okx: { evm: ["okx-evm", "okx-header"], tron: ["tron-v1", "tron-v2"], ed: ["okx-header"] },
  htx: { evm: ["eip191", "raw-keccak"], tron: ["tron-v1", "tron-v1-raw"], ed: ["raw"] },
};
const publisherOf = (l: OwnershipLayout) => (l === "htx" ? "htx" : "okx");

/**
 * The messages each layout's rows sign (every real file's): OKX "I am an OKX address", its 2025 audit the
 * audit's code, HTX its name or its slogan. None carries a snapshot date or height, so none shows control at
 * the snapshot; `--challenge TEXT` requires one exact message instead.
 */
const MESSAGES: Record<OwnershipLayout, { text: string; test: (m: string) => boolean }> = {
  "okx-2022": { text: '"I am an OKX address"', test: (m) => m === "I am an OKX address" },
  "okx-2024": { text: '"I am an OKX address"', test: (m) => m === "I am an OKX address" },
  "okx-audit-2025": { text: '"OKC_DTT_AUP" and a year', test: (m) => /^OKC_DTT_AUP\d{4}$/.test(m) },
  htx: {
    text: '"huobi", "htx" or "King will be back!"',
    test: (m) => ["huobi", "htx", "King will be back!"].includes(m),
  },
};

/** A message shown in a reason: quoted, cut at 60 characters. */
const quoted = (m: string) => JSON.stringify(m.length > 60 ? `${m.slice(0, 60)}…` : m);

/**
 * A signed row's messages against the one `--challenge` requires (another fails) or, without it, the ones
 * its layout's publisher signs (another: cannot say whose claim the signature makes). Proven rows only are
 * downgraded to cannot-say; a required message not signed fails any signed row.
 */
function judgeMessages(res: RowResult, messages: string[], layout: OwnershipLayout, required?: string): void {
  const signed = messages.filter((m) => m.trim() !== "");
  if (signed.length === 0 || res.status === "failed" || res.status === "unsigned") return;
  if (required !== undefined) {
    const other = signed.find((m) => m !== required);
    if (other !== undefined)
      Object.assign(res, {
        proven: false,
        status: "failed",
        reason: `signed over ${quoted(other)}, not the required message ${quoted(required)} (--challenge): a signature over another text shows nothing for this file`,
      });
    return;
  }
  const known = MESSAGES[layout];
  const other = signed.find((m) => !known.test(m));
  if (other !== undefined && (res.status === "proven" || res.status === "cannot-say"))
    Object.assign(res, {
      proven: null,
      status: "cannot-say",
      reason: `${res.reason}; but signed over ${quoted(other)}, none of the messages ${layout} files sign (${known.text}): whose claim the signature makes cannot be told (--challenge TEXT requires the one you expect)`,
    });
}

/** A file to check signatures against for reuse: signature text → where it was. */
export type PreviousSignatures = Map<string, string>;

/** A signature's text as compared for reuse (hex case and 0x ignored). */
export const sigKey = (s: string): string => {
  const hex = s.replace(/^0x/i, "");
  return /^[0-9a-fA-F]+$/.test(hex) ? hex.toLowerCase() : s;
};

/** The signatures of a file, for `--previous`. */
export function signaturesOf(file: OwnershipFile, name: string): PreviousSignatures {
  const m: PreviousSignatures = new Map();
  for (const r of file.rows)
    for (const s of r.signatures) if (!m.has(sigKey(s))) m.set(sigKey(s), `${name} line ${r.line}`);
  return m;
}

const isZero = (a: string) => /^0*(\.0*)?$/.test(a);

/**
 * The Bitcoin-family coin a row is of: its network's, or (no network) its coin's. A row whose coin is one
 * Bitcoin-family coin and whose network another is neither: `mismatch` says so.
 */
export function utxoCoinOfRow(
  row: OwnershipRow,
  network: NetworkName = "main",
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

/** The EVM networks as the files name them (a network column, or the part of a coin after its "-"). */
const EVM_NETWORKS = new Set([
  "ETH",
  "ERC20",
  "ARBITRUM",
  "OPTIMISM",
  "BASE",
  "LINEA",
  "ZKSYNC",
  "BSC",
  "BEP20",
  "BNB",
  "POLY",
  "POLYGON",
  "MATIC",
  "AVAXC",
  "AVAX",
  "AVALANCHE C-CHAIN",
  "OKC",
  "HECO",
  "BTTC",
  "FTM",
  "FANTOM",
  "ETC",
]);
const TRON_NETWORKS = new Set(["TRON", "TRC20", "TRX"]);

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
  if (TRON_NETWORKS.has(net)) return { kind: "tron", name: "TRON", strict: true };
  if (EVM_NETWORKS.has(net)) return { kind: "hex", name: net, strict: row.network !== "" };
  // HTX also writes the chain before the token ("SOL-USDC", "BEP20-USDC"): its network cell is then the
  // token's name, and the chain is the coin's first part
  if (row.network !== "" && row.coin.includes("-")) {
    if (ed25519NetOf(base)) return { kind: "ed25519", name: base, strict: false, byCoin: true };
    if (TRON_NETWORKS.has(base)) return { kind: "tron", name: "TRON", strict: false, byCoin: true };
    if (EVM_NETWORKS.has(base)) return { kind: "hex", name: base, strict: false, byCoin: true };
  }
  return undefined;
}

/** One chain's names in the files, as one: HTX's USDT-ETH and USDT-ERC20 are one token on one chain. */
const CHAIN_ALIASES: Record<string, string> = {
  ERC20: "ETH",
  BEP20: "BSC",
  BNB: "BSC",
  POLY: "POLYGON",
  MATIC: "POLYGON",
  AVAX: "AVAXC",
  "AVALANCHE C-CHAIN": "AVAXC",
  TRC20: "TRON",
  TRX: "TRON",
};

/**
 * What a row's amount is of, whatever its spelling: the coin's and the network's names, each chain's aliases
 * as one, in any order ("USDT-ETH", "USDT-ERC20", "ERC20-USDT" and USDT on network ERC20 are one asset).
 */
const assetKey = (row: OwnershipRow): string =>
  [
    ...new Set(
      [...row.coin.split("-"), row.network]
        .map((x) => x.trim().toUpperCase())
        .filter((x) => x !== "")
        .map((x) => CHAIN_ALIASES[x] ?? x),
    ),
  ]
    .sort()
    .join("+");

/** The judged signature forms of one row, with no node (contract ownership is decided later). */
export function judgeRow(row: OwnershipRow, layout: OwnershipLayout, network: NetworkName = "main"): Judged {
  const pub = DIGESTS[publisherOf(layout)];
  const [sig] = row.signatures;
  if (!sig) return unsupported("none", "unsigned");
  if (row.type && /staking/i.test(row.type) && !isEvmAddress(row.address))
    return unsupported(
      `${row.type}`,
      `a staking validator key (${row.type}): its withdrawal credentials are on the beacon chain, which chaingw does not read`,
    );
  const base = row.coin.split("-")[0] as string;
  // a Bitcoin-family row's address must be its coin's: an EVM or TRON key's signature proves no bitcoin
  const { coin, mismatch } = utxoCoinOfRow(row, network);
  if (mismatch) return { status: "failed", form: `${row.coin} on ${row.network}`, detail: mismatch };
  const family = coin ? undefined : accountFamilyOf(row);
  const kind = isEvmAddress(row.address) ? "hex" : isTronAddress(row.address) ? "tron" : undefined;
  // an account network's row must carry that network's address: an EVM key's signature proves no TRX,
  // no SOL; a TRON key's none on Ethereum
  if (family && kind && family.kind !== kind)
    return {
      status: "failed",
      form: `${family.name} address`,
      detail: `the row is on ${family.name} (${row.network && !family.byCoin ? `network ${row.network}` : `coin ${row.coin}`}), but its address is ${kind === "hex" ? "an EVM" : "a TRON"} address: its amount would count on ${family.name} on another chain's key`,
    };
  if (!coin && kind) return judgeAccount(row.address, sig, row.message, kind === "tron" ? pub.tron : pub.evm);
  if (family?.kind === "hex" && family.strict)
    return {
      status: "failed",
      form: "EVM address",
      detail: `the address does not decode: the row is on ${family.name}, and ${row.address.startsWith("0x") ? `${row.address.length - 2} hex digits are` : "it is"} not an EVM address (0x + 40 hex digits)`,
    };
  if (coin) {
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
      if (addr.kind === "p2pkh" || addr.kind === "p2wpkh")
        return judgeUtxoSingle(coin, addr, sig, row.message);
      return judgeUtxoScript(coin, addr, row.script, row.signatures, row.message);
    }
    return judgeUtxoSingle(coin, addr, sig, row.message);
  }
  const ed = ed25519NetOf(row.network) ?? ed25519NetOf(base);
  const net = (row.network || base).toUpperCase();
  // an account network's address in no form of it: a failure, never a form chaingw "does not support"
  if (!ed && /^(TRON|TRC20|TRX)$/.test(net))
    return {
      status: "failed",
      form: "TRON address",
      detail: "the address does not decode: not a TRON base58 address (T + 33 characters)",
    };
  if (!ed && row.address.startsWith("0x") && net !== "STARKNET" && !sig.startsWith("SIG_K1_"))
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

export interface VerifyOptions {
  previous?: PreviousSignatures;
  /** the exact message every signed row must be over (`--challenge`); else the layout's own messages */
  message?: string;
  /** the network of the file's Bitcoin-family addresses (exchanges publish mainnet's) */
  network?: NetworkName;
  /**
   * On-chain checks where a node is given: a contract wallet's owners (true / false / why not), and the
   * balance at the snapshot block. Absent: no node, said per row.
   */
  chain?: ChainChecks;
}

/** Verifies every row of `file`; the report's verdict: holds only when every row with a balance is proven. */
export async function verifyOwnership(
  file: OwnershipFile,
  options: VerifyOptions = {},
): Promise<OwnershipReport> {
  const pub = DIGESTS[publisherOf(file.layout)];
  const results: RowResult[] = [];
  const ownersOf = new Map<number, OwnershipRow[]>();
  for (const r of file.rows)
    if (r.ownerOf !== undefined) ownersOf.set(r.ownerOf, [...(ownersOf.get(r.ownerOf) ?? []), r]);
  // HTX lists a wallet's owners once, under one of its coins: the same contract's other unsigned rows have them too
  const walletOwners = new Map<string, OwnershipRow[]>();
  for (const r of file.rows) {
    const o = ownersOf.get(r.line);
    if (o) walletOwners.set(r.address.toLowerCase(), o);
  }
  for (const r of file.rows)
    if (r.signatures.length === 0 && !ownersOf.has(r.line) && walletOwners.has(r.address.toLowerCase()))
      ownersOf.set(r.line, walletOwners.get(r.address.toLowerCase()) as OwnershipRow[]);
  // one address of one coin is one balance: a second row of it with an amount would be summed again
  const firstLine = new Map<string, number>();
  const repeated = (row: OwnershipRow): number | undefined => {
    if (row.amount === undefined) return undefined;
    const a = row.address;
    const key = `${assetKey(row)}|${isEvmAddress(a) || a === a.toUpperCase() ? a.toLowerCase() : a}`;
    const first = firstLine.get(key);
    if (first === undefined) firstLine.set(key, row.line);
    return first;
  };
  for (const row of file.rows) {
    const res: RowResult = {
      line: row.line,
      coin: row.coin,
      network: row.network,
      address: row.address,
      amount: row.amount ?? null,
      height: row.height ?? null,
      proven: null,
      status: "unsupported",
      reason: "",
    };
    if (row.ownerOf !== undefined) res.wallet = row.ownerOf;
    const reused = row.signatures.map((s) => options.previous?.get(sigKey(s))).find((x) => x !== undefined);
    // owners of a contract wallet: OKX's eoa1/eoa2 of an EVM address, HTX's owner rows under it
    const owners =
      isEvmAddress(row.address) &&
      !utxoCoinOfRow(row, options.network).coin &&
      !utxoCoinOfRow(row, options.network).mismatch
        ? row.owners.length
          ? row.owners
          : (ownersOf.get(row.line) ?? []).map((o) => o.address)
        : [];
    const again = repeated(row);
    if (again !== undefined) {
      Object.assign(res, {
        proven: false,
        status: "failed",
        reason: `the same ${row.coin} address as line ${again}, listed again with an amount: its balance would count twice`,
      });
    } else if (row.signatures.length && row.message.trim() === "") {
      Object.assign(res, { proven: false, status: "failed", reason: EMPTY_MESSAGE });
    } else if (reused) {
      Object.assign(res, {
        proven: false,
        status: "failed",
        reason: `signature reused from ${reused}: it shows control when that file was made, not at this snapshot`,
      });
    } else if (owners.length) {
      await judgeWallet(row, res, owners, ownersOf.get(row.line), pub.evm, options);
    } else if (row.signatures.length === 0) {
      Object.assign(res, {
        proven: false,
        status: "unsigned",
        reason: "unsigned: no signature for this address",
      });
    } else {
      const j = judgeRow(row, file.layout, options.network);
      res.form = j.form;
      res.reason = j.detail;
      res.status = j.status;
      res.proven = j.status === "proven" ? true : j.status === "failed" ? false : null;
    }
    if (again === undefined && !reused)
      judgeMessages(
        res,
        owners.length && ownersOf.get(row.line)
          ? (ownersOf.get(row.line) as OwnershipRow[]).map((o) => o.message)
          : [row.message],
        file.layout,
        options.message,
      );
    if (options.chain && res.status !== "failed" && res.status !== "unsigned") {
      const b = await options.chain.balance(row);
      if (b) {
        res.balance = { value: b.value ?? null, block: b.block ?? null, holds: b.holds, detail: b.detail };
        if (b.holds === false)
          Object.assign(res, {
            proven: false,
            status: "failed",
            reason: `${res.reason}; but it ${b.detail}`,
          });
      }
    }
    results.push(res);
  }
  return report(file, results);
}

const EMPTY_MESSAGE =
  "signed an empty message: a signature over nothing names no exchange and no date, and may be any old one";

/** A contract wallet: every owner's signature, then (with a node) that the owners control the contract. */
async function judgeWallet(
  row: OwnershipRow,
  res: RowResult,
  owners: string[],
  ownerRows: OwnershipRow[] | undefined,
  digests: AccountDigest[],
  options: VerifyOptions,
): Promise<void> {
  res.form = "contract wallet, by its owners' signatures";
  res.owners = owners.map((address, i) => {
    // OKX: owner i signed signature i on the wallet's row; HTX: each owner's own row
    const sig = ownerRows ? ownerRows[i]?.signatures[0] : row.signatures[i];
    const message = ownerRows ? (ownerRows[i]?.message ?? "") : row.message;
    if (!sig) return { address, proven: false, reason: "no signature by this owner" };
    if (message.trim() === "") return { address, proven: false, reason: EMPTY_MESSAGE };
    const j = judgeAccount(address, sig, message, ownerRows ? DIGESTS.htx.evm : digests);
    return { address, proven: j.status === "proven", reason: `${j.form}: ${j.detail}` };
  });
  const bad = res.owners.find((o) => !o.proven);
  if (bad) {
    Object.assign(res, { proven: false, status: "failed", reason: `owner ${bad.address}: ${bad.reason}` });
    return;
  }
  const names = owners.join(" and ");
  if (!options.chain) {
    Object.assign(res, {
      proven: null,
      status: "cannot-say",
      reason: `owners ${names} signed; that they control the contract ${row.address} needs a node (--node NET=URL), not checked`,
    });
    return;
  }
  const c = await options.chain.owners(row, owners);
  Object.assign(res, {
    proven: c.controls,
    status: c.controls === true ? "proven" : c.controls === false ? "failed" : "cannot-say",
    reason: `owners ${names} signed; ${c.detail}`,
  });
}

/** Exact decimal sums of amounts as written: the widest scale among them. */
export function sumAmounts(xs: readonly string[]): string {
  const scale = Math.max(0, ...xs.map((x) => (x.split(".")[1] ?? "").length));
  let t = 0n;
  for (const x of xs) {
    const [w, f = ""] = x.split(".");
    t += BigInt(w || "0") * 10n ** BigInt(scale) + BigInt(f.padEnd(scale, "0") || "0");
  }
  if (scale === 0) return t.toString();
  const s = t.toString().padStart(scale + 1, "0");
  return `${s.slice(0, -scale)}.${s.slice(-scale)}`.replace(/\.?0+$/, "");
}

const STATUSES: RowStatus[] = ["proven", "failed", "unsigned", "unsupported", "cannot-say"];

function report(file: OwnershipFile, rows: RowResult[]): OwnershipReport {
  const counts: Tally = {
    rows: rows.length,
    proven: 0,
    failed: 0,
    unsigned: 0,
    unsupported: 0,
    cannot_say: 0,
  };
  const per = new Map<string, Map<RowStatus, string[]>>();
  const findings: Finding[] = [];
  const everyRow = file.units === "none";
  for (const r of rows) {
    counts[r.status === "cannot-say" ? "cannot_say" : r.status]++;
    if (r.amount !== null) {
      if (!per.has(r.coin)) per.set(r.coin, new Map());
      const m = per.get(r.coin) as Map<RowStatus, string[]>;
      m.set(r.status, [...(m.get(r.status) ?? []), r.amount]);
    }
    const hasBalance = everyRow || (r.amount !== null && !isZero(r.amount));
    const status: Finding["status"] =
      r.status === "proven"
        ? "ok"
        : r.status === "failed"
          ? "fails"
          : // an unsigned row, or one chaingw cannot judge, counts only with a balance: exit 0 needs every
            // row with a balance proven (the audit layout has no amounts: every row counts)
            hasBalance
            ? r.status === "unsigned"
              ? "fails"
              : "cannot-say"
            : "claim";
    findings.push({
      status,
      step: "ownership",
      at: `line ${r.line}`,
      text: `${r.coin} ${r.address}: ${r.reason}${!hasBalance && (r.status === "unsupported" || r.status === "cannot-say") ? " (no balance: not counted toward the verdict)" : ""}`,
    });
  }
  // the coins whose decimal places no table of chaingw's gives: their amounts are kept as written
  const unknown = new Map<string, number[]>();
  for (const r of rows)
    if (r.amount !== null && file.units === "coin" && decimalsOf(r.coin, r.network) === undefined)
      unknown.set(r.coin, [...(unknown.get(r.coin) ?? []), r.line]);
  if (unknown.size)
    findings.push({
      status: "claim",
      step: "decimals",
      text: `decimal places not checked for ${[...unknown].map(([c, ls]) => `${c} (line${ls.length === 1 ? "" : "s"} ${ls.join(", ")})`).join(", ")}: chaingw's coin tables do not know ${unknown.size === 1 ? "that coin" : "those coins"} on ${unknown.size === 1 ? "its network" : "their networks"}; the amounts are as written`,
    });
  for (const s of file.summary)
    findings.push({
      status: "claim",
      step: "summary",
      at: `line ${s.line}`,
      text: `${s.coin}: ${s.amount}${s.height ? ` at height ${s.height}` : ""}, as the file claims`,
    });
  const amounts: OwnershipReport["amounts"] = {};
  for (const [coin, m] of per) {
    amounts[coin] = {} as Record<RowStatus, string>;
    for (const s of STATUSES) (amounts[coin] as Record<RowStatus, string>)[s] = sumAmounts(m.get(s) ?? []);
  }
  const verdict = verdictOfFindings(findings);
  const open = counts.failed + counts.unsigned;
  const summary_text =
    verdict === "holds"
      ? `every row${everyRow ? "" : " with a balance"} is proven (${counts.proven} of ${counts.rows} rows)`
      : verdict === "fails"
        ? `the file does not hold: ${open} row${open === 1 ? "" : "s"} failed or unsigned (${counts.failed} failed, ${counts.unsigned} unsigned), ${counts.proven} proven of ${counts.rows}`
        : `cannot say: ${counts.unsupported + counts.cannot_say} row(s) chaingw could not judge (${counts.unsupported} unsupported, ${counts.cannot_say} not checked), ${counts.proven} proven of ${counts.rows}`;
  return {
    format: file.layout,
    verdict,
    holds: verdict === "holds",
    units: file.units,
    counts,
    amounts,
    summary: file.summary,
    rows,
    findings,
    summary_text,
  };
}
