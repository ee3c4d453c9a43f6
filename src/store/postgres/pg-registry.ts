/** The registry half of the PostgreSQL store: servers, tools and history events. */
import { syncEffect, VERDICTS, type HistoryEvent, type HistoryKind, type RegistryEntry, type Verdict } from '../../domain/registry.js';
import type { ProbeRecord, RegistryStore, ServerListQuery, ServerRecord, SyncRecord, ToolRow } from '../../ports/registry-store.js';
import { likePattern, serverParams, toServer, toTool, type ServerRow, type ToolDbRow } from '../registry-rows.js';
import { all, limitSql, one, run, type Params } from './pg-rows.js';
import type { PgSession } from './pg-session.js';

export class PgRegistry implements RegistryStore {
  constructor(private readonly db: PgSession) {}

  upsertServers(entries: readonly RegistryEntry[], now: number): Promise<string[]> {
    return this.db.transaction(async (tx) => {
      const created: string[] = [];
      for (const e of entries) {
        const row = serverParams(e, now);
        // Locked, so two syncs (two instances) cannot both see the name as new.
        const old = await one<{ remote_type: string | null; remote_url: string | null }>(tx, 'SELECT remote_type, remote_url FROM registry_servers WHERE name = @name FOR UPDATE', {
          name: e.name,
        });
        const effect = syncEffect(old ? { remoteType: old.remote_type, remoteUrl: old.remote_url } : null, e.remote, now);
        if (effect.firstSighting) {
          const inserted = await run(
            tx,
            `INSERT INTO registry_servers (name, version, title, description, status, website_url, repository_url, category, remote_type, remote_url,
               remote_headers, published_at, updated_at, first_seen_at, synced_at, outcome, next_probe_at)
             VALUES (@name, @version, @title, @description, @status, @website_url, @repository_url, @category, @remote_type, @remote_url,
               @remote_headers, @published_at, @updated_at, @now, @now, @outcome, @next)
             ON CONFLICT (name) DO NOTHING`,
            { ...row, outcome: effect.reset!.outcome, next: effect.reset!.nextProbeAt },
          );
          if (inserted === 1) {
            await this.#insertEvents(tx, e.name, [{ kind: 'first-seen', names: [], at: now }]);
            created.push(e.name);
          }
          continue;
        }
        await run(
          tx,
          `UPDATE registry_servers SET version = @version, title = @title, description = @description, status = @status,
             website_url = @website_url, repository_url = @repository_url, category = @category, remote_headers = @remote_headers,
             published_at = @published_at, updated_at = @updated_at, synced_at = @now
           WHERE name = @name`,
          row,
        );
        if (effect.reset) {
          await run(
            tx,
            `UPDATE registry_servers SET remote_type = @remote_type, remote_url = @remote_url, verdict = 'unverified', fail_streak = 0,
               outcome = @outcome, outcome_detail = NULL, http_status = NULL, auth_scheme = NULL, auth_metadata_url = NULL,
               checked_at = NULL, next_probe_at = @next
             WHERE name = @name`,
            { name: e.name, remote_type: row.remote_type, remote_url: row.remote_url, outcome: effect.reset.outcome, next: effect.reset.nextProbeAt },
          );
        }
      }
      return created;
    });
  }

  markUnlisted(syncStartedAt: number): Promise<number> {
    return run(this.db, `UPDATE registry_servers SET status = 'deleted' WHERE synced_at < @at AND status <> 'deleted'`, { at: syncStartedAt });
  }

  async dueServers(now: number, limit: number): Promise<ServerRecord[]> {
    const rows = await all<ServerRow>(
      this.db,
      `SELECT * FROM registry_servers WHERE next_probe_at IS NOT NULL AND status <> 'deleted' AND next_probe_at <= @now ORDER BY next_probe_at ${limitSql(limit)}`,
      { now },
    );
    return rows.map(toServer);
  }

  recordProbe(name: string, p: ProbeRecord, events: readonly HistoryEvent[]): Promise<void> {
    const o = p.outcome;
    return this.db.transaction(async (tx) => {
      await run(
        tx,
        `UPDATE registry_servers SET verdict = @verdict, fail_streak = @fail_streak, outcome = @outcome, outcome_detail = @detail,
           http_status = @http_status, protocol_version = COALESCE(@protocol_version, protocol_version),
           auth_scheme = CASE WHEN @auth THEN @auth_scheme ELSE auth_scheme END,
           auth_metadata_url = CASE WHEN @auth THEN @auth_metadata_url ELSE auth_metadata_url END,
           tool_count = COALESCE(@tool_count, tool_count), checked_at = @checked_at, next_probe_at = @next_probe_at
         WHERE name = @name`,
        {
          name,
          verdict: p.state.verdict,
          fail_streak: p.state.failStreak,
          outcome: o.kind,
          detail: o.detail,
          http_status: o.httpStatus,
          protocol_version: o.protocolVersion,
          auth: o.auth !== null,
          auth_scheme: o.auth?.scheme ?? null,
          auth_metadata_url: o.auth?.metadataUrl ?? null,
          tool_count: o.kind === 'working' ? o.toolCount : null,
          checked_at: p.checkedAt,
          next_probe_at: p.nextProbeAt,
        },
      );
      if (o.kind === 'working' && o.tools) {
        await run(tx, 'UPDATE registry_tools SET present = false WHERE server_name = @name', { name });
        for (const t of o.tools) {
          await run(
            tx,
            `INSERT INTO registry_tools (server_name, name, title, description, input_schema, first_seen_at, last_seen_at, present)
             VALUES (@server, @name, @title, @description, @schema, @at, @at, true)
             ON CONFLICT (server_name, name) DO UPDATE SET title = excluded.title, description = excluded.description,
               input_schema = excluded.input_schema, last_seen_at = excluded.last_seen_at, present = true`,
            { server: name, name: t.name, title: t.title, description: t.description, schema: t.inputSchema, at: p.checkedAt },
          );
        }
      }
      await this.#insertEvents(tx, name, events);
    });
  }

