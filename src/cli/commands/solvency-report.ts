/**
 * `solvency … --report DIR`: the package of one audit, for either judge. DIR (new or empty) gets the
 * documents read (inputs/), solvency.json (the scope, the inputs and the report `--json` prints),
 * solvency.csv (one row per asset), rows.csv (every holding judged, with why), index.html (one template,
 * render/audit-package.ts) and MANIFEST.sha256, every other file's SHA-256 in `sha256sum -c` form.
 */
import { createHash } from "node:crypto";
import { mkdirSync, readdirSync, readFileSync, statSync } from "node:fs";
import { basename, join } from "node:path";
import { UsageError } from "../../errors/index.js";
import type { HoldingLine, SolvencyReport } from "../../judge/report.js";
import type { InputFile } from "../render/audit-package.js";

export interface ReportFlags {
  report?: string;
  auditor?: string;
  entity?: string;
  period?: string;
}

export const PACKAGE_FORMAT = "chaingw-audit-package/1";
export const MANIFEST = "MANIFEST.sha256";

/** Before anything is read or sent: --report names a new or empty folder, and the scope flags need it. */
export function checkReport(f: ReportFlags): void {
  if (f.report === undefined) {
    const stray = (["auditor", "entity", "period"] as const).find((k) => f[k] !== undefined);
    if (stray) throw new UsageError(`--${stray} is the report package's scope: give --report DIR too`);
    return;
  }
  for (const k of ["auditor", "entity", "period"] as const)
    if (f[k] !== undefined && f[k].trim() === "") throw new UsageError(`--${k}: empty`);
  let held: string[] = [];
  try {
    if (!statSync(f.report).isDirectory()) throw new UsageError(`--report ${f.report}: not a folder`);
    held = readdirSync(f.report);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    if ((e as NodeJS.ErrnoException).code !== "ENOENT")
      throw new UsageError(
        `--report ${f.report}: cannot read it (${(e as NodeJS.ErrnoException).code ?? e})`,
      );
  }
  if (held.length)
    throw new UsageError(
      `--report ${f.report}: holds files already; name a new or empty folder (nothing was sent)`,
    );
}

const sha256 = (b: Uint8Array | string) => createHash("sha256").update(b).digest("hex");

/**
 * The documents the audit read, each with its role, its SHA-256 and its own digest where it states one;
 * `put` (the package) keeps a copy of each under inputs/, named so; without it each is named as given.
 */
function inputFiles(
  inputs: { path: string; role: string }[],
  put: ((name: string, bytes: Uint8Array) => void) | undefined,
  flag: string,
): InputFile[] {
  const names = new Set<string>();
  return inputs.map((i, k) => {
    if (i.path === "-") {
      if (put) throw new UsageError(`${flag}: an input read from stdin cannot be kept in the package`);
      return { given: "-", name: "(stdin)", sha256: "not known: read from stdin", role: i.role };
    }
    const bytes = readFileSync(i.path);
    let name = i.path;
    if (put) {
      name = `inputs/${basename(i.path)}`;
      if (names.has(name)) name = `inputs/${k + 1}-${basename(i.path)}`;
      names.add(name);
      put(name, bytes);
    }
    let digest: string | undefined;
    try {
      const d = (JSON.parse(bytes.toString("utf8")) as { digest?: unknown }).digest;
      if (typeof d === "string" && /^[0-9a-f]{64}$/.test(d)) digest = d;
    } catch {
      // not JSON (an exchange's CSV): no digest of its own
    }
    return { given: i.path, name, sha256: sha256(bytes), role: i.role, ...(digest ? { digest } : {}) };
  });
}

/** The audit's scope: what the auditor gave, the id of the documents read (the same documents, the same id), when. */
const scopeOf = (f: ReportFlags, files: InputFile[]) => ({
  ...(f.auditor === undefined ? {} : { auditor: f.auditor }),
  ...(f.entity === undefined ? {} : { entity: f.entity }),
  ...(f.period === undefined ? {} : { period: f.period }),
  audit_id: sha256(files.map((x) => x.sha256).join("\n")).slice(0, 16),
  made_at: new Date().toISOString(),
});

