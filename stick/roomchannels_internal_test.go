package stick

import (
	"reflect"
	"testing"
)

// A room offers DefaultChannel first, as its project declares it or as
// stick describes it, then the declared channels in order, or
// DefaultChannels when it declares none.
func TestRoomChannels(t *testing.T) {
	review := ChannelSpec{Name: "review", Description: "Reviews", MaxMessages: 100}
	general := ChannelSpec{Name: DefaultChannel, Description: "Our own words", MaxBytes: 4096}
	ci := ChannelSpec{Name: "ci", Description: "CI"}
	for _, tc := range []struct {
		name     string
		declared []ChannelSpec
		want     []ChannelSpec
	}{
		{"none", nil, append([]ChannelSpec{generalChannel}, DefaultChannels()...)},
		{"an empty list", []ChannelSpec{}, append([]ChannelSpec{generalChannel}, DefaultChannels()...)},
		{"two", []ChannelSpec{review, ci}, []ChannelSpec{generalChannel, review, ci}},
		{"the default one among them", []ChannelSpec{review, general, ci}, []ChannelSpec{general, review, ci}},
		{"the default one alone", []ChannelSpec{general}, []ChannelSpec{general}},
	} {
		if got := roomChannels(tc.declared); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %+v, want %+v", tc.name, got, tc.want)
		}
	}
	if generalChannel.Name != DefaultChannel || generalChannel.Description == "" {
		t.Errorf("the default channel as stick describes it: %+v", generalChannel)
	}
}
