package stick

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// DefaultChannel is the channel of a note that names none, and of every
// note posted before rooms had channels. Every room offers it.
const DefaultChannel = "general"

// Limits on channels.
const (
	// MaxChannels bounds how many channels a room declares.
	MaxChannels = 64
	// MaxChannelNameLen bounds a channel's name.
	MaxChannelNameLen = 64
	// MaxChannelDescriptionLen bounds a channel's description.
	MaxChannelDescriptionLen = 500
	// MinChannelBytes is the smallest MaxBytes a channel may keep.
	MinChannelBytes = 1024
)

// shortName is the shape of a channel's name, a handle and a wake
// transport's name.
var shortName = regexp.MustCompile(`^[a-z0-9-]+$`)

// isShortName reports whether s has the shape of shortName and at most max bytes.
func isShortName(s string, max int) bool { return len(s) <= max && shortName.MatchString(s) }

// ChannelSpec declares one channel of a room: a named lane for notes
// (roadmap, review, ci). Notes and the document stay per room; a note
// carries its channel, and reads can filter by it.
type ChannelSpec struct {
	// Name matches ^[a-z0-9-]+$ and is unique in the room.
	Name string `json:"name"`
	// Description says what the channel is for.
	Description string `json:"description"`
	// MaxMessages, MaxBytes and MaxAge bound what the channel keeps: past
	// any of them its oldest notes are pruned (never handoffs, turn
	// events or the document). Zero keeps everything.
	MaxMessages int           `json:"max_messages,omitempty"`
	MaxBytes    int64         `json:"max_bytes,omitempty"`
	MaxAge      time.Duration `json:"max_age,omitempty"`
}

// Retains reports whether the channel prunes its old notes.
func (c ChannelSpec) Retains() bool { return c.MaxMessages > 0 || c.MaxBytes > 0 || c.MaxAge > 0 }

// DefaultChannels are the channels a room offers, besides DefaultChannel,
// when its project declares none.
func DefaultChannels() []ChannelSpec {
	return []ChannelSpec{
		{Name: "roadmap", Description: "Discussion about the project's roadmap and planning"},
		{Name: "parallel-work", Description: "Coordination of work done in parallel by several members"},
		{Name: "errors", Description: "Errors met, and their troubleshooting"},
	}
}

// generalChannel describes DefaultChannel when a project does not.
var generalChannel = ChannelSpec{Name: DefaultChannel, Description: "Everything that fits no other channel"}

// ChannelInfo is a channel as list_channels shows it.
type ChannelInfo struct {
	ChannelSpec
	// Notes counts the channel's notes kept now.
	Notes int `json:"notes"`
	// LastActivity is when its newest note was posted; nil when it has none.
	LastActivity *time.Time `json:"last_activity,omitempty"`
}

// ValidateChannels checks a project's channel declarations: names of the
// right shape and unique, descriptions present, limits not negative. An
// empty list is valid (the room then offers DefaultChannels).
//
// Errors: invalid_argument (channels[i].name and so on).
func ValidateChannels(specs []ChannelSpec) error {
	if len(specs) > MaxChannels {
		return invalidArg("channels", "%d channels are declared; at most %d are allowed", len(specs), MaxChannels)
	}
	seen := make(map[string]int, len(specs))
	for i, c := range specs {
		field := "channels[" + strconv.Itoa(i) + "]."
		if err := validateChannelName(field+"name", c.Name); err != nil {
			return err
		}
		if j, dup := seen[c.Name]; dup {
			return invalidArg(field+"name", "channel %q is declared twice (channels[%d] and channels[%d])", c.Name, j, i).
				WithHint("give each channel a name of its own")
		}
		seen[c.Name] = i
		if strings.TrimSpace(c.Description) == "" {
			return invalidArg(field+"description", "channel %q needs a description saying what it is for", c.Name)
		}
		if problem := textProblem(c.Description, MaxChannelDescriptionLen, true); problem != "" {
			return invalidArg(field+"description", "%sdescription %s", field, problem)
		}
		switch {
		case c.MaxMessages < 0:
			return invalidArg(field+"max_messages", "%smax_messages must be at least 1, got %d", field, c.MaxMessages)
		case c.MaxBytes < 0 || (c.MaxBytes > 0 && c.MaxBytes < MinChannelBytes):
			return invalidArg(field+"max_bytes", "%smax_bytes must be at least %d, got %d", field, MinChannelBytes, c.MaxBytes)
		case c.MaxAge < 0:
			return invalidArg(field+"max_age", "%smax_age must be positive, got %s", field, c.MaxAge)
		}
	}
	return nil
}

