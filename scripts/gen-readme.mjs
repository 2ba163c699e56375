// Regenerates the docs derived from the code: the method table (docs/methods.md, from the registry) and the
// gateway's own answers (docs/serve.md, from src/serve/errors.ts). Run after changing src/methods or those errors.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

/** Replaces the text between `<!-- NAME:start -->` and `<!-- NAME:end -->` in `file` with the command's output. */
function regenerate(file, name, args) {
  const text = execFileSync(process.execPath, ["bin/chaingw", ...args], { encoding: "utf8" }).trim();
  const marks = new RegExp(`<!-- ${name}:start -->[\\s\\S]*?<!-- ${name}:end -->`);
  writeFileSync(
    file,
    readFileSync(file, "utf8").replace(marks, `<!-- ${name}:start -->\n${text}\n<!-- ${name}:end -->`),
  );
}

regenerate("docs/methods.md", "methods", ["methods", "--markdown"]);
regenerate("docs/serve.md", "serve-errors", ["serve", "errors"]);
