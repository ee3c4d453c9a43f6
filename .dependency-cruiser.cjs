/**
 * Import directions (npm run lint:deps, part of npm test). The domain is pure rules; schemas
 * are built from the domain; ports name what the domain needs; adapters implement ports and
 * decide no board rule; the service layer is where schemas, domain and ports meet; transports
 * (http, html, cli) sit on top. Tests beside the source may import anything.
 */
const notTest = '\\.test\\.tsx?$';
module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', from: {}, to: { circular: true } },
    {
      name: 'domain-is-pure',
      comment: 'The domain imports only the domain and Node built-ins: no framework, SQL, adapter, schema, port or setting.',
      severity: 'error',
      from: { path: '^src/domain/', pathNot: notTest },
      to: { pathNot: '^src/domain/', dependencyTypesNot: ['core'] },
    },
    {
      name: 'schemas-build-on-the-domain-only',
      comment: 'Schemas may use domain rules and zod; they never reach the service, transports or adapters.',
      severity: 'error',
      from: { path: '^src/schemas/', pathNot: notTest },
      to: { path: '^src/(service|http|html|mcp|cli|store|kv|embed|search|registry|identity|transfer|net|config|compose|app)' },
    },
    {
      name: 'ports-name-no-adapter',
      comment: 'Ports live in src/ports and speak in domain types only.',
      severity: 'error',
      from: { path: '^src/ports/' },
      to: { pathNot: '^src/(ports|domain)/', dependencyTypesNot: ['core'] },
    },
    {
      name: 'adapters-decide-no-board-rule',
      comment: 'Store, kv and embedder adapters implement ports; they do not call the service or the transports.',
      severity: 'error',
      from: { path: '^src/(store|kv|embed)/', pathNot: notTest },
      to: { path: '^src/(service|http|html|mcp|cli|schemas|search|registry|transfer|compose|app)' },
    },
    {
      name: 'transports-use-ports-not-adapters',
      comment: 'HTTP, HTML and MCP reach stores only through the ports; compose.ts picks the adapters.',
      severity: 'error',
      from: { path: '^src/(http|html|mcp)/', pathNot: notTest },
      to: { path: '^src/(store|kv|embed)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.tsx', '.mjs', '.js'] },
  },
};
