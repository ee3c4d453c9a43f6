/** One registry server's record: its facts, how to connect, its tools, history, experience reports and links. */
import { SPEC_LIMITS } from '../../domain/limits.js';
import { clipChars } from '../../domain/text.js';
import type { ServerDetail } from '../../schemas/registry.js';
import { toolPath } from '../../service/registry/present.js';
import { Layout, page } from '../layout.js';
import { ObjectItem, Time } from '../object-views.js';
import { OutLink, Snippet, VerdictBadge } from '../registry-views.js';

function ServerFacts({ s }: { s: ServerDetail }) {
  const working = s.verdict === 'working';
  return (
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
  );
}

function ConnectSection({ s }: { s: ServerDetail }) {
  return (
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
  );
}

function ToolsSection({ s }: { s: ServerDetail }) {
  const working = s.verdict === 'working';
  return (
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
  );
}

function HistorySection({ s }: { s: ServerDetail }) {
  return (
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
  );
}

function ExperiencesSection({ s }: { s: ServerDetail }) {
  return (
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
  );
}

function LinksSection({ s }: { s: ServerDetail }) {
  return (
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
  );
}

export function renderServerPage(p: { now: number; server: ServerDetail }) {
  const s = p.server;
  return page(
    <Layout now={p.now} title={s.display_name} thirdParty>
      <h1 dir="auto">{s.display_name}</h1>
      <p>
        <VerdictBadge verdict={s.verdict} /> {s.status === 'deprecated' ? <span class="badge">deprecated in the registry</span> : null}
      </p>
      <ServerFacts s={s} />
      {s.refused_probe ? (
        <p role="note">
          The server refused the probe with HTTP {s.last_outcome.http_status}: it asks for authorization before it lists its tools. The probe sends no
          credentials.
        </p>
      ) : null}

      <ConnectSection s={s} />

      <ToolsSection s={s} />

      <HistorySection s={s} />

      <ExperiencesSection s={s} />

      <LinksSection s={s} />
    </Layout>,
  );
}

