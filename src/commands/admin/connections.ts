import { readFileSync } from 'node:fs';
import type { Static } from 'typebox';
import type { ServiceConfig } from '../../config/service-config.ts';
import { createConnection } from '../../connections/operations.ts';
import { NewConnection, presentConnection } from '../../connections/schemas.ts';
import { connectionSecretBox } from '../../connections/sealing.ts';
import { InvalidArgumentError } from '../../organizations/create-organization.ts';
import { SCIM_PREFIX } from '../../scim/plugin.ts';
import { adminCommand } from './admin-command.ts';
import { checkBody, type FieldNames } from './option-terms.ts';
import { summary } from './output.ts';

const CONNECTION_FIELDS: FieldNames = {
  'body.name': '--name',
  'body.type': '--type',
  'body.base_url': '--base-url',
  'body.bearer_token': '--bearer-token-file',
};

/** The service's public URL as the service derives it when TESSERA_ISSUER is unset. */
function issuerOf(config: ServiceConfig): string {
  return config.issuer ?? `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`;
}

/** The provider's bearer token, from a file (or stdin for -): on the command line it would be in the shell's history and in ps. */
function bearerToken(path: string): string {
  try {
    return readFileSync(path === '-' ? 0 : path, 'utf8').replace(/\r?\n$/, '');
  } catch (error) {
    throw new InvalidArgumentError(`--bearer-token-file: cannot read ${JSON.stringify(path)} (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
}

export const createConnectionCommand = adminCommand({
  name: 'admin create-connection',
  description: `Connects an identity directory to the organisation (docs/scim.md). Type scim: the
provider pushes its users to the SCIM URL printed here, with the SCIM token printed here
(shown only now). Type scim_pull: the service reads users from the provider's --base-url
with the bearer token in --bearer-token-file, sealed under TESSERA_SECRET. The same rules as
POST /organizations/connections; audited as connection.created, operator cli.`,
  options: {
    name: { value: 'NAME', required: true, help: 'connection name, unique in the organisation, 1 to 100 characters' },
    type: { value: 'TYPE', required: true, help: 'scim or scim_pull' },
    'base-url': { value: 'URL', help: "scim_pull: the provider's SCIM base URL (https)" },
    'bearer-token-file': { value: 'FILE', help: 'scim_pull: a file holding the bearer token the provider\ngave (- for stdin)' },
  },
  json: 'print the connection as the API shows it (with scim_token for type scim)',
  secret: true,
  environment: `  TESSERA_ISSUER              the service's public URL, which the SCIM URL starts with
                              (default http://<TESSERA_HOST>:<TESSERA_PORT>)`,
  fields: CONNECTION_FIELDS,
  async run({ store, org, config, operator }, options) {
    const tokenFile = options['bearer-token-file'];
    const body = {
      name: options.name,
      type: options.type,
      ...(options['base-url'] === undefined ? {} : { base_url: options['base-url'] }),
      ...(tokenFile === undefined ? {} : { bearer_token: bearerToken(tokenFile) }),
    };
    checkBody(NewConnection, body, CONNECTION_FIELDS);
    const deps = { store, box: connectionSecretBox(config.secret), dev: config.dev, now: Date.now };
    const { connection, scimToken } = await createConnection(deps, org.id, body as Static<typeof NewConnection>, operator);
    const shown = presentConnection(connection, `${issuerOf(config)}${SCIM_PREFIX}`);
    const heading = `Created ${connection.type} connection "${connection.name}" (${connection.id}) in "${org.name}"`;
    const text =
      scimToken === undefined
        ? summary(heading, [['base URL', connection.baseUrl ?? '']])
        : summary(
            heading,
            [
              ['SCIM URL', `${issuerOf(config)}${SCIM_PREFIX}`],
              ['SCIM token', scimToken],
            ],
            'The token is shown only now: give both to the identity provider.',
          );
    return { text, json: { ...shown, ...(scimToken === undefined ? {} : { scim_token: scimToken }) } };
  },
});
