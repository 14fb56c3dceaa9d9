import { SingleFlightOne } from '../../../concurrency/single-flight.ts';
import { GatewayError } from '../../request/gateway-error.ts';
import { sendRequest } from './service-http.ts';

const METADATA_PATH = '/.well-known/oauth-authorization-server';

/**
 * The service's issuer identifier, the `aud` of the plugin's client assertions (the issuer
 * alone, draft-ietf-oauth-rfc7523bis). Read from the service's RFC 8414 metadata rather than
 * taken to be service_base_url: a gateway often reaches the service at an internal address
 * while its issuer is TESSERA_ISSUER, the public one. The gateway already trusts that address
 * with its client's credentials, so it trusts its word on the issuer too. Read once and kept;
 * forgotten when the token endpoint refuses the client, so a changed issuer is read again.
 */
export class ServiceIssuer {
  readonly #url: string;
  readonly #timeoutMs: number;
  readonly #lookup = new SingleFlightOne<string>();
  #issuer: string | undefined;

  constructor(serviceBaseUrl: string, timeoutMs: number) {
    this.#url = `${serviceBaseUrl}${METADATA_PATH}`;
    this.#timeoutMs = timeoutMs;
  }

  async issuer(what: string): Promise<string> {
    return this.#issuer ?? this.#lookup.run(() => this.#read(what).then((issuer) => (this.#issuer = issuer)));
  }

  forget(): void {
    this.#issuer = undefined;
  }

  async #read(what: string): Promise<string> {
    const started = Date.now();
    let answer: { status: number; text: string };
    try {
      answer = await sendRequest('GET', this.#url, { accept: 'application/json' }, undefined, this.#timeoutMs);
    } catch (error) {
      const timedOut = Date.now() - started >= this.#timeoutMs - 5;
      throw new GatewayError(
        timedOut ? 'GATEWAY_TOKEN_ENDPOINT_TIMEOUT' : 'GATEWAY_TOKEN_ENDPOINT_UNREACHABLE',
        `${what} failed: the service's metadata (${METADATA_PATH}) ${timedOut ? 'did not come in time' : 'could not be reached'}`,
        { cause: error },
      );
    }
    if (answer.status >= 500)
      throw new GatewayError('GATEWAY_TOKEN_ENDPOINT_FAILED', `${what} failed: the service's metadata (${METADATA_PATH}) failed (${answer.status})`);
    let issuer: unknown;
    try {
      issuer = (JSON.parse(answer.text) as { issuer?: unknown } | null)?.issuer;
    } catch {
      issuer = undefined;
    }
    if (answer.status !== 200 || typeof issuer !== 'string' || !URL.canParse(issuer))
      throw new GatewayError('GATEWAY_TOKEN_ENDPOINT_MALFORMED', `${what} failed: the service's metadata (${METADATA_PATH}) names no issuer`, {
        cause: new Error(`status ${answer.status}`),
      });
    return issuer;
  }
}
