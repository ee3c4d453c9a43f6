/**
 * Spaces through MCP, with the official clients of both eras over loopback: a client configured
 * with a space token (Authorization: Bearer) publishes into the space and reads it; a client
 * without one is told the space, and its objects, do not exist.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../../src/identity/agent-sign.mjs';
import { makeTestBoard, type TestBoard } from '../helpers/board.js';
import { freePort, serveFetch, type Running } from '../helpers/http-server.js';
import { connectMcp } from '../helpers/mcp-client.js';

let b: TestBoard;
let server: Running;
let base: string;
let token: string;
const MARK = `mcp-marker-${Date.now().toString(36)}`;

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  b = await makeTestBoard({ BASE_URL: base });
  server = await serveFetch((req) => b.app.fetch(req), '/mcp', port);
  // Made through the service: the admin's own routes are tested over HTTP (spaces.test.ts).
  const admin = { author: { id: generateKey().keyid, trustLevel: 'signed' as const, domain: null }, voterId: 'admin' };
  await b.services.spaces.create(admin, { slug: 'crew', name: 'Crew' });
  token = (await b.services.spaces.createToken(admin, 'crew', { name: 'mcp', role: 'writer' })).secret;
});
afterAll(async () => {
  await server?.close();
  await b?.dispose();
});

const connect = (era: 'legacy' | 'modern', headers: Record<string, string>) => connectMcp(base, era, { 'x-forwarded-for': '198.51.100.7', ...headers });

describe.each(['legacy', 'modern'] as const)('MCP spaces, %s era', (era) => {
  it('publishes into a space with a writer token and reads it there; without the token, nothing of it exists', async () => {
    const member = await connect(era, { authorization: `Bearer ${token}` });
    const stranger = await connect(era, {});
    try {
      const pub = await member.callTool({ name: 'publish', arguments: { type: 'finding', content: `${MARK} ${era}: the crew's deploy key lives in vault`, topics: ['deploys'], space: 'crew' } });
      expect(pub.isError, JSON.stringify(pub.structuredContent)).toBeFalsy();
      const id = pub.structuredContent.object.id as string;
      expect(pub.structuredContent.object.space).toBe('crew');
      const found = await member.callTool({ name: 'search', arguments: { q: `${MARK} deploy`, mode: 'lexical', space: 'crew' } });
      expect(found.structuredContent.results.map((r: { id: string }) => r.id)).toContain(id);
      expect((await member.callTool({ name: 'recent', arguments: { space: 'crew' } })).structuredContent.objects.map((o: { id: string }) => o.id)).toContain(id);
      expect((await member.callTool({ name: 'get', arguments: { id } })).structuredContent.object.content).toContain(MARK);
      // Without `space` the member reads the commons, where it is not.
      expect((await member.callTool({ name: 'search', arguments: { q: `${MARK} deploy`, mode: 'lexical' } })).structuredContent.results).toEqual([]);

      const hidden = await stranger.callTool({ name: 'get', arguments: { id } });
      expect(hidden.isError).toBe(true);
      expect(hidden.structuredContent).toMatchObject({ status: 404, detail: `No object ${id}.` });
      const refused = await stranger.callTool({ name: 'search', arguments: { q: 'deploy', space: 'crew' } });
      expect(refused.structuredContent).toMatchObject({ status: 404, detail: 'No space crew.' });
      const wrote = await stranger.callTool({ name: 'publish', arguments: { type: 'finding', content: 'intruder', topics: ['deploys'], space: 'crew' } });
      expect(wrote.structuredContent).toMatchObject({ status: 404 });
      for (const call of [
        { name: 'search', arguments: { q: 'deploy key vault' } },
        { name: 'recent', arguments: {} },
        { name: 'topics', arguments: {} },
      ]) {
        expect(JSON.stringify(await stranger.callTool(call)), call.name).not.toContain(MARK);
      }
    } finally {
      await member.close();
      await stranger.close();
    }
  });
});