  async #insertEvents(tx: PgSession, name: string, events: readonly HistoryEvent[]): Promise<void> {
    for (const e of events) await run(tx, 'INSERT INTO registry_events (server_name, kind, names, at) VALUES (@name, @kind, @names, @at)', { name, kind: e.kind, names: JSON.stringify(e.names), at: e.at });
  }

  async getServer(name: string): Promise<ServerRecord | null> {
    const row = await one<ServerRow>(this.db, `SELECT * FROM registry_servers WHERE name = @name AND status <> 'deleted'`, { name });
    return row ? toServer(row) : null;
  }

  async listServers(q: ServerListQuery): Promise<{ servers: ServerRecord[]; total: number }> {
    const where = [`status <> 'deleted'`];
    const params: Params = {};
    if (q.verdict) {
      where.push('verdict = @verdict');
      params.verdict = q.verdict;
    }
    if (q.q) {
      where.push(`(name ILIKE @q OR title ILIKE @q OR description ILIKE @q)`);
      params.q = likePattern(q.q);
    }
    const filter = where.join(' AND ');
    const total = (await one<{ n: number }>(this.db, `SELECT count(*)::int AS n FROM registry_servers WHERE ${filter}`, params))!.n;
    const rows = await all<ServerRow>(
      this.db,
      `SELECT * FROM registry_servers WHERE ${filter} ORDER BY name ${limitSql(q.limit)} OFFSET ${Math.max(0, Math.trunc(q.offset))}`,
      params,
    );
    return { servers: rows.map(toServer), total };
  }

  async recordSync(a: { at: number; ok: true; entries: number } | { at: number; ok: false; error: string }): Promise<void> {
    await run(
      this.db,
      `INSERT INTO registry_sync (id, attempted_at, ok, error, succeeded_at, entries) VALUES (1, @at, @ok, @error, @succeeded, @entries)
       ON CONFLICT (id) DO UPDATE SET attempted_at = excluded.attempted_at, ok = excluded.ok, error = excluded.error,
         succeeded_at = coalesce(excluded.succeeded_at, registry_sync.succeeded_at), entries = coalesce(excluded.entries, registry_sync.entries)`,
      { at: a.at, ok: a.ok, error: a.ok ? null : a.error.slice(0, 500), succeeded: a.ok ? a.at : null, entries: a.ok ? a.entries : null },
    );
  }

  async lastSync(): Promise<SyncRecord | null> {
    const r = await one<{ attempted_at: number; ok: boolean; error: string | null; succeeded_at: number | null; entries: number | null }>(this.db, 'SELECT * FROM registry_sync WHERE id = 1');
    return r ? { attemptedAt: r.attempted_at, ok: r.ok, error: r.error, succeededAt: r.succeeded_at, entries: r.entries } : null;
  }

  async verdictCounts(): Promise<Record<Verdict, number>> {
    const counts = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
    const rows = await all<{ verdict: Verdict; n: number }>(this.db, `SELECT verdict, count(*)::int AS n FROM registry_servers WHERE status <> 'deleted' GROUP BY verdict`);
    for (const r of rows) counts[r.verdict] = r.n;
    return counts;
  }

  async tools(name: string, presentOnly: boolean): Promise<ToolRow[]> {
    const rows = await all<ToolDbRow>(this.db, `SELECT * FROM registry_tools WHERE server_name = @name ${presentOnly ? 'AND present' : ''} ORDER BY name`, { name });
    return rows.map(toTool);
  }

  async tool(name: string, toolName: string): Promise<ToolRow | null> {
    const row = await one<ToolDbRow>(this.db, 'SELECT * FROM registry_tools WHERE server_name = @name AND name = @tool', { name, tool: toolName });
    return row ? toTool(row) : null;
  }

  async events(name: string, limit: number): Promise<HistoryEvent[]> {
    const rows = await all<{ kind: HistoryKind; names: string; at: number }>(this.db, `SELECT kind, names, at FROM registry_events WHERE server_name = @name ORDER BY seq DESC ${limitSql(limit)}`, {
      name,
    });
    return rows.map((r) => ({ kind: r.kind, names: JSON.parse(r.names) as string[], at: r.at }));
  }
}
