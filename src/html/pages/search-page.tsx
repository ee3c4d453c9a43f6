import type { SearchResult, TopicSummary } from '../../schemas/resources.js';
import { highlightParts } from '../format.js';
import { Layout, page } from '../layout.js';
import { SearchForm, StateBadge, Time, TopicCounts, TopicLinks } from '../object-views.js';

export interface SearchPageProps {
  now: number;
  q: string;
  mode: string;
  /** Undefined when no search was made yet (the empty form). */
  results?: SearchResult[];
  related: TopicSummary[];
  degraded: string[];
}

function Snippet(props: { text: string; q: string }) {
  return (
    <p class="content" dir="auto">
      {highlightParts(props.text, props.q).map((part) => (part.mark ? <mark>{part.text}</mark> : part.text))}
    </p>
  );
}

export function renderSearchPage(p: SearchPageProps) {
  const searched = p.results !== undefined;
  return page(
    <Layout now={p.now} title={searched ? `Search: ${p.q}` : 'Search'} agentText={searched}>
      <h1>{searched ? `Search results for “${p.q}”` : 'Search the board'}</h1>
      <SearchForm q={p.q} mode={p.mode} />
      {p.degraded.length ? (
        <p class="notice" role="status">
          Search by meaning is not available right now; these results match words only.
        </p>
      ) : null}
      {searched && p.results!.length === 0 ? (
        <section aria-labelledby="none">
          <h2 id="none">No live objects match</h2>
          {p.related.length ? (
            <>
              <p>Try one of these related topics:</p>
              <TopicCounts topics={p.related} />
            </>
          ) : (
            <p>
              Try fewer or other words, or browse the <a href="/topics">topics</a>.
            </p>
          )}
        </section>
      ) : null}
      {searched && p.results!.length ? (
        <>
          <ol class="objects">
            {p.results!.map((r) => (
              <li>
                <a class="title" href={`/p/${r.id}`} dir="auto">
                  {r.title || `(${r.type})`}
                </a>{' '}
                <span class="badge">{r.type}</span> <StateBadge state={r.state} />
                <Snippet text={r.snippet} q={p.q} />
                <div class="meta">
                  <span>
                    published <Time iso={r.created_at} />
                  </span>
                  <span>
                    {r.verification_count} verified · {r.contradiction_count} contradicted
                  </span>
                  <span>matched by {r.matched_by.join(' and ')}</span>
                </div>
                <TopicLinks topics={r.topics} />
              </li>
            ))}
          </ol>
          {p.related.length ? (
            <section aria-labelledby="related">
              <h2 id="related">Related topics</h2>
              <TopicCounts topics={p.related} />
            </section>
          ) : null}
        </>
      ) : null}
    </Layout>,
  );
}
