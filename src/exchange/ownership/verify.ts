/**
 * The verifier of exchanges' ownership files (OKX, HTX), in the one verifier shape (reserves/verifier.ts):
 * `ROW_JUDGES` over one `OwnershipContext` (a window of rows at a time), then the file's own steps
 * (`file-steps.ts`: decimals, summary lines) — a row listed again, a signature over nothing, signatures reused from
 * an older file, every row's signature forms offline (`judge.ts`: its address decoded, a multisig's distinct
 * keys) and a contract wallet's owners, the messages signed, balances re-read at the snapshot where a node is
 * given (`balances.ts`) — each returning `Finding`s, and one verdict: holds only when every row with a
 * balance is proven.
 */

import type { NetworkName } from "../../chains/coins.js";
import { type OwnerWhy, ownerWords, type RowWhy, rowLineWords, rowWords } from "../../judge/words-rows.js";
import { type Finding, findingCode } from "../../reserves/verdict.js";
import { runSteps, throwIfInterrupted, type VerifyStep } from "../../reserves/verifier.js";
import type { BalanceCheck, ChainChecks } from "./balances.js";
import { decimalsOf } from "./coins.js";
import { assetKey, FILE_STEPS, isZero } from "./file-steps.js";
import { addressKey, DIGESTS, publisherOf, type RowJudged, utxoCoinOfRow } from "./judge.js";
import { judgeMessages } from "./messages.js";
import { type RowJudges, rowJudges } from "./parallel.js";
import type { OwnershipFile, OwnershipRow } from "./read.js";
import {
  type OwnerResult,
  type OwnershipReport,
  type RowPatch,
  type RowResult,
  RowTally,
  report,
} from "./report.js";
import { isEvmAddress, judgeAccount } from "./signatures.js";
import { balanceRecord, trackingFinding } from "./tracking.js";

export { assetKey } from "./file-steps.js";
export type { OwnerResult, OwnershipReport, RowResult, RowStatus, Tally } from "./report.js";
export { sumAmounts } from "./report.js";

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

/** What every step of the ownership verifier runs with: the file as read, `reserves verify`'s options. */
export interface OwnershipContext {
  /** the file as read; the row steps see one window of its rows at a time */
  file: OwnershipFile;
  options: VerifyOptions;
  signal?: AbortSignal;
  /** the rows' signatures judged on every core, the workers kept from one window to the next */
  judges?: RowJudges;
}

/** What the steps learn, row by row. */
export interface OwnershipState {
  /** each row's judgment so far, in the file's order (the report's rows) */
  rows: RowResult[];
  /** the step that last judged each row (undefined: none yet) */
  by: (string | undefined)[];
  /** a contract wallet's owner rows, by the wallet row's line (HTX lists them under it) */
  ownersOf: Map<number, OwnershipRow[]>;
  /** each row's contract-wallet owners (OKX eoa1/eoa2, HTX's owner rows): empty for any other row */
  owners: string[][];
  /** each asset's address with an amount, by the line that first lists it (the whole file's, window after window) */
  firstLine: Map<string, number>;
}

type Step = VerifyStep<OwnershipContext, OwnershipState>;

/** A row's finding as a step leaves it: what its status means for the verdict, the row's reason. */
function rowFinding(step: string, file: OwnershipFile, r: RowResult): Finding {
  // an unsigned row, or one chaingw cannot judge, counts only with a balance: exit 0 needs every row with a
  // balance proven (the audit layout has no amounts: every row counts)
  const hasBalance = file.units === "none" || (r.amount !== null && !isZero(r.amount));
  const status: Finding["status"] =
    r.status === "proven"
      ? "ok"
      : r.status === "failed"
        ? "fails"
        : hasBalance
          ? r.status === "unsigned"
            ? "fails"
            : "cannot-say"
          : "claim";
  const uncounted = !hasBalance && (r.status === "unsupported" || r.status === "cannot-say");
  return {
    status,
    step,
    code: findingCode(step, status),
    at: `line ${r.line}`,
    text: rowLineWords(r.coin, r.address, r.reason, uncounted),
  };
}

