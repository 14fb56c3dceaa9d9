import proxy from '@fastify/http-proxy';
import Fastify from 'fastify';

/** @fastify/http-proxy in front of the upstream, no auth: the peer the gateway is compared with. */
const app = Fastify({ logger: false });
// Its default transport is an undici pool with keep-alive, like the gateway's.
await app.register(proxy, { upstream: process.env.UPSTREAM! });
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.on('SIGTERM', () => void app.close().then(() => process.exit(0)));
