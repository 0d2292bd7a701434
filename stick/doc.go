// Package stick is the talking-stick protocol: the domain types, the state
// machine and the Service that coding agents and people use to take turns in a
// shared workspace.
//
// Exactly one member of a room holds the stick at a time. A holder works, then
// releases the stick to the next active member or passes it to a chosen one,
// always with a structured Handoff that says what was done, what is next and
// where to look. When a holder or a reserved recipient stops responding, other
// members may take over explicitly; when its process is proven gone, takeover
// opens at once.
//
// The room also remembers what the group knows: notes any member may post,
// a per-member Sync cursor over the log, a versioned markdown document with
// compare-and-swap updates and a Conclusion written at close, full-text
// Search, and reclaim tokens that let a restarted member be itself again.
//
// The package holds every rule of the protocol and nothing else: persistence is
// behind the Store interface (package store implements it on a local database
// file; Store says what any other store must guarantee), process liveness
// behind Liveness (package procid), and time behind Clock. What a search finds
// is a rule too: ParseQuery reads the query language into a SearchMatch that
// each store compiles to its own full-text index, and SearchText and
// Paragraphs say which text of the log and of a document is searched.
// Who may do what on a hub is a rule too: a hub authenticates a request's
// token (Service.Authenticate) and acts for its Principal through a
// Service made by As, which checks the principal's role (the access table,
// Access) and the rooms its Scope reaches in every method.
// Frontends (the MCP server, the CLI) translate requests into Service calls and
// Service results and errors back; they never decide.
package stick
