package postgres

// baseVersion is the schema version of the first migration: the SQLite
// store's numbering, so that one number names one schema for both stores.
// A fresh database gets the current schema in that one migration.
const baseVersion = 12

// migrations are applied in order, each once, inside one transaction; the
// schema version is baseVersion plus the number applied, less one. Never
// edit a released migration: append a new one.
var migrations = []string{
	// 12: the schema of the SQLite store's version 12, with the search
	// index as a table of tsvectors.
	`
CREATE EXTENSION IF NOT EXISTS unaccent;
CREATE TEXT SEARCH DICTIONARY stick_english (TEMPLATE = snowball, Language = english);
CREATE TEXT SEARCH CONFIGURATION stick_stem (COPY = pg_catalog.english);
ALTER TEXT SEARCH CONFIGURATION stick_stem ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
	WITH unaccent, stick_english;
CREATE TEXT SEARCH CONFIGURATION stick_words (COPY = pg_catalog.simple);
ALTER TEXT SEARCH CONFIGURATION stick_words ALTER MAPPING FOR asciiword, asciihword, hword_asciipart, word, hword, hword_part
	WITH unaccent, simple;

CREATE TABLE rooms (
	room_seq                  BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
	room_id                   TEXT PRIMARY KEY,
	canonical_path            TEXT NOT NULL,
	topic                     TEXT NOT NULL DEFAULT '',
	state                     TEXT NOT NULL CHECK (state IN ('idle', 'owned', 'reserved', 'closed')),
	sequence_index            INTEGER NOT NULL DEFAULT 0,
	owner                     TEXT,
	reserved_for              TEXT,
	pending_handoff_event_seq BIGINT,
	grant_event_seq           BIGINT,
	turn_id                   BIGINT NOT NULL DEFAULT 0,
	lease_id                  TEXT,
	lease_expires_at          BIGINT,
	claim_expires_at          BIGINT,
	owner_lease_ttl_ms        BIGINT,
	claim_ttl_ms              BIGINT,
	heartbeat_interval_ms     BIGINT,
	presence_ttl_ms           BIGINT,
	wait_max_wait_ms          BIGINT,
	created_at                BIGINT NOT NULL,
	updated_at                BIGINT NOT NULL,
	closed_at                 BIGINT,
	room_key                  TEXT NOT NULL DEFAULT '',
	room_name                 TEXT,
	concluder                 TEXT,
	proxy_grace_ms            BIGINT
);
CREATE UNIQUE INDEX rooms_open_path_idx ON rooms (canonical_path, topic) WHERE closed_at IS NULL AND canonical_path <> '';
CREATE UNIQUE INDEX rooms_open_name_idx ON rooms (room_name) WHERE closed_at IS NULL AND room_name IS NOT NULL;
CREATE INDEX rooms_path_idx ON rooms (canonical_path COLLATE "C");
CREATE INDEX rooms_name_idx ON rooms (room_name, created_at) WHERE room_name IS NOT NULL;
CREATE INDEX rooms_key_idx ON rooms (room_key, created_at);

CREATE TABLE members (
	room_id            TEXT NOT NULL REFERENCES rooms (room_id) ON DELETE CASCADE,
	agent_id           TEXT NOT NULL,
	ordinal            INTEGER NOT NULL,
	joined_at          BIGINT NOT NULL,
	last_seen_at       BIGINT NOT NULL,
	session_kind       TEXT NOT NULL,
	display_name       TEXT,
	host_id            TEXT,
	boot_id            TEXT,
	pid                INTEGER,
	process_started_at BIGINT,
	sync_cursor        BIGINT NOT NULL DEFAULT 0,
	reclaim_token      TEXT,
	PRIMARY KEY (room_id, agent_id)
);

CREATE TABLE events (
	event_seq         BIGINT PRIMARY KEY,
	event_id          TEXT NOT NULL,
	room_id           TEXT NOT NULL REFERENCES rooms (room_id),
	turn_id           BIGINT NOT NULL,
	event_type        TEXT NOT NULL,
	from_agent_id     TEXT,
	to_agent_id       TEXT,
	handoff_json      TEXT,
	reason            TEXT,
	text              TEXT,
	ref_event_seq     BIGINT,
	data_json         TEXT,
	created_at        BIGINT NOT NULL,
	message_type      TEXT,
	client_message_id TEXT
);
CREATE INDEX events_room_seq_idx ON events (room_id, event_seq);
CREATE UNIQUE INDEX events_client_message_idx ON events (room_id, from_agent_id, client_message_id)
	WHERE client_message_id IS NOT NULL;
CREATE FUNCTION stick_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN RAISE EXCEPTION '% is append-only', TG_TABLE_NAME; END $$;
CREATE TRIGGER events_append_only BEFORE UPDATE OR DELETE ON events FOR EACH ROW EXECUTE FUNCTION stick_append_only();

CREATE TABLE docs (
	room_id    TEXT PRIMARY KEY REFERENCES rooms (room_id),
	version    BIGINT NOT NULL,
	content    TEXT NOT NULL,
	updated_by TEXT NOT NULL,
	updated_at BIGINT NOT NULL
);
CREATE TABLE doc_versions (
	room_id    TEXT NOT NULL REFERENCES rooms (room_id),
	version    BIGINT NOT NULL,
	content    TEXT NOT NULL,
	size       INTEGER NOT NULL,
	author     TEXT NOT NULL,
	op         TEXT NOT NULL,
	event_seq  BIGINT NOT NULL,
	created_at BIGINT NOT NULL,
	PRIMARY KEY (room_id, version)
);
CREATE TRIGGER doc_versions_append_only BEFORE UPDATE OR DELETE ON doc_versions FOR EACH ROW EXECUTE FUNCTION stick_append_only();
CREATE TABLE doc_chunks (
	chunk_id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	room_id  TEXT NOT NULL REFERENCES rooms (room_id),
	hash     TEXT NOT NULL,
	section  TEXT NOT NULL,
	content  TEXT NOT NULL,
	author   TEXT NOT NULL
);
CREATE INDEX doc_chunks_room_idx ON doc_chunks (room_id);

CREATE TABLE search_entries (
	entry_id      BIGINT PRIMARY KEY,
	room_id       TEXT NOT NULL,
	type          TEXT NOT NULL,
	from_agent_id TEXT,
	body          TEXT NOT NULL,
	stemmed       TSVECTOR NOT NULL,
	written       TSVECTOR NOT NULL
);
CREATE INDEX search_entries_stemmed_idx ON search_entries USING GIN (stemmed);
CREATE INDEX search_entries_written_idx ON search_entries USING GIN (written);

CREATE TABLE tokens (
	token_seq    BIGINT GENERATED ALWAYS AS IDENTITY UNIQUE,
	token_id     TEXT PRIMARY KEY,
	name         TEXT NOT NULL,
	role         TEXT NOT NULL CHECK (role IN ('viewer', 'agent', 'operator')),
	rooms_json   TEXT NOT NULL DEFAULT '{}',
	secret_hash  BYTEA NOT NULL UNIQUE CHECK (length(secret_hash) = 32),
	created_at   BIGINT NOT NULL,
	expires_at   BIGINT,
	revoked_at   BIGINT,
	last_used_at BIGINT
);

CREATE TABLE replays (
	replay_key TEXT PRIMARY KEY,
	request    TEXT NOT NULL,
	answer     BYTEA NOT NULL,
	kept_at    BIGINT NOT NULL
);
CREATE INDEX replays_kept_idx ON replays (kept_at);

CREATE TABLE hub_settings (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
);
`,
	// 13: the SQLite store's version 13: members' handles (unique per
	// room), standby and wake record; notes' recipients (space-separated
	// agent ids), interrupt and channel, with an index of a channel's
	// notes; rooms' channel declarations (JSON). Notes may be deleted;
	// every other event, and every update, is still refused.
	`
ALTER TABLE members
	ADD COLUMN handle          TEXT NOT NULL DEFAULT '',
	ADD COLUMN standby         BOOLEAN NOT NULL DEFAULT false,
	ADD COLUMN wake_transports TEXT NOT NULL DEFAULT '',
	ADD COLUMN woken_seq       BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN addressed_seq   BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN interrupt_seq   BIGINT NOT NULL DEFAULT 0,
	ADD COLUMN wake_state      TEXT,
	ADD COLUMN wake_transport  TEXT,
	ADD COLUMN wake_at         BIGINT;
CREATE UNIQUE INDEX members_handle_idx ON members (room_id, handle) WHERE handle <> '';

ALTER TABLE events
	ADD COLUMN recipients TEXT,
	ADD COLUMN interrupt  BOOLEAN NOT NULL DEFAULT false,
	ADD COLUMN channel    TEXT;
CREATE INDEX events_channel_idx ON events (room_id, channel, event_seq) WHERE event_type = 'note';
DROP TRIGGER events_append_only ON events;
CREATE TRIGGER events_no_update BEFORE UPDATE ON events FOR EACH ROW EXECUTE FUNCTION stick_append_only();
CREATE TRIGGER events_no_delete BEFORE DELETE ON events FOR EACH ROW WHEN (OLD.event_type <> 'note')
	EXECUTE FUNCTION stick_append_only();

ALTER TABLE rooms ADD COLUMN channels_json TEXT;
`,
}

// SchemaVersion is the schema version this build writes.
var SchemaVersion = baseVersion + len(migrations) - 1

// marksSchema is the table of the marks processes hold (see Store.Mark).
// It is made beside the numbered schema, not by a migration: the numbers
// name one schema for both stores, and marks exist on PostgreSQL only. A
// stick of the same schema version that predates it opens a database that
// has it, and ignores it. Never change it: add a table beside it instead.
//
// A mark's id is the second key of its advisory lock (the first is
// markSpace), so it is an INTEGER: two thousand million marks, one per
// process start, before the identity runs out.
const marksSchema = `
CREATE TABLE process_marks (
	mark_id    INTEGER GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
	host_id    TEXT NOT NULL,
	boot_id    TEXT NOT NULL,
	pid        INTEGER NOT NULL,
	started_at BIGINT NOT NULL,
	marked_at  BIGINT NOT NULL
);
CREATE INDEX process_marks_process_idx ON process_marks (host_id, pid, started_at);
`
