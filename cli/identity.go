package cli

import (
	"os"

	"github.com/stickhq/stick/identity"
)

// invocation names this invocation with the --agent flag agentFlag (see
// identity.NameInvocation), in the environment the commands see.
func invocation(agentFlag string) identity.Invocation {
	return identity.NameInvocation(agentFlag, identity.Facts{Getenv: getenv})
}

// getenv is the environment lookup the commands use (replaced in tests).
var getenv = os.Getenv
