import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

interface Asset {
  type: string;
  body: Buffer;
  etag: string;
}

/** @simplewebauthn/browser's own minified bundle, as the package ships it: no build step of ours. */
function webauthnBundle(): string {
  const entry = fileURLToPath(import.meta.resolve('@simplewebauthn/browser'));
  return new URL('../dist/bundle/index.umd.min.js', `file://${entry}`).pathname;
}

const sources: Record<string, { type: string; path: () => string }> = {
  'console.css': { type: 'text/css; charset=utf-8', path: () => fileURLToPath(new URL('./assets/console.css', import.meta.url)) },
  'console.js': { type: 'text/javascript; charset=utf-8', path: () => fileURLToPath(new URL('./assets/console.js', import.meta.url)) },
  'webauthn.js': { type: 'text/javascript; charset=utf-8', path: webauthnBundle },
  // Named by every page, so the browser does not ask for /favicon.ico (a 404 in its console).
  'favicon.svg': { type: 'image/svg+xml', path: () => fileURLToPath(new URL('./assets/favicon.svg', import.meta.url)) },
};

/** The asset URL with its content hash, so a page always loads the script it was written for. */
export function assetUrl(name: keyof typeof sources): string {
  return `/console/assets/${name}?v=${load(name).etag.slice(1, 9)}`;
}

const loaded = new Map<string, Asset>();
function load(name: string): Asset {
  let asset = loaded.get(name);
  if (!asset) {
    const source = sources[name]!;
    const body = readFileSync(source.path());
    asset = { type: source.type, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 16)}"` };
    loaded.set(name, asset);
  }
  return asset;
}

/** GET /console/assets/{name}: read once, answered from memory, cacheable (the URL changes with the content). */
export function assetRoutes(app: FastifyInstance): void {
  app.get('/console/assets/:name', { schema: { hide: true } }, async (request, reply) => {
    const { name } = request.params as { name: string };
    if (!Object.hasOwn(sources, name)) return reply.code(404).type('text/plain; charset=utf-8').send('no such asset');
    const asset = load(name);
    reply.header('cache-control', 'public, max-age=31536000, immutable').header('etag', asset.etag);
    if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
    return reply.type(asset.type).send(asset.body);
  });
}
