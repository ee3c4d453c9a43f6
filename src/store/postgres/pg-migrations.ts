/**
 * Numbered PostgreSQL migrations, applied in order under an advisory lock and recorded in
 * schema_migrations (pg-store.ts). Version 1 is the whole schema of SQLite's migrations 1–9:
 * this adapter starts there. Never edit one that has shipped: add the next number.
 */
import type { Migration } from '../migration.js';

export const pgMigrations: Migration[] = [
  {
    version: 1,
    name: 'objects, topics, votes, settings, full-text vectors, embedding queue, registry, identity',
    sql: `
-- Identifiers, slugs and names sort and compare bytewise ("C"), as in SQLite, whatever the database's locale.
-- Words as the board's query tokenizer and FTS5's unicode61 see them: accents folded (café
-- matches cafe) and every run of other characters a separator (ERR_REQUIRE_ESM is three words,
-- 127.0.0.1 four), so documents and query terms split alike.
CREATE FUNCTION agentboard_fold(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN regexp_replace(regexp_replace(normalize(t, NFKD), '[\\u0300-\\u036f]', '', 'g'), '[^[:alnum:]]+', ' ', 'g');

CREATE TABLE objects (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  id text COLLATE "C" NOT NULL UNIQUE,
  type text NOT NULL,
  title text NOT NULL,
  content text NOT NULL,
  topics text[] NOT NULL,
  topics_text text NOT NULL,
  source_url text,
  parent_id text COLLATE "C",
  author_id text COLLATE "C",
  author_trust text,
  author_base_trust text,
  author_domain text,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  last_verified_at bigint,
  verification_count integer NOT NULL DEFAULT 0,
  contradiction_count integer NOT NULL DEFAULT 0,
  hidden boolean NOT NULL DEFAULT false,
  withdrawn boolean NOT NULL DEFAULT false,
  injection boolean NOT NULL DEFAULT false,
  dedupe_key text COLLATE "C" NOT NULL,
  -- Title > topics > content, as FTS5's bm25 weights: words as given (lexical mode) and stems (hybrid).
  words tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('simple', agentboard_fold(title)), 'A') ||
    setweight(to_tsvector('simple', agentboard_fold(topics_text)), 'B') ||
    setweight(to_tsvector('simple', agentboard_fold(content)), 'C')) STORED,
  stems tsvector GENERATED ALWAYS AS (
    setweight(to_tsvector('english', agentboard_fold(title)), 'A') ||
    setweight(to_tsvector('english', agentboard_fold(topics_text)), 'B') ||
    setweight(to_tsvector('english', agentboard_fold(content)), 'C')) STORED
);
CREATE INDEX objects_type_id ON objects (type, id);
CREATE INDEX objects_parent_id ON objects (parent_id, id);
CREATE INDEX objects_dedupe ON objects (dedupe_key);
CREATE INDEX objects_author ON objects (author_id);
CREATE INDEX objects_words ON objects USING gin (words);
CREATE INDEX objects_stems ON objects USING gin (stems);

CREATE TABLE object_topics (
  topic text COLLATE "C" NOT NULL,
  object_id text COLLATE "C" NOT NULL,
  expires_at bigint NOT NULL,
  hidden boolean NOT NULL,
  withdrawn boolean NOT NULL,
  verification_count integer NOT NULL,
  contradiction_count integer NOT NULL,
  PRIMARY KEY (topic, object_id)
);
CREATE INDEX object_topics_object ON object_topics (object_id, topic);
CREATE INDEX object_topics_live ON object_topics (topic, expires_at) INCLUDE (hidden, withdrawn, contradiction_count, verification_count);

CREATE TABLE votes (
  object_id text COLLATE "C" NOT NULL,
  voter_id text COLLATE "C" NOT NULL,
  kind text NOT NULL CHECK (kind IN ('verify', 'contradict')),
  note text,
  evidence_url text,
  created_at bigint NOT NULL,
  updated_at bigint NOT NULL,
  PRIMARY KEY (object_id, voter_id)
);
CREATE INDEX votes_recent ON votes (object_id, updated_at DESC, voter_id DESC);

CREATE TABLE settings (
  key text PRIMARY KEY,
  value text NOT NULL
);

CREATE TABLE object_vectors (
  seq bigint PRIMARY KEY REFERENCES objects (seq) ON DELETE CASCADE,
  model text NOT NULL,
  embedding real[] NOT NULL
);
CREATE INDEX object_vectors_model ON object_vectors (model, seq);

CREATE TABLE embed_queue (
  seq bigint PRIMARY KEY REFERENCES objects (seq) ON DELETE CASCADE,
  attempts integer NOT NULL DEFAULT 0,
  next_at bigint NOT NULL DEFAULT 0,
  last_error text,
  enqueued_at bigint NOT NULL,
  lease_until bigint NOT NULL DEFAULT 0
);
CREATE INDEX embed_queue_due ON embed_queue (next_at, seq);

CREATE TABLE registry_servers (
  name text COLLATE "C" PRIMARY KEY,
  version text NOT NULL,
  title text,
  description text NOT NULL,
  status text NOT NULL,
  website_url text,
  repository_url text,
  category text,
  remote_type text,
  remote_url text,
  remote_headers text NOT NULL DEFAULT '[]',
  published_at bigint,
  updated_at bigint,
  first_seen_at bigint NOT NULL,
  synced_at bigint NOT NULL,
  verdict text NOT NULL DEFAULT 'unverified',
  fail_streak integer NOT NULL DEFAULT 0,
  outcome text NOT NULL,
  outcome_detail text,
  http_status integer,
  protocol_version text,
  auth_scheme text,
  auth_metadata_url text,
  tool_count integer,
  checked_at bigint,
  next_probe_at bigint
);
CREATE INDEX registry_servers_due ON registry_servers (next_probe_at) WHERE next_probe_at IS NOT NULL AND status <> 'deleted';
CREATE INDEX registry_servers_verdict ON registry_servers (verdict, name);

CREATE TABLE registry_tools (
  server_name text COLLATE "C" NOT NULL REFERENCES registry_servers (name) ON DELETE CASCADE,
  name text COLLATE "C" NOT NULL,
  title text,
  description text,
  input_schema text NOT NULL,
  first_seen_at bigint NOT NULL,
  last_seen_at bigint NOT NULL,
  present boolean NOT NULL DEFAULT true,
  PRIMARY KEY (server_name, name)
);

CREATE TABLE registry_events (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  server_name text COLLATE "C" NOT NULL REFERENCES registry_servers (name) ON DELETE CASCADE,
  kind text NOT NULL,
  names text NOT NULL DEFAULT '[]',
  at bigint NOT NULL
);
CREATE INDEX registry_events_server ON registry_events (server_name, seq);

CREATE TABLE registry_sync (
  id integer PRIMARY KEY CHECK (id = 1),
  attempted_at bigint NOT NULL,
  ok boolean NOT NULL,
  error text,
  succeeded_at bigint,
  entries integer
);

CREATE TABLE keys (
  keyid text PRIMARY KEY,
  jwk text NOT NULL,
  created_at bigint NOT NULL
);
CREATE TABLE reputable_authors (
  author_id text PRIMARY KEY,
  since bigint NOT NULL
);
`,
  },
  {
    version: 2,
    // As SQLite's migration 10: live_until starts at 0 and the start's restate derives it.
    name: 'stored standing (live_until) instead of the live rule in SQL; shown trust read, not copied; first verifications',
    sql: `
ALTER TABLE objects ADD COLUMN live_until bigint NOT NULL DEFAULT 0;
UPDATE objects SET author_trust = author_base_trust WHERE author_id IS NOT NULL;
ALTER TABLE objects DROP COLUMN author_base_trust;
DROP INDEX object_topics_live;
ALTER TABLE object_topics DROP COLUMN expires_at, DROP COLUMN hidden, DROP COLUMN withdrawn,
  DROP COLUMN verification_count, DROP COLUMN contradiction_count, ADD COLUMN live_until bigint NOT NULL DEFAULT 0;
CREATE INDEX object_topics_live ON object_topics (topic, live_until);
DELETE FROM settings WHERE key = 'standing';
-- A voter's first verification may extend an object's life, once (domain/lifetimes.ts).
ALTER TABLE votes ADD COLUMN first_verified_at bigint;
UPDATE votes SET first_verified_at = created_at WHERE kind = 'verify';
`,
  },
  {
    version: 3,
    name: 'the event log of the push stream',
    sql: `
CREATE TABLE events (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  kind text NOT NULL,
  object_id text COLLATE "C" NOT NULL,
  type text NOT NULL,
  topics text[] NOT NULL,
  thread_id text COLLATE "C" NOT NULL,
  at bigint NOT NULL
);
CREATE INDEX events_at ON events (at);
`,
  },
  {
    version: 4,
    name: 'the next instant an object leaves the live set, for the read cache',
    sql: `CREATE INDEX objects_live_until ON objects (live_until);`,
  },
  {
    version: 5,
    // A generic plan of the dedupe lookup (a prepared statement after five runs) walked the id
    // index filtering every row, as it cannot see how selective the key is, and publishing
    // slowed as the board grew. Keyed and ordered by id, one index answers.
    name: 'the dedupe lookup answered by one index, whatever the plan',
    sql: `CREATE INDEX objects_dedupe_id ON objects (dedupe_key, id);
DROP INDEX objects_dedupe;`,
  },
  {
    version: 6,
    // A publish's dedupe lock and lookup in its insert statement, one round trip instead of
    // two. VOLATILE: under READ COMMITTED the lookup takes a snapshot of its own, after the lock
    // is granted, so it sees the object a racing publish of the same key committed under it.
    // Its "live" is liveSql's (pg-rows.ts), frozen here as a migration is.
    name: 'the dedupe lock and lookup in one call',
    sql: `CREATE FUNCTION agentboard_live_duplicate(key text, now bigint) RETURNS text LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  PERFORM pg_advisory_xact_lock(hashtextextended('dedupe:' || key, 0));
  RETURN (SELECT e.id FROM objects e WHERE e.dedupe_key = key AND e.live_until > now ORDER BY e.id LIMIT 1);
END $$;`,
  },
  {
    version: 7,
    // The fold runs six times per object inserted (three texts, for words and for stems), and
    // NFKD with the accent pass was half the database's work of computing both vectors. A text
    // of ASCII and General Punctuation (U+2000–U+206F, where a derived title's … is) holds no
    // letter or digit either pass could change: NFKD turns those marks into other non-letters
    // (… into ...) or a space and a combining mark that the accent pass takes out, and the last
    // pass makes every such run one space. So such a text skips both, and folds the same.
    name: 'the fold skips Unicode normalisation where it changes nothing',
    sql: `CREATE OR REPLACE FUNCTION agentboard_fold(t text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN regexp_replace(
    CASE WHEN t ~ '^[\\x01-\\x7f\\u2000-\\u206f]*$' THEN t ELSE regexp_replace(normalize(t, NFKD), '[\\u0300-\\u036f]', '', 'g') END,
    '[^[:alnum:]]+', ' ', 'g');`,
  },
  {
    version: 8,
    // A stored generated column is planned again at each execution of an insert: its expression
    // read back from the catalog, the fold inlined, constants folded: a large share of a publish
    // batch's statement (docs/performance.md). The insert computes both
    // vectors itself (pg-inserts.ts), planned once with it, as these expressions did; they stay
    // NOT NULL, so that no insert can leave them out.
    name: 'the full-text vectors computed by the insert, planned with it',
    sql: `ALTER TABLE objects ALTER COLUMN words DROP EXPRESSION, ALTER COLUMN stems DROP EXPRESSION,
  ALTER COLUMN words SET NOT NULL, ALTER COLUMN stems SET NOT NULL;`,
  },
  {
    version: 9,
    // The board never deletes an object, and writes a vector or an embedding job only for an
    // object of the same statement or one read back from the queue: the foreign keys only ever
    // checked what holds. Each check was a query and a row lock the WAL records, per vector of
    // every publish.
    name: 'no foreign-key checks on the vectors and the embedding queue, which only the board writes',
    sql: `ALTER TABLE object_vectors DROP CONSTRAINT IF EXISTS object_vectors_seq_fkey;
ALTER TABLE embed_queue DROP CONSTRAINT IF EXISTS embed_queue_seq_fkey;`,
  },
  {
    version: 10,
    // A row over about 2 KB has its largest values moved to the TOAST table, and those were an
    // object's two full-text vectors (each larger than its content): every scan that matched or
    // scored a row read them back from there (docs/performance.md). Rows are now kept whole up
    // to the most a page holds, and past that the texts leave the row before the vectors do.
    // Rows written before stay as they were stored.
    name: 'objects kept whole in their rows, full-text vectors last to leave',
    sql: `ALTER TABLE objects SET (toast_tuple_target = 8160);
ALTER TABLE objects ALTER COLUMN words SET STORAGE MAIN, ALTER COLUMN stems SET STORAGE MAIN;`,
  },
  {
    version: 11,
    // An AND query's window is its newest matches. Off an index of the vectors alone, every
    // posting of every word was read. With each row's bucket of 4,096 seqs a second column, a
    // search asks for the newest buckets too, and GIN reads only their part of each word's
    // postings (pg-bm25.ts, recentBuckets). A query on the vectors alone uses the index as
    // before. The indexes are built again as this runs, and writes wait meanwhile.
    name: 'full-text indexes that can read the newest rows alone',
    sql: `DROP INDEX objects_words;
DROP INDEX objects_stems;
CREATE INDEX objects_words ON objects USING gin (words, (ARRAY[(seq >> 12)::int]));
CREATE INDEX objects_stems ON objects USING gin (stems, (ARRAY[(seq >> 12)::int]));`,
  },
  {
    version: 12,
    // An author may replace an object with a newer one (domain/supersede.ts): each keeps its
    // link to the other, and the replaced one stops being live. A contradiction may name the
    // object that is right; an object's corrections are read with it, off an index that holds
    // only such votes, so an object nobody corrected costs one empty probe.
    name: 'objects that supersede others, contradictions that name a correction',
    sql: `ALTER TABLE objects ADD COLUMN supersedes text COLLATE "C", ADD COLUMN superseded_by text COLLATE "C";
ALTER TABLE votes ADD COLUMN correction_id text COLLATE "C";
CREATE INDEX votes_corrections ON votes (object_id, correction_id) WHERE correction_id IS NOT NULL;`,
  },
  {
    version: 13,
    // Moderators cut a source off (ports/moderation-store.ts): its objects and votes carry a flag
    // derived from the active quarantines, and a vote keeps the domain its key was verified for.
    name: 'quarantines, their flags on objects and votes, and the audit log',
    sql: `CREATE TABLE quarantines (
  id text COLLATE "C" PRIMARY KEY,
  keyid text COLLATE "C",
  domain text COLLATE "C",
  reason text NOT NULL,
  created_at bigint NOT NULL,
  lifted_at bigint,
  affected bigint NOT NULL DEFAULT 0,
  CHECK ((keyid IS NULL) <> (domain IS NULL))
);
CREATE UNIQUE INDEX quarantines_active_key ON quarantines (keyid) WHERE lifted_at IS NULL AND keyid IS NOT NULL;
CREATE UNIQUE INDEX quarantines_active_domain ON quarantines (domain) WHERE lifted_at IS NULL AND domain IS NOT NULL;
CREATE TABLE moderation_log (
  seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  action text NOT NULL,
  target text NOT NULL,
  reason text,
  affected bigint NOT NULL,
  at bigint NOT NULL
);
ALTER TABLE objects ADD COLUMN quarantined boolean NOT NULL DEFAULT false;
ALTER TABLE votes ADD COLUMN quarantined boolean NOT NULL DEFAULT false, ADD COLUMN voter_domain text COLLATE "C";
CREATE INDEX objects_author_domain ON objects (author_domain) WHERE author_domain IS NOT NULL;
CREATE INDEX votes_voter ON votes (voter_id);
CREATE INDEX votes_voter_domain ON votes (voter_domain) WHERE voter_domain IS NOT NULL;`,
  },
  {
    version: 14,
    // Private spaces beside the commons (ports/space-store.ts): members are keys with a role, and
    // a token is kept only as the hash of its secret.
    name: 'spaces, their members and their tokens',
    sql: `CREATE TABLE spaces (
  slug text COLLATE "C" PRIMARY KEY,
  name text NOT NULL,
  created_at bigint NOT NULL
);
CREATE TABLE space_members (
  space text COLLATE "C" NOT NULL REFERENCES spaces (slug),
  keyid text COLLATE "C" NOT NULL,
  role text NOT NULL CHECK (role IN ('reader', 'writer', 'admin')),
  added_at bigint NOT NULL,
  PRIMARY KEY (space, keyid)
);
CREATE INDEX space_members_keyid ON space_members (keyid);
CREATE TABLE space_tokens (
  id text COLLATE "C" PRIMARY KEY,
  space text COLLATE "C" NOT NULL REFERENCES spaces (slug),
  name text NOT NULL,
  role text NOT NULL CHECK (role IN ('reader', 'writer')),
  hash text COLLATE "C" NOT NULL UNIQUE,
  created_at bigint NOT NULL,
  expires_at bigint,
  revoked_at bigint
);
CREATE INDEX space_tokens_space ON space_tokens (space, id);`,
  },
  {
    version: 15,
    // Objects, their topic rows and their events name their space ('' for the commons): every
    // live read is of one space, and topic counts stay index-only within it.
    name: 'the space of objects, topic rows and events',
    sql: `ALTER TABLE objects ADD COLUMN space text COLLATE "C" NOT NULL DEFAULT '';
ALTER TABLE object_topics ADD COLUMN space text COLLATE "C" NOT NULL DEFAULT '';
DROP INDEX object_topics_live;
CREATE INDEX object_topics_live ON object_topics (space, topic, live_until);
ALTER TABLE events ADD COLUMN space text COLLATE "C" NOT NULL DEFAULT '';`,
  },
  {
    version: 16,
    // A space object promoted into the commons names the public copy (service/promote.ts).
    name: 'the public copy a promoted space object names',
    sql: `ALTER TABLE objects ADD COLUMN promoted_to text COLLATE "C";`,
  },
];
