/**
 * One rule of the structure beside test/architecture.test.ts's (issue 55, item 1): findings are typed data —
 * a code, its subject, its numbers — turned into words in one place, src/judge/words.ts (and words-rows.ts
 * beside it, an exchange file's row reasons and its own findings: words.ts is at the 600-line bound). Checked
 * on the source: no finding is built outside them with words made where it is built, no finding type carries
 * a member of words that they do not make, but the few named below, each with why; and an exchange file's
 * verifier (exchange/ownership/verify.ts, file-steps.ts) makes no sentence of its own.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";

const SRC = join(__dirname, "..", "src");
const WORDS = "judge/words.ts";
const WORDS_FILES = [WORDS, "judge/words-rows.ts"];
const files = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? files(join(dir, d.name)) : d.name.endsWith(".ts") ? [join(dir, d.name)] : [],
  );
const sources = files(SRC).map((f) => ({ path: relative(SRC, f), text: readFileSync(f, "utf8") }));
const parse = (path: string, text: string) => ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
const wordsFiles = WORDS_FILES.map((w) => parse(w, sources.find((s) => s.path === w)?.text ?? ""));

/** The finding types of words.ts and words-rows.ts: each a union of object types told apart by `code`. */
const FINDING_TYPES = [
  "HoldingFinding",
  "AuditFault",
  "AssetFinding",
  "TotalsFinding",
  "RowWhy",
  "OwnerWhy",
  "FileFinding",
  "SummaryTotal",
];

/** Every object type literal (with its path of names) under a finding type's declaration. */
function findingMembers(): { type: string; code: string; name: string; typeText: string }[] {
  return wordsFiles.flatMap(membersOf);
}

function membersOf(
  wordsFile: ts.SourceFile,
): { type: string; code: string; name: string; typeText: string }[] {
  const out: { type: string; code: string; name: string; typeText: string }[] = [];
  const walkType = (type: string, node: ts.Node): void => {
    if (ts.isTypeLiteralNode(node)) {
      const codeProp = node.members.find(
        (m): m is ts.PropertySignature => ts.isPropertySignature(m) && m.name.getText(wordsFile) === "code",
      );
      const code = codeProp?.type?.getText(wordsFile) ?? "(none)";
      for (const m of node.members)
        if (ts.isPropertySignature(m) && m.type && m.name.getText(wordsFile) !== "code")
          out.push({ type, code, name: m.name.getText(wordsFile), typeText: m.type.getText(wordsFile) });
    }
    ts.forEachChild(node, (c) => walkType(type, c));
  };
  for (const st of wordsFile.statements)
    if (
      (ts.isTypeAliasDeclaration(st) || ts.isInterfaceDeclaration(st)) &&
      FINDING_TYPES.includes(st.name.text)
    ) {
      if (ts.isInterfaceDeclaration(st))
        for (const m of st.members)
          if (ts.isPropertySignature(m) && m.type)
            out.push({
              type: st.name.text,
              code: "(interface)",
              name: m.name.getText(wordsFile),
              typeText: m.type.getText(wordsFile),
            });
      ts.forEachChild(st, (c) => walkType(st.name.text, c));
    }
  return out;
}

/** Every string literal a finding's `code` may be, read from words.ts's types. */
function findingCodes(): Set<string> {
  const codes = new Set<string>();
  for (const wordsFile of wordsFiles) {
    const visit = (node: ts.Node): void => {
      if (ts.isPropertySignature(node) && node.name.getText(wordsFile) === "code" && node.type)
        for (const m of node.type.getText(wordsFile).matchAll(/"([a-z-]+)"/g)) codes.add(m[1] as string);
      ts.forEachChild(node, visit);
    };
    visit(wordsFile);
    for (const m of /export type AssetCode =([^;]+);/.exec(wordsFile.text)?.[1]?.matchAll(/"([a-z-]+)"/g) ??
      [])
      codes.add(m[1] as string);
  }
  return codes;
}

/**
 * A finding's members that are text, by name: data a reader compares or a person looks up (not sentences
 * words.ts should make) — and the few that are words made elsewhere, each with why it is not words.ts's yet.
 */
const TEXT_DATA = new Set([
  // codes and names: a status, an asset or coin, a network's label or a row's cell, an address, a contract
  "check",
  "asset",
  "coin",
  "network",
  "chain",
  "token",
  "owner",
  "firstAsset",
  // where a holding is stated: a proof file and outpoint, an address file's line (a name, not a sentence)
  "first",
  // texts signed: the proof's and the audit's challenge, an address file's row's message and the one required,
  // the texts a publisher signs, as written
  "text",
  "challenge",
  "message",
  "required",
  "texts",
  // an address file's layout and the form of a signature as its judge names it (the table's form column)
  "layout",
  "form",
  // addresses: a row's, a contract wallet's and its owners'
  "address",
  "contract",
  "owners",
  // where an older file had a signature ("FILE line N")
  "from",
  // times as the report writes them (RFC 3339), --max-gap as given
  "block_time",
  "moment",
  "time",
  "median",
  "bound_time",
  "max_gap",
  // a commitment's root and a hash computed from it (hex), a tree.bin's path, sums stated (base units)
  "root",
  "computed",
  "tree",
  "root_sum",
  "stated",
  // amounts and blocks as decimal text (exact, never a float); a summary's height as written
  "amount",
  "sum",
  "by",
  "height",
  "claimed",
  "read",
  "block",
  "liabilities",
  "proven",
  "shortfall",
  "coverage",
]);
const FOREIGN_WORDS: Record<string, string> = {
  summary: "the verifier's own summary of a proof (reserves verify prints the same words)",
  reason:
    "a node's own words for why it could not tell (an RPC error, 'java-tron's JSON-RPC takes no state override')",
  detail:
    "what the tracking probe saw (exchange/ownership/tracking.ts), or a shared ledger (judge/reads.ts), in their words (reserves verify prints the same); an address file's row: what its signature's judge found (exchange/ownership/judge.ts, signatures.ts), what the node read of its balance (balances.ts) or of a contract wallet's owners (owners.ts), in their words",
  error: "why a tree.bin beside a commitment cannot be read, in its reader's words (liabilities/store.ts)",
};