/** A row judged by `step` (what `patch` changes), and its finding as the report will show it. */
function judge(ctx: OwnershipContext, s: OwnershipState, i: number, step: string, patch: RowPatch) {
  const row = Object.assign(s.rows[i] as RowResult, patch);
  row.reason = rowWords(row.why);
  s.by[i] = step;
  const f = rowFinding(step, ctx.file, row);
  // the row's code: its finding's, the last step's that judged it ("balances-fails", "signatures-ok")
  row.code = f.code;
  return f;
}

/** The rows a step may still change: judged neither failed nor unsigned. */
const open = (s: OwnershipState): number[] =>
  s.rows.flatMap((r, i) => (r.status === "failed" || r.status === "unsigned" ? [] : [i]));

/** The rows no step has judged yet. */
const unjudged = (s: OwnershipState): number[] => s.by.flatMap((b, i) => (b === undefined ? [i] : []));

/** One address of one asset is one balance: a second row of it with an amount would be summed again. */
const repeats: Step = {
  name: "repeats",
  run(ctx, s) {
    const firstLine = s.firstLine;
    const out: Finding[] = [];
    for (const [i, row] of ctx.file.rows.entries()) {
      if (row.amount === undefined) continue;
      const key = `${assetKey(row)}|${addressKey(row, ctx.options.network)}`;
      const first = firstLine.get(key);
      if (first === undefined) firstLine.set(key, row.line);
      else
        out.push(
          judge(ctx, s, i, "repeats", {
            proven: false,
            status: "failed",
            why: [{ code: "listed-again", coin: row.coin, line: first }],
          }),
        );
    }
    return out;
  },
};

/** A signature over an empty message: it names no exchange and no date. */
const emptyMessage: Step = {
  name: "empty-message",
  run: (ctx, s) =>
    unjudged(s)
      .filter((i) => {
        const row = ctx.file.rows[i] as OwnershipRow;
        return row.signatures.length > 0 && row.message.trim() === "";
      })
      .map((i) =>
        judge(ctx, s, i, "empty-message", {
          proven: false,
          status: "failed",
          why: [{ code: "signed-nothing" }],
        }),
      ),
};

/** A signature found in an older file of the exchange (`--previous`): control then, not at this snapshot. */
const reuse: Step = {
  name: "reuse",
  run(ctx, s) {
    const previous = ctx.options.previous;
    if (!previous) return [];
    return unjudged(s).flatMap((i) => {
      const row = ctx.file.rows[i] as OwnershipRow;
      const reused = row.signatures.map((x) => previous.get(sigKey(x))).find((x) => x !== undefined);
      return reused === undefined
        ? []
        : [
            judge(ctx, s, i, "reuse", {
              proven: false,
              status: "failed",
              why: [{ code: "reused", from: reused }],
            }),
          ];
    });
  },
};

/**
 * Every row left: a contract wallet by its owners' signatures (and, with a node, that they control it), an
 * unsigned row, or the row's own signature in its forms (`judgeRow`).
 */
const ownership: Step = {
  name: "ownership",
  async run(ctx, s) {
    const out: Finding[] = [];
    const todo = unjudged(s);
    // the rows judged by their own signatures, on every core for a large file
    const signed = todo.filter(
      (i) => !(s.owners[i] as string[]).length && ctx.file.rows[i]?.signatures.length,
    );
    const rows = signed.map((i) => ctx.file.rows[i] as OwnershipRow);
    const judges = ctx.judges ?? rowJudges(ctx.file.layout, ctx.options.network, ctx.signal);
    let judged: RowJudged[];
    try {
      judged = await judges.judge(rows);
    } finally {
      if (!ctx.judges) judges.close();
    }
    const judgedOf = new Map(signed.map((i, k) => [i, judged[k] as RowJudged]));
    for (const i of todo) {
      const row = ctx.file.rows[i] as OwnershipRow;
      const owners = s.owners[i] as string[];
      if (owners.length) {
        const patch = await judgeWallet(row, owners, s.ownersOf.get(row.line), ctx);
        out.push(judge(ctx, s, i, "ownership", patch));
      } else if (row.signatures.length === 0) {
        out.push(
          judge(ctx, s, i, "ownership", {
            proven: false,
            status: "unsigned",
            why: [{ code: "no-signature" }],
          }),
        );
      } else {
        const j = judgedOf.get(i) as RowJudged;
        out.push(
          judge(ctx, s, i, "ownership", {
            form: j.form,
            why: [{ code: "signature", detail: j.detail }],
            status: j.status,
            proven: j.status === "proven" ? true : j.status === "failed" ? false : null,
          }),
        );
      }
    }
    return out;
  },
};

