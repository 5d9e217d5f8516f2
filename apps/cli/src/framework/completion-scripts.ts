/** What shell completion needs to know about the command tree. */
export interface CompletionModel {
  /**
   * One node per group or command, keyed by its words joined with spaces (`""` is the root):
   * the words that may follow (subcommands or argument choices), and its options.
   */
  readonly nodes: readonly CompletionNode[];
  /** Options that take a value, with the values to offer (`"file"` for a path, `[]` for free text). */
  readonly valueOptions: readonly { readonly flags: readonly string[]; readonly values: readonly string[] | "file" }[];
}

/** One group or command in a {@link CompletionModel}. */
export interface CompletionNode {
  readonly path: string;
  readonly words: readonly string[];
  readonly options: readonly string[];
  /** Whether the node takes positionals (so its words are offered only as the first one). */
  readonly isCommand: boolean;
}

/** The shells `sds completion` writes a script for. */
export const completionShells = ["bash", "zsh", "fish"] as const;
/** One of {@link completionShells}. */
export type CompletionShell = (typeof completionShells)[number];

/** The completion script for `shell`. */
export function renderCompletionScript(shell: CompletionShell, model: CompletionModel): string {
  switch (shell) {
    case "bash":
      return renderBash(model);
    case "zsh":
      return renderZsh(model);
    case "fish":
      return renderFish(model);
  }
}

const quote = (word: string) => `'${word.replaceAll("'", "'\\''")}'`;
const valueFlags = (model: CompletionModel) => model.valueOptions.flatMap((option) => option.flags);

/*
 * Each script walks the words typed so far, skips options and the values of options that take
 * one, and so finds the command path; candidates are then the next words and the options.
 * Nodes are matched longest first so that `surveys show 42` still completes `surveys show`.
 */
function nodesLongestFirst(model: CompletionModel): CompletionNode[] {
  return [...model.nodes].sort((a, b) => b.path.length - a.path.length);
}

function renderBash(model: CompletionModel): string {
  const cases = nodesLongestFirst(model).map((node) => {
    const exact = `${quote(node.path)})\n        candidates=${quote([...node.words, ...node.options].join(" "))} ;;`;
    if (!node.isCommand || node.path === "") return `      ${exact}`;
    return `      ${exact}\n      ${quote(node.path + " ")}*)\n        candidates=${quote(node.options.join(" "))} ;;`;
  });
  const valueCases = model.valueOptions.map(
    // An empty reply lets bash fall back to file names (`complete -o default`): right for paths, harmless for free text.
    (option) =>
      `    ${option.flags.join("|")})\n      ${option.values === "file" || option.values.length === 0 ? "COMPREPLY=(); return 0 ;;" : `COMPREPLY=($(compgen -W ${quote(option.values.join(" "))} -- "$cur")); return 0 ;;`}`,
  );
  return `# bash completion for sds. Load it with:  source <(sds completion bash)
_sds_completion() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  case "$prev" in
${valueCases.join("\n")}
  esac
  local command_path="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      ${valueFlags(model).join("|")}) ((i++)) ;;
      -*) ;;
      *) command_path="\${command_path:+$command_path }\${COMP_WORDS[i]}" ;;
    esac
  done
  local candidates=""
  case "$command_path" in
${cases.join("\n")}
  esac
  COMPREPLY=($(compgen -W "$candidates" -- "$cur"))
}
complete -o default -F _sds_completion sds
`;
}

function renderZsh(model: CompletionModel): string {
  const cases = nodesLongestFirst(model).map((node) => {
    const words = (list: readonly string[]) => `candidates=(${list.map(quote).join(" ")})`;
    const exact = `      ${quote(node.path)})\n        ${words([...node.words, ...node.options])} ;;`;
    if (!node.isCommand || node.path === "") return exact;
    return `${exact}\n      ${quote(node.path + " ")}*)\n        ${words(node.options)} ;;`;
  });
  const valueCases = model.valueOptions.map(
    (option) =>
      `    ${option.flags.join("|")})\n      ${option.values === "file" ? "_files; return ;;" : option.values.length === 0 ? "return ;;" : `compadd -- ${option.values.map(quote).join(" ")}; return ;;`}`,
  );
  return `#compdef sds
# zsh completion for sds. Load it with:  source <(sds completion zsh)   (after compinit)
_sds() {
  # Not \`path\`: zsh ties that name to $PATH, which would become "surveys list" while this runs.
  local prev="\${words[CURRENT-1]}" command_path="" i=2
  case "$prev" in
${valueCases.join("\n")}
  esac
  while (( i < CURRENT )); do
    case "\${words[i]}" in
      ${valueFlags(model).join("|")}) (( i++ )) ;;
      -*) ;;
      *) command_path="\${command_path:+$command_path }\${words[i]}" ;;
    esac
    (( i++ ))
  done
  local -a candidates
  case "$command_path" in
${cases.join("\n")}
  esac
  compadd -- "\${candidates[@]}"
}
compdef _sds sds
`;
}

function renderFish(model: CompletionModel): string {
  const cases = nodesLongestFirst(model).map((node) => {
    const exact = `    case ${quote(node.path)}\n        printf '%s\\n' ${[...node.words, ...node.options].map(quote).join(" ")}`;
    if (!node.isCommand || node.path === "") return exact;
    return `${exact}\n    case ${quote(node.path + " *")}\n        printf '%s\\n' ${node.options.map(quote).join(" ")}`;
  });
  const valueLines = model.valueOptions.flatMap((option) =>
    option.flags.map((flag) => {
      const name = flag.startsWith("--") ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`;
      if (option.values === "file") return `complete -c sds ${name} -r -F`;
      return `complete -c sds ${name} -x${option.values.length === 0 ? "" : ` -a ${quote(option.values.join(" "))}`}`;
    }),
  );
  return `# fish completion for sds. Load it with:  sds completion fish | source
function __sds_path
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l command_path
    set -l skip 0
    for token in $tokens
        if test $skip = 1
            set skip 0
            continue
        end
        switch $token
            case ${valueFlags(model).map(quote).join(" ")}
                set skip 1
            case '-*'
            case '*'
                set command_path $command_path $token
        end
    end
    string join ' ' -- $command_path
end

function __sds_candidates
    switch (__sds_path)
${cases.map((line) => line.replace(/^/gm, "    ")).join("\n")}
    end
end

complete -c sds -f -a '(__sds_candidates)'
${valueLines.join("\n")}
`;
}
