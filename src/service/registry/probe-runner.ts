/**
 * Probes every due server once, a few at a time, and records what each probe changed: the
 * verdict, the tools, the history events, and when the server is due again.
 */
import type { Logger } from 'pino';
import { applyProbe, nextProbeAt, type ProbeOutcome, type ProbeState } from '../../domain/registry.js';
import type { Clock } from '../../ports/clock.js';
import type { RegistryStore, ServerRecord } from '../../ports/registry-store.js';
import { probeServer, type ProbeOptions } from './probe.js';

export interface ProbeRunDeps {
  registry: RegistryStore;
  clock: Clock;
  log: Logger;
  probe: ProbeOptions;
  intervalMs: number;
  recheckMs: number;
  concurrency: number;
  random?: () => number;
  /** Told each recorded outcome (for /metrics). */
  onProbed?: (outcome: string) => void;
}

export interface ProbeSummary {
  probed: number;
  working: number;
  needsAuth: number;
  unverified: number;
}

export interface ProbeRunHooks {
  /** Aborts probes in flight (shutdown); an aborted probe is not recorded and stays due. */
  signal?: AbortSignal;
  /** Called before each probe; false stops the run (shutdown, lost lock). */
  proceed?: () => boolean | Promise<boolean>;
  onProbe?: (server: ServerRecord, outcome: ProbeOutcome, done: number, total: number) => void;
}

/**
 * Probes one server and stores the result; returns what was observed and the state it led to,
 * or null when the probe was cut short by `signal` (nothing is recorded then).
 */
export async function probeOne(deps: ProbeRunDeps, server: ServerRecord, signal?: AbortSignal): Promise<{ outcome: ProbeOutcome; state: ProbeState } | null> {
  const url = server.remote?.url;
  if (!url) throw new Error(`${server.name} has no remote to probe`);
  const outcome = await probeServer(url, signal ? { ...deps.probe, signal } : deps.probe);
  if (signal?.aborted) return null;
  const at = deps.clock.now();
  const toolNames = server.toolCount === null ? null : (await deps.registry.tools(server.name, true)).map((t) => t.name);
  const { state, events } = applyProbe({ verdict: server.verdict, failStreak: server.failStreak, toolNames }, outcome, at);
  const next = nextProbeAt(at, state, { intervalMs: deps.intervalMs, recheckMs: deps.recheckMs, random: deps.random ?? Math.random });
  await deps.registry.recordProbe(server.name, { state, outcome, checkedAt: at, nextProbeAt: next }, events);
  deps.log.info({ server: server.name, outcome: outcome.kind, verdict: state.verdict, detail: outcome.detail }, 'probed');
  deps.onProbed?.(outcome.kind);
  return { outcome, state };
}

/** Probes the servers due now (each once), `concurrency` at a time. */
export async function probeDue(deps: ProbeRunDeps, hooks: ProbeRunHooks = {}, limit = 100_000): Promise<ProbeSummary> {
  const due = await deps.registry.dueServers(deps.clock.now(), limit);
  const summary: ProbeSummary = { probed: 0, working: 0, needsAuth: 0, unverified: 0 };
  let next = 0;
  let stopped = false;
  const worker = async () => {
    while (!stopped && next < due.length) {
      // Claim the server before awaiting anything: the other workers share `next`.
      const server = due[next++]!;
      if (hooks.proceed && !(await hooks.proceed())) {
        stopped = true;
        return;
      }
      try {
        const result = await probeOne(deps, server, hooks.signal);
        if (!result) return;
        const { outcome, state } = result;
        summary.probed++;
        if (state.verdict === 'working') summary.working++;
        else if (state.verdict === 'needs-auth') summary.needsAuth++;
        else summary.unverified++;
        hooks.onProbe?.(server, outcome, summary.probed, due.length);
      } catch (err) {
        deps.log.warn({ err, server: server.name }, 'probe could not be recorded');
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, deps.concurrency) }, worker));
  return summary;
}
