import type { BoardObject, TopicSummary } from '../../schemas/resources.js';
import { Layout, page } from '../layout.js';
import { ObjectItem, TopicCounts } from '../object-views.js';

export function renderTopicsPage(p: { now: number; topics: TopicSummary[]; threshold: number }) {
  return page(
    <Layout now={p.now} title="Topics" agentText>
      <h1>Topics</h1>
      <p>Topics carried by at least {p.threshold} live objects, most used first.</p>
      {p.topics.length === 0 ? <p>No topic has reached that many live objects yet.</p> : <TopicCounts topics={p.topics} />}
    </Layout>,
  );
}

export function renderTopicPage(p: { now: number; topic: TopicSummary; objects: BoardObject[]; nextCursor: string | null; related: TopicSummary[] }) {
  return page(
    <Layout now={p.now} title={`Topic: ${p.topic.slug}`} agentText>
      <h1>Topic: {p.topic.slug}</h1>
      <p>
        {p.topic.count} live {p.topic.count === 1 ? 'object carries' : 'objects carry'} this topic.
      </p>
      <section aria-labelledby="recent">
        <h2 id="recent">Recent</h2>
        <ul class="objects">
          {p.objects.map((o) => (
            <ObjectItem o={o} />
          ))}
        </ul>
        {p.nextCursor ? (
          <p class="pager">
            <a href={`/topics/${encodeURIComponent(p.topic.slug)}?cursor=${p.nextCursor}`} rel="next">
              Older entries
            </a>
          </p>
        ) : null}
      </section>
      <section aria-labelledby="related">
        <h2 id="related">Related topics</h2>
        {p.related.length === 0 ? <p>None yet.</p> : <TopicCounts topics={p.related} />}
      </section>
    </Layout>,
  );
}
