// The layering of docs/architecture.md, checked by `npm test` (test/architecture/dependency-rules.test.ts).
// Rooms are the folders under src/. From the bottom:
//   leaves      errors, crypto, concurrency, validation, runtime, telemetry, egress, config/defaults.ts: nothing of the product
//   config      settings and defaults: leaves only
//   scim-user   the SCIM User model (schema, PATCH, the core-schema fold): leaves only; the store
//               folds stored rows by it (migration 12) and the SCIM server and connections speak it
//   store       persistence: leaves, config and scim-user
//   http        the HTTP toolkit every feature uses: leaves, config, store; no feature
//   features    oauth, authn, credentials, methods, persons, clients, organizations, audit,
//               connections, scim, verification, email, invitations, housekeeping, console
//   roots       service (the composition root), gateway (its own program), commands, demo, dev, cli.ts
const LEAVES = '^src/(errors|crypto|concurrency|validation|runtime|telemetry|egress)/|^src/config/defaults[.]ts$';
const FEATURES = '^src/(oauth|authn|credentials|methods|persons|clients|organizations|audit|connections|scim|verification|email|invitations|housekeeping|console)/';
const ROOTS = '^src/(service|gateway|commands|demo|dev)/|^src/cli[.]ts$';

/**
 * Deliberate exceptions to the rules below (at most two; test/architecture checks each says why).
 * Each is `{ rule, from, to, reason }` (paths as regular expressions, `from` one module): that one
 * import is let through the named rule, which is split into the rule for every other module and
 * the rule for `from` with `to` excluded.
 */
const EXCEPTIONS = [];

const list = (value) => (value === undefined ? [] : Array.isArray(value) ? value : [value]);
const withExceptions = (rule) =>
  EXCEPTIONS.filter((exception) => exception.rule === rule.name).reduce(
    (split, exception) =>
      split.flatMap((r) => [
        { ...r, from: { ...r.from, pathNot: [...list(r.from.pathNot), exception.from] } },
        { ...r, from: { ...r.from, path: exception.from }, to: { ...r.to, pathNot: [...list(r.to.pathNot), exception.to] } },
      ]),
    [rule],
  );

/** @type {import('dependency-cruiser').IConfiguration} */
const rules = {
  forbidden: [
    {
      name: 'no-cycles',
      comment: 'A module that reaches itself through its imports cannot be understood, tested or moved alone.',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-folder-cycles',
      comment:
        'Two folders that import each other are one room with two doors: merge them or move the shared part down. A folder and its own subfolders count as one room (dependency-cruiser folds them): console/plugin.ts registers console/admin/ whose pages use console/html.ts, store/sql-store.ts composes store/<module>/ whose SQL uses store/sql-driver.ts, gateway/plugins/registry.ts lists the plugins that implement gateway/plugins/plugin.ts.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'leaves-import-no-product',
      comment: 'errors/, crypto/, concurrency/, validation/, runtime/, telemetry/, egress/ and config/defaults.ts are used by both programs and every layer: they import only each other.',
      severity: 'error',
      from: { path: LEAVES },
      to: { path: '^src/', pathNot: LEAVES },
    },
    {
      name: 'config-imports-leaves-only',
      comment: 'Settings are read once at start-up and handed down; they know nothing of what uses them.',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: '^src/', pathNot: [LEAVES, '^src/config/'] },
    },
    {
      name: 'scim-user-model-imports-leaves-only',
      comment: 'The SCIM User model is shared by the store, the SCIM server and the connections: it imports none of them.',
      severity: 'error',
      from: { path: '^src/scim-user/' },
      to: { path: '^src/', pathNot: [LEAVES, '^src/scim-user/'] },
    },
    {
      name: 'store-imports-no-feature',
      comment: 'Persistence sits under every feature: modules depend on the store, never the reverse.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/', pathNot: [LEAVES, '^src/config/', '^src/scim-user/', '^src/store/'] },
    },
    {
      name: 'toolkit-imports-no-feature',
      comment: 'http/ (envelope, organisation auth, pagination, validation, errors) is imported by every feature, so it imports none.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/', pathNot: [LEAVES, '^src/config/', '^src/store/', '^src/http/'] },
    },
    {
      name: 'nothing-imports-a-root',
      comment: 'The composition root (service/), the gateway and the commands are entry points: a feature that imports one depends on everything.',
      severity: 'error',
      from: { path: '^src/', pathNot: ROOTS },
      to: { path: ROOTS },
    },
    {
      name: 'gateway-stays-apart',
      comment:
        'The gateway talks to the service over HTTP, as to one on another machine, and loads none of fastify, pg, SQLite or ajv (its memory figures depend on it): it imports leaves, and the token-type URNs.',
      severity: 'error',
      from: { path: '^src/gateway/' },
      to: { path: '^src/', pathNot: [LEAVES, '^src/gateway/', '^src/oauth/tokens/token-types[.]ts$'] },
    },
    {
      name: 'only-roots-import-the-gateway',
      comment: 'The service, its features and its toolkit run without the gateway: only the commands that start it and the demo that wires both import it.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/(gateway|commands|demo)/' },
      to: { path: '^src/gateway/' },
    },
    {
      name: 'console-uses-operations',
      comment: 'The console is a client of the features: it calls their operations, never their HTTP routes.',
      severity: 'error',
      from: { path: '^src/console/' },
      to: { path: 'routes[.]ts$', pathNot: '^src/console/' },
    },
    {
      name: 'features-do-not-import-routes',
      comment: "A feature's routes are its HTTP door; another feature uses its operations instead.",
      severity: 'error',
      from: { path: FEATURES, pathNot: '^src/console/' },
      to: { path: 'routes[.]ts$', pathNot: '^src/$1/' },
    },
  ],
  options: {
    parser: 'swc',
    tsPreCompilationDeps: true,
    doNotFollow: { path: 'node_modules' },
    exclude: { path: 'node_modules' },
    enhancedResolveOptions: { extensions: ['.ts'] },
  },
};

module.exports = { ...rules, forbidden: rules.forbidden.flatMap(withExceptions) };
// Not part of dependency-cruiser's schema (it refuses unknown keys), so not enumerable: the test reads it.
Object.defineProperty(module.exports, 'exceptions', { value: EXCEPTIONS, enumerable: false });

