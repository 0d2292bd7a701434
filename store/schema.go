package store

// applicationID marks a SQLite file as a stick database ("STCK").
const applicationID = 0x5354434b

// migrations are applied in order, each once, inside one write transaction;
// the schema version is the number applied. Never edit a released migration:
// append a new one.
var migrations = []string{
	// 1: rooms, members, append-only events.
	`
CREATE TABLE rooms (
	room_id                   TEXT PRIMARY KEY,
	canonical_path            TEXT NOT NULL,
	topic                     TEXT NOT NULL DEFAULT '',
	state                     TEXT NOT NULL CHECK (state IN ('idle', 'owned', 'reserved', 'closed')),
	sequence_index            INTEGER NOT NULL DEFAULT 0,
	owner                     TEXT,
	reserved_for              TEXT,
	pending_handoff_event_seq INTEGER,
	grant_event_seq           INTEGER,
	turn_id                   INTEGER NOT NULL DEFAULT 0,
	lease_id                  TEXT,
	lease_expires_at          INTEGER,
	claim_expires_at          INTEGER,
	owner_lease_ttl_ms        INTEGER,
	claim_ttl_ms              INTEGER,
	heartbeat_interval_ms     INTEGER,
	presence_ttl_ms           INTEGER,
	wait_max_wait_ms          INTEGER,
	created_at                INTEGER NOT NULL,
	updated_at                INTEGER NOT NULL,
	closed_at                 INTEGER
) STRICT;
CREATE UNIQUE INDEX rooms_open_path_idx ON rooms (canonical_path, topic) WHERE state <> 'closed';
CREATE INDEX rooms_path_idx ON rooms (canonical_path);

CREATE TABLE members (
	room_id            TEXT NOT NULL REFERENCES rooms (room_id) ON DELETE CASCADE,
	agent_id           TEXT NOT NULL,
	ordinal            INTEGER NOT NULL,
	joined_at          INTEGER NOT NULL,
	last_seen_at       INTEGER NOT NULL,
	session_kind       TEXT NOT NULL,
	display_name       TEXT,
	host_id            TEXT,
	boot_id            TEXT,
	pid                INTEGER,
	process_started_at INTEGER,
	PRIMARY KEY (room_id, agent_id)
) STRICT;

CREATE TABLE events (
	event_seq     INTEGER PRIMARY KEY AUTOINCREMENT,
	event_id      TEXT NOT NULL UNIQUE,
	room_id       TEXT NOT NULL REFERENCES rooms (room_id),
	turn_id       INTEGER NOT NULL,
	event_type    TEXT NOT NULL,
	from_agent_id TEXT,
	to_agent_id   TEXT,
	handoff_json  TEXT,
	reason        TEXT,
	text          TEXT,
	ref_event_seq INTEGER,
	data_json     TEXT,
	created_at    INTEGER NOT NULL
);
CREATE INDEX events_room_seq_idx ON events (room_id, event_seq);
CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
`,
	// 2: less work per turn. Rooms are rebuilt with a CHECK that compares
	// (an IN list made SQLite build a temporary index on every update) and
	// an open-path index keyed on closed_at, which only a close writes,
	// instead of state, which every turn writes. Events lose AUTOINCREMENT
	// (rows are never deleted, so plain rowids already never repeat) and
	// the unique index on their random 128-bit ids, which nothing looks up.
	// Runs with foreign keys off; migrate checks them before committing.
	`
CREATE TABLE rooms_v2 (
	room_id                   TEXT PRIMARY KEY,
	canonical_path            TEXT NOT NULL,
	topic                     TEXT NOT NULL DEFAULT '',
	state                     TEXT NOT NULL CHECK (state = 'idle' OR state = 'owned' OR state = 'reserved' OR state = 'closed'),
	sequence_index            INTEGER NOT NULL DEFAULT 0,
	owner                     TEXT,
	reserved_for              TEXT,
	pending_handoff_event_seq INTEGER,
	grant_event_seq           INTEGER,
	turn_id                   INTEGER NOT NULL DEFAULT 0,
	lease_id                  TEXT,
	lease_expires_at          INTEGER,
	claim_expires_at          INTEGER,
	owner_lease_ttl_ms        INTEGER,
	claim_ttl_ms              INTEGER,
	heartbeat_interval_ms     INTEGER,
	presence_ttl_ms           INTEGER,
	wait_max_wait_ms          INTEGER,
	created_at                INTEGER NOT NULL,
	updated_at                INTEGER NOT NULL,
	closed_at                 INTEGER
) STRICT;
INSERT INTO rooms_v2 SELECT room_id, canonical_path, topic, state, sequence_index, owner, reserved_for,
	pending_handoff_event_seq, grant_event_seq, turn_id, lease_id, lease_expires_at, claim_expires_at,
	owner_lease_ttl_ms, claim_ttl_ms, heartbeat_interval_ms, presence_ttl_ms, wait_max_wait_ms,
	created_at, updated_at, CASE WHEN state = 'closed' THEN coalesce(closed_at, updated_at) END FROM rooms;
DROP TABLE rooms;
ALTER TABLE rooms_v2 RENAME TO rooms;
CREATE UNIQUE INDEX rooms_open_path_idx ON rooms (canonical_path, topic) WHERE closed_at IS NULL;
CREATE INDEX rooms_path_idx ON rooms (canonical_path);

CREATE TABLE events_v2 (
	event_seq     INTEGER PRIMARY KEY,
	event_id      TEXT NOT NULL,
	room_id       TEXT NOT NULL REFERENCES rooms (room_id),
	turn_id       INTEGER NOT NULL,
	event_type    TEXT NOT NULL,
	from_agent_id TEXT,
	to_agent_id   TEXT,
	handoff_json  TEXT,
	reason        TEXT,
	text          TEXT,
	ref_event_seq INTEGER,
	data_json     TEXT,
	created_at    INTEGER NOT NULL
);
INSERT INTO events_v2 SELECT event_seq, event_id, room_id, turn_id, event_type, from_agent_id, to_agent_id,
	handoff_json, reason, text, ref_event_seq, data_json, created_at FROM events ORDER BY event_seq;
DROP TABLE events;
ALTER TABLE events_v2 RENAME TO events;
DELETE FROM sqlite_sequence WHERE name = 'events';
CREATE INDEX events_room_seq_idx ON events (room_id, event_seq);
CREATE TRIGGER events_no_update BEFORE UPDATE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events BEGIN SELECT RAISE(ABORT, 'events are append-only'); END;
`,
	// 3: notes as messages: a message type and the sender's idempotency
	// key, unique per room and sender, so a retried send finds the original.
	`
ALTER TABLE events ADD COLUMN message_type TEXT;
ALTER TABLE events ADD COLUMN client_message_id TEXT;
CREATE UNIQUE INDEX events_client_message_idx ON events (room_id, from_agent_id, client_message_id)
	WHERE client_message_id IS NOT NULL;
`,
	// 4: each member's sync cursor: the last event it has been given.
	`
ALTER TABLE members ADD COLUMN sync_cursor INTEGER NOT NULL DEFAULT 0;
`,
	// 5: shared working memory: each member's reclaim token (members from
	// before get one, so their names are reserved too), and the room
	// document: the current version in docs; every version, append-only,
	// in doc_versions, most as a delta from the one before (see SaveDoc);
	// its paragraphs in doc_chunks, which the search index follows, so
	// that a write re-indexes only the paragraphs it changed.
	// The search index itself is made by ensureSearch, so a SQLite without
	// FTS5 can still open the file.
	`
ALTER TABLE members ADD COLUMN reclaim_token TEXT;
UPDATE members SET reclaim_token = 'rt_' || lower(hex(randomblob(16)));

CREATE TABLE docs (
	room_id    TEXT PRIMARY KEY REFERENCES rooms (room_id),
	version    INTEGER NOT NULL,
	content    TEXT NOT NULL,
	updated_by TEXT NOT NULL,
	updated_at INTEGER NOT NULL
) STRICT;

CREATE TABLE doc_versions (
	room_id    TEXT NOT NULL REFERENCES rooms (room_id),
	version    INTEGER NOT NULL,
	content    TEXT NOT NULL,
	delta      INTEGER NOT NULL,
	keep_head  INTEGER NOT NULL,
	keep_tail  INTEGER NOT NULL,
	size       INTEGER NOT NULL,
	author     TEXT NOT NULL,
	op         TEXT NOT NULL,
	event_seq  INTEGER NOT NULL,
	created_at INTEGER NOT NULL,
	PRIMARY KEY (room_id, version)
) STRICT;

CREATE TABLE doc_chunks (
	chunk_id INTEGER PRIMARY KEY,
	room_id  TEXT NOT NULL REFERENCES rooms (room_id),
	hash     TEXT NOT NULL,
	section  TEXT NOT NULL,
	content  TEXT NOT NULL,
	author   TEXT NOT NULL
) STRICT;
CREATE INDEX doc_chunks_room_idx ON doc_chunks (room_id);
CREATE TRIGGER doc_versions_no_update BEFORE UPDATE ON doc_versions BEGIN SELECT RAISE(ABORT, 'document versions are append-only'); END;
CREATE TRIGGER doc_versions_no_delete BEFORE DELETE ON doc_versions BEGIN SELECT RAISE(ABORT, 'document versions are append-only'); END;
`,
	// 6: prefixes match words as written: the search index gains a second,
	// unstemmed table (see ensureSearch, which makes the index again when
	// it is stale). The paragraph triggers go with the old index, so that
	// a SQLite without FTS5 can still write the file.
	`
DROP TRIGGER IF EXISTS doc_chunks_search_insert;
DROP TRIGGER IF EXISTS doc_chunks_search_delete;
UPDATE meta SET value = 'stale' WHERE key = 'search_index';
`,
	// 7: rooms with a key that names their workspace the same way on every
	// host (filled for the rooms from before by fillRoomKeys), and rooms
	// named by people, which have no path: one open room per path among
	// the rooms of a path, one per name among the named ones.
	`
ALTER TABLE rooms ADD COLUMN room_key TEXT NOT NULL DEFAULT '';
ALTER TABLE rooms ADD COLUMN room_name TEXT;
DROP INDEX rooms_open_path_idx;
CREATE UNIQUE INDEX rooms_open_path_idx ON rooms (canonical_path, topic) WHERE closed_at IS NULL AND canonical_path <> '';
CREATE UNIQUE INDEX rooms_open_name_idx ON rooms (room_name) WHERE closed_at IS NULL AND room_name IS NOT NULL;
CREATE INDEX rooms_name_idx ON rooms (room_name, created_at) WHERE room_name IS NOT NULL;
CREATE INDEX rooms_key_idx ON rooms (room_key, created_at);
`,
	// 8: the tokens a hub authenticates requests with: only the SHA-256
	// hash of each secret, found by it through its unique index, and the
	// scope as a JSON object ({"names": [...], "key_prefixes": [...]}).
	`
CREATE TABLE tokens (
	token_id     TEXT PRIMARY KEY,
	name         TEXT NOT NULL,
	role         TEXT NOT NULL CHECK (role IN ('viewer', 'agent', 'operator')),
	rooms_json   TEXT NOT NULL DEFAULT '{}',
	secret_hash  BLOB NOT NULL UNIQUE CHECK (length(secret_hash) = 32),
	created_at   INTEGER NOT NULL,
	expires_at   INTEGER,
	revoked_at   INTEGER,
	last_used_at INTEGER
) STRICT;
`,
	// 9: the member responsible for a room's conclusion, NULL for none.
	`
ALTER TABLE rooms ADD COLUMN concluder TEXT;
`,
	// 10: a room's proxy grace: how long a member behind a proxy may be out
	// of touch with the hub before it counts as gone (NULL: the default).
	`
ALTER TABLE rooms ADD COLUMN proxy_grace_ms INTEGER;
`,
	// 11: the answers a hub gave to writes that carried an idempotency
	// key, so that a retry after a lost answer gets the first one, across
	// restarts of the hub too (stick.Replay).
	`
CREATE TABLE replays (
	replay_key TEXT PRIMARY KEY,
	request    TEXT NOT NULL,
	answer     BLOB NOT NULL,
	kept_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX replays_kept_idx ON replays (kept_at);
`,
	// 12: the settings of a hub that its operators change over the hub
	// (stick.HubSettings), one row per setting that is set: a setting
	// added later needs no migration.
	`
CREATE TABLE hub_settings (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) STRICT;
`,
	// 13: members that reach each other. A member's handle, unique in its
	// room among the members that chose one; its standby; the ways its
	// harness session can be woken (space-separated names) and its last
	// wake. A note's recipients (space-separated agent ids, NULL for the
	// whole room), whether it interrupts them, and its channel (NULL:
	// stick.DefaultChannel), with an index for reading a channel's notes;
	// the channels a room declares (JSON, NULL for none). A channel keeps
	// its notes for a while only, so the log stays append-only but for
	// notes, which may be deleted.
	`
ALTER TABLE members ADD COLUMN handle TEXT NOT NULL DEFAULT '';
ALTER TABLE members ADD COLUMN standby INTEGER NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN wake_transports TEXT NOT NULL DEFAULT '';
ALTER TABLE members ADD COLUMN woken_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN addressed_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN interrupt_seq INTEGER NOT NULL DEFAULT 0;
ALTER TABLE members ADD COLUMN wake_state TEXT;
ALTER TABLE members ADD COLUMN wake_transport TEXT;
ALTER TABLE members ADD COLUMN wake_at INTEGER;
CREATE UNIQUE INDEX members_handle_idx ON members (room_id, handle) WHERE handle <> '';

ALTER TABLE events ADD COLUMN recipients TEXT;
ALTER TABLE events ADD COLUMN interrupt INTEGER NOT NULL DEFAULT 0;
ALTER TABLE events ADD COLUMN channel TEXT;
CREATE INDEX events_channel_idx ON events (room_id, channel, event_seq) WHERE event_type = 'note';
DROP TRIGGER events_no_delete;
CREATE TRIGGER events_no_delete BEFORE DELETE ON events WHEN OLD.event_type <> 'note'
	BEGIN SELECT RAISE(ABORT, 'events are append-only: only notes may be deleted'); END;

ALTER TABLE rooms ADD COLUMN channels_json TEXT;
`,
}

// keysVersion is the schema version that gave rooms their keys; a
// migration to it runs fillRoomKeys after its script.
const keysVersion = 7

// SchemaVersion is the schema version this build writes.
var SchemaVersion = len(migrations)
