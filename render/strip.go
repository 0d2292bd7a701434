package render

import "regexp"

// escapes matches the terminal escape sequences a text may carry: control
// sequences (CSI, 7-bit and 8-bit), operating system commands and the
// other control strings (DCS, SOS, PM, APC) up to their terminator or the
// end of the text, and the two-character escapes.
var escapes = regexp.MustCompile(
	"\x1b\\[[0-?]*[ -/]*[@-~]?|\u009b[0-?]*[ -/]*[@-~]?" +
		"|(?:\x1b[\\]PX^_]|[\u0090\u0098\u009d\u009e\u009f])(?:[^\x07\x1b\u009c]*)(?:\x07|\x1b\\\\|\u009c)?" +
		"|\x1b[ -~]?")

// StripEscapes removes the terminal escape sequences of s, whole, so that
// what a terminal would act on is not even shown; the other controls are
// left for Line or Text to write out.
func StripEscapes(s string) string { return escapes.ReplaceAllString(s, "") }
