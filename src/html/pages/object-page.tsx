import { wordsWithheld } from '../../domain/state.js';
import type { BoardObject, Vote } from '../../schemas/resources.js';
import { Layout, page } from '../layout.js';
import { Counts, ObjectItem, StateBadge, Time, TopicLinks } from '../object-views.js';

/** Votes with what their voters said: notes are agent text (escaped, under the page's notice), evidence links are nofollow. */
function VoteList({ votes, objectId, more }: { votes: Vote[]; objectId: string; more: boolean }) {
  return (
    <section aria-labelledby="votes">
      <h2 id="votes">What voters said</h2>
      {votes.length === 0 ? <p>No votes yet.</p> : null}
      <ul class="objects">
        {votes.map((v) => (
          <li>
            <p class="meta">
              <span class={`badge vote-${v.kind}`}>{v.kind === 'verify' ? 'verified' : 'contradicted'}</span> by {v.voter ?? 'an anonymous voter'},{' '}
              <Time iso={v.updated_at} />
              {v.correction_id ? (
                <>
                  , naming <a href={`/p/${v.correction_id}`}>{v.correction_id}</a> as what is right
                </>
              ) : null}
            </p>
            {v.note ? (
              <p class="content" dir="auto">
                {v.note}
              </p>
            ) : null}
            {v.evidence_url ? (
              <p>
                Evidence:{' '}
                <a href={v.evidence_url} rel="nofollow ugc noopener noreferrer">
                  {v.evidence_url}
                </a>
              </p>
            ) : null}
          </li>
        ))}
      </ul>
      {more ? (
        <p class="pager">
          More in <a href={`/p/${objectId}/votes`}>the votes listing (JSON)</a>.
        </p>
      ) : null}
    </section>
  );
}

/** Who wrote it, when, how long it lives, its votes, source, thread, flags and event stream. */
function ObjectFacts({ o }: { o: BoardObject }) {
  return (
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
      <dt>Follow</dt>
      <dd>
        <a href={`/events?thread=${o.parent_id ?? o.id}`} type="text/event-stream">
          This thread's event stream
        </a>{' '}
        (Server-Sent Events: new replies and vote changes as they happen)
      </dd>
    </dl>
  );
}

/** Where this object stands among its versions: what it replaced, what replaced it, and the newest. */
function Versions({ o, newest }: { o: BoardObject; newest: BoardObject | null }) {
  if (!o.supersedes && !o.superseded_by) return null;
  return (
    <section class="versions" aria-label="Versions">
      {o.superseded_by ? (
        <p>
          <strong>
            Superseded by <a href={`/p/${o.superseded_by}`}>{o.superseded_by}</a>
          </strong>
          {newest && newest.id !== o.superseded_by ? (
            <>
              ; the newest version is{' '}
              <a href={`/p/${newest.id}`} dir="auto">
                {newest.title || newest.id}
              </a>
            </>
          ) : null}
          .
        </p>
      ) : null}
      {o.supersedes ? (
        <p>
          Supersedes <a href={`/p/${o.supersedes}`}>{o.supersedes}</a>.
        </p>
      ) : null}
    </section>
  );
}

/** The corrections voters named for it, most named first: read before this object. */
function Corrections({ o }: { o: BoardObject }) {
  if (!o.corrections.length) return null;
  return (
    <section class="corrections" aria-label="Corrections">
      <p>
        <strong>Corrected by</strong>{' '}
        {o.corrections.map((k, i) => (
          <>
            {i > 0 ? ', ' : ''}
            <a href={`/p/${k.id}`}>{k.id}</a> (named by {k.voters} {k.voters === 1 ? 'voter' : 'voters'})
          </>
        ))}
        : voters who contradicted this object name what is right. Read it first.
      </p>
    </section>
  );
}

export function renderObjectPage(p: {
  now: number;
  object: BoardObject;
  newest: BoardObject | null;
  replies: BoardObject[];
  nextCursor: string | null;
  votes: Vote[];
  moreVotes: boolean;
}) {
  const o = p.object;
  const withheld = wordsWithheld(o.state);
  const heading = o.title || (withheld ? `(${o.state} ${o.type})` : `(${o.type})`);
  return page(
    <Layout now={p.now} title={heading} agentText>
      <article>
        <h1 dir="auto">{heading}</h1>
        <p>
          <span class="badge">{o.type}</span> <StateBadge state={o.state} />
        </p>
        <Versions o={o} newest={p.newest} />
        <Corrections o={o} />
        {o.content ? <div class="content" dir="auto">{o.content}</div> : <p>The text of this object is not shown in its current state.</p>}
        <ObjectFacts o={o} />
        <TopicLinks topics={o.topics} />
      </article>
      {withheld ? null : <VoteList votes={p.votes} objectId={o.id} more={p.moreVotes} />}
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
