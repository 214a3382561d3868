package commands

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"regexp"
	"strings"

	"github.com/spf13/cobra"

	"github.com/traineed/traineed/cmd/traineectl/internal/cmdutil"
)

// Shells lists the shells with a completion script.
var Shells = []string{"bash", "zsh", "fish", "powershell"}

// CompletionOptions are the inputs of `traineectl completion`.
type CompletionOptions struct {
	Shell string // bash, zsh, fish or powershell
	// Generate writes the completion script of a shell: the command
	// tree's (GenCompletion), which RunE sets.
	Generate func(shell string, w io.Writer) error
}

func newCompletionCmd(f *cmdutil.Factory, runF func(*CompletionOptions) error) *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `Print the completion script of a shell. Once loaded, Tab completes commands
and flags, flag values (--status, --sort, --output, --weight-unit, --type) and
trainee ids, with each trainee's name, looked up on the server (at most 2 s).

The bash script works with or without the bash-completion package.`,
		Example: `  # bash, for the current shell and for every new one
  source <(traineectl completion bash)
  traineectl completion bash > ~/.local/share/bash-completion/completions/traineectl

  # zsh (with compinit), fish, PowerShell
  traineectl completion zsh > "${fpath[1]}/_traineectl"
  traineectl completion fish > ~/.config/fish/completions/traineectl.fish
  traineectl completion powershell | Out-String | Invoke-Expression`,
		Args:                  cmdutil.ExactArgs(1, "a shell: bash, zsh, fish or powershell"),
		ValidArgs:             Shells,
		DisableFlagsInUseLine: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			o := &CompletionOptions{Shell: args[0], Generate: func(shell string, w io.Writer) error {
				return GenCompletion(root, shell, w)
			}}
			return runWith(cmd.Context(), f, o, runF, runCompletion)
		},
	}
}

// runCompletion prints the shell's completion script.
func runCompletion(_ context.Context, f *cmdutil.Factory, o *CompletionOptions) error {
	return o.Generate(o.Shell, f.IOStreams.Out)
}

// bashWordsCall is the line of cobra's bash script that needs the
// bash-completion package; the script falls back on its own splitter.
const bashWordsCall = `    _get_comp_words_by_ref "$@" cur prev words cword
`

const bashWordsFallback = `    if declare -F _get_comp_words_by_ref >/dev/null 2>&1; then
        _get_comp_words_by_ref "$@" cur prev words cword
    else
        __traineectl_comp_words
    fi
`

// bashFiledirFunc stands in for the bash-completion package's _filedir,
// which cobra's script calls for file and directory arguments (create -f,
// --log-file): without the package, bash would say "_filedir: command not
// found". It completes files (those of the extensions given, as
// "csv|jsonl|") and directories with compgen.
const bashFiledirFunc = `
# traineectl: _filedir of the bash-completion package when it is loaded,
# else files (of the extensions given as "ext1|ext2|") and directories.
__traineectl_filedir()
{
    if declare -F _filedir >/dev/null 2>&1; then
        _filedir "$@"
        return
    fi
    local IFS=$'\n' f exts
    COMPREPLY=()
    if [[ $1 == -d ]]; then
        COMPREPLY=($(compgen -d -- "$cur"))
    else
        exts="|${1%|}|"
        while IFS= read -r f; do
            [[ -z $f ]] && continue
            if [[ -d $f || $exts == "||" || $exts == *"|${f##*.}|"* ]]; then
                COMPREPLY+=("$f")
            fi
        done < <(compgen -f -- "$cur")
    fi
    if [[ $(type -t compopt) == builtin ]]; then
        compopt -o filenames 2>/dev/null
    fi
}
`

const bashWordsFunc = `
# traineectl: used when the bash-completion package is not loaded. Splits the
# line up to the cursor on blanks (so "--output=js" stays one word) and sets
# cur, prev, words and cword as _get_comp_words_by_ref would.
__traineectl_comp_words()
{
    local line="${COMP_LINE:0:COMP_POINT}"
    read -r -a words <<< "$line"
    if [[ -z $line || $line == *[[:space:]] ]]; then
        words+=("")
    fi
    cword=$(( ${#words[@]} - 1 ))
    cur="${words[cword]}"
    prev=""
    if (( cword > 0 )); then
        prev="${words[cword-1]}"
    fi
}
`

// bashFiledirCall is a call of _filedir in cobra's script (not a mention
// in a comment after "call to").
var bashFiledirCall = regexp.MustCompile(`(^|[\s"&|])_filedir\b`)

// GenCompletion writes the completion script of shell for root.
func GenCompletion(root *cobra.Command, shell string, w io.Writer) error {
	switch shell {
	case "bash":
		var b bytes.Buffer
		if err := root.GenBashCompletionV2(&b, true); err != nil {
			return err
		}
		s := b.String()
		if !strings.Contains(s, bashWordsCall) {
			return fmt.Errorf("cobra's bash script changed: cannot add the fallback for systems without bash-completion")
		}
		s = strings.Replace(s, bashWordsCall, bashWordsFallback, 1)
		if !strings.Contains(s, "_filedir") {
			return fmt.Errorf("cobra's bash script changed: no _filedir call to replace")
		}
		s = bashFiledirCall.ReplaceAllString(s, "${1}__traineectl_filedir") + bashWordsFunc + bashFiledirFunc
		_, err := io.WriteString(w, s)
		return err
	case "zsh":
		return root.GenZshCompletion(w)
	case "fish":
		return root.GenFishCompletion(w, true)
	case "powershell":
		return root.GenPowerShellCompletionWithDesc(w)
	}
	return cmdutil.Usagef("unknown shell %q: use bash, zsh, fish or powershell", shell)
}