// validateChannelName checks one channel name.
func validateChannelName(field, name string) error {
	if name == "" {
		return invalidArg(field, "%s is empty; a channel name is lower-case letters, digits and '-', for example review", field)
	}
	if !isShortName(name, MaxChannelNameLen) {
		return invalidArg(field, "%s %q is not a channel name: use lower-case letters, digits and '-' (at most %d), for example review",
			field, name, MaxChannelNameLen)
	}
	return nil
}

// roomChannels returns the channels a room offers: DefaultChannel first
// (as declared, or described by stick), then the declared channels, or
// DefaultChannels when none are declared.
func roomChannels(declared []ChannelSpec) []ChannelSpec {
	list := declared
	if len(list) == 0 {
		list = DefaultChannels()
	}
	out := make([]ChannelSpec, 0, len(list)+1)
	general := generalChannel
	for _, c := range list {
		if c.Name == DefaultChannel {
			general = c
		}
	}
	out = append(out, general)
	for _, c := range list {
		if c.Name != DefaultChannel {
			out = append(out, c)
		}
	}
	return out
}

// channel returns the channel of sn's room that a note names ("" is
// DefaultChannel). field prefixes bad fields' names.
//
// Errors: invalid_argument listing the room's channels.
func (sn *snapshot) channel(name, field string) (ChannelSpec, error) {
	if name == "" {
		name = DefaultChannel
	}
	offered := roomChannels(sn.room.Channels)
	for _, c := range offered {
		if c.Name == name {
			return c, nil
		}
	}
	names := make([]string, len(offered))
	for i, c := range offered {
		names[i] = c.Name
	}
	return ChannelSpec{}, invalidArg(field+"channel", "room %s has no channel %s; its channels are %s",
		sn.room.ID, Quote(name), strings.Join(names, ", ")).
		WithHint("post to one of them (list_channels describes each), or declare the channel in the project's " + ProjectFile)
}

// retain prunes the oldest notes of channel past its limits, if it has any.
func (sn *snapshot) retain(tx Tx, c ChannelSpec) error {
	if !c.Retains() {
		return nil
	}
	var before time.Time
	if c.MaxAge > 0 {
		before = sn.now.Add(-c.MaxAge)
	}
	_, err := tx.PruneNotes(sn.room.ID, c.Name, c.MaxMessages, c.MaxBytes, before)
	return err
}

// ProjectFile is the file at a workspace's root where a project declares
// its channels (see ChannelSpec), validated against the JSON Schema
// published as ProjectFileSchema.
const ProjectFile = ".stick.json"

// ProjectFileSchema is the address of the JSON Schema of ProjectFile.
const ProjectFileSchema = "https://raw.githubusercontent.com/stickhq/stick/main/docs/stick.schema.json"

// inChannels returns the events of evs that are no note, or a note of one
// of channels (all of evs when channels is empty).
func inChannels(evs []Event, channels []string) []Event {
	if len(channels) == 0 {
		return evs
	}
	out := make([]Event, 0, len(evs))
	for _, e := range evs {
		if e.Type != EventNote || slices.Contains(channels, e.ChannelName()) {
			out = append(out, e)
		}
	}
	return out
}

// ChannelName is the channel of a note: its Channel, or DefaultChannel
// when it names none.
func (e Event) ChannelName() string {
	if e.Channel == "" {
		return DefaultChannel
	}
	return e.Channel
}
