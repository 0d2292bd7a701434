// Package render writes what a room holds (events, handoffs, the
// document, transcripts, member ids, paths, search snippets) as text,
// for every frontend: the CLI's terminal output and markdown export, the
// text of MCP tool results, and next the web page. Frontends decide what
// to show; this package decides how a domain value reads.
//
// It has four parts:
//
//   - Text safe to show ([Line], [Text] and the Safe functions such as
//     [SafeEvent]): what a terminal would act on instead of show is written
//     out visibly. The CLI prints a room's text through them; JSON needs no
//     more than its own escaping.
//   - What the CLI's commands show ([WriteEvent], [WriteHandoff],
//     [WriteState], [WriteTable]), marked up by a [Style] that the frontend
//     injects: the CLI's printer knows whether its terminal shows colours.
//   - The export of a room: as markdown ([Markdown]), whose own structure
//     is the only text at the start of a line, and as JSON for tools
//     ([TranscriptJSON]).
//   - The plain text of MCP tool results ([PlainHandoff], [PlainEvents],
//     [PlainDocument]), read by a model rather than shown by a terminal:
//     it carries the room's text as it is.
//
// What [Line] and [Text] write out, the way Go writes a string literal, so a
// reader still sees that it was there:
//
//   - \n and \t as `\n` and `\t` in a single line (Line); kept in a text
//     of several lines (Text), where a CR right before a newline is dropped;
//   - any other C0 control, DEL and a lone CR as `\r` or `\xNN` (ESC is `\x1b`,
//     BEL `\x07`, backspace `\x08`, DEL `\x7f`), so no escape sequence (CSI, OSC
//     window titles, OSC 52 clipboard writes, OSC 8 links) and no carriage
//     return reaches the terminal;
//   - the C1 controls U+0080–U+009F (U+009B is a one-character CSI) as `\u009b`;
//   - the bidirectional controls (U+061C, U+200E, U+200F, U+202A–U+202E,
//     U+2066–U+2069) and the line and paragraph separators U+2028, U+2029 as
//     `\u202e` and so on, so text cannot be made to read in another order;
//   - a byte that is not valid UTF-8 as `\xNN`.
//
// Everything else passes unchanged: letters of every script, emoji (joiners
// included), punctuation, and the backslash itself, which is not doubled:
// the output is for reading, not for parsing back.
package render
