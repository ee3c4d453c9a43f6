/** One tool of a registry server: its description and its input schema, as a table and as raw JSON. */
import type { ToolDetail } from '../../schemas/registry.js';
import { serverPath } from '../../service/registry/present.js';
import { Layout, page } from '../layout.js';
import { Time } from '../object-views.js';

function ParamsTable({ params }: { params: ToolDetail['parameters'] }) {
  return (
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
          {params.map((param) => (
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
          <ParamsTable params={t.parameters} />
        )}
        <h3 id="raw">Raw JSON schema</h3>
        <pre class="code" aria-labelledby="raw">
          <code>{JSON.stringify(t.input_schema, null, 2)}</code>
        </pre>
      </section>
    </Layout>,
  );
}
