/**
 * Shell completion scripts derived from the command tree as commander built it (every family command, its
 * subcommands and every flag of every command) and from the registry (method names and each method's own
 * options): nothing here lists a command by hand, so a new command or flag completes without an edit.
 * Chain groups and networks come from their tables; profile names are asked of `chaingw config profiles` when
 * completed, so a new profile needs no new script.
 */
import type { Command } from "commander";
import { CHAIN_NAMES } from "../../chains/index.js";
import { NETWORKS } from "../../config/node-layout.js";
import { UsageError } from "../../errors/index.js";
import { methodNames, registry } from "../../methods/index.js";
import type { Run } from "../run.js";

const longs = (c: Command) => c.options.map((o) => o.long).filter((l): l is string => Boolean(l));

/** Every command, the subcommands of each family command, every flag, and the flags that take a value. */
export function completionWords(program: Command) {
  const built = program.commands.filter((c) => !methodNames().includes(c.name()));
  const commands = [...new Set([...methodNames(), ...built.map((c) => c.name()), "help"])];
  const subcommands: Record<string, string[]> = {};
  const all: Command[] = [program];
  const walk = (c: Command, path: string) => {
    for (const sub of c.commands) {
      all.push(sub);
      walk(sub, `${path} ${sub.name()}`);
    }
    if (c !== program && c.commands.length) subcommands[c.name()] = c.commands.map((x) => x.name());
  };
  walk(program, "");
  // the one command whose argument is a closed list
  subcommands.completion ??= ["bash", "zsh", "fish"];
  const flags = [...new Set([...all.flatMap(longs), "--help"])];
  const methodFlags = [
    ...new Set(
      registry
        .flatMap((m) => (m.options ?? []).map((o) => o.flags.split(/[ ,]/)[0] as string))
        .concat(["--range", "--no-verify"]),
    ),
  ].filter((f) => !flags.includes(f));
  const valued = [
    ...new Set(
      all.flatMap((c) => c.options.filter((o) => o.required || o.optional).map((o) => o.long as string)),
    ),
  ];
  // context: the flags whose value is a file or a directory, the commands whose arguments are files, and
  // each command's own flags (keyed by its path: "reserves verify")
  const fileFlags = [
    ...new Set(
      all.flatMap((c) =>
        c.options.filter((o) => /<(file|path|dir)\w*>/i.test(o.flags)).map((o) => o.long as string),
      ),
    ),
  ];
  const pathOf = (c: Command): string =>
    (c.parent && c.parent !== program ? `${pathOf(c.parent)} ` : "") + c.name();
  const fileCommands = all
    .filter((c) => c !== program && c.registeredArguments.some((a) => /file|proof/i.test(a.name())))
    .map(pathOf);
  const own: Record<string, string[]> = {};
  for (const c of all)
    if (c !== program && !methodNames().includes(c.name())) own[pathOf(c)] = [...longs(c), "--help"];
  return { commands, subcommands, flags, methodFlags, valued, fileFlags, fileCommands, own };
}

function words(program: Command) {
  return { ...completionWords(program), globalFlags: [...longs(program), "--help"] };
}

