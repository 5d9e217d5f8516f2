# Runs zsh's real completion system in a pseudo-terminal (zsh/zpty) for each command line given:
# types the line, presses TAB, and prints "### LINE", then each candidate offered on a line of
# its own, then "PATH=…" as it was while the completion function ran (once per compadd call).
# Usage: zsh -f zsh-complete.zsh COMPLETION_SCRIPT 'sds surveys li' 'sds ac' …
zmodload zsh/zpty || { print -u2 "zsh/zpty is missing"; exit 3 }
script=$1
shift
zpty sds_shell zsh -f -i
zpty -w sds_shell "PROMPT=''; RPROMPT=''; autoload -U compinit; compinit -u -D"
zpty -w sds_shell "source ${(q)script}"
zpty -w sds_shell "bindkey '^I' complete-word; zstyle ':completion:*' list-grouped false; zstyle ':completion:*' insert-tab false"
# compprefuncs/comppostfuncs frame the candidates with marker lines; compadd prints what it adds.
# Each marker is written split in two ("<<sds-""hit>>") so that the terminal echoing these
# definitions never shows a whole marker.
zpty -w sds_shell 'sds-begin () { print -r -- "<<sds-""begin>>" }; sds-end () { print -r -- "<<sds-""end>>" }'
zpty -w sds_shell 'compadd () { if [[ ${@[1,(i)(-|--)]} == *-(O|A|D)\ * ]]; then builtin compadd "$@"; return $?; fi; local -a sds_hits; builtin compadd -A sds_hits "$@"; print -r -- "<<sds-""path>>$PATH"; (( $#sds_hits )) || return 1; print -rl -- "<<sds-""hit>>"${^sds_hits}; builtin compadd "$@" }'
for typed in "$@"; do
  # The hooks are reset by each completion, so they are set again before each one.
  zpty -w -n sds_shell 'compprefuncs=( sds-begin ); comppostfuncs=( sds-end )'$'\n'
  zpty -w -n sds_shell "${typed}"$'\t'
  print -r -- "### ${typed}"
  integer seen=0 done=0
  while (( ! done )) && zpty -r sds_shell line; do
    line=${line//$'\r'/}
    line=${line%$'\n'}
    case $line in
      *'<<sds-begin>>'*) seen=1 ;;
      *'<<sds-end>>'*) (( seen )) && done=1 ;;
      *'<<sds-hit>>'*) (( seen )) && print -r -- "${line#*<<sds-hit>>}" ;;
      *'<<sds-path>>'*) (( seen )) && print -r -- "PATH=${line#*<<sds-path>>}" ;;
    esac
  done
  (( done )) || { print -u2 "no completion for: ${typed}"; exit 2 }
  # Ctrl-U clears the typed line for the next one.
  zpty -w -n sds_shell $'\C-u'
done
zpty -d sds_shell
