/**
 * Shell completion, one source for bash, zsh and fish: each shell's script is a few lines that hand the words
 * typed so far to `chaingw completion SHELL --words -- WORD…`, and `completeWords` answers from the command
 * tree as commander built it (every family command, its subcommands, each command's own flags, the global
 * ones) and from the registry (method commands and their own options). So the context is the same in the
 * three shells and nothing here lists a command or a flag by hand: after `reserves verify` or `--abi`, files;
 * after a command, its own flags and the global ones; after `--chain` / `--network` / `--format` / a flag with
 * choices, their tables; after `--profile`, the config file's profiles.
 */
import { type Command, Help, Option } from "commander";
import { CHAIN_NAMES } from "../../chains/index.js";
import { localNetworks } from "../../config/node-layout.js";
import { UsageError } from "../../errors/index.js";
import { methodNames } from "../../methods/index.js";
import type { Run } from "../run.js";
import { listProfiles } from "./config/profiles.js";
import { declareMethodCommands } from "./method/declare.js";

export const SHELLS = ["bash", "zsh", "fish"] as const;

/** What the shell should offer: words (already filtered by the typed prefix), or its own file completion. */
export interface Completion {
  kind: "words" | "files" | "dirs";
  words: string[];
}

// commander's plain help: every command that is not hidden (the methods too, which chaingw's top page lists apart)
const plain = new Help();
const visibleCommands = (c: Command) =>
  plain.visibleCommands(c).filter((x) => x.name() !== "help" || c.parent === null);
const visibleOptions = (c: Command) => plain.visibleOptions(c);
const takesValue = (o: Option) => o.required || o.optional;
/** A value that is a path: the flag's placeholder says so (`--abi <file>`, `--out <dir>`, `--datadir <dir>`). */
const pathKind = (o: Option): Completion["kind"] | undefined =>
  /<dir\w*>/i.test(o.flags) ? "dirs" : /<(file|path)\w*>/i.test(o.flags) ? "files" : undefined;
/** An argument that names a file (`reserves verify <file>`, `reserves report <proofs...>`, `batch [file]`). */
const fileArgument = (name: string) => /file|proof|tree/i.test(name);

/** The option of `cmd` (or of a command above it: commander reads the global ones anywhere) spelt `flag`. */
function optionOf(cmd: Command, flag: string): Option | undefined {
  for (let c: Command | null = cmd; c; c = c.parent)
    for (const o of c.options) if (o.long === flag || o.short === flag) return o;
  return undefined;
}

/** The values a flag takes, from their tables; undefined when the value is free text. */
function valuesOf(o: Option, env: NodeJS.ProcessEnv): string[] | undefined {
  if (o.argChoices?.length) return [...o.argChoices];
  if (o.long === "--chain") return [...CHAIN_NAMES];
  if (o.long === "--network") return localNetworks();
  if (o.long === "--profile") return listProfiles(env);
  return undefined;
}

/**
 * The completion of the last word of `words` (the words after `chaingw`, the last one being the word under the
 * cursor, "" for a new one). Bash splits `--chain=ev` into `--chain`, `=`, `ev`: that reads as `--chain ev`.
 */
export function completeWords(
  program: Command,
  typed: readonly string[],
  env: NodeJS.ProcessEnv,
): Completion {
  const words = [...typed];
  let cur = words.pop() ?? "";
  for (let i = 1; i < words.length; i++)
    if (words[i] === "=" && words[i - 1]?.startsWith("--")) words.splice(i--, 1);
  // bash's cursor just after `--chain=`: the values, each written after the `=`
  let lead = "";
  if (cur === "=" && words[words.length - 1]?.startsWith("--")) [cur, lead] = ["", "="];
  const pick = (all: readonly string[], prefix = lead, typed = cur): Completion => ({
    kind: "words",
    words: [...new Set(all)].filter((w) => w.startsWith(typed)).map((w) => prefix + w),
  });
  // the command path: subcommands descended into; positional arguments counted; a flag's value skipped
  let cmd = program;
  let positional = 0;
  let afterDashes = false;
  let help = false;
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    if (!afterDashes && w === "--") afterDashes = true;
    else if (!afterDashes && w.startsWith("-") && w !== "-") {
      const o = w.includes("=") ? undefined : optionOf(cmd, w);
      // an optional value is taken when the next word is not a flag (commander's rule)
      if (o?.required || (o?.optional && i + 1 < words.length && !words[i + 1]?.startsWith("-"))) i++;
    } else {
      const sub = positional === 0 ? cmd.commands.find((c) => c.name() === w) : undefined;
      if (sub) cmd = sub;
      else if (cmd === program && positional === 0 && w === "help") help = true;
      else positional++;
    }
  }
  // the word under the cursor is a flag's value
  const prev = words[words.length - 1];
  const valued =
    !afterDashes && prev?.startsWith("-") && !prev.includes("=") ? optionOf(cmd, prev) : undefined;
  if (valued?.required || (valued?.optional && !cur.startsWith("-"))) {
    const values = valuesOf(valued, env);
    if (values) return pick(values);
    return { kind: pathKind(valued) ?? "words", words: [] };
  }
  const eq = /^(--[\w-]+)=/.exec(cur);
  if (eq) {
    const o = optionOf(cmd, eq[1] as string);
    const values = o && takesValue(o) ? valuesOf(o, env) : undefined;
    return pick(values ?? [], eq[0], cur.slice(eq[0].length));
  }
  if (cur.startsWith("-") && !afterDashes) {
    const flags: string[] = [];
    for (let c: Command | null = cmd; c; c = c.parent)
      for (const o of visibleOptions(c)) if (o.long) flags.push(o.long);
    return pick(flags);
  }
  // a family's subcommands; the top's commands (methods and the others); `completion`'s shells
  // `help` and `help reserves` complete like the command words they name
  if (positional === 0 && cmd.commands.length)
    return pick(
      visibleCommands(cmd)
        .map((c) => c.name())
        .filter((n) => !help || n !== "help"),
    );
  if (cmd.name() === "completion" && positional === 0) return pick(SHELLS);
  const args = cmd.registeredArguments;
  const arg = args[Math.min(positional, args.length - 1)];
  if (arg && (positional < args.length || arg.variadic) && fileArgument(arg.name()))
    return { kind: "files", words: [] };
  return { kind: "words", words: [] };
}

