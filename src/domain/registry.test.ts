import { describe, expect, it } from 'vitest';
import { applyProbe, nextProbeAt, probeTarget, type ProbeOutcome, type ProbeState } from './registry.js';

const tool = (name: string) => ({ name, title: null, description: null, inputSchema: '{"type":"object"}' });
const working = (...names: string[]): ProbeOutcome => ({
  kind: 'working',
  detail: '',
  httpStatus: 200,
  protocolVersion: '2026-07-28',
  tools: names.map(tool),
  toolCount: names.length,
  auth: null,
});
const failed = (kind: ProbeOutcome['kind'] = 'timeout'): ProbeOutcome => ({ kind, detail: '', httpStatus: null, protocolVersion: null, tools: null, toolCount: null, auth: null });
const auth: ProbeOutcome = { ...failed('auth-required'), auth: { scheme: 'Bearer', metadataUrl: null } };
const fresh: ProbeState = { verdict: 'unverified', failStreak: 0, toolNames: null };

describe('probeTarget', () => {
  it('probes streamable-http remotes with a concrete address only', () => {
    expect(probeTarget({ type: 'streamable-http', url: 'https://a.example/mcp', headers: [] })).toEqual({ url: 'https://a.example/mcp' });
    expect(probeTarget({ type: 'streamable-http', url: 'https://{tenant}.a.example/mcp', headers: [] })).toEqual({ reason: 'template-url' });
    expect(probeTarget({ type: 'sse', url: 'https://a.example/sse', headers: [] })).toEqual({ reason: 'sse-remote' });
    expect(probeTarget(null)).toEqual({ reason: 'no-remote' });
  });
});

describe('applyProbe', () => {
  it('becomes working at once, without tool events on the first tool list', () => {
    const { state, events } = applyProbe(fresh, working('a', 'b'), 1);
    expect(state).toEqual({ verdict: 'working', failStreak: 0, toolNames: ['a', 'b'] });
    expect(events.map((e) => e.kind)).toEqual(['became-working']);
  });

  it('records tools added and removed by name', () => {
    const { events } = applyProbe({ verdict: 'working', failStreak: 0, toolNames: ['a', 'b'] }, working('b', 'c', 'd'), 2);
    expect(events).toEqual([
      { kind: 'tools-added', names: ['c', 'd'], at: 2 },
      { kind: 'tools-removed', names: ['a'], at: 2 },
    ]);
  });

  it('needs two failed observations in a row before Working stops', () => {
    const was: ProbeState = { verdict: 'working', failStreak: 0, toolNames: ['a'] };
    const once = applyProbe(was, failed('server-error'), 1);
    expect(once.state.verdict).toBe('working');
    expect(once.state.failStreak).toBe(1);
    expect(once.events).toEqual([]);
    const twice = applyProbe(once.state, failed('timeout'), 2);
    expect(twice.state.verdict).toBe('unverified');
    expect(twice.events.map((e) => e.kind)).toEqual(['stopped-working']);
    expect(twice.state.toolNames).toEqual(['a']);
  });

  it('a success between failures resets the count', () => {
    let s: ProbeState = { verdict: 'working', failStreak: 0, toolNames: [] };
    s = applyProbe(s, failed(), 1).state;
    s = applyProbe(s, working(), 2).state;
    s = applyProbe(s, failed(), 3).state;
    expect(s.verdict).toBe('working');
  });

  it('turns to Needs authentication at once and says so once', () => {
    const first = applyProbe(fresh, auth, 1);
    expect(first.state.verdict).toBe('needs-auth');
    expect(first.events.map((e) => e.kind)).toEqual(['auth-required']);
    expect(applyProbe(first.state, auth, 2).events).toEqual([]);
  });

  it('keeps an unverified server unverified on failures, without events', () => {
    const { state, events } = applyProbe(fresh, failed('not-mcp'), 1);
    expect(state.verdict).toBe('unverified');
    expect(events).toEqual([]);
  });
});

describe('nextProbeAt', () => {
  const o = { intervalMs: 1000, recheckMs: 100, random: () => 0.5 };
  it('re-checks a standing verdict after one failure, else waits the jittered interval', () => {
    expect(nextProbeAt(0, { verdict: 'working', failStreak: 1, toolNames: [] }, o)).toBe(100);
    expect(nextProbeAt(0, { verdict: 'working', failStreak: 0, toolNames: [] }, o)).toBe(1000);
    expect(nextProbeAt(0, fresh, { ...o, random: () => 0 })).toBe(900);
    expect(nextProbeAt(0, fresh, { ...o, random: () => 1 })).toBe(1100);
  });
});
