/**
 * Registry record rules (docs/decisions.md, Registry record pages): which remotes are probed, how a
 * probe's outcome moves a server's verdict, which history events that makes, and when the next
 * probe is due. Pure: no I/O, no clock of its own.
 */

export const VERDICTS = ['working', 'needs-auth', 'unverified'] as const;
export type Verdict = (typeof VERDICTS)[number];

export const VERDICT_LABELS: Record<Verdict, string> = {
  working: 'Working',
  'needs-auth': 'Needs authentication',
  unverified: 'Unverified',
};

/** What one probe observed. Everything but `working` and `auth-required` is a failed observation. */
export const PROBE_OUTCOMES = ['working', 'auth-required', 'timeout', 'server-error', 'rate-limited', 'not-mcp', 'unreachable', 'refused', 'error'] as const;
export type ProbeOutcomeKind = (typeof PROBE_OUTCOMES)[number];

/** Why a server is never probed. */
export const NOT_PROBED = ['never-probed', 'template-url', 'sse-remote', 'no-remote'] as const;
export type NotProbedReason = (typeof NOT_PROBED)[number];

export const OUTCOME_LABELS: Record<ProbeOutcomeKind | NotProbedReason, string> = {
  working: 'connected and listed its tools',
  'auth-required': 'refused the probe: authorization required',
  timeout: 'no answer within the probe budget',
  'server-error': 'answered with a server error (5xx)',
  'rate-limited': 'answered 429 Too Many Requests',
  'not-mcp': 'answered, but not as an MCP server',
  unreachable: 'could not be reached (DNS, TLS or connection failure)',
  refused: 'not probed: the address is not on the public internet',
  error: 'the probe failed',
  'never-probed': 'not probed yet',
  'template-url': 'not probed: the endpoint address is a template with {placeholders}',
  'sse-remote': 'not probed: the remote uses the deprecated SSE transport',
  'no-remote': 'not probed: the registry lists no remote endpoint',
};

export const HISTORY_KINDS = ['first-seen', 'became-working', 'stopped-working', 'tools-added', 'tools-removed', 'auth-required'] as const;
export type HistoryKind = (typeof HISTORY_KINDS)[number];

export const HISTORY_LABELS: Record<HistoryKind, string> = {
  'first-seen': 'First seen in the registry',
  'became-working': 'Became working',
  'stopped-working': 'Stopped working',
  'tools-added': 'Tools added',
  'tools-removed': 'Tools removed',
  'auth-required': 'Authentication required',
};

export interface HistoryEvent {
  kind: HistoryKind;
  /** Tool names for tools-added / tools-removed; empty otherwise. */
  names: string[];
  at: number;
}

export interface RemoteHeader {
  name: string;
  description: string | null;
  required: boolean;
  secret: boolean;
  /** The declared value, possibly with `{placeholders}`. */
  value: string | null;
}

export interface Remote {
  type: 'streamable-http' | 'sse';
  url: string;
  headers: RemoteHeader[];
}

/** One registry entry as the board keeps it (latest version only). */
export interface RegistryEntry {
  name: string;
  version: string;
  title: string | null;
  description: string;
  status: 'active' | 'deprecated' | 'deleted';
  websiteUrl: string | null;
  repositoryUrl: string | null;
  category: string | null;
  remote: Remote | null;
  publishedAt: number | null;
  updatedAt: number | null;
}

export interface ToolRecord {
  name: string;
  title: string | null;
  description: string | null;
  /** The tool's JSON Schema, as JSON text. */
  inputSchema: string;
}

export interface ProbeOutcome {
  kind: ProbeOutcomeKind;
  /** Short, plain text: the HTTP status, the error message, the protocol version. */
  detail: string;
  httpStatus: number | null;
  protocolVersion: string | null;
  /** When Working: the tools (possibly capped) and how many the server listed. */
  tools: ToolRecord[] | null;
  toolCount: number | null;
  /** When authorization is required. */
  auth: { scheme: string | null; metadataUrl: string | null } | null;
}

