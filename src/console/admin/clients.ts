import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Static } from 'typebox';
import { createOAuthClient, deleteOAuthClient, rotateOAuthClientSecret, switchClientAuthentication } from '../../clients/operations.ts';
import { ClientAuthenticationChange, NewClient } from '../../clients/schemas.ts';
import { ApiError } from '../../errors/api-error.ts';
import type { OAuthClient } from '../../store/types.ts';
import { consoleRequest, seeOther, signedIn } from '../context.ts';
import type { ConsoleDeps } from '../deps.ts';
import { field, fields } from '../form-body.ts';
import { checkBody, formRefusalOf } from '../form-refusals.ts';
import { noticeFrom } from '../notice.ts';
import {
  type AuthenticationForm,
  authenticationFormOf,
  authenticationFormOfClient,
  authenticationRequestOf,
  isSecretMethod,
  shownBack,
} from './client-authentication.ts';
import { clientPage } from './client-detail-page.ts';
import { type ClientForm, clientSecretPage, clientsPage, emptyClientForm, keyedClientPage } from './client-pages.ts';
import { formNumber } from './form-values.ts';
import { consolePageRequest, cursorsOf } from './paging.ts';
import { consoleOperator } from './persons.ts';

const notices: Record<string, string> = { deleted: 'Client deleted; its tokens are revoked.' };
const clientNotices: Record<string, string> = {
  authentication: 'Authentication changed: what the client used before no longer works.',
  'secret-kept': 'Authentication changed: the client keeps its secret, which both secret methods accept.',
};

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
    ...authenticationRequestOf(form.authentication),
  };
}

/** OAuth clients: the API's /oauth2/clients, as pages, through the same functions. */
export function clientRoutes(deps: ConsoleDeps) {
  const { store, dev } = deps;
  const listOf = async (orgId: string, ceiling: number, query: unknown) => {
    const page = await store.listClients(orgId, consolePageRequest('oauth2-clients', query));
    return { clients: page.items, cursors: cursorsOf('oauth2-clients', page), total: page.totalCount, ceiling, dev };
  };
  const clientOf = async (orgId: string, request: FastifyRequest): Promise<OAuthClient> => {
    const client = await store.getClient(orgId, clientIdOf(request));
    if (!client) throw notFound();
    return client;
  };

  return async (app: FastifyInstance) => {
    app.get('/console/admin/clients', async (request, reply) => {
      const { org } = signedIn(request, 'admin');
      const list = await listOf(org.id, org.config.token_lifetime_ceiling, request.query);
      return clientsPage(reply, consoleRequest(request), list, emptyClientForm, { notice: noticeFrom(notices, request.query) });
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
        authentication: authenticationFormOf(request.body),
      };
      try {
        const body = requestOf(form);
        checkBody(NewClient, body);
        const { client, secret } = await createOAuthClient(store, org.id, body as NewClient, consoleOperator(who), deps.now(), { dev });
        if (secret === undefined) return keyedClientPage(reply, consoleRequest(request), client, deps.issuer());
        return clientSecretPage(reply, consoleRequest(request), client, secret, deps.issuer(), 'registered');
      } catch (error) {
        const refusal = formRefusalOf(error);
        if (!refusal) throw error;
        const list = await listOf(org.id, org.config.token_lifetime_ceiling, {});
        const typed = { ...form, authentication: shownBack(form.authentication) };
        return clientsPage(reply, consoleRequest(request), list, typed, { errors: refusal.messages, status: refusal.status });
      }
    });

    app.get('/console/admin/clients/:client_id', async (request, reply) => {
      const { org } = signedIn(request, 'admin');
      const client = await clientOf(org.id, request);
      const options = { form: authenticationFormOfClient(client), dev, origin: deps.issuer(), notice: noticeFrom(clientNotices, request.query) };
      return clientPage(reply, consoleRequest(request), client, options);
    });

    // PATCH /oauth2/clients/{id}'s switch: to a keyed method with its material, or to a secret method.
    app.post('/console/admin/clients/:client_id/authentication', async (request, reply) => {
      const who = signedIn(request, 'admin');
      const { org } = who;
      const client = await clientOf(org.id, request);
      const form: AuthenticationForm = authenticationFormOf(request.body);
      try {
        const body = authenticationRequestOf(form);
        checkBody(ClientAuthenticationChange, body);
        const change = body as Static<typeof ClientAuthenticationChange>;
        const switched = await switchClientAuthentication(store, org.id, client.id, change, consoleOperator(who), deps.now(), { dev });
        if (!switched) throw notFound();
        if (switched.secret !== undefined) return clientSecretPage(reply, consoleRequest(request), switched.client, switched.secret, deps.issuer(), 'switched');
        const kept = isSecretMethod(client.authMethod) && isSecretMethod(switched.client.authMethod);
        return seeOther(reply, `/console/admin/clients/${client.id}?notice=${kept ? 'secret-kept' : 'authentication'}`);
      } catch (error) {
        const refusal = formRefusalOf(error);
        if (!refusal) throw error;
        const options = { form: shownBack(form), dev, origin: deps.issuer(), errors: refusal.messages, status: refusal.status };
        return clientPage(reply, consoleRequest(request), client, options);
      }
    });

    app.post('/console/admin/clients/:client_id/secret', async (request, reply) => {
      const who = signedIn(request, 'admin');
      const { org } = who;
      const client = await store.getClient(org.id, clientIdOf(request));
      const secret = client && (await rotateOAuthClientSecret(store, org.id, client.id, consoleOperator(who), deps.now()));
      if (!client || secret === undefined) throw notFound();
      return clientSecretPage(reply, consoleRequest(request), client, secret, deps.issuer(), 'rotated');
    });

    app.post('/console/admin/clients/:client_id/delete', async (request, reply) => {
      const who = signedIn(request, 'admin');
      // Revokes the client's opaque tokens in the same transaction, as the API's DELETE does.
      if (!(await deleteOAuthClient(store, who.org.id, clientIdOf(request), consoleOperator(who), deps.now()))) throw notFound();
      return seeOther(reply, '/console/admin/clients?notice=deleted');
    });
  };
}
