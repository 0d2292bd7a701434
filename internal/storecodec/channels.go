package storecodec

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync/atomic"

	"github.com/stickhq/stick/stick"
)

// channelsEntry is one declaration list with its JSON.
type channelsEntry struct {
	json  string
	specs []stick.ChannelSpec
}

// lastChannels is the list EncodeChannels or DecodeChannels saw last.
var lastChannels atomic.Pointer[channelsEntry]

// EncodeChannels returns the JSON of a room's channel declarations, ""
// when it declares none (nil and empty alike).
func EncodeChannels(specs []stick.ChannelSpec) (string, error) {
	if len(specs) == 0 {
		return "", nil
	}
	if last := lastChannels.Load(); last != nil && slices.Equal(last.specs, specs) {
		return last.json, nil
	}
	b, err := json.Marshal(specs)
	if err != nil {
		return "", fmt.Errorf("encode channels: %w", err)
	}
	lastChannels.Store(&channelsEntry{json: string(b), specs: slices.Clone(specs)})
	return string(b), nil
}

// DecodeChannels reads EncodeChannels's JSON: nil for "". The list is the
// caller's own.
func DecodeChannels(s string) ([]stick.ChannelSpec, error) {
	if s == "" {
		return nil, nil
	}
	if last := lastChannels.Load(); last != nil && last.json == s {
		return slices.Clone(last.specs), nil
	}
	var specs []stick.ChannelSpec
	if err := json.Unmarshal([]byte(s), &specs); err != nil {
		return nil, fmt.Errorf("decode channels: %w", err)
	}
	lastChannels.Store(&channelsEntry{json: s, specs: slices.Clone(specs)})
	return specs, nil
}
