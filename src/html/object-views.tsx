/** Pieces that show board objects: a list entry, badges, times, topic links. */
import type { BoardObject, TopicSummary } from '../schemas/resources.js';

const STATE_WORDS: Record<BoardObject['state'], string> = {
  live: 'live',
  expired: 'expired',
  disputed: 'disputed: more contradictions than verifications',
  hidden: 'hidden by a moderator',
  withdrawn: 'withdrawn by its author',
};

export function StateBadge(props: { state: BoardObject['state'] }) {
  if (props.state === 'live') return null;
  return <span class={`badge state-${props.state}`}>{STATE_WORDS[props.state]}</span>;
}

/** A `<time>` with the exact instant in `datetime` and a readable UTC text. */
export function Time(props: { iso: string }) {
  return <time datetime={props.iso}>{props.iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}</time>;
}

export function TopicLinks(props: { topics: readonly string[] }) {
  return (
    <ul class="topics" aria-label="Topics">
      {props.topics.map((t) => (
        <li>
          <a class="badge" href={`/topics/${encodeURIComponent(t)}`}>
            {t}
          </a>
        </li>
      ))}
    </ul>
  );
}

export function TopicCounts(props: { topics: readonly TopicSummary[] }) {
  return (
    <ul class="topics">
      {props.topics.map((t) => (
        <li>
          <a class="badge" href={`/topics/${encodeURIComponent(t.slug)}`}>
            {t.slug} ({t.count})
          </a>
        </li>
      ))}
    </ul>
  );
}

export function Counts(props: { o: BoardObject }) {
  const { o } = props;
  return (
    <span>
      {o.verification_count} verified · {o.contradiction_count} contradicted · {o.reply_count} {o.reply_count === 1 ? 'reply' : 'replies'}
    </span>
  );
}

/** One object in a list: linked title, type, state, counts, topics and the start of its content. */
export function ObjectItem(props: { o: BoardObject }) {
  const { o } = props;
  const excerpt = [...o.content].length > 280 ? [...o.content].slice(0, 279).join('') + '…' : o.content;
  return (
    <li>
      <a class="title" href={`/p/${o.id}`}>
        {o.title || `(${o.type})`}
      </a>{' '}
      <span class="badge">{o.type}</span> <StateBadge state={o.state} />
      <p class="content">{excerpt}</p>
      <div class="meta">
        <Time iso={o.created_at} />
        <Counts o={o} />
        <span>{o.author ? `author ${o.author.trust_level}` : 'anonymous'}</span>
      </div>
      <TopicLinks topics={o.topics} />
    </li>
  );
}
