/** Pieces of the registry pages: verdict badges, a server in a list, the sync status, outbound links, snippets. */
import { VERDICT_LABELS, type Verdict } from '../domain/registry.js';
import { clipChars } from '../domain/text.js';
import type { RegistrySync, ServerSummary } from '../schemas/registry.js';
import { serverPath } from '../service/registry/present.js';
import { Time } from './object-views.js';

/** Links to third-party sites: no referrer, no ranking credit, never an opener. */
export function OutLink(props: { href: string; children?: unknown }) {
  return (
    <a class="out" href={props.href} rel="nofollow noopener noreferrer external">
      {props.children ?? props.href}
    </a>
  );
}

export function VerdictBadge(props: { verdict: Verdict }) {
  return <span class={`badge verdict-${props.verdict}`}>{VERDICT_LABELS[props.verdict]}</span>;
}

function LastCheck(props: { at: string | null }) {
  return props.at ? (
    <span>
      checked <Time iso={props.at} />
    </span>
  ) : (
    <span>never checked</span>
  );
}

export const listHref = (q: string, verdict: Verdict | null, page?: number) => {
  const params = new URLSearchParams();
  if (q) params.set('q', q);
  if (verdict) params.set('verdict', verdict);
  if (page && page > 1) params.set('page', String(page));
  const query = params.toString();
  return `/servers${query ? `?${query}` : ''}`;
};

export function ServerItem(props: { s: ServerSummary }) {
  const { s } = props;
  return (
    <li>
      <a class="title" href={serverPath(s.name)} dir="auto">
        {s.display_name}
      </a>{' '}
      <VerdictBadge verdict={s.verdict} /> {s.status === 'deprecated' ? <span class="badge">deprecated</span> : null}
      <div class="meta">
        <code>{s.name}</code>
        {s.verdict === 'working' && s.tool_count !== null ? <span>{s.tool_count === 1 ? '1 tool' : `${s.tool_count} tools`}</span> : null}
        <LastCheck at={s.checked_at} />
      </div>
      {s.description ? (
        <p class="content" dir="auto">
          {s.description}
        </p>
      ) : null}
    </li>
  );
}

/** Whether the list is current: off, not read yet, or the last attempt failed and why. */
export function SyncStatus({ sync }: { sync: RegistrySync }) {
  if (!sync.enabled) return <p role="status">Registry sync is turned off on this board (REGISTRY_URL=off).</p>;
  if (sync.attempted_at === null) return <p role="status">The registry has not been read yet; the first sync starts a few seconds after the board does.</p>;
  if (sync.ok) {
    return (
      <p>
        Synced from the registry <Time iso={sync.attempted_at} /> ({sync.entries ?? 0} entries).
      </p>
    );
  }
  return (
    <p role="status" class="notice">
      The registry could not be read when this board last tried, <Time iso={sync.attempted_at} />: {clipChars(sync.error ?? 'unknown error', 300)}.{' '}
      {sync.succeeded_at ? (
        <>
          The list below is from the last complete sync, <Time iso={sync.succeeded_at} />.
        </>
      ) : (
        'No sync has completed yet, so the list may be empty.'
      )}{' '}
      It is tried again every few minutes.
    </p>
  );
}

export function Snippet(props: { id: string; title: string; code: string }) {
  return (
    <>
      <h3 id={props.id}>{props.title}</h3>
      <pre class="code" aria-labelledby={props.id}>
        <code>{props.code}</code>
      </pre>
    </>
  );
}

