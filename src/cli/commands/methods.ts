/** `chaingw methods`: the registry as a table (human), markdown (--markdown) or JSON (--json, jsonl). */
import type { Command } from "commander";
import { methodRows, methodTableMarkdown } from "../../methods/index.js";
import { csvField } from "../../util/csv.js";
import type { Run } from "../context.js";
import { helpWidth } from "../help.js";
import { takesCsv } from "../options.js";

export function declareMethods(program: Command, run: Run): void {
  takesCsv(program.command("methods"))
    .description("list the methods chaingw knows: params, marks and where each mark comes from")
    .option("--markdown", "as the README's markdown table")
    .action((o: { markdown?: boolean }) => printMethods(run, o.markdown === true));
}

export function printMethods(run: Run, markdown: boolean): void {
  if (markdown) {
    run.out(methodTableMarkdown());
    return;
  }
  const rows = methodRows();
  if (run.format === "json") {
    run.out(run.json(rows));
    return;
  }
  if (run.format === "jsonl") {
    run.out(rows.map((r) => JSON.stringify(r)).join("\n"));
    return;
  }
  if (run.format === "csv") {
    run.out(
      [
        "group,method,in_spec,params,idempotent,idempotent_from,heavy,heavy_from,summary",
        ...rows.map((r) =>
          [
            r.group,
            r.method,
            String(r.inSpec),
            r.params,
            String(r.idempotent.value),
            r.idempotent.from,
            String(r.heavy.value),
            r.heavy.from,
            r.summary,
          ]
            .map(csvField)
            .join(","),
        ),
      ].join("\n"),
    );
    return;
  }
  // a terminal gets what fits: plain aligned columns, params and the summary only when there is room
  const width = helpWidth(run.stdout, run.env);
  const cell = (x: { value: boolean; from: string }) => `${x.value ? "yes" : "no"}·${x.from}`;
  const cols: [string, (r: (typeof rows)[number]) => string][] = [
    ["method", (r) => r.method],
    ["group", (r) => r.group],
    ["spec", (r) => (r.inSpec ? "yes" : "no")],
    ["idempotent", (r) => cell(r.idempotent)],
    ["heavy", (r) => cell(r.heavy)],
    ["params", (r) => r.params || "—"],
    ["what it does", (r) => r.summary],
  ];
  const widths = cols.map(([h, f]) => Math.max(h.length, ...rows.map((r) => f(r).length)));
  let used = 0;
  const shown = cols.filter((_, i) => {
    const fits = i < 5 || used + widths[i] + 2 <= width;
    if (fits) used += widths[i] + 2;
    return fits;
  });
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i])))
      .join("  ")
      .trimEnd();
  run.out([line(shown.map(([h]) => h)), ...rows.map((r) => line(shown.map(([, f]) => f(r))))].join("\n"));
  run.err(
    "yes·spec: as the gateway spec gives it; ·chaingw: chaingw's own reading. `chaingw <method> --help` for params; --markdown or --json for the whole table.",
  );
}
