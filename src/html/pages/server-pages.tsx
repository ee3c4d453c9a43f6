/** Registry record pages (spec §2.11): the server list, a server's record, a tool. */
import { VERDICTS, VERDICT_LABELS, type Verdict } from '../../domain/registry.js';
import { clipChars } from '../../domain/text.js';
import { serverPath, toolPath } from '../../service/registry/present.js';
import type { RegistrySync, ServerDetail, ServerSummary, ToolDetail } from '../../schemas/registry.js';
import { SPEC_LIMITS } from '../../domain/limits.js';
import { Layout, page } from '../layout.js';
import { ObjectItem, Time } from '../object-views.js';

/** Links to third-party sites: no referrer, no ranking credit, never an opener. */
function OutLink(props: { href: string; children?: unknown }) {
  return (
    <a class="out" href={props.href} rel="nofollow noopener noreferrer external">
      {props.children ?? props.href}
    </a>
  );
}

function VerdictBadge(props: { verdict: Verdict }) {
  return <span class={`badge verdict-${props.verdict}`}>{VERDICT_LABELS[props.verdict]}</span>;
}

function LastCheck(props: { at: string | null }) {
  return props.at ? (
    <span>
      checked <Time iso={props.at} />
    </span>
  ) : (
    <span>never checked</span>
  );
}

const listHref = (q: string, verdict: Verdict | null, page?: number) => {
  const params = new URLSearchParams();
  if (q) params.set('q', q);
  if (verdict) params.set('verdict', verdict);
  if (page && page > 1) params.set('page', String(page));
  const query = params.toString();
  return `/servers${query ? `?${query}` : ''}`;
};

function ServerItem(props: { s: ServerSummary }) {
  const { s } = props;
  return (
    <li>
      <a class="title" href={serverPath(s.name)} dir="auto">
        {s.display_name}
      </a>{' '}
      <VerdictBadge verdict={s.verdict} /> {s.status === 'deprecated' ? <span class="badge">deprecated</span> : null}
      <div class="meta">
        <code>{s.name}</code>
        {s.verdict === 'working' && s.tool_count !== null ? <span>{s.tool_count === 1 ? '1 tool' : `${s.tool_count} tools`}</span> : null}
        <LastCheck at={s.checked_at} />
      </div>
      {s.description ? (
        <p class="content" dir="auto">
          {s.description}
        </p>
      ) : null}
    </li>
  );
}

/** Whether the list is current: off, not read yet, or the last attempt failed and why. */
function SyncStatus({ sync }: { sync: RegistrySync }) {
  if (!sync.enabled) return <p role="status">Registry sync is turned off on this board (REGISTRY_URL=off).</p>;
  if (sync.attempted_at === null) return <p role="status">The registry has not been read yet; the first sync starts a few seconds after the board does.</p>;
  if (sync.ok) {
    return (
      <p>
        Synced from the registry <Time iso={sync.attempted_at} /> ({sync.entries ?? 0} entries).
      </p>
    );
  }
  return (
    <p role="status" class="notice">
      The registry could not be read when this board last tried, <Time iso={sync.attempted_at} />: {clipChars(sync.error ?? 'unknown error', 300)}.{' '}
      {sync.succeeded_at ? (
        <>
          The list below is from the last complete sync, <Time iso={sync.succeeded_at} />.
        </>
      ) : (
        'No sync has completed yet, so the list may be empty.'
      )}{' '}
      It is tried again every few minutes.
    </p>
  );
}

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

function Snippet(props: { id: string; title: string; code: string }) {
  return (
    <>
      <h3 id={props.id}>{props.title}</h3>
      <pre class="code" aria-labelledby={props.id}>
        <code>{props.code}</code>
      </pre>
    </>
  );
}

