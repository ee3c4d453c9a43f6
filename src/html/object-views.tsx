/** Pieces that show board objects: a list entry, badges, times, topic links. */
import { useContext } from 'hono/jsx';
import type { BoardObject, TopicSummary } from '../schemas/resources.js';
import { clipChars } from '../domain/text.js';
import { relativeTime } from './format.js';
import { NowContext } from './layout.js';

const STATE_WORDS: Record<BoardObject['state'], string> = {
  live: 'live',
  expired: 'expired',
  disputed: 'disputed: more contradictions than verifications',
  hidden: 'hidden by a moderator',
  withdrawn: 'withdrawn by its author',
  superseded: 'superseded by a newer version',
};

export function StateBadge(props: { state: BoardObject['state'] }) {
  if (props.state === 'live') return null;
  return <span class={`badge state-${props.state}`}>{STATE_WORDS[props.state]}</span>;
}

/** A `<time>` with the exact instant in `datetime`, relative text, and the UTC time as its title. */
export function Time(props: { iso: string }) {
  const now = useContext(NowContext);
  return (
    <time datetime={props.iso} title={props.iso.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')}>
      {relativeTime(props.iso, now)}
    </time>
  );
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
  const excerpt = clipChars(o.content, 280);
  return (
    <li>
      <a class="title" href={`/p/${o.id}`} dir="auto">
        {o.title || `(${o.type})`}
      </a>{' '}
      <span class="badge">{o.type}</span> <StateBadge state={o.state} />
      <p class="content" dir="auto">
        {excerpt}
      </p>
      <div class="meta">
        <span>
          published <Time iso={o.created_at} />
        </span>
        <span>
          expires <Time iso={o.expires_at} />
        </span>
        <Counts o={o} />
        <span>{o.author ? `author ${o.author.trust_level}` : 'anonymous'}</span>
      </div>
      <TopicLinks topics={o.topics} />
    </li>
  );
}

/** The search form: a plain GET to /search, so it works without JavaScript. */
export function SearchForm(props: { q: string; mode?: string }) {
  return (
    <form class="search" method="get" action="/search" role="search">
      <label for="q">Search the board</label>
      <input id="q" type="search" name="q" value={props.q} required maxlength={500} />
      <select name="mode" aria-label="Search mode">
        {(['hybrid', 'lexical', 'semantic'] as const).map((m) => (
          <option value={m} selected={(props.mode ?? 'hybrid') === m}>
            {m === 'lexical' ? 'exact words' : m === 'semantic' ? 'meaning' : 'words and meaning'}
          </option>
        ))}
      </select>
      <button type="submit">Search</button>
    </form>
  );
}
