/**
 * The scan plan: every address and descriptor the user named, checked locally, de-duplicated, and turned
 * into scantxoutset scan objects. Nothing is sent until the whole input is clean.
 */

import { checkAddress, mixedFamilies, type ParsedAddress } from "../../chains/address.js";
import { UsageError } from "../../errors/index.js";
import { findMethod } from "../../methods/index.js";
import { prepare } from "../../methods/prepare.js";
import { MAX_SCAN_KEYS } from "../../proof/document.js";
import { parseRange } from "../../util/text.js";
import { readAddressList } from "../address-list.js";
import { DEFAULT_RANGE } from "../defaults.js";

export type ScanObject = string | { desc: string; range: [number, number] };

export interface PlannedAddress extends Pick<ParsedAddress, "address" | "prefix"> {
  /** where it came from: "argument 2", "line 7 of list.txt" (made on demand: 10,000 strings cost) */
  readonly origin: string;
}

/** Where an entry came from: argument `at`, or line `at` of `source`. */
class Planned implements PlannedAddress {
  constructor(
    readonly address: string,
    readonly prefix: string,
    private readonly at: number,
    private readonly source: string | undefined,
  ) {}
  get origin(): string {
    return originOf(this.at, this.source);
  }
}
const originOf = (at: number, source: string | undefined) =>
  source === undefined ? `argument ${at}` : `line ${at} of ${source}`;

export interface Plan {
  /** unique addresses in input order */
  addresses: PlannedAddress[];
  /** unique descriptors as sent */
  descriptors: { desc: string; range?: [number, number] }[];
  /** entries dropped because they repeated an earlier one */
  duplicates: number;
  /** what goes into `scantxoutset start` */
  objects: ScanObject[];
  /** one address per prefix: the node is asked about these before the scan (network check) */
  representatives: PlannedAddress[];
}

export interface PlanInput {
  args: string[];
  /** path, or "-" for stdin */
  file?: string;
  descriptors: string[];
  /** "N" (indexes 0..N) or "A-B" / "A:B" */
  range?: string;
}

/** The node's own limit: a range may span at most 1,000,000 indexes, ends below 2^31 (a proof's too). */
const MAX_RANGE_SPAN = MAX_SCAN_KEYS;

const MAX_PROBLEMS_SHOWN = 50;

/** `--range` of ranged descriptors: A..B (also A-B), or N for 0..N; the node's own span limit. */
export const parseIndexRange = (text: string): [number, number] =>
  parseRange(text, "--range", { maxSpan: MAX_RANGE_SPAN, single: true, ordered: true });

export function buildPlan(input: PlanInput): Plan {
  const problems: string[] = [];
  const addresses: PlannedAddress[] = [];
  const seen = new Set<string>();
  let duplicates = 0;
  const take = (text: string, at: number, source: string | undefined) => {
    const r = checkAddress(text);
    if (!r.ok) {
      problems.push(`${originOf(at, source)}: ${JSON.stringify(text.slice(0, 100))}: ${r.why}`);
      return;
    }
    const address = r.value.address;
    if (seen.has(address)) {
      duplicates++;
      return;
    }
    seen.add(address);
    addresses.push(new Planned(address, r.value.prefix, at, source));
  };
  readAddressList(input.args, input.file, take);

  const range = input.range === undefined ? undefined : parseIndexRange(input.range);
  const scanDef = findMethod("scantxoutset", "utxo");
  const descriptors: Plan["descriptors"] = [];
  const seenDesc = new Set<string>();
  let ranged = 0;
  input.descriptors.forEach((raw, i) => {
    const desc = raw.trim();
    const isRanged = desc.includes("*");
    if (isRanged) ranged++;
    const d = isRanged ? { desc, range: range ?? ([...DEFAULT_RANGE] as [number, number]) } : { desc };
    try {
      // the registry's own check of a scan object (shape, size); the node judges the rest (-5)
      scanDef.params[1].check([d.range ? d : desc]);
    } catch {
      problems.push(
        `--descriptor ${i + 1}: ${JSON.stringify(desc.slice(0, 100))}: not a descriptor like wpkh(...), addr(...) or tr(...)`,
      );
      return;
    }
    const key = JSON.stringify(d);
    if (seenDesc.has(key)) {
      duplicates++;
      return;
    }
    seenDesc.add(key);
    descriptors.push(d);
  });
  if (range && ranged === 0)
    problems.push("--range given, but no --descriptor is ranged (ends in /*); the range would be ignored");
  // every range's keys together, as a proof's reader bounds them (its verifier asks the node for each)
  const keys = descriptors.reduce((n, d) => n + (d.range ? d.range[1] - d.range[0] + 1 : 0), 0);
  if (keys > MAX_SCAN_KEYS)
    problems.push(
      `the ranged descriptors span ${keys.toLocaleString("en")} keys in all; at most ${MAX_SCAN_KEYS.toLocaleString("en")} (a narrower --range, or fewer descriptors a run), so that its proof can be verified`,
    );

  // the first address of each prefix: named when networks mix, asked about by the node otherwise
  const reps = new Map<string, PlannedAddress>();
  for (const a of addresses) if (!reps.has(a.prefix)) reps.set(a.prefix, a);
  const mixed = mixedFamilies(reps.keys());
  if (mixed) {
    problems.push(
      `the list mixes networks: ${mixed} (first of each: ${[...reps.values()].map((a) => `${a.address} at ${a.origin}`).join("; ")})`,
    );
  }

  if (problems.length) {
    const shown = problems.slice(0, MAX_PROBLEMS_SHOWN);
    if (problems.length > shown.length) shown.push(`... and ${problems.length - shown.length} more`);
    throw new UsageError(
      `reserves: ${problems.length} problem${problems.length === 1 ? "" : "s"} in the input; nothing was sent`,
      { details: shown },
    );
  }
  if (addresses.length === 0 && descriptors.length === 0)
    throw new UsageError(
      "reserves scan: nothing to scan; give addresses as arguments, --file <path|->, or --descriptor",
    );

  const objects: ScanObject[] = [
    ...addresses.map((a) => `addr(${a.address})`),
    ...descriptors.map((d) => (d.range ? { desc: d.desc, range: d.range } : d.desc)),
  ];
  // the registry's checks of the whole scanobjects param (count limit included)
  prepare(scanDef, { params: ["start", objects] });

  return { addresses, descriptors, duplicates, objects, representatives: [...reps.values()] };
}
