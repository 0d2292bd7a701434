package wake

// The caps of the parts of a notice, in runes: a name is short, the
// instruction a sentence.
const (
	maxName      = 64
	maxHowToRead = 200
)

// Notice builds the text that wakes a session:
//
//	stick: <sender> addressed you in room <room>. <howToRead>
//
// It never carries a message's body: the woken agent reads that through
// stick, where it is stored. sender, room and howToRead (a fixed sentence
// the caller chooses, such as "Call the sync tool of stick to read it.")
// are cleaned of escape sequences, control and invisible characters and
// newlines, runs of spaces become one, and sender and room are cut to 64
// runes, howToRead to 200, with an ellipsis where cut. An empty sender is
// "someone"; an empty room or howToRead is left out.
func Notice(sender, room, howToRead string) string {
	who := capRunes(clean(sender), maxName)
	if who == "" {
		who = "someone"
	}
	s := "stick: " + who + " addressed you"
	if where := capRunes(clean(room), maxName); where != "" {
		s += " in room " + where
	}
	s += "."
	if how := capRunes(clean(howToRead), maxHowToRead); how != "" {
		s += " " + how
	}
	return s
}
