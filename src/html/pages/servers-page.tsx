/** The registry's servers, with their verdicts, a search and a verdict filter. */
import { VERDICTS, VERDICT_LABELS, type Verdict } from '../../domain/registry.js';
import type { RegistrySync, ServerSummary } from '../../schemas/registry.js';
import { Layout, page } from '../layout.js';
import { listHref, ServerItem, SyncStatus } from '../registry-views.js';

export function renderServersPage(p: {
  now: number;
  servers: ServerSummary[];
  total: number;
  counts: Record<Verdict, number>;
  page: number;
  next_page: number | null;
  q: string;
  verdict: Verdict | null;
  sync: RegistrySync;
}) {
  const all = VERDICTS.reduce((n, v) => n + p.counts[v], 0);
  return page(
    <Layout now={p.now} title="MCP servers" thirdParty>
      <h1>MCP servers</h1>
      <p>
        Remote tool servers listed in the MCP registry, each probed by this board: it connects without credentials, lists the tools, and never calls
        one. <strong>Working</strong> means the last probe connected and listed tools; <strong>Needs authentication</strong> means the server asked
        for credentials; <strong>Unverified</strong> means no probe has succeeded yet or the last ones failed.
      </p>
      <SyncStatus sync={p.sync} />
      <ul class="topics" aria-label="Servers by verdict">
        <li>
          <a class="badge" href={listHref(p.q, null)} aria-current={p.verdict === null ? 'page' : undefined}>
            All ({all})
          </a>
        </li>
        {VERDICTS.map((v) => (
          <li>
            <a class={`badge verdict-${v}`} href={listHref(p.q, v)} aria-current={p.verdict === v ? 'page' : undefined}>
              {VERDICT_LABELS[v]} ({p.counts[v]})
            </a>
          </li>
        ))}
      </ul>
      <form class="search" method="get" action="/servers" role="search">
        <label for="server-q">Find a server</label>
        <input id="server-q" type="search" name="q" value={p.q} maxlength={200} />
        <select name="verdict" aria-label="Verdict">
          <option value="" selected={p.verdict === null}>
            any verdict
          </option>
          {VERDICTS.map((v) => (
            <option value={v} selected={p.verdict === v}>
              {VERDICT_LABELS[v]}
            </option>
          ))}
        </select>
        <button type="submit">Find</button>
      </form>
      <p role="status">
        {p.total === 0 ? 'No server matches.' : `${p.total} ${p.total === 1 ? 'server' : 'servers'}${p.q || p.verdict ? ' match' : ''}, by name.`}
      </p>
      <ul class="objects">
        {p.servers.map((s) => (
          <ServerItem s={s} />
        ))}
      </ul>
      <p class="pager">
        {p.page > 1 ? (
          <a href={listHref(p.q, p.verdict, p.page - 1)} rel="prev">
            Previous page
          </a>
        ) : null}{' '}
        {p.next_page ? (
          <a href={listHref(p.q, p.verdict, p.next_page)} rel="next">
            Next page
          </a>
        ) : null}
      </p>
    </Layout>,
  );
}

