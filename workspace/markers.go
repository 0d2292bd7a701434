package workspace

// markers are the file names that mark a workspace root when no git work
// tree encloses a directory.
var markers = [...]string{
	"CLAUDE.md",
	"AGENTS.md",
	"package.json",
	"pyproject.toml",
	"Cargo.toml",
	"go.mod",
}

// Markers lists the file names that mark a workspace root when no git work
// tree is found: agent instruction files and common project manifests. It
// returns a fresh copy on each call so callers cannot change how Root
// behaves for everyone else.
func Markers() []string {
	return append([]string(nil), markers[:]...)
}
