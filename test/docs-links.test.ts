/**
 * The docs an auditor reads in an hour (issue 59 item 7): every link of README.md and docs/*.md reaches a
 * file of the repository and, where it names one, a heading of it (GitHub's anchors); the glossary defines
 * each word the verdicts use. Read from the files as they are; nothing is run.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const ROOT = fileURLToPath(new URL("../", import.meta.url));
const FILES = [
  "README.md",
  ...readdirSync(join(ROOT, "docs"))
    .filter((f) => f.endsWith(".md"))
    .map((f) => `docs/${f}`),
];

/** The text outside fenced blocks and inline code (a link there is an example, not a link). */
const prose = (md: string) => md.replace(/^```[\s\S]*?^```/gm, "").replace(/`[^`\n]*`/g, "``");

/** GitHub's anchor of a heading: lower case, punctuation dropped but - and _, spaces to -. */
const anchorOf = (heading: string) =>
  heading
    .replace(/[`*]/g, "")
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, "")
    .replace(/ /g, "-");

function anchors(file: string): Set<string> {
  const md = readFileSync(join(ROOT, file), "utf8").replace(/^```[\s\S]*?^```/gm, "");
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const m of md.matchAll(/^#{1,6}\s+(.+)$/gm)) {
    const a = anchorOf(m[1] as string);
    const n = seen.get(a) ?? 0;
    out.add(n ? `${a}-${n}` : a);
    seen.set(a, n + 1);
  }
  return out;
}

describe("the docs", () => {
  it("every relative link of README.md and docs/*.md reaches a file, and its #anchor a heading there", () => {
    const broken: string[] = [];
    let links = 0;
    for (const f of FILES)
      for (const m of prose(readFileSync(join(ROOT, f), "utf8")).matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = m[1] as string;
        if (/^[a-z]+:/i.test(link)) continue;
        links++;
        const [path, anchor] = link.split("#") as [string, string | undefined];
        const target = path ? normalize(join(dirname(f), path)) : f;
        if (!existsSync(join(ROOT, target))) broken.push(`${f}: ${link}: no file ${target}`);
        else if (anchor && target.endsWith(".md") && !anchors(target).has(anchor))
          broken.push(`${f}: ${link}: no heading #${anchor} in ${target}`);
      }
    expect(links).toBeGreaterThan(40);
    expect(broken).toEqual([]);
  });

  it("the glossary defines each word the verdicts use, and the README's tour links it", () => {
    const glossary = readFileSync(join(ROOT, "docs", "glossary.md"), "utf8");
    const defined = [...glossary.matchAll(/^\| \*\*([^*]+)\*\* \|/gm)].flatMap((m) =>
      (m[1] as string).split(" / "),
    );
    for (const word of [
      "chain",
      "network",
      "asset",
      "coin",
      "proven",
      "claimed",
      "root",
      "digest",
      "snapshot",
      // the other words a verdict, the package's page or the customer's page uses
      "liabilities' date",
      "max-gap",
      "moment",
      "backing",
      "trusted",
      "stand-in",
      "tip",
      "holding",
      "row",
      "inclusion proof",
      "leaf",
      "audit id",
      "report package",
      "places",
      "not counted",
      "coverage",
      "challenge",
      "manifest",
    ])
      expect(defined, word).toContain(word);
    expect(readFileSync(join(ROOT, "README.md"), "utf8")).toContain("[docs/glossary.md](docs/glossary.md)");
  });
});
