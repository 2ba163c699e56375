/** `reserves balances`' proof as people read it (a table per asset, the totals) and as CSV rows. */
import { groupOf } from "../../chains/index.js";
import { mirrorWords } from "../../judge/words.js";
import { style, table } from "../../output/human.js";
import type { EvmProof } from "../../proof/evm-document.js";
import { nativeMirrorsOf } from "../../reserves/evm/mirrors.js";
import { csvField } from "../../util/csv.js";
import { amountOf } from "../../util/units.js";

/** The chain's display of an address beside the hex (TRON's T-form), else the hex. */
function shown(proof: EvmProof, hex: string): string {
  const t = groupOf(proof.chain.group).evm?.displayAddress?.(hex);
  return t ? `${t} (${hex})` : hex;
}

const assetLabel = (a: EvmProof["assets"][number]) =>
  a.id === "native" ? (a.symbol as string) : `${a.symbol ?? "(no symbol)"} ${a.id}`;

/** The block line first, one table per asset (address, amount), then the totals. */
export function balancesHuman(proof: EvmProof, color: boolean, standIn?: string): string {
  const st = style(color);
  const out: string[] = [];
  // standIn: a devnet declared to stand in for its chain id's network (--stand-in), as every verdict names it
  const network = standIn ?? proof.chain.network ?? `chain id ${proof.chain.chain_id}`;
  out.push(
    `block ${proof.block.number.toLocaleString("en")} (${proof.block.hash}) on ${network} [${proof.chain.group}], ${proof.snapshot === "pinned" ? "every read pinned to this block" : "read at the head (latest-only chain), the same block before and after"}`,
  );
  for (const a of proof.assets) {
    out.push(
      "",
      st.key(
        `${assetLabel(a)}${a.decimals === null ? " — decimals() gave no answer: base units" : `, ${a.decimals} decimals`}`,
      ),
    );
    out.push(
      table(
        ["address", "amount", "base units"],
        a.balances.map((b) => [shown(proof, b.address), amountOf(b.amount, a.decimals ?? 0), b.base_units]),
        color,
      ),
    );
  }
  if (proof.ownership) {
    const sigs = proof.ownership.signatures;
    out.push("", st.key(`ownership: signatures over "${proof.challenge}"`));
    out.push(
      table(
        ["address", "signature", "form"],
        sigs.map((x) => [
          shown(proof, x.address),
          x.valid ? st.good("valid") : st.bad("NOT VALID"),
          x.format,
        ]),
        color,
      ),
    );
  }
  if (proof.quorum)
    out.push(
      "",
      `quorum: ${proof.quorum.k} nodes answered every read alike: ${proof.quorum.nodes.map((n, i) => `node ${i + 1} (${n.client}, chain id ${n.chain})`).join("; ")}`,
    );
  out.push("", st.key("totals"));
  out.push(
    table(
      ["asset", "total", "base units", "holders", ...(proof.ownership ? ["proven owned"] : [])],
      proof.assets.map((a, k) => [
        assetLabel(a),
        amountOf(a.total.amount, a.decimals ?? 0),
        a.total.base_units,
        `${a.holders} of ${proof.addresses.length}`,
        ...(proof.ownership ? [amountOf(proof.ownership.proven[k]?.amount ?? "0", a.decimals ?? 0)] : []),
      ]),
      color,
    ),
  );
  // a token that is the native coin again: its total is not more reserves (solvency counts it once)
  for (const m of nativeMirrorsOf([{ doc: proof, network: `evm:${proof.chain.chain_id}` }]).values())
    out.push(st.bad(`native mirror: ${mirrorWords(m)}; one coin, count it once`));
  return out.join("\n");
}

/** JSON Lines (`--format jsonl`): one object a line per balance read, the CSV's rows as JSON. */
export function balancesJsonLines(proof: EvmProof): string {
  return proof.assets
    .flatMap((a) =>
      a.balances.map(
        (b) =>
          `${JSON.stringify({ block: proof.block.number, block_hash: proof.block.hash, asset: a.id, symbol: a.symbol ?? null, decimals: a.decimals, address: b.address, amount: amountOf(b.amount, a.decimals ?? 0), base_units: b.base_units })}\n`,
      ),
    )
    .join("");
}

/** One row per address and asset, then nothing else: amounts the one way (coin units at the asset's decimals). */
export function balancesCsv(proof: EvmProof): string {
  const rows = ["block,block_hash,asset,symbol,decimals,address,amount,base_units"];
  for (const a of proof.assets)
    for (const b of a.balances)
      rows.push(
        [
          String(proof.block.number),
          proof.block.hash,
          a.id,
          a.symbol ?? "",
          a.decimals === null ? "" : String(a.decimals),
          b.address,
          amountOf(b.amount, a.decimals ?? 0),
          b.base_units,
        ]
          .map(csvField)
          .join(","),
      );
  return `${rows.join("\n")}\n`;
}
