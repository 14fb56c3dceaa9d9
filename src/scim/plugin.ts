import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { hashSecret } from '../crypto/ids.ts';
import { addJsonParser } from '../http/json-body.ts';
import { ScimError } from '../scim-user/scim-error.ts';
import type { AuditStore } from '../store/audit/store.ts';
import type { ConnectionStore, IdentityConnection } from '../store/connections/store.ts';
import type { IdentityStore } from '../store/identities/store.ts';
import { discoveryRoutes } from './discovery.ts';
import { SCIM_CONTENT_TYPE, scimErrorBody, sendScimError } from './errors.ts';
import { usersRoutes } from './users-routes.ts';

export const SCIM_PREFIX = '/scim/v2';

export interface ScimDeps {
  store: ConnectionStore & IdentityStore & AuditStore;
  issuer: () => string;
  now: () => number;
}

const connections = new WeakMap<FastifyRequest, IdentityConnection>();

/**
 * The SCIM 2.0 server, in its own scope: SCIM's media type, SCIM Error bodies for everything
 * (the JSON API's envelope never leaks in), and bearer-token authentication, on request and
 * before the body is read, where the token alone names the organisation and the connection.
 */
export function scimServer({ store, issuer, now }: ScimDeps): FastifyPluginAsync {
  return async (app) => {
    const baseUrl = () => `${issuer()}${SCIM_PREFIX}`;
    // Entra sends application/scim+json, Okta application/json (and a Content-Type even on GETs).
    // application/json is the service's parser, inherited; both hold every body to the same bounds (json-body.ts).
    addJsonParser(app, 'application/scim+json');
    app.setErrorHandler(sendScimError);
    app.setNotFoundHandler((request, reply) => {
      const status = 404;
      reply
        .code(status)
        .type(SCIM_CONTENT_TYPE)
        .send(scimErrorBody(status, `${request.method} ${request.url.split('?')[0]}: no such SCIM endpoint`));
    });

    discoveryRoutes(app, baseUrl);

    await app.register(async (users) => {
      users.addHook('onRequest', async (request) => {
        const header = request.headers.authorization;
        const match = typeof header === 'string' ? /^Bearer +(\S{1,256})$/i.exec(header) : null;
        const challenge = { 'www-authenticate': 'Bearer realm="tessera-scim"' };
        if (!match) throw new ScimError('unauthorized', 'header Authorization: must be Bearer <scim_token of the connection>', challenge);
        const connection = await store.findConnectionByTokenHash(hashSecret(match[1]!));
        if (connection?.type !== 'scim') {
          throw new ScimError('unauthorized', 'header Authorization: is not the scim_token of a connection (rotated or deleted?)', challenge);
        }
        connections.set(request, connection);
      });
      usersRoutes(users, {
        store,
        now,
        baseUrl,
        connectionOf: (request) => {
          const connection = connections.get(request);
          if (!connection) throw new TypeError('a SCIM route ran without its authentication hook');
          return connection;
        },
      });
    });
  };
}
