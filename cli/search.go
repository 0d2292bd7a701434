package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/stickhq/stick/render"
	"github.com/stickhq/stick/stick"
)

// newSearch is 'stick search': full-text search over every room's log and
// documents.
func newSearch(agent *string) *cobra.Command {
	var asJSON bool
	var q stick.SearchQuery
	cmd := &cobra.Command{
		Use:   "search QUERY... [--room ROOM_ID|PATH] [--type T] [--from AGENT] [--limit N]",
		Short: "Search notes, handoffs, conclusions and documents of every room, best match first",
		Long: `Search every room's log (notes, handoffs' status, next action and open
questions, close reasons and conclusions) and the paragraphs of each room's
current document, best match first; --room searches one room, given by its id
or by a path in its workspace. A document is searched as it stands now: its
earlier versions and the log's records of document writes are not. No
membership is needed; closed rooms are searched too.

The words of QUERY must all appear, in any form that has the same stem:
"migration" also finds migrations and "parser" parsers, but "parse" does not
find parser (a different word): "pars*" finds every word that begins so.
"exact phrase" (in quotes, quoted again for the shell) finds the words in
order, and OR between two words either of them. A prefix matches the words
as written: migration* finds migrations but not migrate, which only shares
the stem. --type keeps one kind of hit: a note's type (note, question, answer,
decision, or a custom x-... type), an event type (release, pass, close) or
document; any other type is refused.`,
		Example: "  stick search flaky test\n" +
			"  stick search '\"error recovery\"' --type release\n" +
			"  stick search parser OR lexer --from codex:9b22ce --limit 5\n" +
			"  stick search decision* --room room_7b64e0c2a1f3d9b8 --json\n" +
			"  stick search migration --room ~/src/app   # the room of that path",
		Args: needs(1, -1, "QUERY, the words to search for"),
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]cobra.Completion, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveNoFileComp
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			q.Query = strings.Join(args, " ")
			return withSession(*agent, func(s *session) error {
				if cmd.Flags().Changed("room") {
					r, err := s.resolveRoom(cmd.Context(), q.RoomID)
					if err != nil {
						return err
					}
					q.RoomID = r.RoomID
				}
				hits, err := s.svc.Search(cmd.Context(), q)
				if err != nil {
					return err
				}
				p := newPrinter(cmd.OutOrStdout(), asJSON)
				if asJSON {
					return p.JSON(hits)
				}
				if len(hits) == 0 {
					fmt.Fprintf(p.w, "no matches for %s; try fewer words, a prefix such as pars*, or OR between words\n", render.Line(q.Query))
					return nil
				}
				now := time.Now()
				for i, h := range hits {
					if i > 0 {
						fmt.Fprintln(p.w)
					}
					printHit(p, h, now)
				}
				return nil
			})
		},
	}
	addJSON(cmd, &asJSON)
	f := cmd.Flags()
	f.StringVar(&q.RoomID, "room", "", "search only this room: its id or name, as 'stick list' shows them, or a path in its workspace")
	f.StringVar(&q.Type, "type", "", "only hits of this kind: "+strings.Join(stick.SearchTypes, ", ")+", or a custom note type (x-...)")
	f.StringVar(&q.From, "from", "", "only hits written by this member")
	f.IntVar(&q.Limit, "limit", 0, "show at most this many hits "+pageRange(stick.DefaultSearchLimit, stick.MaxSearchLimit))
	return cmd
}

// printHit writes one search hit: where it is, what and whose it is, when,
// and its snippet with the matches in bold on a terminal.
func printHit(p *printer, h stick.SearchHit, now time.Time) {
	h.RoomPath, h.Section, h.Type, h.From = render.Line(pathCell(h.RoomPath, h.RoomName)), render.Line(h.Section), render.Line(h.Type), render.Line(h.From)
	h.Snippet = render.Text(h.Snippet)
	at := fmt.Sprintf("#%d", h.EventSeq)
	if h.EventSeq == 0 {
		at = fmt.Sprintf("doc v%d", h.DocVersion)
		if h.Section != "" {
			at += ", " + h.Section
		}
	}
	fmt.Fprintf(p.w, "%s  %s  %s  %s  %s\n", h.RoomPath, p.Bold(at), h.Type, render.Dash(h.From), render.Ago(now, h.CreatedAt))
	for _, l := range strings.Split(strings.TrimRight(highlight(p, h.Snippet), "\n"), "\n") {
		fmt.Fprintln(p.w, strings.TrimRight("  "+l, " "))
	}
}

// highlight shows the matches of a snippet (stick.SplitSnippet) in bold
// when colours are on, and an escaped "**" of the text as "**". Without
// colours the snippet stays as stick returns it: markdown, in which both
// read as they should. A marker without its closing one stays as it is.
func highlight(p *printer, snippet string) string {
	if !p.color {
		return snippet
	}
	var out strings.Builder
	for _, part := range stick.SplitSnippet(snippet) {
		if part.Match {
			out.WriteString(p.Bold(part.Text))
		} else {
			out.WriteString(part.Text)
		}
	}
	return out.String()
}
