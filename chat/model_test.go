package chat

import (
	"regexp"

	tea "charm.land/bubbletea/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

const self = "human:ana"

// room is a room of five members in sequence order: the console, a
// codex session, a reviewer that can be woken, a gemini session away and
// an opencode session gone.
func room() *fakeBackend {
	return newFake(self,
		stick.MemberStatus{AgentID: self, Status: stick.MemberActive, Kind: stick.KindOneShot, Standby: true},
		stick.MemberStatus{AgentID: "codex:1a2b", Status: stick.MemberActive, Kind: stick.KindHarness, DisplayName: "codex 0.9"},
		stick.MemberStatus{AgentID: "claude-code:77", Handle: "reviewer", Status: stick.MemberActive, Kind: stick.KindHarness,
			DisplayName: "claude-code 2.1", Wake: &stick.WakeStatus{Transports: []string{"claude-inbox"}}},
		stick.MemberStatus{AgentID: "gemini:9", Status: stick.MemberAway, Kind: stick.KindHarness},
		stick.MemberStatus{AgentID: "opencode:3", Status: stick.MemberGone, Kind: stick.KindHarness},
	)
}

// The @words at the start of a line address the note and leave its text;
// an @word later in the text addresses it too and stays.
func TestChatMentions(t *testing.T) {
	for _, tc := range []struct {
		line, text string
		to         []string
	}{
		{"@reviewer please look", "please look", []string{"reviewer"}},
		{"  @a @b,  both of you: look ", "both of you: look", []string{"a", "b"}},
		{"hello room", "hello room", nil},
		{"ask @codex:1a2b, then @reviewer.", "ask @codex:1a2b, then @reviewer.", []string{"codex:1a2b", "reviewer"}},
		{"@reviewer @reviewer twice", "twice", []string{"reviewer"}},
		{"@reviewer", "", []string{"reviewer"}},
		{"mail me at ana@example.com or @ alone", "mail me at ana@example.com or @ alone", nil},
		{"@all everyone", "everyone", []string{"all"}},
	} {
		to, text := parseMentions(tc.line)
		if text != tc.text || !slices.Equal(to, tc.to) {
			t.Errorf("parseMentions(%q) = %q, %q; want %q, %q", tc.line, to, text, tc.to, tc.text)
		}
	}
}

// "@reviewer please look" posts "please look" to reviewer, as typed; the
// note shows with its recipient, the input is cleared, and under the note
// what the room reports of waking the reviewer: not yet, then the wake.
func TestChatPostsToMentionedMembers(t *testing.T) {
	f := room()
	c := newConsole(t, f, noColor)
	c.send("@reviewer please look")
	if p := f.lastPost(t); p.text != "please look" || !slices.Equal(p.to, []string{"reviewer"}) || p.interrupt {
		t.Fatalf("posted %+v", p)
	}
	if c.input.Value() != "" {
		t.Fatalf("the input keeps %q after the post", c.input.Value())
	}
	c.shows("10:00:01 human:ana → reviewer: please look", "    → reviewer: not woken (waiting)")

	// A wake reported before the post says nothing of it.
	f.setStatus(func(st *stick.RoomStatus) {
		early := t0
		st.Members[2].Wake = &stick.WakeStatus{Transports: []string{"claude-inbox"}, LastState: "failed", LastTransport: "claude-inbox", LastAt: &early}
	})
	c.poll()
	c.shows("→ reviewer: not woken (waiting)")
	f.setStatus(func(st *stick.RoomStatus) {
		at := t0.Add(2 * time.Second)
		st.Members[2].Wake = &stick.WakeStatus{Transports: []string{"claude-inbox"}, LastState: "queued", LastTransport: "claude-inbox", LastAt: &at}
	})
	c.poll()
	c.shows("    → reviewer: woken via claude-inbox: queued")

	// A member with no way to be woken is said to be so.
	c.send("@codex:1a2b and you")
	c.shows("human:ana → codex:1a2b: and you", "→ codex:1a2b: not woken (no wake transport; active)")
	// A note to the room has no delivery notices.
	c.send("hello everyone")
	c.shows("10:00:03 human:ana: hello everyone")
	if strings.Count(c.screen(), "not woken") != 1 {
		t.Fatalf("a note to the room got delivery notices:\n%s", c.screen())
	}
}

// A name the room does not know: the room's error, naming the members,
// shows in the status line, and the typed line stays to be corrected.
func TestChatShowsPostErrorsAndKeepsTheLine(t *testing.T) {
	f := room()
	c := newConsole(t, f, noColor)
	c.Update(tea.WindowSizeMsg{Width: 200, Height: 30})
	c.send("@reviewr please look")
	c.shows("unknown_member: no member reviewr in this room; its members are human:ana, codex:1a2b, claude-code:77")
	if got := c.input.Value(); got != "@reviewr please look" {
		t.Fatalf("the input holds %q after the error", got)
	}
	c.lacks("please look\n")

	// A line typed while the refused note was being posted stays, and the
	// error names the note.
	c.input.Reset()
	c.typeText("@nobody hi")
	refused := c.press(enter)
	if c.input.Value() != "" {
		t.Fatalf("the input keeps %q while the note is posted", c.input.Value())
	}
	c.typeText("next line")
	c.Update(refused())
	c.shows("not posted, @nobody hi: unknown_member: no member nobody")
	if got := c.input.Value(); got != "next line" {
		t.Fatalf("the input holds %q, want the line typed since", got)
	}

	// Only @names: nothing to post, said before anything is sent.
	c.input.Reset()
	c.send("@reviewer")
	c.shows("nothing to post: write the note after the @names")
	if n := f.postCount(); n != 2 {
		t.Fatalf("%d posts, want the two refused", n)
	}

	// A read of the room that fails says so, and clears once one works.
	f.eventsErr = errDown
	c.Update(c.readEvents(c.cursor)())
	c.shows("cannot read the room's log: database is down")
	f.eventsErr = nil
	c.poll()
	c.lacks("cannot read the room's log")
	f.statusErr = stick.Errorf(stick.CodeDBBusy, "the database is busy")
	c.Update(c.readStatus()())
	c.shows("cannot read the room: db_busy: the database is busy")
}

// Tab completes an @prefix against the other members' handles and agent
// ids, and cycles through them on repeated Tabs.
func TestChatTabCompletesNames(t *testing.T) {
	f := room()
	f.status.Members = append(f.status.Members, stick.MemberStatus{AgentID: "claude-code:99", Status: stick.MemberActive})
	c := newConsole(t, f, noColor)
	c.typeText("hi @cl")
	var got []string
	for range 3 {
		c.press(tab)
		got = append(got, c.input.Value())
	}
	want := []string{"hi @claude-code:77 ", "hi @claude-code:99 ", "hi @claude-code:77 "}
	if !slices.Equal(got, want) {
		t.Fatalf("Tab, Tab, Tab: %q, want %q", got, want)
	}
	// Typing ends the cycle: the next Tab completes the new word.
	c.typeText("and @RE")
	c.press(tab)
	if got := c.input.Value(); got != "hi @claude-code:77 and @reviewer " {
		t.Fatalf("Tab after typing: %q", got)
	}
	c.typeText("@ana")
	c.press(tab)
	c.shows("no member's handle or agent id starts with @ana")
	c.input.Reset()
	c.typeText("plain")
	c.press(tab)
	c.shows("Tab completes a member's @name")
	if got := c.input.Value(); got != "plain" {
		t.Fatalf("Tab on a plain word changed the input to %q", got)
	}
	// Completing in the middle of the line keeps the rest of it.
	c.input.SetValue("@co look")
	c.input.SetCursor(3)
	c.press(tab)
	if got := c.input.Value(); got != "@codex:1a2b look" {
		t.Fatalf("Tab in the middle: %q", got)
	}
}

// Turn events show compactly and /events hides and shows them; notes and
// handoffs show either way.
func TestChatEventsToggle(t *testing.T) {
	f := room()
	f.add(
		stick.Event{Type: stick.EventJoin, From: "codex:1a2b"},
		stick.Event{Type: stick.EventClaim, From: "codex:1a2b", Reason: "open_claim"},
		stick.Event{Type: stick.EventNote, From: "codex:1a2b", Text: "starting on the parser"},
		stick.Event{Type: stick.EventPass, From: "codex:1a2b", To: "claude-code:77",
			Handoff: &stick.Handoff{Status: "parser done;\ntests pass", NextAction: "review parse.go"}},
		stick.Event{Type: stick.EventTakeover, From: "gemini:9", To: "claude-code:77", Reason: "stale"},
		stick.Event{Type: stick.EventLeave, From: "opencode:3"},
	)
	c := newConsole(t, f, noColor)
	turns := []string{"10:00:01 · codex:1a2b joined", "10:00:02 · codex:1a2b took the stick (open_claim)",
		"10:00:05 · gemini:9 took the stick over from reviewer (stale)", "10:00:06 · opencode:3 left"}
	always := []string{"10:00:03 codex:1a2b: starting on the parser",
		"10:00:04 » codex:1a2b passed the stick to reviewer: parser done; tests pass · next: review parse.go"}
	c.shows(append(turns, always...)...)
	c.send("/events")
	c.shows(always...)
	c.lacks(turns...)
	c.shows("turn events hidden; /events shows them")
	if c.input.Value() != "" || f.postCount() != 0 {
		t.Fatalf("/events left %q in the input or posted", c.input.Value())
	}
	c.send("/events")
	c.shows(append(turns, always...)...)
}

// What members write reaches the screen harmless: the escape sequences
// of a note's text, a sender's id, a handle, a recipient and a reason are
// stripped, their other controls and bidirectional overrides written out
// visibly, and the only escape sequences on the screen are the console's
// own colours.
func TestChatHostileTextMadeHarmless(t *testing.T) {
	evil := "codex:\x1b]0;pwned\x07"
	f := room()
	f.status.Members[1].Handle = "h\x1b[2Jandle"
	f.status.Members = append(f.status.Members, stick.MemberStatus{AgentID: evil, Status: stick.MemberActive})
	text := "before\x1b]0;pwned\x07middle\x1b[2Jafter\x1b[31mred\u009b2J\u202egnp.exe\rforged\x7f\x00 end\nline two\x1b]52;c;cm0=\x1b\\"
	f.add(
		stick.Event{Type: stick.EventNote, From: evil, Text: text, Recipients: []string{"codex:1a2b", "x\x1b[H"}},
		stick.Event{Type: stick.EventRelease, From: evil, Reason: "r\x1b[2J", Handoff: &stick.Handoff{Status: "s\x1b]0;t\x07", NextAction: "n\u202e"}},
	)
	for _, env := range []func(string) string{noColor, colorEnv} {
		c := newConsole(t, f, env)
		c.send("/who")
		s := c.screen()
		for _, want := range []string{
			`beforemiddleafterred\u202egnp.exe\rforged\x7f\x00 end`,
			`    line two`,
			`codex:`, ` handle `, `n\u202e`,
		} {
			if !strings.Contains(stripSGR(s), want) {
				t.Fatalf("the screen lacks %q:\n%s", want, s)
			}
		}
		if r, ok := control(stripSGR(s)); ok {
			t.Fatalf("the screen carries the control %U:\n%q", r, s)
		}
	}
}

// sgr matches a colour or attribute sequence, the console's own mark-up.
var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

func stripSGR(s string) string { return sgr.ReplaceAllString(s, "") }

// control finds a rune a terminal would act on rather than show: C0 but
// newline, DEL, C1, bidirectional controls, line separators.
func control(s string) (rune, bool) {
	for _, r := range s {
		switch {
		case r == '\n':
		case r < 0x20, r >= 0x7f && r <= 0x9f, r == 0x061c, r == 0x200e, r == 0x200f,
			r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x2028, r == 0x2029:
			return r, true
		}
	}
	return 0, false
}

// With NO_COLOR set the console writes no escape sequence at all; without
// it, members' names are coloured by harness.
func TestChatNoColor(t *testing.T) {
	f := room()
	f.add(stick.Event{Type: stick.EventNote, From: "codex:1a2b", Text: "hello", Recipients: []string{"claude-code:77"}, Interrupt: true},
		stick.Event{Type: stick.EventClaim, From: "codex:1a2b"})
	f.status.Owner = "codex:1a2b"
	plain := newConsole(t, f, noColor)
	plain.send("/who")
	plain.typeText("@rev")
	plain.press(tab)
	plain.input.Reset()
	plain.send("/nonsense")
	if s := plain.screen(); strings.Contains(s, "\x1b") {
		t.Fatalf("NO_COLOR: the screen has escape sequences:\n%q", s)
	}
	plain.shows("10:00:01 ! codex:1a2b → reviewer: hello", "unknown command /nonsense")

	coloured := newConsole(t, f, colorEnv)
	s := coloured.screen()
	codex := coloured.pal.member("codex:1a2b", "codex:1a2b")
	if !strings.Contains(codex, "\x1b[") || !strings.Contains(s, codex) {
		t.Fatalf("without NO_COLOR codex's name is not coloured (%q):\n%q", codex, s)
	}
	if reviewer := coloured.pal.member("claude-code:77", "reviewer"); reviewer == codex[:len(reviewer)] || !strings.Contains(s, reviewer) {
		t.Fatalf("claude-code's name is not in a colour of its own (%q):\n%q", reviewer, s)
	}
}

// The footer says who holds the stick and for how long (since the claim
// the console saw), who is next, and who is away or gone.
func TestChatFooter(t *testing.T) {
	f := room()
	f.status.State, f.status.Owner = stick.StateOwned, "codex:1a2b"
	c := newConsole(t, f, noColor)
	// No claim seen: no duration.
	c.shows("held by codex:1a2b · next: reviewer · away: gemini:9 · gone: opencode:3")

	f.add(stick.Event{Type: stick.EventClaim, From: "codex:1a2b"})
	c.poll()
	c.now = t0.Add(81 * time.Second)
	c.shows("held by codex:1a2b for 1m20s · next: reviewer · away: gemini:9 · gone: opencode:3")

	// The reserved recipient is next; the holder's turn role is not.
	f.setStatus(func(st *stick.RoomStatus) { st.ReservedFor = "codex:1a2b"; st.Owner = "claude-code:77" })
	c.poll()
	c.shows("held by reviewer · next: codex:1a2b")

	// Away members take turns too; gone ones do not, and after the last
	// member the sequence starts again, past the console, which takes no
	// turns, and members on standby.
	f.setStatus(func(st *stick.RoomStatus) { st.ReservedFor = ""; st.Owner = "claude-code:77" })
	c.poll()
	c.shows("held by reviewer · next: gemini:9")
	f.setStatus(func(st *stick.RoomStatus) {
		st.Owner = "gemini:9"
		st.Members[0].Standby = false
		st.Members[1].Standby = true
	})
	c.poll()
	c.shows("held by gemini:9 · next: reviewer")
	f.setStatus(func(st *stick.RoomStatus) { st.Members[0].Status = stick.MemberAway })
	c.poll()
	c.lacks("away: human:ana")

	f.setStatus(func(st *stick.RoomStatus) { st.State, st.Owner = stick.StateStaleOwner, "codex:1a2b" })
	c.poll()
	c.shows("held by codex:1a2b for 1m20s · stale_owner · next: reviewer")
	f.setStatus(func(st *stick.RoomStatus) {
		st.State, st.Owner, st.ReservedFor = stick.StateReserved, "", "claude-code:77"
	})
	c.poll()
	c.shows("reserved for reviewer · away: gemini:9")
	f.setStatus(func(st *stick.RoomStatus) { st.State, st.ReservedFor = stick.StateIdle, "" })
	c.poll()
	c.shows("nobody holds the stick · away")
}

// /interrupt posts with interrupt set, and needs a recipient.
func TestChatInterrupt(t *testing.T) {
	f := room()
	c := newConsole(t, f, noColor)
	c.send("/interrupt stop now")
	c.shows("an interrupt needs a recipient: /interrupt @name TEXT")
	if f.postCount() != 0 || c.input.Value() != "/interrupt stop now" {
		t.Fatalf("an interrupt without recipient: %d posts, input %q", f.postCount(), c.input.Value())
	}
	c.input.Reset()
	c.send("/interrupt @reviewer stop now")
	if p := f.lastPost(t); p.text != "stop now" || !slices.Equal(p.to, []string{"reviewer"}) || !p.interrupt {
		t.Fatalf("posted %+v", p)
	}
	c.shows("10:00:01 ! human:ana → reviewer: stop now")
}

// /who lists the members: status, harness, kind, handle, standby, wake.
func TestChatWho(t *testing.T) {
	f := room()
	f.status.Members[1].TurnRole = "holder"
	c := newConsole(t, f, noColor)
	c.Update(tea.WindowSizeMsg{Width: 120, Height: 30})
	c.send("/who")
	c.shows("members, in turn order:")
	for _, row := range [][]string{
		{"human:ana (you)", "-", "active", "human", "one_shot", "yes"},
		{"codex:1a2b", "-", "active, holder", "codex", "mcp_harness", "-", "-", "codex 0.9"},
		{"claude-code:77", "reviewer", "active", "claude-code", "mcp_harness", "-", "claude-inbox", "claude-code 2.1"},
		{"gemini:9", "-", "away", "gemini"},
		{"opencode:3", "-", "gone", "opencode"},
	} {
		if !regexp.MustCompile(`(?m)^  ` + regexp.QuoteMeta(row[0]) + ` .*` + strings.Join(quoteAll(row[1:]), " .*")).MatchString(c.screen()) {
			t.Fatalf("/who lacks a row with %q:\n%s", row, c.screen())
		}
	}
	c.send("/help")
	c.shows("/interrupt @name TEXT", "/events", "/quit")
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = regexp.QuoteMeta(s)
	}
	return out
}