/**
 * The messages signed: the one `--challenge` requires, else one of those the layout's publisher signs (a
 * contract wallet's: its owners' rows' messages).
 */
const message: Step = {
  name: "message",
  run: (ctx, s) =>
    open(s).flatMap((i) => {
      const row = ctx.file.rows[i] as OwnershipRow;
      const ownerRows = (s.owners[i] as string[]).length ? s.ownersOf.get(row.line) : undefined;
      const signers = ownerRows
        ? ownerRows.map((o) => ({ address: o.address, message: o.message }))
        : [{ message: row.message }];
      const patch = judgeMessages(s.rows[i] as RowResult, signers, ctx.file.layout, ctx.options.message);
      return patch ? [judge(ctx, s, i, "message", patch)] : [];
    }),
};

/** What a row names as its network for `--node` (its network column, else its coin). */
const nodeNameOf = (row: OwnershipRow): string => (row.network || row.coin).toUpperCase();

/**
 * Every signed row's balance re-read at the snapshot block where a node is given: less than the claim fails
 * the row; at least the claim proves it; not read (no node, or the node could not say) leaves it *signed,
 * amount claimed*: a key signing shows control of a key, not a balance; a node given that did not answer
 * (which chain it is on, or the read) leaves it *cannot say*, the node named.
 */
const balances: Step = {
  name: "balances",
  async run(ctx, s) {
    const chain = ctx.options.chain;
    const out: Finding[] = [];
    const rows = open(s);
    // a window of rows asked at once (a bound on what waits): their reads go out together, in batch arrays
    for (let w = 0; w < rows.length; w += 5000) {
      const part = rows.slice(w, w + 5000);
      const read = await Promise.all(part.map((i) => chain?.balance(ctx.file.rows[i] as OwnershipRow)));
      for (const [k, i] of part.entries()) balanceFinding(ctx, s, i, read[k], out);
    }
    return out;
  },
};

/** One row's judgment after its balance was (or was not) read. */
function balanceFinding(
  ctx: OwnershipContext,
  s: OwnershipState,
  i: number,
  b: BalanceCheck | undefined,
  out: Finding[],
): void {
  const chain = ctx.options.chain;
  const res = s.rows[i] as RowResult;
  const row = ctx.file.rows[i] as OwnershipRow;
  if (b) res.balance = balanceRecord(b);
  out.push(...trackingFinding(res));
  if (b?.holds === false) {
    const why: RowWhy[] = [...res.why, { code: "balance-less", detail: b.detail }];
    out.push(judge(ctx, s, i, "balances", { proven: false, status: "failed", why }));
    return;
  }
  if (res.status !== "proven") return;
  res.signed = true;
  if (row.amount === undefined || isZero(row.amount)) return;
  if (b?.holds === true) {
    out.push(
      judge(ctx, s, i, "balances", { why: [...res.why, { code: "balance-holds", detail: b.detail }] }),
    );
    return;
  }
  // its node given did not answer: whether the balance holds cannot be said — never "signed, amount claimed"
  if (b?.unanswered) {
    const why: RowWhy[] = [...res.why, { code: "balance-unanswered", detail: b.detail }];
    out.push(judge(ctx, s, i, "balances", { proven: null, status: "cannot-say", why }));
    return;
  }
  const base = ctx.file.units === "base";
  const places = base ? decimalsOf(row.coin, row.network) : undefined;
  const claimed: RowWhy = {
    code: "amount-claimed",
    amount: row.amount,
    base,
    places: places === undefined || !/^\d+$/.test(row.amount) ? null : places,
    network: nodeNameOf(row),
    unread: b ? null : chain ? "no-node-for-it" : "no-node",
    detail: b ? b.detail : null,
  };
  out.push(judge(ctx, s, i, "balances", { proven: null, status: "signed", why: [...res.why, claimed] }));
}