export function completionScript(shell: string, program: Command): string {
  const w = words(program);
  const chains = CHAIN_NAMES.join(" ");
  const nets = NETWORKS.join(" ");
  if (shell === "bash")
    return `# chaingw completion for bash: source <(chaingw completion bash)
_chaingw() {
  local cur prev
  cur="\${COMP_WORDS[COMP_CWORD]}"
  prev="\${COMP_WORDS[COMP_CWORD-1]}"
  case "$prev" in
    --chain) COMPREPLY=($(compgen -W "${chains}" -- "$cur")); return ;;
    --network) COMPREPLY=($(compgen -W "${nets}" -- "$cur")); return ;;
    --format) COMPREPLY=($(compgen -W "human json jsonl csv" -- "$cur")); return ;;
    --profile) COMPREPLY=($(compgen -W "$(chaingw config profiles 2>/dev/null)" -- "$cur")); return ;;
    ${[...new Set(["--rpc-cookie", "--api-key-file", "--datadir", "--file", "-f", ...w.fileFlags])].join("|")}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
${Object.entries(w.subcommands)
  .map(([c, subs]) => `    ${c}) COMPREPLY=($(compgen -W "${subs.join(" ")}" -- "$cur")); return ;;\n`)
  .join("")}  esac
  # the command path so far: the words before the cursor that are not flags (nor a flag's value)
  local path="" w i
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="\${COMP_WORDS[i]}"
    case "$w" in
      -*) ;;
      *) case "\${COMP_WORDS[i-1]}" in ${w.valued.join("|")}) ;; *) path="\${path:+$path }$w" ;; esac ;;
    esac
  done
  if [[ "$cur" == -* ]]; then
    case "$path" in
${Object.entries(w.own)
  .map(
    ([c, f]) =>
      `      "${c}") COMPREPLY=($(compgen -W "${f.join(" ")} ${w.globalFlags.join(" ")}" -- "$cur")); return ;;\n`,
  )
  .join("")}    esac
    COMPREPLY=($(compgen -W "${w.flags.join(" ")} ${w.methodFlags.join(" ")}" -- "$cur"))
  elif [[ -z "$path" ]]; then
    COMPREPLY=($(compgen -W "${w.commands.join(" ")}" -- "$cur"))
  else
    case "$path" in
      ${w.fileCommands.map((c) => `"${c}"`).join("|") || '""'}) COMPREPLY=($(compgen -f -- "$cur")) ;;
    esac
  fi
}
complete -o default -F _chaingw chaingw
`;
  if (shell === "zsh")
    return `#compdef chaingw
# chaingw completion for zsh: source <(chaingw completion zsh)
_chaingw() {
  local -a cmds flags
  cmds=(${w.commands.join(" ")})
  flags=(${w.flags.join(" ")} ${w.methodFlags.join(" ")})
  case "$words[CURRENT-1]" in
    --chain) compadd ${chains}; return ;;
    --network) compadd ${nets}; return ;;
    --format) compadd human json jsonl csv; return ;;
    --profile) compadd $(chaingw config profiles 2>/dev/null); return ;;
    --rpc-cookie|--api-key-file|--datadir|--file|-f) _files; return ;;
${Object.entries(w.subcommands)
  .map(([c, subs]) => `    ${c}) compadd ${subs.join(" ")}; return ;;\n`)
  .join("")}  esac
  if [[ "$PREFIX" == -* ]]; then compadd -a flags; else compadd -a cmds; fi
}
if (( $+functions[compdef] )); then compdef _chaingw chaingw; fi
`;
  if (shell === "fish") {
    const lines = [
      "# chaingw completion for fish: chaingw completion fish | source",
      "complete -c chaingw -f",
      `complete -c chaingw -n __fish_use_subcommand -a "${w.commands.join(" ")}"`,
      ...w.flags.map((f) => {
        const name = f.replace(/^--/, "");
        const arg =
          name === "chain"
            ? ` -r -a "${chains}"`
            : name === "network"
              ? ` -r -a "${nets}"`
              : name === "format"
                ? ' -r -a "human json jsonl csv"'
                : name === "profile"
                  ? ' -r -a "(chaingw config profiles 2>/dev/null)"'
                  : w.valued.includes(f)
                    ? " -r"
                    : "";
        return `complete -c chaingw -l ${name}${arg}`;
      }),
      ...w.methodFlags.map((f) => `complete -c chaingw -l ${f.replace(/^--/, "")}`),
      ...Object.entries(w.subcommands).map(
        ([c, subs]) => `complete -c chaingw -n "__fish_seen_subcommand_from ${c}" -a "${subs.join(" ")}"`,
      ),
    ];
    return `${lines.join("\n")}\n`;
  }
  throw new UsageError(`completion: expected bash, zsh or fish, got ${JSON.stringify(shell)}`);
}

export function declareCompletion(program: Command, run: Run): void {
  program
    .command("completion")
    .description("print a shell completion script: source <(chaingw completion bash)")
    .argument("<shell>", "bash, zsh or fish")
    .action((shell: string) => run.out(completionScript(shell, program)));
}
