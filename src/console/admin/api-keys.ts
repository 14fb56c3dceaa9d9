import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../../errors/api-error.ts';
import { createApiKey, revokeApiKey, rotateApiKey } from '../../organizations/operations.ts';
import { NewApiKey } from '../../organizations/schemas.ts';
import type { ApiKeyKind } from '../../store/types.ts';
import { CONFIRMED, CONFIRMED_NOTICE, requireRecentSignIn } from '../confirm/recent.ts';
import { consoleRequest, seeOther, signedIn } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { field } from '../form-body.ts';
import { checkBody, formRefusalOf } from '../form-refusals.ts';
import { noticeFrom } from '../notice.ts';
import { type ApiKeyForm, apiKeySecretPage, apiKeysPage, emptyApiKeyForm } from './api-key-pages.ts';
import { consolePageRequest, cursorsOf } from './paging.ts';
import { consoleOperator } from './persons.ts';

const notices: Record<string, string> = { revoked: 'Key revoked: it no longer works.', [CONFIRMED]: CONFIRMED_NOTICE };
const PAGE = '/console/admin/api-keys';

const noticeOf = (request: FastifyRequest) => noticeFrom(notices, request.query);
const keyIdOf = (request: FastifyRequest) => (request.params as { key_id: string }).key_id;

/**
 * API keys: the API's /organizations/api-keys, as pages, through the same functions. The
 * console person is no key, so the API's "not the key making the request" has no meaning
 * here; what it protects, an organisation that keeps an admin key, revokeApiKey keeps (409).
 */
export function apiKeyRoutes(deps: ConsoleDeps) {
  const { store } = deps;
  const listOf = async (orgId: string, query: unknown) => {
    const page = await store.listApiKeys(orgId, consolePageRequest('api-keys', query));
    return { keys: page.items, cursors: cursorsOf('api-keys', page), total: page.totalCount };
  };

  return async (app: FastifyInstance) => {
    app.get('/console/admin/api-keys', async (request, reply) => {
      const { org } = signedIn(request, 'admin');
      return apiKeysPage(reply, consoleRequest(request), await listOf(org.id, request.query), emptyApiKeyForm, { notice: noticeOf(request) });
    });

    app.post('/console/admin/api-keys', async (request, reply) => {
      const who = signedIn(request, 'admin');
      const { org } = who;
      requireRecentSignIn(deps.now, who, PAGE);
      const form: ApiKeyForm = { name: field(request.body, 'name').trim(), kind: field(request.body, 'kind') };
      try {
        checkBody(NewApiKey, form);
        const { key, secret } = await createApiKey(store, org.id, { name: form.name, kind: form.kind as ApiKeyKind }, consoleOperator(who), deps.now());
        return apiKeySecretPage(reply, consoleRequest(request), org, key, secret, false);
      } catch (error) {
        const refusal = formRefusalOf(error);
        if (!refusal) throw error;
        return apiKeysPage(reply, consoleRequest(request), await listOf(org.id, {}), form, { errors: refusal.messages, status: refusal.status });
      }
    });

    app.post('/console/admin/api-keys/:key_id/rotate', async (request, reply) => {
      const who = signedIn(request, 'admin');
      const { org } = who;
      requireRecentSignIn(deps.now, who, PAGE);
      const { key, secret } = await rotateApiKey(store, { orgId: org.id, keyId: keyIdOf(request), field: 'key' }, consoleOperator(who), deps.now());
      return apiKeySecretPage(reply, consoleRequest(request), org, key, secret, true);
    });

    app.post('/console/admin/api-keys/:key_id/revoke', async (request, reply) => {
      const who = signedIn(request, 'admin');
      const { org } = who;
      requireRecentSignIn(deps.now, who, PAGE);
      try {
        await revokeApiKey(store, { orgId: org.id, keyId: keyIdOf(request), field: 'key' }, consoleOperator(who), deps.now());
      } catch (error) {
        if (!(error instanceof ApiError) || error.code !== 'CONFLICT') throw error;
        return apiKeysPage(reply, consoleRequest(request), await listOf(org.id, {}), emptyApiKeyForm, { keyErrors: [error.message], status: error.status });
      }
      return seeOther(reply, '/console/admin/api-keys?notice=revoked');
    });
  };
}