/**
 * The verifier's row steps, in order (the file's own, `FILE_STEPS`, after every row). A row is judged by the first of `repeats`, `empty-message`, `reuse` and
 * `ownership` that says something of it (every row by the last); `message` and `balances` may then change an
 * open row's judgment (proven, not supported, not checked): a row's finding is the last step's that judged it.
 */
const ROW_JUDGES: readonly Step[] = [repeats, emptyMessage, reuse, ownership, message, balances];

/** A contract wallet's owner rows, by the wallet row's line: the whole file's, found before any row is judged. */
function ownersOfFile(file: OwnershipFile): Map<number, OwnershipRow[]> {
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
  return ownersOf;
}

/** The state before any step of a window of `rows`: each row as read, its contract wallet's owners found. */
function initialState(
  rows: readonly OwnershipRow[],
  network: NetworkName | undefined,
  ownersOf: Map<number, OwnershipRow[]>,
  firstLine: Map<string, number>,
): OwnershipState {
  const results = rows.map((row) => {
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
      why: [],
    };
    if (row.ownerOf !== undefined) res.wallet = row.ownerOf;
    return res;
  });
  // owners of a contract wallet: OKX's eoa1/eoa2 of an EVM address, HTX's owner rows under it
  const owners = rows.map((row) => {
    const u = utxoCoinOfRow(row, network);
    if (!isEvmAddress(row.address) || u.coin || u.mismatch) return [];
    return row.owners.length ? row.owners : (ownersOf.get(row.line) ?? []).map((o) => o.address);
  });
  return { rows: results, by: results.map(() => undefined), ownersOf, owners, firstLine };
}

/**
 * Rows judged a window at a time, so that what a file's size holds is its rows as read, not every row's
 * judgment beside them: each window goes through the row steps and leaves as its rows and their findings.
 * 3,000 rows (two shares of SHARE for a worker), not 10,000: a window's judgments are garbage sooner; the
 * 50,000-row file's peak RSS 282 MB against 326 MB (issue 60, 3 runs each, side by side).
 */
const WINDOW = 3_000;

/**
 * Where a file's judged rows go when they are not kept in the report (`reserves verify --json` writes them
 * out as they come): each window's rows and their standing findings, in the file's order, and the other
 * findings the row steps made of them (a token's tracking), which the report lists after every row's.
 */
export type RowSink = (window: JudgedWindow) => void | Promise<void>;

/** One window of a file's rows as judged: what a `RowSink` is given. */
export interface JudgedWindow {
  /** how the file writes its amounts (what a row's `amount` is in) */
  units: OwnershipFile["units"];
  rows: readonly RowResult[];
  /** each row's standing finding, in the rows' order */
  findings: readonly Finding[];
  /** the other findings the row steps made (a token's tracking) */
  others: readonly Finding[];
}

/** The steps' names whose findings are a row's judgment (one standing finding per row). */
const ROW_STEPS = new Set(ROW_JUDGES.map((x) => x.name));

/**
 * Verifies every row of `file` through `ROW_JUDGES`, then the file through `FILE_STEPS`; the report's verdict is its findings' (reserves/verdict.ts):
 * holds only when every row with a balance is proven. With a `sink`, each window of judged rows and their
 * findings go to it and are not kept: the report then holds the verdict, counts and sums of every row, but
 * its `rows` are empty and its `findings` only the file's own (the decimals', the summary's), which follow
 * every finding the sink was given.
 */
