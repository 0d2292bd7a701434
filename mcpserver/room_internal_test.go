package mcpserver

import (
	"encoding/json"
	"reflect"
	"testing"
)

// roomIndex finds the room_id of every input type that has one, through
// embedded structs too, and a field of the type itself before an embedded
// one, as encoding/json decodes it.
func TestRoomIndex(t *testing.T) {
	type direct struct {
		leaseIn
		RoomID string `json:"room_id"`
	}
	type misnamed struct {
		RoomID string `json:"room"`
		Other  int    `json:"room_id"`
	}
	for _, tc := range []struct {
		in   any
		want []int
	}{
		{listRoomsIn{}, nil},
		{joinPathIn{}, nil},
		{misnamed{}, nil},
		{waitIn{}, []int{0}},
		{leaseIn{}, []int{0}},
		{releaseIn{}, []int{0, 0}},
		{passIn{}, []int{0, 0}},
		{direct{}, []int{1}},
		{takeoverIn{}, []int{0}},
		{roomIn{}, []int{0}},
		{eventsIn{}, []int{0}},
		{closeIn{}, []int{0}},
		{policyIn{}, []int{0}},
		{reorderIn{}, []int{0}},
		{noteIn{}, []int{0}},
		{syncIn{}, []int{0}},
		{readDocIn{}, []int{0}},
		{updateDocIn{}, []int{0}},
		{appendDocIn{}, []int{0}},
		{searchIn{}, []int{1}},
	} {
		typ := reflect.TypeOf(tc.in)
		got := roomIndex(typ)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("roomIndex(%s) = %v, want %v", typ, got, tc.want)
			continue
		}
		if got == nil {
			continue
		}
		v := reflect.New(typ).Elem()
		v.FieldByIndex(got).SetString("room_x")
		b, _ := json.Marshal(v.Interface())
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil || m["room_id"] != "room_x" {
			t.Errorf("%s: the field found is not the one room_id encodes: %s", typ, b)
		}
	}
}