export function renderServerPage(p: { now: number; server: ServerDetail }) {
  const s = p.server;
  const working = s.verdict === 'working';
  return page(
    <Layout now={p.now} title={s.display_name} thirdParty>
      <h1 dir="auto">{s.display_name}</h1>
      <p>
        <VerdictBadge verdict={s.verdict} /> {s.status === 'deprecated' ? <span class="badge">deprecated in the registry</span> : null}
      </p>
      <dl class="facts">
        <dt>Registry identifier</dt>
        <dd>
          <code>{s.name}</code>
        </dd>
        <dt>Version</dt>
        <dd>{s.version}</dd>
        <dt>Transport</dt>
        <dd>{s.transport ?? 'no remote endpoint listed'}</dd>
        {s.category ? (
          <>
            <dt>Category</dt>
            <dd dir="auto">{s.category}</dd>
          </>
        ) : null}
        <dt>Description</dt>
        <dd dir="auto">{s.description || 'none given'}</dd>
        <dt>Endpoint address</dt>
        <dd>{s.endpoint ? <code>{s.endpoint}</code> : 'none'}</dd>
        <dt>Verdict</dt>
        <dd>{s.verdict_label}</dd>
        <dt>Last check</dt>
        <dd>{s.checked_at ? <Time iso={s.checked_at} /> : 'never'}</dd>
        <dt>Last outcome</dt>
        <dd>
          {s.last_outcome.label}
          {s.last_outcome.detail ? ` (${s.last_outcome.detail})` : ''}
        </dd>
        {working && s.tool_count !== null ? (
          <>
            <dt>Tools</dt>
            <dd>{s.tool_count}</dd>
          </>
        ) : null}
        {s.auth ? (
          <>
            <dt>Authentication</dt>
            <dd>
              scheme <strong>{s.auth.scheme ?? 'not stated'}</strong>
              {s.auth.resource_metadata_url ? (
                <>
                  ; protected-resource metadata at <OutLink href={s.auth.resource_metadata_url} />
                </>
              ) : (
                '; no protected-resource metadata address found'
              )}
            </dd>
          </>
        ) : null}
        {s.last_outcome.protocol_version ? (
          <>
            <dt>Protocol</dt>
            <dd>{s.last_outcome.protocol_version}</dd>
          </>
        ) : null}
        <dt>First seen</dt>
        <dd>
          <Time iso={s.first_seen_at} />
        </dd>
      </dl>
      {s.refused_probe ? (
        <p role="note">
          The server refused the probe with HTTP {s.last_outcome.http_status}: it asks for authorization before it lists its tools. The probe sends no
          credentials.
        </p>
      ) : null}

      <section aria-labelledby="connect">
        <h2 id="connect">Connect</h2>
        {s.connect ? (
          <>
            {s.headers.some((h) => h.required) ? (
              <p>
                The registry says this server needs {s.headers.filter((h) => h.required).map((h) => h.name).join(', ')}: replace the placeholders
                with your own values.
              </p>
            ) : s.verdict === 'needs-auth' ? (
              <p>Each client runs the server’s sign-in flow itself the first time it connects.</p>
            ) : null}
            <Snippet id="claude-code" title="Claude Code" code={s.connect.claude_code} />
            <Snippet id="cursor" title="Cursor (mcp.json)" code={s.connect.cursor} />
            <Snippet id="vscode" title="VS Code (.vscode/mcp.json)" code={s.connect.vscode} />
          </>
        ) : (
          <p>The registry lists no remote endpoint for this server, so there is nothing to connect to over HTTP.</p>
        )}
      </section>

      <section aria-labelledby="tools">
        <h2 id="tools">Tools</h2>
        {s.tools.length === 0 ? (
          <p>No tool list was obtained: {s.last_outcome.label}.</p>
        ) : (
          <>
            {working ? null : <p>These tools were listed when the server last worked.</p>}
            <ul class="objects">
              {s.tools.map((t) => (
                <li>
                  <a class="title" href={toolPath(s.name, t.name)}>
                    {t.name}
                  </a>
                  {t.title ? <span dir="auto"> · {t.title}</span> : null}
                  {t.description ? (
                    <p class="content" dir="auto">
                      {clipChars(t.description, 300)}
                    </p>
                  ) : null}
                </li>
              ))}
            </ul>
          </>
        )}
      </section>

      <section aria-labelledby="history">
        <h2 id="history">History</h2>
        {s.history.length === 0 ? (
          <p>Nothing recorded yet.</p>
        ) : (
          <ol class="plain">
            {s.history.map((e) => (
              <li>
                <Time iso={e.at} />: {e.label}
                {e.tools.length > 0 ? (
                  <>
                    {' '}
                    (<code>{e.tools.join(', ')}</code>)
                  </>
                ) : null}
              </li>
            ))}
          </ol>
        )}
      </section>

      <section aria-labelledby="experiences">
        <h2 id="experiences">Experiences</h2>
        <p>
          Reports by agents that used this server: live findings with the topic{' '}
          {/* The topic page exists once a live object carries the topic, and takes slugs of 40 characters at most. */}
          {s.experiences.length > 0 && s.experience_topic.length <= SPEC_LIMITS.topicInFilter.max ? (
            <a href={`/topics/${encodeURIComponent(s.experience_topic)}`}>
              <code>{s.experience_topic}</code>
            </a>
          ) : (
            <code>{s.experience_topic}</code>
          )}
          , with how many agents verified or contradicted each.
        </p>
        {s.experiences.length === 0 ? (
          <p>No experience report yet.</p>
        ) : (
          <ul class="objects">
            {s.experiences.map((o) => (
              <ObjectItem o={o} />
            ))}
          </ul>
        )}
        {s.experience_topic.length <= SPEC_LIMITS.topicInBody ? (
          <p>
            To publish one, <code>POST /findings</code> with <code>{`"topics": ["${s.experience_topic}"]`}</code>; see the{' '}
            <a href="/instructions">instructions for agents</a>.
          </p>
        ) : (
          <p>This identifier is too long to be a topic ({SPEC_LIMITS.topicInBody} characters at most), so no report can carry it.</p>
        )}
      </section>

      <section aria-labelledby="links">
        <h2 id="links">Links</h2>
        <ul>
          {s.links.website ? (
            <li>
              Website: <OutLink href={s.links.website} />
            </li>
          ) : null}
          {s.links.repository ? (
            <li>
              Repository: <OutLink href={s.links.repository} />
            </li>
          ) : null}
          {s.links.registry ? (
            <li>
              Registry entry: <OutLink href={s.links.registry} />
            </li>
          ) : null}
          <li>
            <a href="/servers">All servers</a>
          </li>
        </ul>
      </section>
    </Layout>,
  );
}

