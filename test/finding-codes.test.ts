/**
 * Every finding's stable code is documented, once, in docs/finding-codes.md (issue 55 item 1: findings are
 * typed — a code, its subject, its numbers): the asset codes of solvency (`code` beside `why` in --json, the
 * `code` column of --format csv and solvency.csv), the holding codes (a proof's or row's `code`, rows.csv), and
 * the verifiers' step codes, STEP-STATUS (each finding's `code` in `reserves verify --json`, a row's `code`,
 * the `code` column of `reserves report --format csv`). Read from the source, so the table cannot drift: a code
 * the source gives and the table lacks, or one the table lists and no source gives, fails here.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const ROOT = join(__dirname, "..");
const SRC = join(ROOT, "src");
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : [],
  );
const WORDS = readFileSync(join(SRC, "judge", "words.ts"), "utf8");
const ROW_WORDS = readFileSync(join(SRC, "judge", "words-rows.ts"), "utf8");
const DOC = readFileSync(join(ROOT, "docs", "finding-codes.md"), "utf8");

/** The codes the doc's table under `heading` lists: each row's first cell, `code`. */
function documented(heading: string): string[] {
  const part = DOC.split(/^## /m).find((p) => p.startsWith(heading));
  expect(part, `docs/finding-codes.md has a section "## ${heading}"`).toBeDefined();
  return [...(part ?? "").matchAll(/^\| `([a-z-]+)` \|/gm)].map((m) => m[1] as string);
}

/** The string literals of a union type's `code` members, under `type NAME = …` of words.ts. */
function unionCodes(name: string, endAt: RegExp, text = WORDS): string[] {
  const start = text.indexOf(`export type ${name} =`);
  expect(start).toBeGreaterThanOrEqual(0);
  const rest = text.slice(start);
  const body = rest.slice(0, rest.search(endAt));
  return [...body.matchAll(/code: ((?:"[a-z-]+"(?: \| )?)+)/g)].flatMap((m) =>
    [...(m[1] as string).matchAll(/"([a-z-]+)"/g)].map((x) => x[1] as string),
  );
}

/** Every verifier step name the source gives a finding: a builder's step, a row judged by a step, a step list's. */
function steps(): Set<string> {
  const out = new Set<string>();
  // reserves/verifier.ts's builders, and exchange/liabilities/check.ts's methods (s.ok, s.fail, s.cannot)
  const BUILDERS = new Set(["fails", "cannotSay", "ok", "claim", "rowFinding"]);
  const METHODS = new Set(["ok", "fail", "cannot", "claim"]);
  for (const f of files(SRC)) {
    const sf = ts.createSourceFile(f, readFileSync(f, "utf8"), ts.ScriptTarget.Latest, true);
    const visit = (n: ts.Node): void => {
      if (ts.isCallExpression(n)) {
        const fn = ts.isIdentifier(n.expression) ? n.expression.text : undefined;
        const method = ts.isPropertyAccessExpression(n.expression) ? n.expression.name.text : undefined;
        const arg =
          fn === "judge"
            ? n.arguments[3]
            : (fn && BUILDERS.has(fn)) || (method && METHODS.has(method))
              ? n.arguments[0]
              : undefined;
        if (arg && ts.isStringLiteral(arg) && /^[a-z-]+$/.test(arg.text)) out.add(arg.text);
      }
      if (ts.isObjectLiteralExpression(n)) {
        const prop = (k: string) =>
          n.properties.find(
            (p): p is ts.PropertyAssignment => ts.isPropertyAssignment(p) && p.name.getText(sf) === k,
          );
        const step = prop("step")?.initializer;
        if (step && ts.isStringLiteral(step)) out.add(step.text);
        const name = prop("name")?.initializer;
        if (name && ts.isStringLiteral(name) && n.properties.some((p) => p.name?.getText(sf) === "run"))
          out.add(name.text);
      }
      ts.forEachChild(n, visit);
    };
    visit(sf);
  }
  return out;
}

describe("docs/finding-codes.md lists every finding code, and no other", () => {
  it("solvency's asset codes (words.ts AssetCode)", () => {
    const src = [...(/export type AssetCode =([^;]+);/.exec(WORDS)?.[1] ?? "").matchAll(/"([a-z-]+)"/g)].map(
      (m) => m[1],
    );
    expect(src.length).toBeGreaterThan(5);
    expect(documented("Asset codes").sort()).toEqual([...new Set(src)].sort());
  });

  it("the holding codes (words.ts HoldingFinding and AuditFault)", () => {
    const src = new Set([
      ...unionCodes("AuditFault", /\n\n/),
      ...unionCodes("HoldingFinding", /;\n\n/),
      ...unionCodes("NotForAudit", /;\n\n/),
    ]);
    expect(src.size).toBeGreaterThan(25);
    expect(documented("Holding codes").sort()).toEqual([...src].sort());
  });

  it("an address file's row reasons and its own findings (words-rows.ts RowWhy, OwnerWhy, FileFinding)", () => {
    const src = new Set([
      ...unionCodes("RowWhy", /;\n\n/, ROW_WORDS),
      ...unionCodes("OwnerWhy", /;\n\n/, ROW_WORDS),
      ...unionCodes("FileFinding", /;\n\n/, ROW_WORDS),
    ]);
    expect(src.size).toBeGreaterThan(20);
    expect(documented("Row reasons").sort()).toEqual([...src].sort());
  });

  it("the verifiers' steps (a finding's code is STEP-STATUS)", () => {
    const src = steps();
    expect(src.size).toBeGreaterThan(20);
    expect(documented("Verifier steps").sort()).toEqual([...src].sort());
  });
});
