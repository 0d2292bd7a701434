package mcpserver

import "testing"

func TestInvalidUTF8Field(t *testing.T) {
	for _, tc := range []struct {
		raw, field string
		bad        bool
	}{
		{`{"text":"plain","n":1}`, "", false},
		{`{"text":"pair \ud83d\ude00 ok","k":"\\ud800 is text"}`, "", false},
		{"{\"text\":\"a \xff\"}", "text", true},
		{`{"a":"x","outbox":[{"text":"ok"},{"text":"\ud800"}]}`, "outbox[1].text", true},
		{`{"m":{"k":["x",{"deep":"\uDFFF"}]}}`, "m.k[1].deep", true},
		{"{\"ke\xffy\":1}", "key", true},       // the key as printable text
		{"{\"\xff\":\"\"}", "arguments", true}, // a key with nothing printable
		{"{\"m\":{\"\xff\":1}}", "m", true},
		{"{\"\": \"0\xff\"}", "arguments", true}, // a value under an empty key
		{`["\ud800"]`, "[0]", true},
		{`"\ud800"`, "arguments", true},
	} {
		field, bad := invalidUTF8Field([]byte(tc.raw))
		if field != tc.field || bad != tc.bad {
			t.Errorf("%q: got %q %v, want %q %v", tc.raw, field, bad, tc.field, tc.bad)
		}
	}
}
