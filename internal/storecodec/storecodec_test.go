package storecodec

import (
	"reflect"
	"testing"
	"time"

	"github.com/stickhq/stick/stick"
)

func TestLists(t *testing.T) {
	for _, names := range [][]string{nil, {"claude-code:1a2b"}, {"codex:9", "human:ana", "x"}} {
		if got := SplitList(JoinList(names)); !reflect.DeepEqual(got, names) {
			t.Errorf("%q read back as %q", names, got)
		}
	}
	if got := JoinList([]string{}); got != "" {
		t.Errorf("an empty list encodes as %q, want \"\"", got)
	}
}

// Declarations read back as written, whichever the codec saw last, and
// a caller that changes what it got changes nobody else's.
func TestChannels(t *testing.T) {
	a := []stick.ChannelSpec{{Name: "review", Description: "Reviews", MaxMessages: 50, MaxBytes: 4096, MaxAge: 36 * time.Hour}}
	b := []stick.ChannelSpec{{Name: "ci", Description: "CI"}, {Name: "general", Description: "All the rest"}}
	for _, specs := range [][]stick.ChannelSpec{nil, {}} {
		if s, err := EncodeChannels(specs); s != "" || err != nil {
			t.Fatalf("no declarations encode as %q %v, want \"\"", s, err)
		}
	}
	if got, err := DecodeChannels(""); got != nil || err != nil {
		t.Fatalf("\"\" decodes as %+v %v, want nil", got, err)
	}
	ja, err := EncodeChannels(a)
	if err != nil {
		t.Fatal(err)
	}
	jb, err := EncodeChannels(b)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		for _, tc := range []struct {
			json string
			want []stick.ChannelSpec
		}{{ja, a}, {jb, b}, {jb, b}} {
			got, err := DecodeChannels(tc.json)
			if err != nil || !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("round %d: %s decodes as %+v %v, want %+v", i, tc.json, got, err, tc.want)
			}
			got[0].Name = "changed"
		}
	}
	if again, _ := EncodeChannels(a); again != ja {
		t.Fatalf("a encodes as %s, then as %s", ja, again)
	}
	if _, err := DecodeChannels("{not json"); err == nil {
		t.Fatal("bad JSON decoded without an error")
	}
}