// /quit, Ctrl+C, and Ctrl+D on an empty line quit; Ctrl+D with text does not.
func TestChatQuit(t *testing.T) {
	c := newConsole(t, room(), noColor)
	if !quits(c.press(ctrlC)) || !quits(c.press(ctrlD)) {
		t.Fatal("Ctrl+C or Ctrl+D on an empty line does not quit")
	}
	c.typeText("draft")
	if quits(c.press(ctrlD)) {
		t.Fatal("Ctrl+D with text quits")
	}
	c.input.Reset()
	c.typeText("/quit")
	if !quits(c.press(enter)) {
		t.Fatal("/quit does not quit")
	}

	// /quit while a note is being posted waits for the post.
	f := room()
	c = newConsole(t, f, noColor)
	c.typeText("last words")
	posting := c.press(enter)
	c.typeText("/quit")
	if cmd := c.press(enter); cmd != nil {
		t.Fatal("/quit during a post does not wait for it")
	}
	c.shows("leaving once the note is posted")
	_, after := c.Update(posting())
	if !quits(after) || f.lastPost(t).text != "last words" {
		t.Fatalf("the post before /quit: %+v, quits %v", f.lastPost(t), quits(after))
	}
}

// A note of several lines shows its lines indented under the first, and a
// line longer than the screen wraps.
func TestChatLayout(t *testing.T) {
	f := room()
	f.add(stick.Event{Type: stick.EventNote, From: "codex:1a2b", Text: "first\nsecond\tcolumn"})
	c := newConsole(t, f, noColor)
	c.shows("10:00:01 codex:1a2b: first\n    second    column\n")
	lines := strings.Split(c.screen(), "\n")
	if len(lines) != 30 || !strings.HasPrefix(lines[0], "stick chat · room at /src/app · you are human:ana") || !strings.HasPrefix(lines[29], "> ") {
		t.Fatalf("the screen is not 30 lines of header, conversation, footer and input:\n%s", c.screen())
	}
	c.send(strings.Repeat("word ", 40) + "end")
	for _, l := range strings.Split(c.screen(), "\n") {
		if w := len([]rune(l)); w > 100 {
			t.Fatalf("a line of %d runes on a screen 100 wide: %q", w, l)
		}
	}
	c.shows("end")

	// A screen too small for the console still gets a view.
	for _, size := range [][2]int{{10, 4}, {1, 1}} {
		c.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		if s := c.screen(); !strings.HasPrefix(s, "stick") && !strings.HasPrefix(s, "…") {
			t.Fatalf("a %dx%d screen: %q", size[0], size[1], s)
		}
	}
}
