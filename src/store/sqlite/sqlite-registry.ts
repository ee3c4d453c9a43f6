/** The registry half of the SQLite store: servers, tools and history events (migration 6). */
import type Database from 'better-sqlite3';
import { syncEffect, VERDICTS, type HistoryEvent, type HistoryKind, type RegistryEntry, type Verdict } from '../../domain/registry.js';
import type { ProbeRecord, RegistryStore, ServerListQuery, ServerRecord, SyncRecord, ToolRow } from '../../ports/registry-store.js';
import type { Sql } from './sqlite-rows.js';
import { likePattern, serverParams, toServer, toTool, type ServerRow, type ToolDbRow } from '../registry-rows.js';

export class SqliteRegistry implements RegistryStore {
  constructor(
    private readonly db: Database.Database,
    private readonly sql: Sql,
  ) {}

  async upsertServers(entries: readonly RegistryEntry[], now: number): Promise<string[]> {
    const created: string[] = [];
    this.db
      .transaction(() => {
        for (const e of entries) {
          const row = serverParams(e, now);
          const old = this.sql('SELECT remote_type, remote_url FROM registry_servers WHERE name = ?').get(e.name) as
            | { remote_type: string | null; remote_url: string | null }
            | undefined;
          const effect = syncEffect(old ? { remoteType: old.remote_type, remoteUrl: old.remote_url } : null, e.remote, now);
          if (effect.firstSighting) {
            this.sql(
              `INSERT INTO registry_servers (name, version, title, description, status, website_url, repository_url, category, remote_type, remote_url,
                 remote_headers, published_at, updated_at, first_seen_at, synced_at, outcome, next_probe_at)
               VALUES (@name, @version, @title, @description, @status, @website_url, @repository_url, @category, @remote_type, @remote_url,
                 @remote_headers, @published_at, @updated_at, @now, @now, @outcome, @next)`,
            ).run({ ...row, outcome: effect.reset!.outcome, next: effect.reset!.nextProbeAt });
            this.#insertEvents(e.name, [{ kind: 'first-seen', names: [], at: now }]);
            created.push(e.name);
            continue;
          }
          this.sql(
            `UPDATE registry_servers SET version = @version, title = @title, description = @description, status = @status,
               website_url = @website_url, repository_url = @repository_url, category = @category, remote_headers = @remote_headers,
               published_at = @published_at, updated_at = @updated_at, synced_at = @now
             WHERE name = @name`,
          ).run(row);
          if (effect.reset) {
            this.sql(
              `UPDATE registry_servers SET remote_type = @remote_type, remote_url = @remote_url, verdict = 'unverified', fail_streak = 0,
                 outcome = @outcome, outcome_detail = NULL, http_status = NULL, auth_scheme = NULL, auth_metadata_url = NULL,
                 checked_at = NULL, next_probe_at = @next
               WHERE name = @name`,
            ).run({ name: e.name, remote_type: row.remote_type, remote_url: row.remote_url, outcome: effect.reset.outcome, next: effect.reset.nextProbeAt });
          }
        }
      })
      .immediate();
    return created;
  }

  async markUnlisted(syncStartedAt: number): Promise<number> {
    return this.sql(`UPDATE registry_servers SET status = 'deleted' WHERE synced_at < ? AND status <> 'deleted'`).run(syncStartedAt).changes;
  }

  async dueServers(now: number, limit: number): Promise<ServerRecord[]> {
    const rows = this.sql(
      `SELECT * FROM registry_servers WHERE next_probe_at IS NOT NULL AND status <> 'deleted' AND next_probe_at <= ?
       ORDER BY next_probe_at LIMIT ${Math.max(0, Math.trunc(limit))}`,
    ).all(now) as ServerRow[];
    return rows.map(toServer);
  }

  async recordProbe(name: string, p: ProbeRecord, events: readonly HistoryEvent[]): Promise<void> {
    const o = p.outcome;
    this.db
      .transaction(() => {
        this.sql(
          `UPDATE registry_servers SET verdict = @verdict, fail_streak = @fail_streak, outcome = @outcome, outcome_detail = @detail,
             http_status = @http_status, protocol_version = COALESCE(@protocol_version, protocol_version),
             auth_scheme = CASE WHEN @auth THEN @auth_scheme ELSE auth_scheme END,
             auth_metadata_url = CASE WHEN @auth THEN @auth_metadata_url ELSE auth_metadata_url END,
             tool_count = COALESCE(@tool_count, tool_count), checked_at = @checked_at, next_probe_at = @next_probe_at
           WHERE name = @name`,
        ).run({
          name,
          verdict: p.state.verdict,
          fail_streak: p.state.failStreak,
          outcome: o.kind,
          detail: o.detail,
          http_status: o.httpStatus,
          protocol_version: o.protocolVersion,
          auth: o.auth ? 1 : 0,
          auth_scheme: o.auth?.scheme ?? null,
          auth_metadata_url: o.auth?.metadataUrl ?? null,
          tool_count: o.kind === 'working' ? o.toolCount : null,
          checked_at: p.checkedAt,
          next_probe_at: p.nextProbeAt,
        });
        if (o.kind === 'working' && o.tools) {
          this.sql('UPDATE registry_tools SET present = 0 WHERE server_name = ?').run(name);
          const upsert = this.sql(
            `INSERT INTO registry_tools (server_name, name, title, description, input_schema, first_seen_at, last_seen_at, present)
             VALUES (@server, @name, @title, @description, @schema, @at, @at, 1)
             ON CONFLICT (server_name, name) DO UPDATE SET title = excluded.title, description = excluded.description,
               input_schema = excluded.input_schema, last_seen_at = excluded.last_seen_at, present = 1`,
          );
          for (const t of o.tools) upsert.run({ server: name, name: t.name, title: t.title, description: t.description, schema: t.inputSchema, at: p.checkedAt });
        }
        this.#insertEvents(name, events);
      })
      .immediate();
  }

