/** `chaingw report verify DIR`: every file MANIFEST.sha256 lists, hashed again; exit 1 naming each changed or missing. */
import { createHash } from "node:crypto";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { Command } from "commander";
import { UsageError } from "../../../errors/index.js";
import type { Run } from "../../run.js";

export function declareReportVerify(report: Command, run: Run): void {
  report
    .command("verify")
    .description("recompute a report package's MANIFEST.sha256: every file it lists, byte for byte")
    .argument("<dir>", "the package's folder (solvency --report DIR)")
    .addHelpText(
      "after",
      "\nExit 0 every listed file matches; 1 a file changed or missing (each named); 2 no manifest, or a line of it that is not `SHA256  NAME`.\nThe manifest's own SHA-256 is printed: compare it with the one the auditor gave you, since whoever can edit the folder can edit the manifest too. `sha256sum -c MANIFEST.sha256` in DIR checks the same.",
    )
    .action(async (dir: string) => runReportVerify(run, dir));
}

export interface ManifestCheck {
  verdict: "holds" | "fails";
  dir: string;
  /** the manifest's own SHA-256 */
  manifest_sha256: string;
  files: { name: string; status: "ok" | "changed" | "missing" }[];
  /** files in the folder the manifest does not list (not covered by it) */
  unlisted: string[];
}

/** Each line `HEX  NAME` (sha256sum's text mode), NAME inside DIR; anything else exit 2 naming the line. */
export function readManifest(dir: string): { text: string; lines: { hash: string; name: string }[] } {
  const file = join(dir, "MANIFEST.sha256");
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (e) {
    throw new UsageError(
      `${file}: cannot read it (${(e as NodeJS.ErrnoException).code ?? e}): not a report package`,
    );
  }
  const lines = text
    .split("\n")
    .map((l, i) => ({ l, n: i + 1 }))
    .filter(({ l }) => l !== "")
    .map(({ l, n }) => {
      const m = /^([0-9a-f]{64}) [ *](.+)$/.exec(l);
      const name = m?.[2] ?? "";
      if (!m || name.startsWith("/") || name.split("/").includes(".."))
        throw new UsageError(`${file}: line ${n} is not "SHA256  NAME" with NAME inside the folder`);
      return { hash: m[1] as string, name };
    });
  if (!lines.length) throw new UsageError(`${file}: lists no file`);
  return { text, lines };
}

/** Every file below `dir`, as paths relative to it. */
function filesUnder(dir: string, at = ""): string[] {
  return readdirSync(join(dir, at)).flatMap((n) => {
    const rel = at ? `${at}/${n}` : n;
    return statSync(join(dir, rel)).isDirectory() ? filesUnder(dir, rel) : [rel];
  });
}

export function checkManifest(dir: string): ManifestCheck {
  const { text, lines } = readManifest(dir);
  const files = lines.map(({ hash, name }) => {
    let bytes: Buffer;
    try {
      bytes = readFileSync(join(dir, name));
    } catch {
      return { name, status: "missing" as const };
    }
    return {
      name,
      status:
        createHash("sha256").update(bytes).digest("hex") === hash ? ("ok" as const) : ("changed" as const),
    };
  });
  const listed = new Set([...lines.map((l) => l.name), "MANIFEST.sha256"]);
  return {
    verdict: files.every((f) => f.status === "ok") ? "holds" : "fails",
    dir,
    manifest_sha256: createHash("sha256").update(text).digest("hex"),
    files,
    unlisted: filesUnder(dir).filter((f) => !listed.has(f)),
  };
}

export async function runReportVerify(run: Run, dir: string): Promise<void> {
  const c = checkManifest(dir);
  const bad = c.files.filter((f) => f.status !== "ok");
  run.print(c, () =>
    [
      c.verdict === "holds"
        ? `holds: the ${c.files.length} files MANIFEST.sha256 lists are unchanged`
        : `DOES NOT HOLD: ${bad.length} of the ${c.files.length} files MANIFEST.sha256 lists changed or missing`,
      ...bad.map((f) => `  ${f.status}: ${f.name}`),
      ...c.unlisted.map((f) => `  not in the manifest (not covered by it): ${f}`),
      `MANIFEST.sha256's own SHA-256: ${c.manifest_sha256} (compare it with the one the auditor gave you)`,
    ].join("\n"),
  );
  run.exitCode = c.verdict === "holds" ? 0 : 1;
}
