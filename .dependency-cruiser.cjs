/**
 * Import directions (npm run lint:deps, part of npm test); docs/architecture.md draws them.
 * domain ← schemas ← ports ← service ← web ← transports (http, html, mcp, events), with the
 * adapters (store, kv, embed) below the ports and the composition root (app, compose, server,
 * cli, bench, eval) on top, the one place that names an adapter. Tests beside the source may
 * import anything.
 */
const notTest = '\\.test\\.tsx?$';
const TRANSPORTS = ['http', 'html', 'mcp', 'events'];
const ADAPTERS = '^src/(store|kv|embed)/';
const ROOT = '^src/(app|compose|server|config|config-env)\\.ts$|^src/(cli|bench|eval)/';
const SUPPORT = '^src/(clock|log|metrics|request-metrics|paths|version|worker-requests)\\.ts$';
const SERVICE_AND_UP = `^src/(service|web|${TRANSPORTS.join('|')})/`;

/** One rule per transport: it may not import any of its siblings. */
const siblings = TRANSPORTS.map((t) => ({
  name: `transport-${t}-imports-no-other-transport`,
  comment: `${t}/ is a transport: it builds on the service layer, schemas and web/, never on another transport.`,
  severity: 'error',
  from: { path: `^src/${t}/`, pathNot: notTest },
  to: { path: `^src/(${TRANSPORTS.filter((o) => o !== t).join('|')})/` },
}));

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
      comment: 'Schemas may use domain rules and zod; nothing else of the board.',
      severity: 'error',
      from: { path: '^src/schemas/', pathNot: notTest },
      to: { path: '^src/', pathNot: '^src/(schemas|domain)/' },
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
      comment: 'Store, kv and embedder adapters implement ports; they reach no service, web code, transport, schema or setting.',
      severity: 'error',
      from: { path: ADAPTERS, pathNot: notTest },
      to: { path: `${SERVICE_AND_UP}|^src/schemas/|${ROOT}` },
    },
    {
      name: 'libraries-stay-below-the-service',
      comment: 'identity/ (signatures) and net/ (outbound fetches) serve the service and web layers; they call neither.',
      severity: 'error',
      from: { path: '^src/(identity|net)/', pathNot: notTest },
      to: { path: `${SERVICE_AND_UP}|${ADAPTERS}|${ROOT}` },
    },
    {
      name: 'service-imports-no-transport',
      comment: 'The service layer is what every transport calls; it knows none of them, no web code, no adapter and no Config.',
      severity: 'error',
      from: { path: '^src/service/', pathNot: notTest },
      to: { path: `^src/(web|${TRANSPORTS.join('|')})/|${ADAPTERS}|${ROOT}` },
    },
    {
      name: 'web-is-shared-by-the-transports',
      comment: 'web/ is the HTTP plumbing every transport shares (router, middleware, problem answers); it imports none of them.',
      severity: 'error',
      from: { path: '^src/web/', pathNot: notTest },
      to: { path: `^src/(${TRANSPORTS.join('|')})/|${ADAPTERS}|${ROOT}` },
    },
    {
      name: 'support-modules-stay-plain',
      comment: 'The small modules every layer may use (clock, log, metrics, paths, version, worker requests) reach only ports and each other.',
      severity: 'error',
      from: { path: SUPPORT, pathNot: notTest },
      to: { path: '^src/', pathNot: `^src/ports/|${SUPPORT}` },
    },
    ...siblings,
    {
      name: 'transports-call-the-service-only',
      comment: 'Transports reach the board through src/service; adapters, ports and settings are wired by the composition root.',
      severity: 'error',
      from: { path: `^src/(${TRANSPORTS.join('|')})/`, pathNot: notTest },
      to: { path: `${ADAPTERS}|^src/(ports|identity|net)/|${ROOT}` },
    },
    {
      name: 'config-names-no-adapter',
      comment: 'config.ts reads the environment into plain settings (typed from the domain and the ports); it imports no adapter, service or transport.',
      severity: 'error',
      from: { path: '^src/config(-env)?\\.ts$' },
      to: { path: '^src/', pathNot: '^src/(domain|ports)/|^src/(paths|config-env)\\.ts$' },
    },
    {
      name: 'only-the-composition-root-wires-adapters',
      comment: 'Adapters are chosen in compose.ts (and the commands, benches and evaluation that build boards): nothing else imports one.',
      severity: 'error',
      from: { path: '^src/', pathNot: `${ADAPTERS}|${ROOT}|${notTest}` },
      to: { path: ADAPTERS, dependencyTypesNot: ['type-only'] },
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
