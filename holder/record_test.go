package holder

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stickhq/stick/procid"
	"github.com/stickhq/stick/stick"
	"github.com/stickhq/stick/store"
)

// recordsDir gives a test a data directory of its own and returns Dir in it.
func recordsDir(t *testing.T) string {
	t.Helper()
	t.Setenv(store.DataDirEnv, t.TempDir())
	dir, err := Dir()
	if err != nil {
		t.Fatal(err)
	}
	return dir
}

// live returns two live processes: this one and its parent.
func live(t *testing.T) (self, parent procid.Identity) {
	t.Helper()
	self, err := procid.Self()
	if err != nil {
		t.Fatal(err)
	}
	if parent, err = procid.Parent(); err != nil {
		t.Fatal(err)
	}
	return self, parent
}

func TestRecordsAddPutFindDrop(t *testing.T) {
	dir := recordsDir(t)
	self, parent := live(t)
	if rs, err := Read(dir); err != nil || rs != nil {
		t.Fatalf("Read before any record = %v, %v; want none", rs, err)
	}
	r := Record{RoomID: "room_1", Path: "/src/app", AgentID: "bob", State: Waiting, Guardian: self, Since: time.Now().UTC()}
	if err := Add(t.Context(), dir, r); err != nil {
		t.Fatal(err)
	}
	// A second live holder for bob in the same room would race the first.
	second := r
	second.Guardian = parent
	err := Add(t.Context(), dir, second)
	if se := stick.AsError(err); err == nil || se.Code != stick.CodeInvalidArgument || !strings.Contains(se.Message, "bob already waits for the stick in /src/app") {
		t.Fatalf("Add of a second holder for bob = %v, want invalid_argument naming the first", err)
	}
	r.State, r.Lease = Holding, stick.Lease{RoomID: "room_1", LeaseID: "lease_1", TurnID: 1}
	if err := Put(dir, r); err != nil {
		t.Fatal(err)
	}
	rs, err := Read(dir)
	if err != nil || len(rs) != 1 || rs[0].State != Holding || rs[0].Lease.TurnID != 1 {
		t.Fatalf("Read after Put = %+v, %v; want the one record, holding turn 1", rs, err)
	}
	if got, ok := Find(rs, "room_1", "bob"); !ok || !got.Guardian.Same(self) {
		t.Errorf("Find(room_1, bob) = %+v, %v", got, ok)
	}
	if _, ok := Find(rs, "room_2", "bob"); ok {
		t.Error("Find in another room found bob's holder")
	}
	if err := Drop(dir, self); err != nil {
		t.Fatal(err)
	}
	if rs, err := Read(dir); err != nil || len(rs) != 0 {
		t.Errorf("Read after Drop = %+v, %v; want none", rs, err)
	}
}

// Find prefers a holder that holds the stick over one that waits.
func TestFindPrefersHolding(t *testing.T) {
	self, parent := live(t)
	rs := []Record{
		{RoomID: "r", AgentID: "bob", State: Waiting, Guardian: parent},
		{RoomID: "r", AgentID: "bob", State: Holding, Guardian: self},
	}
	if got, ok := Find(rs, "r", "bob"); !ok || got.State != Holding {
		t.Errorf("Find = %+v, %v; want the holding one", got, ok)
	}
}

// The record of a holder proven gone is dropped at the next change, and
// Find never returns it.
func TestRecordsOfGoneHoldersAreDropped(t *testing.T) {
	dir := recordsDir(t)
	self, _ := live(t)
	gone := self
	gone.BootID = "an-earlier-boot" // this host before a reboot
	if procid.Check(gone) != procid.Gone {
		t.Skip("this system tells no boots apart")
	}
	if err := Put(dir, Record{RoomID: "r", AgentID: "bob", State: Holding, Guardian: gone}); err != nil {
		t.Fatal(err)
	}
	rs, err := Read(dir)
	if err != nil || len(rs) != 1 {
		t.Fatalf("Read = %+v, %v; want the record just put", rs, err)
	}
	if _, ok := Find(rs, "r", "bob"); ok {
		t.Error("Find returned the record of a holder that is gone")
	}
	if err := Prune(dir); err != nil {
		t.Fatal(err)
	}
	if rs, err := Read(dir); err != nil || len(rs) != 0 {
		t.Errorf("Read after Prune = %+v, %v; want none", rs, err)
	}
}

// A damaged file is an error that points at 'stick doctor', whose Prune
// replaces it.
func TestDamagedRecords(t *testing.T) {
	dir := recordsDir(t)
	if err := Prune(dir); err != nil { // creates the directory
		t.Fatal(err)
	}
	for _, content := range []string{"{", `{"version": 2, "holders": []}`} {
		if err := os.WriteFile(filepath.Join(dir, "holders.json"), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := Read(dir)
		if se := stick.AsError(err); err == nil || se.Code != stick.CodeDataDir || !strings.Contains(se.Hint, "stick doctor") {
			t.Fatalf("Read of %q = %v, want data_dir_unusable pointing at 'stick doctor'", content, err)
		}
		if err := Prune(dir); err != nil {
			t.Fatal(err)
		}
		if rs, err := Read(dir); err != nil || len(rs) != 0 {
			t.Fatalf("Read after Prune = %+v, %v; want none", rs, err)
		}
	}
}

// The record of a holder in a named room keeps the room's name, which
// names the room in messages, as a path does for the room of a path.
func TestRecordOfANamedRoom(t *testing.T) {
	dir := recordsDir(t)
	self, parent := live(t)
	r := Record{RoomID: "room_1", Name: "release-1.4-review", AgentID: "bob", State: Waiting, Guardian: self, Since: time.Now().UTC()}
	if got := r.Where(); got != "the room named release-1.4-review" {
		t.Errorf("Where of a named room's record = %q", got)
	}
	if got := (Record{Path: "/src/app"}).Where(); got != "/src/app" {
		t.Errorf("Where of a path's record = %q", got)
	}
	if err := Add(t.Context(), dir, r); err != nil {
		t.Fatal(err)
	}
	second := r
	second.Guardian = parent
	err := Add(t.Context(), dir, second)
	if se := stick.AsError(err); err == nil || se.Code != stick.CodeInvalidArgument || !strings.Contains(se.Message, "bob already waits for the stick in the room named release-1.4-review") {
		t.Fatalf("Add of a second holder for bob in the named room = %v, want invalid_argument naming the room", err)
	}
	rs, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	if got, ok := Find(rs, "room_1", "bob"); !ok || got.Name != "release-1.4-review" || got.Path != "" {
		t.Errorf("Find(room_1, bob) = %+v, %v; want the record with the room's name and no path", got, ok)
	}
}
