package server

import (
	"context"
	"net/http"
	"time"

	"github.com/stickhq/stick/stick"
)

// healthOut is what /healthz answers.
type healthOut struct {
	// Status is "ok" when the store answered a read.
	Status  string `json:"status"`
	Version string `json:"version"`
}

// health answers whether the store is reachable, by a cheap read (a room
// that no id names), within five seconds: 200 and "ok", or the store's
// coded error (503 db_busy or db_unavailable, 500 for a store that fails). It needs no
// token: it says nothing of any room.
func (s *Server) health(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	defer cancel()
	var err error
	if s.cfg.Store != nil {
		err = s.cfg.Store.View(ctx, func(tx stick.Tx) error {
			_, _, err := tx.Room("")
			return err
		})
	} else {
		_, err = s.cfg.Service.RoomsByKey(ctx, "healthz")
	}
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	writeJSON(w, http.StatusOK, healthOut{Status: "ok", Version: s.cfg.Version})
}
