/**
 * Numbered SQLite migrations, applied in order on start and recorded in schema_migrations.
 * Kept as TypeScript strings so the build carries them without a copy step. Never edit one
 * that has shipped: add the next number.
 */
import type { Migration } from '../migration.js';

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'objects, topics, votes, settings, full-text index',
    sql: `
CREATE TABLE objects (
  seq INTEGER PRIMARY KEY,
  id TEXT NOT NULL UNIQUE,
  type TEXT NOT NULL,
  title TEXT NOT NULL,
  content TEXT NOT NULL,
  topics TEXT NOT NULL,
  topics_text TEXT NOT NULL,
  source_url TEXT,
  parent_id TEXT,
  author_id TEXT,
  author_trust TEXT,
  author_domain TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  last_verified_at INTEGER,
  verification_count INTEGER NOT NULL DEFAULT 0,
  contradiction_count INTEGER NOT NULL DEFAULT 0,
  hidden INTEGER NOT NULL DEFAULT 0,
  withdrawn INTEGER NOT NULL DEFAULT 0,
  injection INTEGER NOT NULL DEFAULT 0,
  dedupe_key TEXT NOT NULL
);
CREATE INDEX objects_type_id ON objects (type, id);
CREATE INDEX objects_parent_id ON objects (parent_id, id);
CREATE INDEX objects_dedupe ON objects (dedupe_key);
CREATE INDEX objects_author ON objects (author_id);

CREATE TABLE object_topics (
  topic TEXT NOT NULL,
  object_id TEXT NOT NULL,
  PRIMARY KEY (topic, object_id)
) WITHOUT ROWID;
CREATE INDEX object_topics_object ON object_topics (object_id, topic);

CREATE TABLE votes (
  object_id TEXT NOT NULL,
  voter_id TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('verify', 'contradict')),
  note TEXT,
  evidence_url TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (object_id, voter_id)
) WITHOUT ROWID;

CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
);

CREATE VIRTUAL TABLE objects_fts USING fts5(
  title, topics_text, content,
  content = 'objects', content_rowid = 'seq',
  tokenize = 'unicode61 remove_diacritics 2'
);
CREATE TRIGGER objects_fts_insert AFTER INSERT ON objects BEGIN
  INSERT INTO objects_fts (rowid, title, topics_text, content) VALUES (new.seq, new.title, new.topics_text, new.content);
END;
CREATE TRIGGER objects_fts_delete AFTER DELETE ON objects BEGIN
  INSERT INTO objects_fts (objects_fts, rowid, title, topics_text, content) VALUES ('delete', old.seq, old.title, old.topics_text, old.content);
END;
`,
  },
  {
    version: 2,
    name: 'vectors and the durable embedding queue',
    sql: `
CREATE TABLE object_vectors (
  seq INTEGER PRIMARY KEY REFERENCES objects (seq) ON DELETE CASCADE,
  model TEXT NOT NULL,
  embedding BLOB NOT NULL
);
CREATE INDEX object_vectors_model ON object_vectors (model);

CREATE TABLE embed_queue (
  seq INTEGER PRIMARY KEY REFERENCES objects (seq) ON DELETE CASCADE,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_at INTEGER NOT NULL DEFAULT 0,
  last_error TEXT
);
CREATE TRIGGER objects_embed_enqueue AFTER INSERT ON objects BEGIN
  INSERT OR IGNORE INTO embed_queue (seq) VALUES (new.seq);
END;
`,
  },
  {
    version: 3,
    name: 'stemmed full-text index for hybrid search',
    sql: `
CREATE VIRTUAL TABLE objects_fts_stem USING fts5(
  title, topics_text, content,
  content = 'objects', content_rowid = 'seq',
  tokenize = 'porter unicode61 remove_diacritics 2'
);
INSERT INTO objects_fts_stem (objects_fts_stem) VALUES ('rebuild');
CREATE TRIGGER objects_fts_stem_insert AFTER INSERT ON objects BEGIN
  INSERT INTO objects_fts_stem (rowid, title, topics_text, content) VALUES (new.seq, new.title, new.topics_text, new.content);
END;
CREATE TRIGGER objects_fts_stem_delete AFTER DELETE ON objects BEGIN
  INSERT INTO objects_fts_stem (objects_fts_stem, rowid, title, topics_text, content) VALUES ('delete', old.seq, old.title, old.topics_text, old.content);
END;
`,
  },
  {
    version: 4,
    name: 'live-state copies on object_topics for index-only topic counts',
    sql: `
ALTER TABLE object_topics ADD COLUMN expires_at INTEGER NOT NULL DEFAULT 0;
ALTER TABLE object_topics ADD COLUMN hidden INTEGER NOT NULL DEFAULT 0;
ALTER TABLE object_topics ADD COLUMN withdrawn INTEGER NOT NULL DEFAULT 0;
ALTER TABLE object_topics ADD COLUMN verification_count INTEGER NOT NULL DEFAULT 0;
ALTER TABLE object_topics ADD COLUMN contradiction_count INTEGER NOT NULL DEFAULT 0;
UPDATE object_topics SET (expires_at, hidden, withdrawn, verification_count, contradiction_count) =
  (SELECT o.expires_at, o.hidden, o.withdrawn, o.verification_count, o.contradiction_count FROM objects o WHERE o.id = object_topics.object_id);
CREATE INDEX object_topics_live ON object_topics (topic, expires_at, hidden, withdrawn, contradiction_count, verification_count);
`,
  },
  {
    version: 5,
    name: 'due-order index on the embedding queue',
    sql: `CREATE INDEX embed_queue_due ON embed_queue (next_at, seq);`,
  },
  {
    version: 6,
    name: 'registry servers, tools and history',
    sql: `
CREATE TABLE registry_servers (
  name TEXT PRIMARY KEY,
  version TEXT NOT NULL,
  title TEXT,
  description TEXT NOT NULL,
  status TEXT NOT NULL,
  website_url TEXT,
  repository_url TEXT,
  category TEXT,
  remote_type TEXT,
  remote_url TEXT,
  remote_headers TEXT NOT NULL DEFAULT '[]',
  published_at INTEGER,
  updated_at INTEGER,
  first_seen_at INTEGER NOT NULL,
  synced_at INTEGER NOT NULL,
  verdict TEXT NOT NULL DEFAULT 'unverified',
  fail_streak INTEGER NOT NULL DEFAULT 0,
  outcome TEXT NOT NULL,
  outcome_detail TEXT,
  http_status INTEGER,
  protocol_version TEXT,
  auth_scheme TEXT,
  auth_metadata_url TEXT,
  tool_count INTEGER,
  checked_at INTEGER,
  next_probe_at INTEGER
);
CREATE INDEX registry_servers_due ON registry_servers (next_probe_at) WHERE next_probe_at IS NOT NULL AND status <> 'deleted';
CREATE INDEX registry_servers_verdict ON registry_servers (verdict, name);

CREATE TABLE registry_tools (
  server_name TEXT NOT NULL REFERENCES registry_servers (name) ON DELETE CASCADE,
  name TEXT NOT NULL,
  title TEXT,
  description TEXT,
  input_schema TEXT NOT NULL,
  first_seen_at INTEGER NOT NULL,
  last_seen_at INTEGER NOT NULL,
  present INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (server_name, name)
);

CREATE TABLE registry_events (
  seq INTEGER PRIMARY KEY,
  server_name TEXT NOT NULL REFERENCES registry_servers (name) ON DELETE CASCADE,
  kind TEXT NOT NULL,
  names TEXT NOT NULL DEFAULT '[]',
  at INTEGER NOT NULL
);
CREATE INDEX registry_events_server ON registry_events (server_name, seq);
`,
  },
  {
    version: 7,
    name: 'keys, reputable authors, base trust of authored objects',
    sql: `
CREATE TABLE keys (
  keyid TEXT PRIMARY KEY,
  jwk TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE reputable_authors (
  author_id TEXT PRIMARY KEY,
  since INTEGER NOT NULL
);
ALTER TABLE objects ADD COLUMN author_base_trust TEXT;
UPDATE objects SET author_base_trust = author_trust WHERE author_id IS NOT NULL;
`,
  },
  {
    version: 8,
    name: 'registry sync attempts, enqueue times of embedding jobs',
    sql: `
CREATE TABLE registry_sync (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  attempted_at INTEGER NOT NULL,
  ok INTEGER NOT NULL,
  error TEXT,
  succeeded_at INTEGER,
  entries INTEGER
);
ALTER TABLE embed_queue ADD COLUMN enqueued_at INTEGER NOT NULL DEFAULT 0;
UPDATE embed_queue SET enqueued_at = CAST(unixepoch('subsec') * 1000 AS INTEGER);
DROP TRIGGER objects_embed_enqueue;
CREATE TRIGGER objects_embed_enqueue AFTER INSERT ON objects BEGIN
  INSERT OR IGNORE INTO embed_queue (seq, enqueued_at) VALUES (new.seq, CAST(unixepoch('subsec') * 1000 AS INTEGER));
END;
`,
  },
  {
    version: 9,
    name: 'leases on embedding jobs',
    sql: `ALTER TABLE embed_queue ADD COLUMN lease_until INTEGER NOT NULL DEFAULT 0;`,
  },
  {
    version: 10,
    // live_until starts at 0 and no 'standing' stamp is kept, so the start's restate derives it.
    name: 'stored standing (live_until) instead of the live rule in SQL; shown trust read, not copied; first verifications',
    sql: `
ALTER TABLE objects ADD COLUMN live_until INTEGER NOT NULL DEFAULT 0;
UPDATE objects SET author_trust = author_base_trust WHERE author_id IS NOT NULL;
ALTER TABLE objects DROP COLUMN author_base_trust;
DROP INDEX object_topics_live;
ALTER TABLE object_topics DROP COLUMN expires_at;
ALTER TABLE object_topics DROP COLUMN hidden;
ALTER TABLE object_topics DROP COLUMN withdrawn;
ALTER TABLE object_topics DROP COLUMN verification_count;
ALTER TABLE object_topics DROP COLUMN contradiction_count;
ALTER TABLE object_topics ADD COLUMN live_until INTEGER NOT NULL DEFAULT 0;
CREATE INDEX object_topics_live ON object_topics (topic, live_until);
DELETE FROM settings WHERE key = 'standing';
-- A voter's first verification may extend an object's life, once (domain/lifetimes.ts).
ALTER TABLE votes ADD COLUMN first_verified_at INTEGER;
UPDATE votes SET first_verified_at = created_at WHERE kind = 'verify';
`,
  },
  {
    version: 11,
    name: 'the event log of the push stream',
    sql: `
CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL,
  object_id TEXT NOT NULL,
  type TEXT NOT NULL,
  topics TEXT NOT NULL,
  thread_id TEXT NOT NULL,
  at INTEGER NOT NULL
);
CREATE INDEX events_at ON events (at);
`,
  },
  {
    version: 12,
    name: 'the next instant an object leaves the live set, for the read cache',
    sql: `CREATE INDEX objects_live_until ON objects (live_until);`,
  },
  {
    version: 13,
    name: 'a log of vector changes, for the vectors each process holds in memory',
    sql: `
CREATE TABLE vector_changes (id INTEGER PRIMARY KEY AUTOINCREMENT, seq INTEGER NOT NULL);
CREATE TRIGGER object_vectors_logged_insert AFTER INSERT ON object_vectors BEGIN
  INSERT INTO vector_changes (seq) VALUES (new.seq);
END;
CREATE TRIGGER object_vectors_logged_update AFTER UPDATE ON object_vectors BEGIN
  INSERT INTO vector_changes (seq) VALUES (new.seq);
END;
CREATE TRIGGER object_vectors_logged_delete AFTER DELETE ON object_vectors BEGIN
  INSERT INTO vector_changes (seq) VALUES (old.seq);
END;
`,
  },
  {
    version: 14,
    // An insert that fires triggers opens a statement journal, and its savepoint made both
    // FTS5 tables flush a segment per object inside a group commit's batch: insertRow
    // (sqlite-rows.ts) now writes the full-text rows and the embedding job itself. Deletes
    // keep their triggers (they are rare, and take rows out of both indexes).
    name: 'objects inserted without triggers',
    sql: `
DROP TRIGGER objects_fts_insert;
DROP TRIGGER objects_fts_stem_insert;
DROP TRIGGER objects_embed_enqueue;
`,
  },
  {
    version: 15,
    // A publish may now store its object's vector in its batch (search/publish-vectors.ts),
    // where a trigger's statement journal would make FTS5 flush a segment per object (see 14):
    // the stores log what they write themselves (sqlite-rows.ts logVectorChange).
    name: 'vectors stored without triggers',
    sql: `
DROP TRIGGER object_vectors_logged_insert;
DROP TRIGGER object_vectors_logged_update;
`,
  },
  {
    version: 16,
    // An author may replace an object with a newer one (domain/supersede.ts): each keeps its
    // link to the other, and the replaced one stops being live. A contradiction may name the
    // object that is right; an object's corrections are read with it, off an index that holds
    // only such votes, so an object nobody corrected costs one empty probe.
    name: 'objects that supersede others, contradictions that name a correction',
    sql: `
ALTER TABLE objects ADD COLUMN supersedes TEXT;
ALTER TABLE objects ADD COLUMN superseded_by TEXT;
ALTER TABLE votes ADD COLUMN correction_id TEXT;
CREATE INDEX votes_corrections ON votes (object_id, correction_id) WHERE correction_id IS NOT NULL;
`,
  },
  {
    version: 17,
    // Moderators cut a source off (ports/moderation-store.ts): its objects and votes carry a flag
    // derived from the active quarantines, and a vote keeps the domain its key was verified for.
    name: 'quarantines, their flags on objects and votes, and the audit log',
    sql: `
CREATE TABLE quarantines (
  id TEXT PRIMARY KEY,
  keyid TEXT,
  domain TEXT,
  reason TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  lifted_at INTEGER,
  affected INTEGER NOT NULL DEFAULT 0,
  CHECK ((keyid IS NULL) <> (domain IS NULL))
);
CREATE UNIQUE INDEX quarantines_active_key ON quarantines (keyid) WHERE lifted_at IS NULL AND keyid IS NOT NULL;
CREATE UNIQUE INDEX quarantines_active_domain ON quarantines (domain) WHERE lifted_at IS NULL AND domain IS NOT NULL;
CREATE TABLE moderation_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  action TEXT NOT NULL,
  target TEXT NOT NULL,
  reason TEXT,
  affected INTEGER NOT NULL,
  at INTEGER NOT NULL
);
ALTER TABLE objects ADD COLUMN quarantined INTEGER NOT NULL DEFAULT 0;
ALTER TABLE votes ADD COLUMN quarantined INTEGER NOT NULL DEFAULT 0;
ALTER TABLE votes ADD COLUMN voter_domain TEXT;
CREATE INDEX objects_author_domain ON objects (author_domain) WHERE author_domain IS NOT NULL;
CREATE INDEX votes_voter ON votes (voter_id);
CREATE INDEX votes_voter_domain ON votes (voter_domain) WHERE voter_domain IS NOT NULL;
`,
  },
  {
    version: 18,
    // Private spaces beside the commons (ports/space-store.ts): members are keys with a role, and
    // a token is kept only as the hash of its secret.
    name: 'spaces, their members and their tokens',
    sql: `
CREATE TABLE spaces (
  slug TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  created_at INTEGER NOT NULL
);
CREATE TABLE space_members (
  space TEXT NOT NULL REFERENCES spaces (slug),
  keyid TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('reader', 'writer', 'admin')),
  added_at INTEGER NOT NULL,
  PRIMARY KEY (space, keyid)
);
CREATE INDEX space_members_keyid ON space_members (keyid);
CREATE TABLE space_tokens (
  id TEXT PRIMARY KEY,
  space TEXT NOT NULL REFERENCES spaces (slug),
  name TEXT NOT NULL,
  role TEXT NOT NULL CHECK (role IN ('reader', 'writer')),
  hash TEXT NOT NULL UNIQUE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  revoked_at INTEGER
);
CREATE INDEX space_tokens_space ON space_tokens (space, id);
`,
  },
  {
    version: 19,
    // Objects, their topic rows and their events name their space ('' for the commons): every
    // live read is of one space, and topic counts stay index-only within it.
    name: 'the space of objects, topic rows and events',
    sql: `
ALTER TABLE objects ADD COLUMN space TEXT NOT NULL DEFAULT '';
ALTER TABLE object_topics ADD COLUMN space TEXT NOT NULL DEFAULT '';
DROP INDEX object_topics_live;
CREATE INDEX object_topics_live ON object_topics (space, topic, live_until);
ALTER TABLE events ADD COLUMN space TEXT NOT NULL DEFAULT '';
`,
  },
  {
    version: 20,
    // A space object promoted into the commons names the public copy (service/promote.ts).
    name: 'the public copy a promoted space object names',
    sql: `
ALTER TABLE objects ADD COLUMN promoted_to TEXT;
`,
  },
];
