/**
 * Before any test file: the tests run the built bundle (dist/), so a dist/ older than the source it is built
 * from (src/, scripts/build.mjs, package.json) would test yesterday's code. When it is older, or missing, the
 * build runs first (`node scripts/build.mjs`, a few seconds); when the build fails, no test runs.
 */
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const ROOT = join(__dirname, "..");
/** what the build writes: the bins' bundles (the other files in dist/ come with them) */
const OUTPUTS = ["chaingw.cjs", "cli.cjs", "proof.cjs"].map((f) => join(ROOT, "dist", f));

/** The newest modification time of the files under `dir` (or of `dir` itself, a file). */
function newest(path: string): number {
  const s = statSync(path);
  if (!s.isDirectory()) return s.mtimeMs;
  let t = 0;
  for (const d of readdirSync(path)) t = Math.max(t, newest(join(path, d)));
  return t;
}

export function staleBuild(): string | undefined {
  const missing = OUTPUTS.find((f) => !existsSync(f));
  if (missing) return `${missing} is missing`;
  const built = Math.min(...OUTPUTS.map((f) => statSync(f).mtimeMs));
  const source = Math.max(...["src", "scripts/build.mjs", "package.json"].map((p) => newest(join(ROOT, p))));
  return source > built
    ? `dist/ is older than the source (by ${Math.round((source - built) / 1000)} s)`
    : undefined;
}

export default function setup(): void {
  const why = staleBuild();
  if (!why) return;
  process.stderr.write(`test setup: ${why}: building first (node scripts/build.mjs)\n`);
  execFileSync(process.execPath, ["scripts/build.mjs"], { cwd: ROOT, stdio: "inherit" });
  const still = staleBuild();
  if (still) throw new Error(`test setup: after the build, ${still}; not running the tests against it`);
}
