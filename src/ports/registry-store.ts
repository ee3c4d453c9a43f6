/**
 * The registry half of the Store port: MCP servers synced from a registry, their probe
 * verdicts, tools and history. Pinned by the registry cases of the store contract suite.
 */
import type { HistoryEvent, NotProbedReason, ProbeOutcome, ProbeOutcomeKind, ProbeState, RegistryEntry, ToolRecord, Verdict } from '../domain/registry.js';

export interface ServerRecord extends RegistryEntry {
  firstSeenAt: number;
  syncedAt: number;
  verdict: Verdict;
  failStreak: number;
  /** The last probe's outcome, or why the server is not probed. */
  outcome: ProbeOutcomeKind | NotProbedReason;
  outcomeDetail: string | null;
  httpStatus: number | null;
  protocolVersion: string | null;
  authScheme: string | null;
  authMetadataUrl: string | null;
  /** Tools listed by the last Working probe; null before any. */
  toolCount: number | null;
  checkedAt: number | null;
  /** Null when the server is not probed (no remote, template URL, sse). */
  nextProbeAt: number | null;
}

export interface ToolRow extends ToolRecord {
  firstSeenAt: number;
  lastSeenAt: number;
  /** Listed by the last Working probe. */
  present: boolean;
}

export interface ServerListQuery {
  /** Case-insensitive substring of the name, title or description. */
  q?: string;
  verdict?: Verdict;
  limit: number;
  offset: number;
}

export interface ProbeRecord {
  state: ProbeState;
  outcome: ProbeOutcome;
  checkedAt: number;
  nextProbeAt: number;
}

/** The last registry sync attempt, and the last one that completed. */
export interface SyncRecord {
  attemptedAt: number;
  ok: boolean;
  /** Why the last attempt failed; null when it succeeded. */
  error: string | null;
  succeededAt: number | null;
  /** Entries the last successful sync read. */
  entries: number | null;
}

export interface RegistryStore {
  /** Notes a sync attempt: a success replaces the last success, a failure keeps it. */
  recordSync(attempt: { at: number; ok: true; entries: number } | { at: number; ok: false; error: string }): Promise<void>;
  /** Null before the first attempt. */
  lastSync(): Promise<SyncRecord | null>;
  /**
   * Inserts or updates entries (by name) and marks them synced at `now`, in one transaction. A
   * new name gets its `first-seen` event; a changed remote makes the server due for a probe at
   * once. Returns the names seen for the first time.
   */
  upsertServers(entries: readonly RegistryEntry[], now: number): Promise<string[]>;
  /** Marks `deleted` every listed server not synced since `syncStartedAt` (gone from the listing). */
  markUnlisted(syncStartedAt: number): Promise<number>;
  /** Servers whose next probe is due, soonest first; deleted servers are never due. */
  dueServers(now: number, limit: number): Promise<ServerRecord[]>;
  /** Stores a probe's verdict, outcome, tools (when Working) and the events it made, atomically. */
  recordProbe(name: string, probe: ProbeRecord, events: readonly HistoryEvent[]): Promise<void>;
  /** A server that is not deleted, or null. */
  getServer(name: string): Promise<ServerRecord | null>;
  /** Servers that are not deleted, by name. */
  listServers(q: ServerListQuery): Promise<{ servers: ServerRecord[]; total: number }>;
  /** How many servers (not deleted) hold each verdict. */
  verdictCounts(): Promise<Record<Verdict, number>>;
  /** A server's tools by name; `presentOnly` leaves out tools no longer listed. */
  tools(name: string, presentOnly: boolean): Promise<ToolRow[]>;
  tool(name: string, toolName: string): Promise<ToolRow | null>;
  /** Newest first. */
  events(name: string, limit: number): Promise<HistoryEvent[]>;
}
