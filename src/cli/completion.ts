/**
 * Shell completion scripts generated from the registry and the command tree: method names and commands,
 * global flags and each method's own options, chain groups and networks; profile names are asked of
 * `chaingw config profiles` when completed, so a new profile needs no new script.
 */
import type { Command } from "commander";
import { CHAIN_NAMES } from "../chains/index.js";
import { NETWORKS } from "../config/node-layout.js";
import { UsageError } from "../errors/index.js";
import { methodNames, registry } from "../methods/index.js";

function words(program: Command) {
  const commands = [
    ...methodNames(),
    "rpc",
    "batch",
    "reserves",
    "verify-message",
    "methods",
    "info",
    "config",
    "completion",
  ];
  const longs = (c: Command) => c.options.map((o) => o.long).filter((l): l is string => Boolean(l));
  const flags = [...new Set([...longs(program), "--help"])];
  const methodFlags = [
    ...new Set(
      registry
        .flatMap((m) => (m.options ?? []).map((o) => o.flags.split(/[ ,]/)[0]))
        .concat(["--range", "--no-verify"]),
    ),
  ];
  const valued = program.options.filter((o) => o.required || o.optional).map((o) => o.long as string);
  return { commands, flags, methodFlags, valued };
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
    --rpc-cookie|--api-key-file|--datadir|--file|-f) COMPREPLY=($(compgen -f -- "$cur")); return ;;
    config) COMPREPLY=($(compgen -W "init show check" -- "$cur")); return ;;
    completion) COMPREPLY=($(compgen -W "bash zsh fish" -- "$cur")); return ;;
    reserves) COMPREPLY=($(compgen -W "scan verify status abort" -- "$cur")); return ;;
  esac
  if [[ "$cur" == -* ]]; then
    COMPREPLY=($(compgen -W "${w.flags.join(" ")} ${w.methodFlags.join(" ")}" -- "$cur"))
  else
    COMPREPLY=($(compgen -W "${w.commands.join(" ")}" -- "$cur"))
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
    config) compadd init show check; return ;;
    completion) compadd bash zsh fish; return ;;
    reserves) compadd scan verify status abort; return ;;
  esac
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
      'complete -c chaingw -n "__fish_seen_subcommand_from config" -a "init show check"',
      'complete -c chaingw -n "__fish_seen_subcommand_from completion" -a "bash zsh fish"',
      'complete -c chaingw -n "__fish_seen_subcommand_from reserves" -a "scan verify status abort"',
    ];
    return `${lines.join("\n")}\n`;
  }
  throw new UsageError(`completion: expected bash, zsh or fish, got ${JSON.stringify(shell)}`);
}