  #insertEvents(name: string, events: readonly HistoryEvent[]): void {
    const insert = this.sql('INSERT INTO registry_events (server_name, kind, names, at) VALUES (?, ?, ?, ?)');
    for (const e of events) insert.run(name, e.kind, JSON.stringify(e.names), e.at);
  }

  async getServer(name: string): Promise<ServerRecord | null> {
    const row = this.sql(`SELECT * FROM registry_servers WHERE name = ? AND status <> 'deleted'`).get(name) as ServerRow | undefined;
    return row ? toServer(row) : null;
  }

  async listServers(q: ServerListQuery): Promise<{ servers: ServerRecord[]; total: number }> {
    const where = [`status <> 'deleted'`];
    const params: Record<string, unknown> = {};
    if (q.verdict) {
      where.push('verdict = @verdict');
      params.verdict = q.verdict;
    }
    if (q.q) {
      where.push(`(name LIKE @q ESCAPE '\\' OR title LIKE @q ESCAPE '\\' OR description LIKE @q ESCAPE '\\')`);
      params.q = likePattern(q.q);
    }
    const filter = where.join(' AND ');
    const total = (this.sql(`SELECT count(*) AS n FROM registry_servers WHERE ${filter}`).get(params) as { n: number }).n;
    const rows = this.sql(
      `SELECT * FROM registry_servers WHERE ${filter} ORDER BY name LIMIT ${Math.max(0, Math.trunc(q.limit))} OFFSET ${Math.max(0, Math.trunc(q.offset))}`,
    ).all(params) as ServerRow[];
    return { servers: rows.map(toServer), total };
  }

  async recordSync(a: { at: number; ok: true; entries: number } | { at: number; ok: false; error: string }): Promise<void> {
    this.sql(
      `INSERT INTO registry_sync (id, attempted_at, ok, error, succeeded_at, entries) VALUES (1, @at, @ok, @error, @succeeded, @entries)
       ON CONFLICT (id) DO UPDATE SET attempted_at = excluded.attempted_at, ok = excluded.ok, error = excluded.error,
         succeeded_at = coalesce(excluded.succeeded_at, succeeded_at), entries = coalesce(excluded.entries, entries)`,
    ).run({
      at: a.at,
      ok: a.ok ? 1 : 0,
      error: a.ok ? null : a.error.slice(0, 500),
      succeeded: a.ok ? a.at : null,
      entries: a.ok ? a.entries : null,
    });
  }

  async lastSync(): Promise<SyncRecord | null> {
    const r = this.sql('SELECT * FROM registry_sync WHERE id = 1').get() as
      | { attempted_at: number; ok: number; error: string | null; succeeded_at: number | null; entries: number | null }
      | undefined;
    return r ? { attemptedAt: r.attempted_at, ok: r.ok === 1, error: r.error, succeededAt: r.succeeded_at, entries: r.entries } : null;
  }

  async verdictCounts(): Promise<Record<Verdict, number>> {
    const counts = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
    const rows = this.sql(`SELECT verdict, count(*) AS n FROM registry_servers WHERE status <> 'deleted' GROUP BY verdict`).all() as { verdict: Verdict; n: number }[];
    for (const r of rows) counts[r.verdict] = r.n;
    return counts;
  }

  async tools(name: string, presentOnly: boolean): Promise<ToolRow[]> {
    const rows = this.sql(`SELECT * FROM registry_tools WHERE server_name = ? ${presentOnly ? 'AND present = 1' : ''} ORDER BY name`).all(name) as ToolDbRow[];
    return rows.map(toTool);
  }

  async tool(name: string, toolName: string): Promise<ToolRow | null> {
    const row = this.sql('SELECT * FROM registry_tools WHERE server_name = ? AND name = ?').get(name, toolName) as ToolDbRow | undefined;
    return row ? toTool(row) : null;
  }

  async events(name: string, limit: number): Promise<HistoryEvent[]> {
    const rows = this.sql(`SELECT kind, names, at FROM registry_events WHERE server_name = ? ORDER BY seq DESC LIMIT ${Math.max(0, Math.trunc(limit))}`).all(name) as {
      kind: HistoryKind;
      names: string;
      at: number;
    }[];
    return rows.map((r) => ({ kind: r.kind, names: JSON.parse(r.names) as string[], at: r.at }));
  }
}
