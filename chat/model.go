package chat

import (
	"context"
	"errors"
	"os"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// Defaults of Options.
const (
	// DefaultPoll is how often the console reads the room's status again:
	// the footer's clock and the delivery notices follow it.
	DefaultPoll = time.Second
	// DefaultWait is how long one read of the log waits for news before
	// it asks again.
	DefaultWait = 30 * time.Second
)

// retryAfter is how long the console waits before it reads the log again
// after a read failed.
const retryAfter = 2 * time.Second

// maxEntries bounds the conversation the console keeps; older lines go.
const maxEntries = 2000

// Options tune the console.
type Options struct {
	// Where says in the header which room this is, after "room": "at
	// PATH" or "named NAME" (see stick.Where).
	Where string
	// Getenv reads the environment (NO_COLOR); os.Getenv when nil.
	Getenv func(string) string
	// Now is the clock of the footer's "held for"; time.Now when nil.
	Now func() time.Time
	// Location is the zone the times of events are shown in; time.Local
	// when nil.
	Location *time.Location
	// Poll is how often the room's status is read again; DefaultPoll when 0.
	Poll time.Duration
	// Wait is how long one read of the log waits for news; DefaultWait when 0.
	Wait time.Duration
}

// Model is the console: a Bubble Tea model over a Backend. Run it with
// tea.NewProgram; it quits on /quit, Ctrl+C, or Ctrl+D on an empty line.
type Model struct {
	ctx  context.Context
	b    Backend
	opt  Options
	self string
	loc  *time.Location
	pal  palette

	width, height int
	input         textinput.Model
	comp          *completion
	scroll        int // lines scrolled back from the newest

	entries    []entry
	cursor     int64 // the log's cursor: the last event read
	showTurns  bool
	granted    grant
	deliveries map[int64][]*delivery

	status     stick.RoomStatus
	haveStatus bool
	members    map[string]stick.MemberStatus
	reading    bool // a read of the status is under way

	notice    string // what the last command said, made safe
	noticeBad bool   // notice is an error
	linkErr   string // why the last read of the room failed, made safe
	sending   string // the line being posted, "" when none
	quitting  bool   // /quit waits for the note being posted
}

// entry is one item of the conversation: an event of the log, or lines
// the console wrote itself (/who, /help), already safe.
type entry struct {
	event *stick.Event
	local []string
}

// The messages the console's commands send back to Update.
type (
	statusMsg struct {
		st  stick.RoomStatus
		err error
	}
	eventsMsg struct {
		events []stick.Event
		next   int64
		err    error
	}
	postedMsg struct {
		line string
		res  stick.PostResult
		err  error
	}
	tickMsg      struct{}
	readAgainMsg struct{}
)

// New makes the console of the room b reaches; ctx bounds every call of
// b, and ends the read of the log under way when it ends.
func New(ctx context.Context, b Backend, opt Options) *Model {
	if opt.Getenv == nil {
		opt.Getenv = os.Getenv
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	if opt.Location == nil {
		opt.Location = time.Local
	}
	if opt.Poll <= 0 {
		opt.Poll = DefaultPoll
	}
	if opt.Wait <= 0 {
		opt.Wait = DefaultWait
	}
	m := &Model{ctx: ctx, b: b, opt: opt, self: b.Self(), loc: opt.Location, pal: palette{on: opt.Getenv("NO_COLOR") == ""},
		showTurns: true, deliveries: map[int64][]*delivery{}, members: map[string]stick.MemberStatus{}}
	in := textinput.New()
	in.Prompt = "> "
	in.Placeholder = "a note to the room; @name addresses a member; /help lists the commands"
	plain := lipgloss.NewStyle()
	st := textinput.Styles{Focused: textinput.StyleState{Text: plain, Placeholder: plain, Suggestion: plain, Prompt: plain}}
	if m.pal.on {
		st.Focused.Placeholder = plain.Faint(true)
		st.Focused.Prompt = plain.Bold(true)
	}
	st.Blurred = st.Focused
	st.Cursor = textinput.CursorStyle{Shape: tea.CursorBar}
	in.SetStyles(st)
	in.SetVirtualCursor(false)
	in.CharLimit = stick.MaxNoteLen
	in.Focus()
	m.input = in
	return m
}

// Init starts the reads of the room: its status, its log, and the clock
// that reads the status again.
func (m *Model) Init() tea.Cmd {
	m.reading = true
	return tea.Batch(m.readStatus(), m.readEvents(0), m.tick())
}

func (m *Model) now() time.Time { return m.opt.Now() }

// readStatus reads the room's status.
func (m *Model) readStatus() tea.Cmd {
	return func() tea.Msg {
		st, err := m.b.Status(m.ctx)
		return statusMsg{st: st, err: err}
	}
}

// readEvents reads the log after the cursor after, waiting for news.
func (m *Model) readEvents(after int64) tea.Cmd {
	wait := m.opt.Wait
	return func() tea.Msg {
		evs, next, err := m.b.Events(m.ctx, after, wait)
		return eventsMsg{events: evs, next: next, err: err}
	}
}

// tick is the clock that reads the status again and redraws the footer.
func (m *Model) tick() tea.Cmd {
	return tea.Tick(m.opt.Poll, func(time.Time) tea.Msg { return tickMsg{} })
}

// refresh reads the status again, unless a read is under way.
func (m *Model) refresh() tea.Cmd {
	if m.reading {
		return nil
	}
	m.reading = true
	return m.readStatus()
}

// Update handles a key, a size, or what a read of the room returned.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		return m, nil
	case tea.KeyPressMsg:
		return m, m.key(msg)
	case tea.PasteMsg:
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		m.comp = nil
		return m, cmd
	case statusMsg:
		m.reading = false
		if msg.err != nil {
			if m.ctx.Err() == nil {
				m.linkErr = "cannot read the room: " + errText(msg.err)
			}
			return m, nil
		}
		m.linkErr = ""
		m.setStatus(msg.st)
		return m, nil
	case eventsMsg:
		return m, m.gotEvents(msg)
	case readAgainMsg:
		return m, m.readEvents(m.cursor)
	case postedMsg:
		return m, m.posted(msg)
	case tickMsg:
		return m, tea.Batch(m.tick(), m.refresh())
	}
	return m, nil
}

