import { createOAuthClient, deleteOAuthClient, presentClient, rotateOAuthClientSecret } from '../../clients/operations.ts';
import { NewClient } from '../../clients/schemas.ts';
import { clientDefaults } from '../../config/defaults.ts';
import { clientGrantTypes, type OAuthClient } from '../../store/types.ts';
import { CommandRefusal } from '../command.ts';
import { adminCommand } from './admin-command.ts';
import { AUTHENTICATION_FIELDS, DEV_ENVIRONMENT, KEYED_OPTIONS, keyedAuthentication, keyedSummary } from './client-authentication.ts';
import { checkBody, type FieldNames } from './option-terms.ts';
import { allPages, listed, summary, table } from './output.ts';

const CLIENT_FIELDS: FieldNames = {
  'body.client_name': '--name',
  'body.grant_types': '--grant-type',
  'body.scopes': '--scope',
  'body.access_token_duration': '--access-token-duration',
  'body.access_token_format': '--access-token-format',
  ...AUTHENTICATION_FIELDS,
};

const CLIENT_OPTION = { value: 'CLIENT', required: true, help: 'the client id (cli_…)' } as const;

/** A grant type without RFC 8693's URN prefix (`token-exchange`), which is long to type and to read. */
const shortGrant = (grant: string) => grant.replace(/^urn:ietf:params:oauth:grant-type:/, '');
/** The grant type as typed, short or whole. */
const grantType = (given: string) => clientGrantTypes.find((grant) => shortGrant(grant) === given) ?? given;

const noSuchClient = (id: string) => new CommandRefusal(`--client: no OAuth2 client of this organisation has the id ${JSON.stringify(id)}`);
const tokensOf = (client: OAuthClient) => `${client.accessTokenFormat}, ${client.accessTokenDuration} s`;

export const createClientCommand = adminCommand({
  name: 'admin create-client',
  description: `Registers an OAuth2 client of the organisation and prints its id and secret
(client_secret_basic or client_secret_post at the token endpoint). The secret is shown
only now: Tessera stores only its hash. With one of --jwks-file, --jwks-uri and
--spiffe-id the client has no secret: it signs private_key_jwt assertions with a key of
that JWK Set, or presents a JWT-SVID of that SPIFFE ID (spiffe_jwt). The same rules as
POST /oauth2/clients; audited as client.created, operator cli.`,
  options: {
    name: { value: 'NAME', required: true, help: 'client name, 1 to 200 characters' },
    'grant-type': {
      value: 'TYPE',
      multiple: true,
      help: 'client_credentials, or token-exchange (urn:ietf:params:oauth:grant-type:\ntoken-exchange); at least one',
    },
    scope: { value: 'SCOPE', multiple: true, help: 'a scope the client may be granted' },
    'access-token-duration': { value: 'SECONDS', help: `lifetime of its tokens, 60 to 86400 (default ${clientDefaults.accessTokenDuration})` },
    'access-token-format': { value: 'FORMAT', help: `opaque or jwt, of its client_credentials tokens (default ${clientDefaults.accessTokenFormat})` },
    ...KEYED_OPTIONS,
  },
  json: 'print the client as the API shows it, with client_secret, on one line',
  environment: DEV_ENVIRONMENT,
  fields: CLIENT_FIELDS,
  async run({ store, org, config, operator }, options) {
    const duration = options['access-token-duration'];
    const body = {
      client_name: options.name,
      ...(options['grant-type'].length > 0 ? { grant_types: options['grant-type'].map(grantType) } : {}),
      ...(options.scope.length > 0 ? { scopes: options.scope } : {}),
      // A number when it reads as one; otherwise the schema says what it must be.
      ...(duration === undefined ? {} : { access_token_duration: /^[0-9]{1,9}$/.test(duration) ? Number(duration) : duration }),
      ...(options['access-token-format'] === undefined ? {} : { access_token_format: options['access-token-format'] }),
      ...keyedAuthentication('admin create-client', options),
    };
    checkBody(NewClient, body, CLIENT_FIELDS);
    const { client, secret } = await createOAuthClient(store, org.id, body as NewClient, operator, Date.now(), { dev: config.dev });
    const text = summary(
      `Created OAuth2 client "${client.name}" in "${org.name}"`,
      [
        ['client id', client.id],
        secret === undefined ? ['authentication', keyedSummary(client)] : ['client secret', secret],
        ['grant types', listed(client.grantTypes.map(shortGrant))],
        ['scopes', listed(client.scopes)],
        ['tokens', tokensOf(client)],
      ],
      secret === undefined
        ? client.authMethod === 'spiffe_jwt'
          ? 'It has no secret: it presents a JWT-SVID of its SPIFFE ID.'
          : 'It has no secret: it signs a client assertion with its private key.'
        : 'The secret is shown only now: Tessera stores only its hash.',
    );
    return { text, json: { ...presentClient(client), ...(secret === undefined ? {} : { client_secret: secret }) } };
  },
});

export const listClientsCommand = adminCommand({
  name: 'admin list-clients',
  description: "Lists the organisation's OAuth2 clients, oldest first (never their secrets).",
  options: {},
  json: 'print the clients as the API shows them, as one JSON array',
  async run({ store, org }) {
    const clients = await allPages(
      (page) => store.listClients(org.id, page),
      (c) => c.id,
    );
    if (clients.length === 0) return { text: `No OAuth2 clients in "${org.name}".\n`, json: [] };
    const rows = clients.map((c) => [c.id, c.name, listed(c.grantTypes.map(shortGrant)), listed(c.scopes), tokensOf(c), c.authMethod]);
    return { text: table(['CLIENT ID', 'NAME', 'GRANT TYPES', 'SCOPES', 'TOKENS', 'AUTHENTICATION'], rows), json: clients.map(presentClient) };
  },
});

export const rotateClientSecretCommand = adminCommand({
  name: 'admin rotate-client-secret',
  description: `Gives an OAuth2 client a new secret and prints it; the old one is refused from now on.
The secret is shown only now. Audited as client.secret_rotated, operator cli.`,
  options: { client: CLIENT_OPTION },
  json: 'print {"client_id": …, "client_secret": …}',
  fields: { 'path.client_id': '--client' },
  async run({ store, org, operator }, options) {
    const secret = await rotateOAuthClientSecret(store, org.id, options.client, operator);
    if (secret === undefined) throw noSuchClient(options.client);
    const text = summary(`New secret of OAuth2 client ${options.client}`, [['client secret', secret]], 'The previous secret is refused from now on.');
    return { text, json: { client_id: options.client, client_secret: secret } };
  },
});

export const deleteClientCommand = adminCommand({
  name: 'admin delete-client',
  description: 'Deletes an OAuth2 client and revokes its opaque tokens. Audited as client.deleted, operator cli.',
  options: { client: CLIENT_OPTION },
  json: 'print {"client_id": …, "deleted": true}',
  async run({ store, org, operator }, options) {
    if (!(await deleteOAuthClient(store, org.id, options.client, operator))) throw noSuchClient(options.client);
    return { text: `Deleted OAuth2 client ${options.client}; its opaque tokens are revoked.\n`, json: { client_id: options.client, deleted: true } };
  },
});
