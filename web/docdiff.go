package web

import (
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/stickhq/stick/internal/linediff"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// diffRow is one line of a diff between two versions of a document, as
// the page shows it: a kept line (Kind "ctx"), a removed one ("del"), an
// added one ("add"), the head of a run of changes ("hunk"), or diff's
// note that the line above ends without a newline ("note"). Mark is the
// line's marker ("+", "-" or a space), so the diff reads without colour;
// Old and New are the line's numbers in each version, 0 where it has
// none.
type diffRow struct {
	Kind, Mark, Text string
	Old, New         int
}

// diffRows is the diff that turns oldText into newText, from the
// project's line diff (linediff.Unified, three kept lines around each
// change), its texts made safe with render.Text; nil when they are equal.
func diffRows(oldText, newText string) []diffRow {
	unified := linediff.Unified("old", "new", oldText, newText)
	if unified == "" {
		return nil
	}
	lines := strings.Split(strings.TrimSuffix(unified, "\n"), "\n")
	var rows []diffRow
	oldAt, newAt := 0, 0
	for _, l := range lines[2:] { // the two header lines name the texts
		if l == "" {
			continue
		}
		text := render.Text(l[1:])
		switch l[0] {
		case '@':
			oldAt, newAt = hunkStarts(l)
			rows = append(rows, diffRow{Kind: "hunk", Text: render.Text(l)})
		case '\\':
			rows = append(rows, diffRow{Kind: "note", Text: strings.TrimSpace(text)})
		case '-':
			rows = append(rows, diffRow{Kind: "del", Mark: "-", Text: text, Old: oldAt})
			oldAt++
		case '+':
			rows = append(rows, diffRow{Kind: "add", Mark: "+", Text: text, New: newAt})
			newAt++
		default:
			rows = append(rows, diffRow{Kind: "ctx", Mark: " ", Text: text, Old: oldAt, New: newAt})
			oldAt++
			newAt++
		}
	}
	return rows
}

// hunkStarts reads the first line numbers of both texts from a hunk's
// head, "@@ -a,b +c,d @@"; a range of no lines names the line before it.
func hunkStarts(head string) (int, int) {
	f := strings.Fields(head)
	if len(f) < 3 {
		return 0, 0
	}
	start := func(r string) int {
		r = r[1:]
		n, count, _ := strings.Cut(r, ",")
		v, _ := strconv.Atoi(n)
		if count == "0" {
			v++
		}
		return v
	}
	return start(f[1]), start(f[2])
}

// diffBody is the body of the page of a diff between two versions.
type diffBody struct {
	Room     roomRef
	From, To versionRow
	Rows     []diffRow
	// Added and Removed count the lines each way.
	Added, Removed int
	// History is every version, newest first, for the form that picks two.
	History []versionRow
}

// serveDocDiff shows what changed in a room's document from version
// ?from=A to version ?to=B, either way round (0 is the empty document
// before the first write; by default the newest version against the one
// before it), with a form to pick two others.
func (h *Handler) serveDocDiff(w http.ResponseWriter, r *http.Request) {
	v, err := h.who(w, r)
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	from, ok := h.versionParam(w, r, "from")
	if !ok {
		return
	}
	to, ok := h.versionParam(w, r, "to")
	if !ok {
		return
	}
	svc := h.cfg.ServiceFor(v.principal)
	ctx := r.Context()
	room, hist, err := docRoom(ctx, svc, r.PathValue("room_id"))
	if err != nil {
		h.failErr(w, r, err)
		return
	}
	newest := newestVersion(hist)
	q := r.URL.Query()
	if !q.Has("to") || q.Get("to") == "" {
		to = newest
	}
	if !q.Has("from") || q.Get("from") == "" {
		from = max(to-1, 0)
	}
	for _, n := range []int64{from, to} {
		if n > newest {
			h.noVersion(w, r, room, n, newest)
			return
		}
	}
	texts := map[int64]string{0: ""}
	for _, n := range []int64{from, to} {
		if _, ok := texts[n]; ok {
			continue
		}
		d, err := svc.ReadDoc(ctx, room.ID, n)
		if err != nil {
			h.failErr(w, r, err)
			return
		}
		texts[n] = d.Content
	}
	body := diffBody{Room: room, From: versionOf(hist, from, newest), To: versionOf(hist, to, newest),
		Rows: diffRows(texts[from], texts[to]), History: historyRows(hist, -1)}
	for _, row := range body.Rows {
		switch row.Kind {
		case "add":
			body.Added++
		case "del":
			body.Removed++
		}
	}
	h.show(w, r, http.StatusOK, "docdiff", v, fmt.Sprintf("Version %d to %d of the document of %s", from, to, room.Name), body)
}

// versionOf is the row of version n of history hist; version 0 is the
// empty document before the first write.
func versionOf(hist []stick.DocVersion, n, newest int64) versionRow {
	for _, v := range hist {
		if v.Version == n {
			return versionRowOf(v, newest, -1)
		}
	}
	return versionRow{Version: n, Current: n == newest}
}