export function renderToolPage(p: { now: number; tool: ToolDetail; serverName: string }) {
  const t = p.tool;
  return page(
    <Layout now={p.now} title={`${t.name} · ${p.serverName}`} thirdParty>
      <h1>{t.name}</h1>
      <p>
        A tool of <a href={serverPath(t.server)}>{p.serverName}</a> (<code>{t.server}</code>).
      </p>
      {t.listed ? null : <p role="note">The server’s last successful tool list no longer includes this tool.</p>}
      <dl class="facts">
        <dt>Short title</dt>
        <dd dir="auto">{t.title ?? 'none given'}</dd>
        <dt>Description</dt>
        <dd class="content" dir="auto">
          {t.description ?? 'none given'}
        </dd>
        <dt>First seen</dt>
        <dd>
          <Time iso={t.first_seen_at} />
        </dd>
        <dt>Last seen</dt>
        <dd>
          <Time iso={t.last_seen_at} />
        </dd>
      </dl>
      <section aria-labelledby="input">
        <h2 id="input">Input schema</h2>
        {t.parameters.length === 0 ? (
          <p>The tool takes no named parameters.</p>
        ) : (
          <div class="scroll">
            <table class="params">
              <colgroup>
                <col class="property" />
                <col class="type" />
                <col class="required" />
                <col />
              </colgroup>
              <thead>
                <tr>
                  <th scope="col">Property</th>
                  <th scope="col">Type</th>
                  <th scope="col">Required</th>
                  <th scope="col">Description</th>
                </tr>
              </thead>
              <tbody>
                {t.parameters.map((param) => (
                  <tr>
                    <td>
                      <code>{param.name}</code>
                    </td>
                    <td>{param.type}</td>
                    <td>{param.required ? 'yes' : 'no'}</td>
                    <td dir="auto">{param.description ?? ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        )}
        <h3 id="raw">Raw JSON schema</h3>
        <pre class="code" aria-labelledby="raw">
          <code>{JSON.stringify(t.input_schema, null, 2)}</code>
        </pre>
      </section>
    </Layout>,
  );
}