// setStatus keeps a status the room reported, and what it says of the
// deliveries under way.
func (m *Model) setStatus(st stick.RoomStatus) {
	m.status, m.haveStatus = st, true
	m.members = make(map[string]stick.MemberStatus, len(st.Members))
	for _, mem := range st.Members {
		m.members[mem.AgentID] = mem
	}
	m.observe()
}

// gotEvents adds the events a read of the log returned and reads on.
func (m *Model) gotEvents(msg eventsMsg) tea.Cmd {
	if msg.err != nil {
		if m.ctx.Err() != nil {
			return nil
		}
		m.linkErr = "cannot read the room's log: " + errText(msg.err)
		return tea.Tick(retryAfter, func(time.Time) tea.Msg { return readAgainMsg{} })
	}
	if strings.HasPrefix(m.linkErr, "cannot read the room's log") {
		m.linkErr = ""
	}
	for _, e := range msg.events {
		if e.Seq <= m.cursor {
			continue
		}
		m.cursor = e.Seq
		if e.Type == stick.EventClaim || e.Type == stick.EventTakeover {
			m.granted = grant{agent: e.From, at: e.CreatedAt}
		}
		m.add(entry{event: &e})
	}
	m.cursor = max(m.cursor, msg.next)
	if len(msg.events) > 0 {
		return tea.Batch(m.readEvents(m.cursor), m.refresh())
	}
	return m.readEvents(m.cursor)
}

// add appends e to the conversation, dropping the oldest entries past
// maxEntries.
func (m *Model) add(e entry) {
	m.entries = append(m.entries, e)
	if over := len(m.entries) - maxEntries; over > 0 {
		for _, old := range m.entries[:over] {
			if old.event != nil {
				delete(m.deliveries, old.event.Seq)
			}
		}
		m.entries = slices.Delete(m.entries, 0, over)
	}
}

// say sets the notice line: what a command did, or (bad) why it failed.
func (m *Model) say(s string, bad bool) {
	m.notice, m.noticeBad = s, bad
}

// key handles a key press.
func (m *Model) key(k tea.KeyPressMsg) tea.Cmd {
	switch k.String() {
	case "ctrl+c":
		return tea.Quit
	case "ctrl+d":
		if m.input.Value() == "" {
			return tea.Quit
		}
	case "tab":
		m.complete()
		return nil
	case "enter":
		m.comp = nil
		return m.submit()
	case "pgup":
		m.scroll += max(m.bodyHeight()/2, 1)
		return nil
	case "pgdown":
		m.scroll = max(m.scroll-max(m.bodyHeight()/2, 1), 0)
		return nil
	}
	m.comp = nil
	var cmd tea.Cmd
	m.input, cmd = m.input.Update(k)
	return cmd
}

// complete completes the @name before the cursor (see completeAt).
func (m *Model) complete() {
	c, value, pos, why := completeAt(m.input.Value(), m.input.Position(), m.comp, m.candidates())
	m.comp = c
	if c == nil {
		m.say(why, false)
		return
	}
	m.input.SetValue(value)
	m.input.SetCursor(pos)
	m.say("", false)
}