/** The page alone (`solvency --html FILE`): the package's template, its documents named where they were read. */
export async function pageOf(
  report: SolvencyReport,
  inputs: { path: string; role: string }[],
  lines?: HoldingLine[],
): Promise<string> {
  const [{ packagePage }, { assetRows, holdings }, { escapeDeep }] = await Promise.all([
    import("../render/audit-package.js"),
    import("../render/solvency-rows.js"),
    import("../../util/escape.js"),
  ]);
  const files = inputFiles(inputs, undefined, "--html");
  const shown = escapeDeep(report);
  return packagePage(
    shown,
    assetRows(shown),
    escapeDeep(scopeOf({}, files)),
    escapeDeep(files),
    escapeDeep(holdings(report, lines)),
    { standalone: true },
  );
}

/** Writes the package; `inputs`: every document the audit read, with its role. Returns the manifest's SHA-256. */
export async function writeReport(
  f: ReportFlags & { report: string },
  report: SolvencyReport,
  inputs: { path: string; role: string }[],
  lines?: HoldingLine[],
): Promise<{ files: number; manifest: string }> {
  const [
    { writeAtomic },
    { packagePage },
    { assetRows, solvencyCsv, holdingsCsvPieces, holdings },
    { escapeDeep },
    { AtomicFile },
    { lazyJsonPieces },
  ] = await Promise.all([
    import("../files.js"),
    import("../render/audit-package.js"),
    import("../render/solvency-rows.js"),
    import("../../util/escape.js"),
    import("../../util/atomic.js"),
    import("../../util/json-pieces.js"),
  ]);
  try {
    mkdirSync(join(f.report, "inputs"), { recursive: true });
  } catch (e) {
    throw new UsageError(`--report ${f.report}: cannot make it (${(e as NodeJS.ErrnoException).code ?? e})`);
  }
  const written = new Map<string, string>();
  const put = (name: string, text: string | Uint8Array) => {
    writeAtomic(join(f.report, name), text, "--report");
    written.set(name, sha256(text));
  };
  // a file written in pieces (an address file's rows are made as they are written): its bytes never all at once
  const putPieces = (name: string, pieces: Iterable<string>) => {
    const file = new AtomicFile(join(f.report, name), "--report");
    const hash = createHash("sha256");
    let held: string[] = [];
    let size = 0;
    const flush = () => {
      const b = Buffer.from(held.join(""));
      hash.update(b);
      file.write(b);
      held = [];
      size = 0;
    };
    try {
      for (const p of pieces) {
        held.push(p);
        size += p.length;
        if (size >= 1 << 20) flush();
      }
      flush();
    } catch (e) {
      file.discard();
      throw e;
    }
    file.commit();
    written.set(name, hash.digest("hex"));
  };
  const files = inputFiles(inputs, put, "--report");
  const scope = scopeOf(f, files);
  const whole = { format: PACKAGE_FORMAT, scope, inputs: files, report };
  putPieces(
    "solvency.json",
    (function* () {
      yield* lazyJsonPieces(whole, 2) ?? [JSON.stringify(whole, null, 2)];
      yield "\n";
    })(),
  );
  const shown = escapeDeep(report);
  put("solvency.csv", `${solvencyCsv(shown)}\n`);
  // every holding judged: an exchange's rows; chaingw's own proofs' outputs and balances, one per address
  const hs = escapeDeep(holdings(report, lines));
  putPieces("rows.csv", holdingsCsvPieces(hs));
  put("index.html", packagePage(shown, assetRows(shown), escapeDeep(scope), escapeDeep(files), hs));
  const manifest = `${[...written]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, h]) => `${h}  ${name}`)
    .join("\n")}\n`;
  writeAtomic(join(f.report, MANIFEST), manifest, "--report");
  // the files MANIFEST.sha256 lists (itself not among them), as report verify counts them
  return { files: written.size, manifest: sha256(manifest) };
}

/** `--report DIR`: the package written; the lines that say what was written beside the verdict (--html's too). */
export async function writtenBeside(
  o: ReportFlags & { html?: string },
  report: SolvencyReport,
  inputs: { path: string; role: string }[],
  lines?: HoldingLine[],
): Promise<string[]> {
  const out = o.html === undefined ? [] : [`report page written to ${o.html}`];
  if (o.report === undefined) return out;
  const w = await writeReport({ ...o, report: o.report }, report, inputs, lines);
  out.push(
    `report package written to ${o.report}: ${w.files} files and MANIFEST.sha256, which lists them; its SHA-256 ${w.manifest} (give it to the client with the folder)`,
  );
  return out;
}
