// Regenerates README sections derived from the registry (method table). Run after changing src/methods.
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";

const table = execFileSync(process.execPath, ["bin/chaingw", "methods", "--markdown"], {
  encoding: "utf8",
}).trim();
const readme = readFileSync("README.md", "utf8");
const next = readme.replace(
  /<!-- methods:start -->[\s\S]*?<!-- methods:end -->/,
  `<!-- methods:start -->\n${table}\n<!-- methods:end -->`,
);
writeFileSync("README.md", next);

const errors = execFileSync(process.execPath, ["bin/chaingw", "serve", "errors"], {
  encoding: "utf8",
}).trim();
writeFileSync(
  "README.md",
  readFileSync("README.md", "utf8").replace(
    /<!-- serve-errors:start -->[\s\S]*?<!-- serve-errors:end -->/,
    `<!-- serve-errors:start -->\n${errors}\n<!-- serve-errors:end -->`,
  ),
);