describe("findings are worded in one place (src/judge/words.ts)", () => {
  it("no finding is built outside words.ts with words made where it is built (a template or + of text in a member)", () => {
    const codes = findingCodes();
    expect(codes.size).toBeGreaterThan(30);
    const made: string[] = [];
    for (const { path, text } of sources) {
      if (WORDS_FILES.includes(path)) continue;
      const sf = parse(path, text);
      const visit = (node: ts.Node): void => {
        if (ts.isObjectLiteralExpression(node)) {
          const code = node.properties.find(
            (p): p is ts.PropertyAssignment =>
              ts.isPropertyAssignment(p) &&
              p.name.getText(sf) === "code" &&
              ts.isStringLiteral(p.initializer),
          );
          if (code && codes.has((code.initializer as ts.StringLiteral).text))
            for (const p of node.properties) {
              if (!ts.isPropertyAssignment(p)) continue;
              const v = p.initializer;
              const worded =
                ts.isTemplateExpression(v) ||
                ts.isNoSubstitutionTemplateLiteral(v) ||
                (ts.isBinaryExpression(v) && v.operatorToken.kind === ts.SyntaxKind.PlusToken) ||
                (ts.isStringLiteral(v) && /\s/.test(v.text));
              if (worded) {
                const line = sf.getLineAndCharacterOfPosition(p.getStart(sf)).line + 1;
                made.push(
                  `${path}:${line} ${(code.initializer as ts.StringLiteral).text}.${p.name.getText(sf)}`,
                );
              }
            }
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
    expect(made, "give the finding its numbers and word it in src/judge/words.ts").toEqual([]);
  });

  it("a finding's text members are data, or named here as words made elsewhere (with why)", () => {
    const members = findingMembers();
    expect(members.length).toBeGreaterThan(40);
    // a member of an object type is read as that type's own member (the walk visits it too)
    const text = members.filter((m) => /\bstring\b/.test(m.typeText) && !m.typeText.startsWith("{"));
    const unknown = text
      .filter((m) => !TEXT_DATA.has(m.name) && !(m.name in FOREIGN_WORDS))
      .map((m) => `${m.type} ${m.code}: ${m.name}: ${m.typeText}`);
    expect(
      unknown,
      "a text member of a finding is words made outside words.ts: give its numbers instead",
    ).toEqual([]);
    // a name listed as words made elsewhere that no finding has any more leaves the list
    expect(Object.keys(FOREIGN_WORDS).filter((k) => !text.some((m) => m.name === k))).toEqual([]);
  });

  it("an exchange file's verifier (exchange/ownership/verify.ts, messages.ts, file-steps.ts) makes no sentence of its own: its row reasons and file findings are typed and worded in words-rows.ts", () => {
    // the only text with words these two may write: a line's name ("line 7", "FILE line 7"), a key, and the
    // few literals named here — a text a publisher signs, a form's name (the table's form column)
    const NAMED = new Set(["I am an OKX address", "contract wallet, by its owners' signatures"]);
    const made: string[] = [];
    for (const path of [
      "exchange/ownership/verify.ts",
      "exchange/ownership/messages.ts",
      "exchange/ownership/file-steps.ts",
    ]) {
      const sf = parse(path, sources.find((s) => s.path === path)?.text ?? "");
      const visit = (n: ts.Node): void => {
        const fixed = ts.isTemplateExpression(n)
          ? [n.head.text, ...n.templateSpans.map((t) => t.literal.text)].join(" ")
          : ts.isNoSubstitutionTemplateLiteral(n) || ts.isStringLiteral(n)
            ? n.text
            : undefined;
        const words = fixed?.replace(/\bline\b/g, "").match(/[a-z]{2,}/gi) ?? [];
        if (
          fixed !== undefined &&
          words.length &&
          !(ts.isStringLiteral(n) && (NAMED.has(n.text) || !/\s/.test(n.text)))
        )
          made.push(
            `${path}:${sf.getLineAndCharacterOfPosition(n.getStart(sf)).line + 1} ${n.getText(sf).slice(0, 60)}`,
          );
        ts.forEachChild(n, visit);
      };
      visit(sf);
    }
    expect(made, "type the reason (judge/words-rows.ts) and word it there").toEqual([]);
  });
});
