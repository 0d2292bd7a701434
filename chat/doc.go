// Package chat is the operator console of a room, 'stick chat': a
// full-screen Bubble Tea program that shows the room's conversation as it
// happens, posts notes (addressed to members with @name, or interrupting
// them with /interrupt), and says in its footer who holds the stick, who is
// next and who is away, and after a directed note what the room reports of
// waking each recipient.
//
// The console reads and posts through a [Backend], so it knows nothing of
// the store: the CLI implements Backend over stick.Service, the tests over
// a fake. It never takes the stick. Everything that comes from a room's
// members (texts, names, handles, recipients, error messages naming them)
// is made safe with package render before it reaches the terminal, and
// with NO_COLOR set it writes no colour at all.
package chat
