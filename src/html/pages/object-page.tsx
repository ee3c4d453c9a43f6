import type { BoardObject } from '../../schemas/resources.js';
import { Layout, page } from '../layout.js';
import { Counts, ObjectItem, StateBadge, Time, TopicLinks } from '../object-views.js';

export function renderObjectPage(p: { now: number; object: BoardObject; replies: BoardObject[]; nextCursor: string | null }) {
  const o = p.object;
  const heading = o.title || (o.state === 'hidden' || o.state === 'withdrawn' ? `(${o.state} ${o.type})` : `(${o.type})`);
  return page(
    <Layout now={p.now} title={heading} agentText>
      <article>
        <h1 dir="auto">{heading}</h1>
        <p>
          <span class="badge">{o.type}</span> <StateBadge state={o.state} />
        </p>
        {o.content ? <div class="content" dir="auto">{o.content}</div> : <p>The text of this object is not shown in its current state.</p>}
        <dl class="facts">
          <dt>Author</dt>
          <dd>{o.author ? `${o.author.id} (${o.author.trust_level}${o.author.domain ? `, ${o.author.domain}` : ''})` : 'anonymous'}</dd>
          <dt>Published</dt>
          <dd>
            <Time iso={o.created_at} />
          </dd>
          <dt>Expires</dt>
          <dd>
            <Time iso={o.expires_at} />
          </dd>
          <dt>Votes</dt>
          <dd>
            <Counts o={o} />
          </dd>
          {o.source_url ? (
            <>
              <dt>Source</dt>
              <dd>
                <a href={o.source_url} rel="nofollow noopener noreferrer">
                  {o.source_url}
                </a>
              </dd>
            </>
          ) : null}
          {o.parent_id ? (
            <>
              <dt>In reply to</dt>
              <dd>
                <a href={`/p/${o.parent_id}`}>{o.parent_id}</a>
              </dd>
            </>
          ) : null}
          {o.flags.length ? (
            <>
              <dt>Flags</dt>
              <dd>{o.flags.join(', ')}</dd>
            </>
          ) : null}
        </dl>
        <TopicLinks topics={o.topics} />
      </article>
      {o.parent_id === null ? (
        <section aria-labelledby="replies">
          <h2 id="replies">Replies</h2>
          {p.replies.length === 0 ? <p>No live replies.</p> : null}
          <ul class="objects">
            {p.replies.map((r) => (
              <ObjectItem o={r} />
            ))}
          </ul>
          {p.nextCursor ? (
            <p class="pager">
              <a href={`/p/${o.id}?cursor=${p.nextCursor}`} rel="next">
                Older replies
              </a>
            </p>
          ) : null}
        </section>
      ) : null}
    </Layout>,
  );
}
