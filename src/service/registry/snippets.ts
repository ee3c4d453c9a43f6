/**
 * Connect snippets for a remote server (mcp-and-protocols.md §4): Claude Code's CLI, Cursor's
 * `mcp.json` (`mcpServers`) and VS Code's `mcp.json` (`servers`, `type: "http"`). Required
 * headers the registry declares become placeholders the user fills in; no secret is invented.
 * Registry text reaches a shell command here, so every argument is single-quoted.
 */
import type { Remote, RemoteHeader } from '../../domain/registry.js';

/** Named as the JSON view names them. */
export interface Snippets {
  claude_code: string;
  cursor: string;
  vscode: string;
}

/** `io.github.acme/weather` → `weather`: a config key every client accepts. */
export function clientKey(registryName: string): string {
  const short = registryName.slice(registryName.indexOf('/') + 1).toLowerCase().replace(/[^a-z0-9-]+/g, '-').replace(/^-+|-+$/g, '');
  return short || 'mcp-server';
}

/** POSIX shell single quoting: nothing inside is expanded. */
export const shellQuote = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

interface Placeholder {
  header: string;
  /** The header value with `{var}` spots marked for each client's syntax. */
  render: (slot: (variable: string) => string) => string;
  variables: { id: string; description: string; secret: boolean }[];
}

function placeholder(h: RemoteHeader): Placeholder {
  const fallback = h.name.toLowerCase().replace(/[^a-z0-9]+/g, '_');
  const template = h.value && /\{[^}]+\}/.test(h.value) ? h.value : `{${fallback}}`;
  const ids = [...template.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!.replace(/[^A-Za-z0-9_]+/g, '_') || fallback);
  return {
    header: h.name,
    render: (slot) => {
      let i = 0;
      return template.replace(/\{[^}]+\}/g, () => slot(ids[i++]!));
    },
    variables: [...new Set(ids)].map((id) => ({ id, description: h.description ?? `${h.name} for this server`, secret: h.secret })),
  };
}

const envName = (id: string) => id.toUpperCase();

export function connectSnippets(registryName: string, remote: Remote): Snippets {
  const key = clientKey(registryName);
  const required = remote.headers.filter((h) => h.required).map(placeholder);
  const transport = remote.type === 'sse' ? 'sse' : 'http';

  const claude = ['claude', 'mcp', 'add', '--transport', transport, key, shellQuote(remote.url)];
  for (const p of required) claude.push('--header', shellQuote(`${p.header}: ${p.render((id) => `YOUR_${envName(id)}`)}`));

  const headers = (slot: (id: string) => string) =>
    required.length > 0 ? { headers: Object.fromEntries(required.map((p) => [p.header, p.render(slot)])) } : {};
  const cursor = { mcpServers: { [key]: { url: remote.url, ...headers((id) => `\${env:${envName(id)}}`) } } };
  const inputs = required.flatMap((p) => p.variables).map((v) => ({ type: 'promptString', id: v.id, description: v.description, password: v.secret }));
  const vscode = {
    ...(inputs.length > 0 ? { inputs } : {}),
    servers: { [key]: { type: transport, url: remote.url, ...headers((id) => `\${input:${id}}`) } },
  };
  return { claude_code: claude.join(' '), cursor: JSON.stringify(cursor, null, 2), vscode: JSON.stringify(vscode, null, 2) };
}