// candidates are the names Tab completes: every other member's handle and
// agent id, sorted.
func (m *Model) candidates() []string {
	var out []string
	for _, mem := range m.status.Members {
		if mem.AgentID == m.self {
			continue
		}
		if mem.Handle != "" {
			out = append(out, mem.Handle)
		}
		out = append(out, mem.AgentID)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// submit runs the line typed: a command, or a note to post.
func (m *Model) submit() tea.Cmd {
	line := strings.TrimSpace(m.input.Value())
	switch {
	case line == "":
		return nil
	case strings.HasPrefix(line, "/"):
		return m.command(line)
	}
	to, text := parseMentions(line)
	if text == "" {
		m.say("nothing to post: write the note after the @names", true)
		return nil
	}
	return m.post(line, text, to, false)
}

// post posts text to the room. line, what the user typed, leaves the
// input, which is free for the next line at once, and comes back to it if
// the room refuses the note. One note is posted at a time.
func (m *Model) post(line, text string, to []string, interrupt bool) tea.Cmd {
	if m.sending != "" {
		m.say("still posting the last note; press Enter again once it is posted", true)
		return nil
	}
	m.sending = line
	m.input.Reset()
	m.say("posting…", false)
	return func() tea.Msg {
		res, err := m.b.Post(m.ctx, text, to, interrupt)
		return postedMsg{line: line, res: res, err: err}
	}
}

// posted handles the end of a post: the error, with the line back in the
// input to be corrected (unless the user has typed another since: the
// error then names it), or the deliveries started; then the quit that
// waited for it.
func (m *Model) posted(msg postedMsg) tea.Cmd {
	m.sending = ""
	if msg.err != nil {
		if m.input.Value() == "" {
			m.input.SetValue(msg.line)
			m.input.CursorEnd()
			m.say(errText(msg.err), true)
		} else {
			m.say("not posted, "+render.Line(msg.line)+": "+errText(msg.err), true)
		}
		if m.quitting {
			return tea.Quit
		}
		return m.refresh()
	}
	m.say("", false)
	if e := msg.res.Event; !msg.res.Duplicate && len(e.Recipients) > 0 {
		m.deliveries[e.Seq] = deliveriesOf(e)
		m.observe()
	}
	if m.quitting {
		return tea.Quit
	}
	return m.refresh()
}

// quit ends the program, once the note being posted, if any, is posted.
func (m *Model) quit() tea.Cmd {
	if m.sending == "" {
		return tea.Quit
	}
	m.quitting = true
	m.say("leaving once the note is posted…", false)
	return nil
}

// errText is an error as the console shows it, made safe: the code, the
// message and the hint of a stick error.
func errText(err error) string {
	var se *stick.Error
	if !errors.As(err, &se) {
		return render.Line(err.Error())
	}
	s := render.Line(string(se.Code)) + ": " + render.Line(se.Message)
	if se.Hint != "" {
		s += " (" + render.Line(se.Hint) + ")"
	}
	return s
}

// View draws the console: a header, the conversation, the room's status,
// the notice line and the input.
func (m *Model) View() tea.View {
	w, h := m.size()
	header := m.pal.bold("stick chat") + m.pal.dim(" · ") + "room " + render.Line(m.opt.Where) + m.pal.dim(" · you are ") + m.name(m.self)
	bottom := []string{m.fit(m.footer(), w)}
	for _, n := range m.notices() {
		bottom = append(bottom, wrap(n, w)...)
	}
	bottom = append(bottom, m.input.View())
	bodyH := max(h-1-len(bottom), 0)
	lines := append(append([]string{m.fit(header, w)}, m.body(w, bodyH)...), bottom...)
	v := tea.NewView(strings.Join(lines, "\n"))
	v.AltScreen = true
	if c := m.input.Cursor(); c != nil {
		c.Y = len(lines) - 1
		v.Cursor = c
	}
	return v
}

// size is the terminal's size, 80×24 until the program is told it.
func (m *Model) size() (w, h int) {
	w, h = m.width, m.height
	if w <= 0 {
		w = 80
	}
	if h <= 0 {
		h = 24
	}
	m.input.SetWidth(max(w-3, 1))
	return w, h
}

// bodyHeight is how many lines of the conversation the screen shows.
func (m *Model) bodyHeight() int {
	_, h := m.size()
	return max(h-3-len(m.notices()), 1)
}

// notices are the lines above the input: why a read of the room failed,
// and what the last command said.
func (m *Model) notices() []string {
	var out []string
	if m.linkErr != "" {
		out = append(out, m.pal.bad(m.linkErr))
	}
	switch {
	case m.notice != "" && m.noticeBad:
		out = append(out, m.pal.bad(m.notice))
	case m.notice != "":
		out = append(out, m.pal.dim(m.notice))
	}
	return out
}

// body is the newest h lines of the conversation (less m.scroll), each at
// most w wide, blank lines above them when there are fewer.
func (m *Model) body(w, h int) []string {
	var lines []string
	want := h + m.scroll
	for i := len(m.entries) - 1; i >= 0 && len(lines) < want; i-- {
		var el []string
		for _, l := range m.entryLines(m.entries[i]) {
			el = append(el, wrap(l, w)...)
		}
		lines = append(el, lines...)
	}
	m.scroll = min(m.scroll, max(len(lines)-h, 0))
	end := len(lines) - m.scroll
	lines = lines[max(end-h, 0):end]
	if pad := h - len(lines); pad > 0 {
		lines = append(make([]string, pad), lines...)
	}
	return lines
}

// entryLines is what the conversation shows of an entry.
func (m *Model) entryLines(e entry) []string {
	if e.event != nil {
		return m.eventLines(*e.event)
	}
	return e.local
}

// fit cuts s to the width w.
func (m *Model) fit(s string, w int) string { return ansi.Truncate(s, w, "…") }

// wrap breaks s into lines at most w wide.
func wrap(s string, w int) []string {
	return strings.Split(lipgloss.Wrap(s, w, ""), "\n")
}
