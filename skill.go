// Package skill carries SKILL.md, the one-page protocol a coding agent
// follows to take turns with stick. The file lives at the repository root,
// where people read it, and is embedded here so 'stick install-skill' can
// write it into each harness's skills directory.
package skill

import _ "embed"

// Markdown is the content of SKILL.md.
//
//go:embed SKILL.md
var Markdown []byte