/** The lines `--words` prints: the kind first (`words`, `files`, `dirs`), then one candidate a line. */
export function completionLines(program: Command, typed: readonly string[], env: NodeJS.ProcessEnv): string {
  // the tree of a `completion` run has no method commands: the completion of one needs them all
  const built = new Set(program.commands.map((c) => c.name()));
  const missing = methodNames().filter((m) => !built.has(m));
  if (missing.length) declareMethodCommands(program, { env } as Run, [], missing);
  const c = completeWords(program, typed, env);
  return [c.kind, ...c.words].join("\n");
}

/**
 * The scripts: each passes the words from the command's first argument to the cursor to `--words` and offers
 * what comes back (the shell's own file completion for `files` / `dirs`). `$words[1]` / `COMP_WORDS[0]` is
 * the chaingw the user typed, so a chaingw run by its path completes with itself.
 */
export function completionScript(shell: string): string {
  if (shell === "bash")
    return `# chaingw completion for bash: source <(chaingw completion bash)
# the candidates come from \`chaingw completion bash --words -- WORD…\` (the command tree and the registry)
_chaingw() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" kind line
  local -a out=()
  while IFS= read -r line; do out+=("$line"); done < <("\${COMP_WORDS[0]}" completion bash --words -- "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null)
  kind="\${out[0]}"
  case "$kind" in
    files) COMPREPLY=($(compgen -f -- "$cur")); compopt -o filenames 2>/dev/null ;;
    dirs) COMPREPLY=($(compgen -d -- "$cur")); compopt -o filenames 2>/dev/null ;;
    *) COMPREPLY=("\${out[@]:1}") ;;
  esac
}
complete -F _chaingw chaingw
`;
  if (shell === "zsh")
    return `#compdef chaingw
# chaingw completion for zsh: source <(chaingw completion zsh)
# the candidates come from \`chaingw completion zsh --words -- WORD…\` (the command tree and the registry)
_chaingw() {
  local -a out
  out=("\${(@f)$("$words[1]" completion zsh --words -- "\${(@)words[2,CURRENT-1]}" "$PREFIX" 2>/dev/null)}")
  case "$out[1]" in
    files) _files ;;
    dirs) _files -/ ;;
    *) (( $#out > 1 )) && compadd -- "\${(@)out[2,-1]}" ;;
  esac
}
if (( $+functions[compdef] )); then compdef _chaingw chaingw; fi
`;
  if (shell === "fish")
    return `# chaingw completion for fish: chaingw completion fish | source
# the candidates come from \`chaingw completion fish --words -- WORD…\` (the command tree and the registry)
function __chaingw_complete
    set -l toks (commandline -opc)
    set -l cur (commandline -ct)
    set -l bin $toks[1]
    set -e toks[1]
    set -l out ($bin completion fish --words -- $toks "$cur" 2>/dev/null)
    set -l kind $out[1]
    set -e out[1]
    switch "$kind"
        case files
            __fish_complete_path "$cur"
        case dirs
            __fish_complete_directories "$cur"
        case '*'
            printf '%s\\n' $out
    end
end
complete -c chaingw -e
complete -c chaingw -f -a '(__chaingw_complete)'
`;
  throw new UsageError(`completion: expected bash, zsh or fish, got ${JSON.stringify(shell)}`);
}

export function declareCompletion(program: Command, run: Run): void {
  program
    .command("completion")
    .description("print a shell completion script: source <(chaingw completion bash)")
    .argument("<shell>", "bash, zsh or fish")
    .argument("[words...]", "with --words: the words typed so far, the last one under the cursor")
    .addOption(
      new Option("--words", "print the candidates for the words after -- (what the scripts call)").hideHelp(),
    )
    .action((shell: string, typed: string[], opts: { words?: boolean }) => {
      const script = completionScript(shell);
      run.out(opts.words ? completionLines(program, typed, run.env) : script);
    });
}
