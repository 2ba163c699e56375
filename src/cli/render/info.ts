/** Human lines of `chaingw info`: labels like bitcoin-cli -getinfo's, decimals beside hex QUANTITYs. */
import type { ChainGroup } from "../../chains/index.js";
import { JsonNumber, type JsonValue } from "../../json/lossless.js";
import { renderValue, scalarText, style } from "../../output/human.js";

const LABELS: Record<string, string> = {
  chain: "Chain",
  blocks: "Blocks",
  headers: "Headers",
  bestblockhash: "Best block hash",
  verificationprogress: "Verification progress",
  initialblockdownload: "Initial block download",
  pruned: "Pruned",
  connections: "Connections",
  connections_in: "  inbound",
  connections_out: "  outbound",
  version: "Version",
  subversion: "Client",
  relayfee: "Min relay fee (per kvB)",
  mempool: "Mempool",
  warnings: "Warnings",
  chainId: "Chain id",
  blockNumber: "Head block",
  syncing: "Syncing",
  gasPrice: "Gas price",
  client: "Client",
};

const hexDecimal = (v: JsonValue): string | undefined =>
  typeof v === "string" && /^0x[0-9a-fA-F]{1,64}$/.test(v) ? BigInt(v).toString(10) : undefined;

export function renderInfo(fields: Record<string, JsonValue>, chain: ChainGroup, color: boolean): string {
  const st = style(color);
  const width = Math.max(
    ...Object.keys(fields).map((k) => (Object.hasOwn(LABELS, k) ? LABELS[k] : k).length),
  );
  const lines: string[] = [];
  for (const [k, v] of Object.entries(fields)) {
    const label = st.key((Object.hasOwn(LABELS, k) ? LABELS[k] : k).padEnd(width));
    if (k === "verificationprogress" && v instanceof JsonNumber) {
      lines.push(`${label}  ${(Number(v.raw) * 100).toFixed(4)}%`);
    } else if (k === "mempool" && v !== null && typeof v === "object" && !(v instanceof JsonNumber)) {
      const o = v as Record<string, JsonValue>;
      const parts = [
        o.size !== undefined && `${scalarText(o.size)} transactions`,
        o.bytes !== undefined && `${scalarText(o.bytes)} bytes`,
        o.mempoolminfee !== undefined && `min fee ${scalarText(o.mempoolminfee)}`,
      ].filter(Boolean);
      lines.push(`${label}  ${parts.join(", ")}`);
    } else if (v === null || typeof v !== "object" || v instanceof JsonNumber) {
      const d = hexDecimal(v);
      const unit = k === "gasPrice" && chain.evm ? ` ${chain.evm.baseUnit}` : "";
      const text = k === "warnings" && v === "" ? st.dim("none") : scalarText(v);
      lines.push(`${label}  ${text}${d !== undefined ? st.dim(`  (${d}${unit})`) : ""}`);
    } else lines.push(`${label}  ${renderValue(v, color).replace(/\n/g, `\n${" ".repeat(width + 2)}`)}`);
  }
  return lines.join("\n");
}
