import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createSecretClient, deleteOAuthClient, rotateOAuthClientSecret } from '../../clients/operations.ts';
import { NewClient } from '../../clients/schemas.ts';
import { ApiError } from '../../errors/api-error.ts';
import { consoleRequest, seeOther, signedIn } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { field, fields } from '../form-body.ts';
import { checkBody, formRefusalOf } from '../form-refusals.ts';
import { noticeFrom } from '../notice.ts';
import { type ClientForm, clientSecretPage, clientsPage, emptyClientForm } from './client-pages.ts';
import { formNumber } from './form-values.ts';
import { consolePageRequest, cursorsOf } from './paging.ts';
import { consoleOperator } from './persons.ts';

const notices: Record<string, string> = { deleted: 'Client deleted; its tokens are revoked.' };

const noticeOf = (request: FastifyRequest) => noticeFrom(notices, request.query);
const clientIdOf = (request: FastifyRequest) => (request.params as { client_id: string }).client_id;
const notFound = () => new ApiError('NOT_FOUND', 'client: no OAuth client of this organisation has this id');

/** The form as POST /oauth2/clients's body: empty optional fields are left out, so the API's defaults apply. */
function requestOf(form: ClientForm): unknown {
  return {
    client_name: form.name,
    grant_types: form.grantTypes,
    scopes: form.scopes.split(/\s+/).filter((scope) => scope !== ''),
    ...(form.duration.trim() === '' ? {} : { access_token_duration: formNumber(form.duration) }),
    ...(form.format === '' ? {} : { access_token_format: form.format }),
  };
}

/** OAuth clients: the API's /oauth2/clients, as pages, through the same functions. */
export function clientRoutes(deps: ConsoleDeps) {
  const { store } = deps;
  const listOf = async (orgId: string, ceiling: number, query: unknown) => {
    const page = await store.listClients(orgId, consolePageRequest('oauth2-clients', query));
    return { clients: page.items, cursors: cursorsOf('oauth2-clients', page), total: page.totalCount, ceiling };
  };

  return async (app: FastifyInstance) => {
    app.get('/console/admin/clients', async (request, reply) => {
      const { org } = signedIn(request, 'admin');
      const list = await listOf(org.id, org.config.token_lifetime_ceiling, request.query);
      return clientsPage(reply, consoleRequest(request), list, emptyClientForm, { notice: noticeOf(request) });
    });

    app.post('/console/admin/clients', async (request, reply) => {
      const who = signedIn(request, 'admin');
      const { org } = who;
      const form: ClientForm = {
        name: field(request.body, 'client_name').trim(),
        grantTypes: fields(request.body, 'grant_types'),
        scopes: field(request.body, 'scopes'),
        duration: field(request.body, 'access_token_duration'),
        format: field(request.body, 'access_token_format'),
      };
      try {
        const body = requestOf(form);
        checkBody(NewClient, body);
        const { client, secret } = await createSecretClient(store, org.id, body as NewClient, consoleOperator(who), deps.now());
        return clientSecretPage(reply, consoleRequest(request), client, secret, deps.issuer(), false);
      } catch (error) {
        const refusal = formRefusalOf(error);
        if (!refusal) throw error;
        const list = await listOf(org.id, org.config.token_lifetime_ceiling, {});
        return clientsPage(reply, consoleRequest(request), list, form, { errors: refusal.messages, status: refusal.status });
      }
    });

    app.post('/console/admin/clients/:client_id/secret', async (request, reply) => {
      const who = signedIn(request, 'admin');
      const { org } = who;
      const client = await store.getClient(org.id, clientIdOf(request));
      const secret = client && (await rotateOAuthClientSecret(store, org.id, client.id, consoleOperator(who), deps.now()));
      if (!client || secret === undefined) throw notFound();
      return clientSecretPage(reply, consoleRequest(request), client, secret, deps.issuer(), true);
    });

    app.post('/console/admin/clients/:client_id/delete', async (request, reply) => {
      const who = signedIn(request, 'admin');
      // Revokes the client's opaque tokens in the same transaction, as the API's DELETE does.
      if (!(await deleteOAuthClient(store, who.org.id, clientIdOf(request), consoleOperator(who), deps.now()))) throw notFound();
      return seeOther(reply, '/console/admin/clients?notice=deleted');
    });
  };
}
