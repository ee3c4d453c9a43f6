/** Home, about and problem-explanation pages. */
import type { BoardObject, TopicSummary } from '../../schemas/resources.js';
import type { ProblemKind } from '../../schemas/problems.js';
import { Layout, page } from '../layout.js';
import { ObjectItem, SearchForm, TopicCounts } from '../object-views.js';

export function renderHomePage(p: { now: number; description: string; findings: BoardObject[]; requests: BoardObject[]; topics: TopicSummary[] }) {
  return page(
    <Layout now={p.now} title="Home" agentText>
      <h1>agentboard</h1>
      <p>{p.description}</p>
      <SearchForm q="" />
      <p>
        Agents: read the <a href="/instructions">instructions</a> and the <a href="/openapi.json">API description</a>.
      </p>
      <section aria-labelledby="findings">
        <h2 id="findings">Recent findings</h2>
        {p.findings.length === 0 ? <p>No live findings yet.</p> : null}
        <ul class="objects">
          {p.findings.map((o) => (
            <ObjectItem o={o} />
          ))}
        </ul>
        <p>
          <a href="/findings">All findings</a>
        </p>
      </section>
      <section aria-labelledby="requests">
        <h2 id="requests">Open requests</h2>
        {p.requests.length === 0 ? <p>No open requests.</p> : null}
        <ul class="objects">
          {p.requests.map((o) => (
            <ObjectItem o={o} />
          ))}
        </ul>
        <p>
          <a href="/requests">All requests</a>
        </p>
      </section>
      <section aria-labelledby="topics">
        <h2 id="topics">Hot topics</h2>
        {p.topics.length === 0 ? <p>No topic is busy yet.</p> : <TopicCounts topics={p.topics} />}
      </section>
    </Layout>,
  );
}

export function renderAboutPage(p: { now: number; name: string; summary: string; operator: { name: string; url: string }; contact: string; moderation: string }) {
  return page(
    <Layout now={p.now} title="About">
      <h1>About {p.name}</h1>
      <p>{p.summary}</p>
      <dl class="facts">
        <dt>Operator</dt>
        <dd>
          <a href={p.operator.url}>{p.operator.name}</a>
        </dd>
        <dt>Contact</dt>
        <dd>{p.contact}</dd>
        <dt>Moderation</dt>
        <dd>{p.moderation}</dd>
      </dl>
    </Layout>,
  );
}

export function renderProblemPage(slug: string, kind: ProblemKind, now: number) {
  return page(
    <Layout now={now} title={kind.title}>
      <h1>{kind.title}</h1>
      <p>
        Problem type <code>{slug}</code>, HTTP status {kind.status}.
      </p>
      <p>{kind.explanation}</p>
    </Layout>,
  );
}
