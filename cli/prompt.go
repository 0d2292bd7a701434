package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/internal/atomicfile"
	"github.com/stickhq/stick/stick"
)

// The markers around the block 'stick prompt install' writes, so installing
// again replaces it and uninstalling removes exactly it.
const (
	promptBegin = "# >>> stick prompt >>>"
	promptEnd   = "# <<< stick prompt <<<"
)

// promptShells are the shells whose prompt stick can extend: the snippet
// (with %s for the stick command) and the rc file it goes in.
var promptShells = map[string]struct {
	snippet string
	rc      func(home, config string) string
}{
	"bash": {
		snippet: `__stick_ps1() { local rc=$? s; s=$(%s status --prompt 2>/dev/null) && [ -n "$s" ] && printf '[%%s] ' "$s"; return $rc; }
case "$PS1" in *__stick_ps1*) ;; *) PS1='$(__stick_ps1)'"$PS1" ;; esac`,
		rc: func(home, _ string) string { return filepath.Join(home, ".bashrc") },
	},
	"zsh": {
		snippet: `setopt prompt_subst
__stick_prompt() { local s; s=$(%s status --prompt 2>/dev/null) && [[ -n $s ]] && print -rn -- "[${s//\%%/%%%%}] "; }
[[ $PROMPT == *__stick_prompt* ]] || PROMPT='$(__stick_prompt)'$PROMPT`,
		rc: func(home, _ string) string {
			if z := getenv("ZDOTDIR"); z != "" {
				return filepath.Join(z, ".zshrc")
			}
			return filepath.Join(home, ".zshrc")
		},
	},
	"fish": {
		snippet: `if functions -q fish_prompt; and not functions -q __stick_fish_prompt
    functions -c fish_prompt __stick_fish_prompt
    function __stick_return; return $argv[1]; end
    function fish_prompt
        set -l st $status
        set -l s (%s status --prompt 2>/dev/null)
        test -n "$s"; and printf '[%%s] ' $s
        __stick_return $st
        __stick_fish_prompt
    end
end`,
		rc: func(_, config string) string { return filepath.Join(config, "fish", "config.fish") },
	},
}

func newPrompt() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "prompt",
		Short: "Show where you stand in the room in your shell prompt",
		Long: `Put 'stick status --prompt' in your shell prompt: [holding T42], [waiting, 2 ahead],
[codex holding], [⚠ codex gone] — nothing outside a room.`,
		Example: "  stick prompt install bash\n  stick prompt install fish --print\n  stick prompt uninstall zsh",
	}
	var print, dryRun bool
	var command string
	install := &cobra.Command{
		Use:       "install bash|zsh|fish",
		Short:     "Add the prompt segment to your shell's rc file (or print the snippet with --print)",
		Example:   "  stick prompt install bash\n  stick prompt install zsh --print >> ~/.zshrc",
		Args:      needs(1, 1, "a shell: bash, zsh or fish"),
		ValidArgs: []string{"bash", "zsh", "fish"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return promptInstall(cmd, args[0], command, print, dryRun, true)
		},
	}
	install.Flags().BoolVar(&print, "print", false, "print the snippet instead of writing it")
	install.Flags().BoolVar(&dryRun, "dry-run", false, "say what would change, change nothing")
	install.Flags().StringVar(&command, "command", "", "the stick binary the prompt runs (default: stick on PATH, else this one)")
	uninstall := &cobra.Command{
		Use:       "uninstall bash|zsh|fish",
		Short:     "Remove the prompt segment from your shell's rc file",
		Example:   "  stick prompt uninstall bash",
		Args:      needs(1, 1, "a shell: bash, zsh or fish"),
		ValidArgs: []string{"bash", "zsh", "fish"},
		RunE: func(cmd *cobra.Command, args []string) error {
			return promptInstall(cmd, args[0], "", false, dryRun, false)
		},
	}
	uninstall.Flags().BoolVar(&dryRun, "dry-run", false, "say what would change, change nothing")
	cmd.AddCommand(install, uninstall)
	return cmd
}

// promptInstall writes (or, with add false, removes) the marked block in the
// shell's rc file, keeping every other byte of it.
func promptInstall(cmd *cobra.Command, shell, command string, print, dryRun, add bool) error {
	sh, ok := promptShells[shell]
	if !ok {
		return fmt.Errorf("unknown shell %s: choose bash, zsh or fish", stick.Quote(shell))
	}
	block := ""
	if add {
		exe, err := stickCommand(command)
		if err != nil {
			return err
		}
		block = promptBegin + "\n" + fmt.Sprintf(sh.snippet, shellQuote(exe)) + "\n" + promptEnd + "\n"
		if print {
			fmt.Fprint(cmd.OutOrStdout(), block)
			return nil
		}
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return stick.Errorf(stick.CodeInvalidArgument, "cannot find your home directory: %v", err).WithHint("set $HOME")
	}
	if !filepath.IsAbs(home) {
		return stick.Errorf(stick.CodeInvalidArgument, "the home directory %q is not an absolute path", home).WithHint("set $HOME to your home directory")
	}
	config := getenv("XDG_CONFIG_HOME")
	if !filepath.IsAbs(config) {
		config = filepath.Join(home, ".config")
	}
	rc := sh.rc(home, config)
	old, err := os.ReadFile(rc)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return stick.Errorf(stick.CodeInvalidArgument, "cannot read %s: %v", rc, err)
	}
	if strings.Contains(string(old), promptBegin) && !strings.Contains(string(old), promptEnd) {
		return stick.Errorf(stick.CodeInvalidArgument, "%s has the line %q but not %q", rc, promptBegin, promptEnd).
			WithHint("remove the rest of the old stick block from %s by hand, then run this again", rc)
	}
	next := replaceBlock(string(old), block)
	out := cmd.OutOrStdout()
	switch {
	case next == string(old) && add:
		fmt.Fprintf(out, "already installed in %s\n", rc)
		return nil
	case next == string(old):
		fmt.Fprintf(out, "not installed in %s; nothing to remove\n", rc)
		return nil
	case dryRun:
		verb := "add the stick prompt segment to"
		if !add {
			verb = "remove the stick prompt segment from"
		}
		fmt.Fprintf(out, "would %s %s\n", verb, rc)
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(rc), 0o755); err != nil {
		return stick.Errorf(stick.CodeInvalidArgument, "cannot create %s: %v", filepath.Dir(rc), err)
	}
	if err := atomicfile.WriteFile(rc, []byte(next), 0o644); err != nil {
		return stick.Errorf(stick.CodeInvalidArgument, "cannot write %s: %v", rc, err)
	}
	if add {
		fmt.Fprintf(out, "added the stick prompt segment to %s; open a new %s to see it\n", rc, shell)
	} else {
		fmt.Fprintf(out, "removed the stick prompt segment from %s\n", rc)
	}
	return nil
}

// replaceBlock replaces the marked block in text with block (appending it
// when there is none; removing it when block is empty).
func replaceBlock(text, block string) string {
	start := strings.Index(text, promptBegin)
	if start >= 0 {
		if end := strings.Index(text[start:], promptEnd); end >= 0 {
			end += start + len(promptEnd)
			if end < len(text) && text[end] == '\n' {
				end++
			}
			return text[:start] + block + text[end:]
		}
	}
	if block == "" {
		return text
	}
	if text != "" && !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text + block
}

// shellQuote quotes s for bash, zsh and fish alike when it needs quoting.
func shellQuote(s string) string {
	if !strings.ContainsAny(s, " \t'\"$`\\!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'"'"'`) + "'"
}
