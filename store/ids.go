package store

import (
	"crypto/rand"
	"encoding/hex"
)

func newEventID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	return "evt_" + hex.EncodeToString(b[:])
}
