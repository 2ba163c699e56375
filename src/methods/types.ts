import type { ChainGroup, GroupName, RenderCtx } from "../chains/index.js";
import type { RpcError } from "../errors/index.js";
import type { JsonValue } from "../json/lossless.js";
import type { Cells } from "../output/human.js";

export type Group = GroupName;
export type { RenderCtx };

/** The spec's marks for a method in one group. */
export interface Marks {
  /** may be retried on another upstream after a failure that may have reached the first */
  idempotent: boolean;
  /** may be rate limited by the balancer; chaingw limits its own call rate */
  heavy: boolean;
}

/** How one positional parameter is read from the command line and checked. */
export interface ParamKind {
  /** what a user must give, for messages and help ("a 64-hex block hash") */
  expected: string;
  /** CLI text → JSON value (before `check`) */
  fromText(text: string): unknown;
  /** JSON value → value to send; throws ParamProblem */
  check(value: unknown): unknown;
}

export interface ParamDef extends ParamKind {
  name: string;
  /** the spec's type column */
  type: string;
  required: boolean;
  help: string;
  /** sent when the user gives nothing (the spec's "always sent explicitly" cases) */
  default?: unknown;
  /**
   * the nodes refuse a request without it (geth and anvil: eth_getBlockByNumber's fullTransactions), though
   * the CLI fills in its default: `serve` refuses a client's request without it too (-32602), as the node would
   */
  nodeRequires?: boolean;
  /** other names the node takes for it with -named (Core's `verbosity|verbose`) */
  aliases?: string[];
}

/** A named option that builds (part of) a positional param, e.g. `--to` for eth_call's callObject. */
export interface OptionDef {
  flags: string;
  help: string;
  repeatable?: boolean;
}

export interface MethodDef {
  name: string;
  group: Group;
  marks: Marks;
  /**
   * false: the method is not in the gateway spec for this group, and its marks are chaingw's own reading
   * (reads are idempotent); absent: as the spec lists it.
   */
  spec?: false;
  summary: string;
  params: ParamDef[];
  /** the spec's result description */
  result: string;
  /**
   * Calls that legitimately run for minutes (scantxoutset start): they get --scan-timeout instead of the
   * request timeout and the overall deadline.
   */
  longRunning?(params: unknown[]): boolean;
  /**
   * The calls that change the node's state or start work on it: those whose first param is one of `when`
   * (scantxoutset start and abort — a scan starts or stops; the spec's §3 "scan control"). chaingw's reading:
   * the spec marks none and calls the rest read-only. Such a call is never sent twice: a kept-alive
   * connection reset under it is a failure named with its endpoint, not a resend (a resent start would meet
   * "Scan already in progress"). Absent: every call of the method only reads.
   */
  writes?: { when: readonly string[] };
  /**
   * The node computes the answer for minutes (gettxoutsetinfo walks the whole UTXO set): the heavy timeout
   * (900 s, as bitcoin-cli waits; --request-timeout sets both). Not every heavy method is slow: eth_getLogs is
   * heavy (rate-limited) but providers answer a range they will not serve at once, and the `logs` command
   * splits ranges, so it waits the request timeout like any read (docs/reliability.md).
   */
  slow?: true;
  /** cross-parameter rules (e.g. scanobjects required when action is start); throws UsageError */
  refine?(params: unknown[]): void;
  /** named options and how they fold into the positional params */
  options?: OptionDef[];
  fromOptions?(opts: Record<string, unknown>, params: unknown[]): unknown[];
  /** human rendering; the default renderer is used when absent */
  render?(result: JsonValue, ctx: RenderCtx): string;
  /**
   * The table the human form prints, as cells: what `--format csv` writes (undefined: the answer is not one).
   * Absent: the method prints no table, and `--format csv` is refused naming it, before anything is sent.
   */
  table?(result: JsonValue, ctx: RenderCtx): Cells | undefined;
  /**
   * The result in the unit a flag of the call asks for (`--ether`), as exact decimal text keyed by the unit's
   * name (`{ ether: "1.5" }`); undefined without the flag. `--json` then prints an object: `result`, the
   * node's bytes as they came, beside it (README, "--json").
   */
  inUnits?(result: JsonValue, ctx: RenderCtx): Record<string, string> | undefined;
  /**
   * `--range a..b` support: the first param is a height/number. `via` names the registry method of the same
   * group that turns the height into what the first param needs (getblockhash; its marks come from its own
   * definition); else `toParam` converts it.
   */
  range?: { via: string } | { toParam(height: number): unknown };
  /** checks a chain guarantees about a result (EVM-compat hash prefix); throws IntegrityError */
  verify?(result: JsonValue, params: unknown[]): void;
  /** a clearer error for a node error this method knows (a revert's decoded reason); undefined keeps `e` */
  explainError?(e: RpcError, chain: ChainGroup): RpcError | undefined;
}