/** The part of a server's record that probes move. */
export interface ProbeState {
  verdict: Verdict;
  /** Failed observations in a row. */
  failStreak: number;
  /** Names of the tools listed by the last Working probe; null before any. */
  toolNames: string[] | null;
}

/** The remote a probe would connect to, or why there is none. */
export function probeTarget(remote: Remote | null): { url: string } | { reason: NotProbedReason } {
  if (!remote) return { reason: 'no-remote' };
  if (remote.type === 'sse') return { reason: 'sse-remote' };
  if (/\{[^}]*\}/.test(remote.url)) return { reason: 'template-url' };
  return { url: remote.url };
}

/**
 * What a sync does to one server's record (docs/decisions.md, Registry record pages): a name seen for the first
 * time gets its `first-seen` event and is due for a probe at once; a changed endpoint starts
 * the record over, since nothing observed at the old address holds for the new one. `probe`
 * is the reset's outcome and next probe time (null when the server is not probed).
 */
export function syncEffect(
  previous: { remoteType: string | null; remoteUrl: string | null } | null,
  remote: Remote | null,
  now: number,
): { firstSighting: boolean; reset: { outcome: 'never-probed' | NotProbedReason; nextProbeAt: number | null } | null } {
  const target = probeTarget(remote);
  const start = 'url' in target ? { outcome: 'never-probed' as const, nextProbeAt: now } : { outcome: target.reason, nextProbeAt: null };
  if (!previous) return { firstSighting: true, reset: start };
  const moved = previous.remoteType !== (remote?.type ?? null) || previous.remoteUrl !== (remote?.url ?? null);
  return { firstSighting: false, reset: moved ? start : null };
}

/**
 * The new state and the history events one probe makes. A definitive answer (Working or an
 * authorization refusal) takes effect at once; one failed observation after Working or Needs
 * authentication leaves the verdict standing, two in a row turn it to Unverified.
 */
export function applyProbe(prev: ProbeState, outcome: ProbeOutcome, at: number): { state: ProbeState; events: HistoryEvent[] } {
  const events: HistoryEvent[] = [];
  if (outcome.kind === 'working') {
    const names = (outcome.tools ?? []).map((t) => t.name);
    if (prev.verdict !== 'working') events.push({ kind: 'became-working', names: [], at });
    if (prev.toolNames) {
      const before = new Set(prev.toolNames);
      const now = new Set(names);
      const added = names.filter((n) => !before.has(n));
      const removed = prev.toolNames.filter((n) => !now.has(n));
      if (added.length > 0) events.push({ kind: 'tools-added', names: added, at });
      if (removed.length > 0) events.push({ kind: 'tools-removed', names: removed, at });
    }
    return { state: { verdict: 'working', failStreak: 0, toolNames: names }, events };
  }
  if (outcome.kind === 'auth-required') {
    if (prev.verdict !== 'needs-auth') events.push({ kind: 'auth-required', names: [], at });
    return { state: { verdict: 'needs-auth', failStreak: 0, toolNames: prev.toolNames }, events };
  }
  const failStreak = prev.failStreak + 1;
  if (prev.verdict === 'unverified' || failStreak < 2) return { state: { ...prev, failStreak }, events };
  if (prev.verdict === 'working') events.push({ kind: 'stopped-working', names: [], at });
  return { state: { verdict: 'unverified', failStreak, toolNames: prev.toolNames }, events };
}

/**
 * When to probe next: a standing verdict with one failure behind it is re-checked soon, to confirm
 * or clear it; everything else waits the interval, jittered ±10% so probes do not bunch up.
 */
export function nextProbeAt(at: number, state: ProbeState, o: { intervalMs: number; recheckMs: number; random: () => number }): number {
  if (state.failStreak === 1 && state.verdict !== 'unverified') return at + o.recheckMs;
  return at + Math.round(o.intervalMs * (0.9 + 0.2 * o.random()));
}
