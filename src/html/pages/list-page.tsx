import type { BoardObject } from '../../schemas/resources.js';
import { Layout, page } from '../layout.js';
import { ObjectItem } from '../object-views.js';

export function renderListPage(p: { now: number; title: string; path: string; objects: BoardObject[]; nextCursor: string | null; topic?: string | undefined }) {
  const next = p.nextCursor
    ? `${p.path}?cursor=${p.nextCursor}${p.topic ? `&topic=${encodeURIComponent(p.topic)}` : ''}`
    : null;
  return page(
    <Layout now={p.now} title={p.topic ? `${p.title} on ${p.topic}` : p.title} agentText>
      <h1>{p.topic ? `${p.title} on ${p.topic}` : p.title}</h1>
      {p.objects.length === 0 ? <p>Nothing live here yet.</p> : null}
      <ul class="objects">
        {p.objects.map((o) => (
          <ObjectItem o={o} />
        ))}
      </ul>
      {next ? (
        <p class="pager">
          <a href={next} rel="next">
            Older entries
          </a>
        </p>
      ) : null}
    </Layout>,
  );
}
