import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { clientKey, connectSnippets, shellQuote } from './snippets.js';

describe('connect snippets', () => {
  it('gives plain snippets for a server without required headers', () => {
    const s = connectSnippets('io.github.acme/weather', { type: 'streamable-http', url: 'https://mcp.acme.dev/mcp', headers: [] });
    expect(s.claude_code).toBe(`claude mcp add --transport http weather 'https://mcp.acme.dev/mcp'`);
    expect(JSON.parse(s.cursor)).toEqual({ mcpServers: { weather: { url: 'https://mcp.acme.dev/mcp' } } });
    expect(JSON.parse(s.vscode)).toEqual({ servers: { weather: { type: 'http', url: 'https://mcp.acme.dev/mcp' } } });
  });

  it('turns required headers into placeholders for each client', () => {
    const s = connectSnippets('io.github.acme/weather', {
      type: 'streamable-http',
      url: 'https://mcp.acme.dev/mcp',
      headers: [
        { name: 'Authorization', description: 'Token from acme.dev', required: true, secret: true, value: 'Bearer {token}' },
        { name: 'X-Region', description: null, required: true, secret: false, value: null },
        { name: 'X-Optional', description: null, required: false, secret: false, value: null },
      ],
    });
    expect(s.claude_code).toBe(
      `claude mcp add --transport http weather 'https://mcp.acme.dev/mcp' --header 'Authorization: Bearer YOUR_TOKEN' --header 'X-Region: YOUR_X_REGION'`,
    );
    expect(JSON.parse(s.cursor).mcpServers.weather.headers).toEqual({ Authorization: 'Bearer ${env:TOKEN}', 'X-Region': '${env:X_REGION}' });
    const vscode = JSON.parse(s.vscode);
    expect(vscode.servers.weather.headers).toEqual({ Authorization: 'Bearer ${input:token}', 'X-Region': '${input:x_region}' });
    expect(vscode.inputs).toEqual([
      { type: 'promptString', id: 'token', description: 'Token from acme.dev', password: true },
      { type: 'promptString', id: 'x_region', description: 'X-Region for this server', password: false },
    ]);
  });

  it('keeps registry text from breaking out of the shell command', () => {
    const s = connectSnippets('com.evil/x', { type: 'streamable-http', url: "https://evil.example/$(touch /tmp/p)'; rm -rf ~ #", headers: [] });
    expect(s.claude_code).toBe(`claude mcp add --transport http x 'https://evil.example/$(touch /tmp/p)'\\''; rm -rf ~ #'`);
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
    const hostile = "a'b $(id) `id` \\ \"c\" ; & | > *";
    expect(spawnSync('sh', ['-c', `printf '%s' ${shellQuote(hostile)}`], { encoding: 'utf8' }).stdout).toBe(hostile);
    expect(clientKey('com.example/My_Server.v2')).toBe('my-server-v2');
  });
});