export async function verifyOwnership(
  file: OwnershipFile,
  options: VerifyOptions = {},
  signal?: AbortSignal,
  sink?: RowSink,
): Promise<OwnershipReport> {
  const ownersOf = ownersOfFile(file);
  const firstLine = new Map<string, number>();
  const tally = new RowTally();
  const kept: { rows: RowResult[]; findings: Finding[]; others: Finding[] } = {
    rows: [],
    findings: [],
    others: [],
  };
  // the places the chain gave a row's re-read amount (by the row's index): what the summary counts base units in
  const chainPlaces = new Map<number, number>();
  const judges = rowJudges(file.layout, options.network, signal);
  try {
    for (let w = 0; w < file.rows.length; w += WINDOW) {
      throwIfInterrupted(signal);
      const rows = file.rows.slice(w, w + WINDOW);
      const state = initialState(rows, options.network, ownersOf, firstLine);
      const ctx = { file: { ...file, rows }, options, signal, judges };
      const all = await runSteps(ctx, state, ROW_JUDGES);
      // one standing finding per row (the last step's that judged it), in the file's order; the others after
      const byRow = new Map<string, Finding>();
      const others: Finding[] = [];
      for (const f of all) {
        if (ROW_STEPS.has(f.step)) byRow.set(f.at as string, f);
        else others.push(f);
      }
      const findings = state.rows.map((r) => byRow.get(`line ${r.line}`) as Finding);
      for (const [k, r] of state.rows.entries())
        if (r.balance?.decimals !== undefined) chainPlaces.set(w + k, r.balance.decimals);
      tally.add(state.rows, [...findings, ...others]);
      if (sink) await sink({ units: file.units, rows: state.rows, findings, others });
      else {
        for (const [k, r] of state.rows.entries()) {
          kept.rows.push(r);
          kept.findings.push(findings[k] as Finding);
        }
        kept.others.push(...others);
      }
    }
  } finally {
    judges.close();
  }
  throwIfInterrupted(signal);
  // then the file's own
  const own = await runSteps({ file, signal, chainPlaces }, undefined, FILE_STEPS);
  tally.add([], own);
  return report(file, tally, kept.rows, [...kept.findings, ...kept.others, ...own]);
}

/** A contract wallet: every owner's signature, then (with a node) that the owners control the contract. */
async function judgeWallet(
  row: OwnershipRow,
  owners: string[],
  ownerRows: OwnershipRow[] | undefined,
  ctx: OwnershipContext,
): Promise<RowPatch> {
  const form = "contract wallet, by its owners' signatures";
  const digests = DIGESTS[publisherOf(ctx.file.layout)].evm;
  const whys: (OwnerWhy | null)[] = [];
  const results = owners.map((address, i): OwnerResult => {
    // OKX: owner i signed signature i on the wallet's row; HTX: each owner's own row
    const sig = ownerRows ? ownerRows[i]?.signatures[0] : row.signatures[i];
    const message = ownerRows ? (ownerRows[i]?.message ?? "") : row.message;
    const j =
      sig && message.trim() !== ""
        ? judgeAccount(address, sig, message, ownerRows ? DIGESTS.htx.evm : digests)
        : undefined;
    const why: OwnerWhy = !sig
      ? { code: "owner-unsigned" }
      : j === undefined
        ? { code: "signed-nothing" }
        : { code: "owner-signature", form: j.form, detail: j.detail };
    const proven = j?.status === "proven";
    whys.push(proven ? null : why);
    return { address, proven, reason: ownerWords(why) };
  });
  const judged = { form, owners: results };
  const bad = results.findIndex((o) => !o.proven);
  if (bad >= 0)
    return {
      ...judged,
      proven: false,
      status: "failed",
      why: [
        { code: "owner-fails", owner: (results[bad] as OwnerResult).address, why: whys[bad] as OwnerWhy },
      ],
    };
  if (!ctx.options.chain)
    return {
      ...judged,
      proven: null,
      status: "cannot-say",
      why: [{ code: "owners-unchecked", owners, contract: row.address }],
    };
  const c = await ctx.options.chain.owners(row, owners);
  return {
    ...judged,
    proven: c.controls,
    status: c.controls === true ? "proven" : c.controls === false ? "failed" : "cannot-say",
    why: [{ code: "owners-read", owners, detail: c.detail }],
  };
}
