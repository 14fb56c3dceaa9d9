import { readFile, stat } from 'node:fs/promises';
import { BackgroundRefresh, Backoff, realSchedule, type Schedule } from '../../../concurrency/refresh-with-backoff.ts';
import { SingleFlightOne } from '../../../concurrency/single-flight.ts';
import { TOKEN_TYPE } from '../../../oauth/tokens/token-types.ts';
import { GatewayError } from '../../request/gateway-error.ts';
import { type ClientAuthentication, clientAuthenticationOf } from './client-authentication.ts';
import { postTokenRequest, type TokenResponse } from './exchange-client.ts';
import type { TokenExchangeParams } from './schema.ts';

export interface ActorToken {
  token: string;
  type: string;
}

/** Where a plugin's actor token comes from, when it does not come with the request. */
export interface ActorSource {
  actor(): Promise<ActorToken>;
}

const unavailable = (message: string, cause?: unknown) => new GatewayError('GATEWAY_ACTOR_UNAVAILABLE', message, { cause });

/**
 * actor_mode=oauth_client: the gateway's own client_credentials token, minted at the token
 * endpoint and renewed in the background before it expires (at 80 % of its life, and at the
 * latest 30 s before the end), so requests never wait for a mint once the first one is done.
 * Concurrent mints are shared; a failed renewal keeps the current token while it lasts and
 * is retried with back-off.
 */
export class OAuthClientActor implements ActorSource {
  readonly #params: TokenExchangeParams;
  readonly #client: ClientAuthentication | undefined;
  /** A failed renewal is retried after 2 s, doubling to at most a minute. */
  readonly #backoff = new Backoff({ initialMs: 2_000, maxMs: 60_000 });
  readonly #renewal: BackgroundRefresh;
  readonly #minting = new SingleFlightOne<TokenResponse>();
  #current: TokenResponse | undefined;

  /** `client` defaults to one made from the parameters; a plugin passes the one its exchanges use too. */
  constructor(params: TokenExchangeParams, schedule: Schedule = realSchedule, client = clientAuthenticationOf(params)) {
    this.#params = params;
    this.#client = client;
    this.#renewal = new BackgroundRefresh(() => this.#mint(), this.#backoff, schedule);
  }

  async actor(): Promise<ActorToken> {
    const current = this.#current;
    if (current && (current.expiresAt === undefined || Date.now() < current.expiresAt - 5_000))
      return { token: current.accessToken, type: TOKEN_TYPE.accessToken };
    return { token: (await this.#mint()).accessToken, type: TOKEN_TYPE.accessToken };
  }

  close(): void {
    this.#renewal.stop();
  }

  #mint(): Promise<TokenResponse> {
    return this.#minting.run(() =>
      postTokenRequest(
        `${this.#params.serviceBaseUrl}/oauth2/tokens`,
        new URLSearchParams({ grant_type: 'client_credentials' }),
        this.#client,
        this.#params.timeoutMs,
        "minting the gateway's client_credentials token",
      )
        .then((minted) => {
          this.#current = minted;
          this.#backoff.succeeded();
          if (minted.expiresAt !== undefined) {
            const life = minted.expiresAt - Date.now();
            this.#renewal.refreshIn(Math.max(0, Math.min(life * 0.8, life - 30_000)));
          }
          return minted;
        })
        .catch((error: unknown) => {
          throw error instanceof GatewayError ? new GatewayError('GATEWAY_ACTOR_UNAVAILABLE', error.message, { cause: error.cause }) : error;
        }),
    );
  }
}

/** actor_mode=gate_svid, source file: re-read when its modification time changes, checked every reload interval. */
export class SvidFileActor implements ActorSource {
  readonly #path: string;
  readonly #reloadMs: number;
  readonly #now: () => number;
  #checkedAt = 0;
  #mtime = -1;
  #svid: string | undefined;

  constructor(path: string, reloadMs: number, now: () => number = Date.now) {
    this.#path = path;
    this.#reloadMs = reloadMs;
    this.#now = now;
  }

  async actor(): Promise<ActorToken> {
    const now = this.#now();
    if (now - this.#checkedAt >= this.#reloadMs || this.#svid === undefined) {
      this.#checkedAt = now;
      try {
        const info = await stat(this.#path);
        if (info.mtimeMs !== this.#mtime || this.#svid === undefined) {
          this.#svid = (await readFile(this.#path, 'utf8')).trim();
          this.#mtime = info.mtimeMs;
        }
      } catch (error) {
        this.#svid = undefined;
        throw unavailable('the SVID file cannot be read', error);
      }
    }
    if (!this.#svid) throw unavailable('the SVID file is empty');
    return { token: this.#svid, type: TOKEN_TYPE.jwt };
  }
}

/** actor_mode=gate_svid, source env: the variable as it is now. */
export class SvidEnvActor implements ActorSource {
  readonly #name: string;
  constructor(name: string) {
    this.#name = name;
  }

  async actor(): Promise<ActorToken> {
    const svid = process.env[this.#name]?.trim();
    if (!svid) throw unavailable(`the environment variable ${this.#name} holds no SVID`);
    return { token: svid, type: TOKEN_TYPE.jwt };
  }
}

/** The gate_svid actor's SVIDs from a file or the environment; the Workload API's source is loaded apart (definition.ts). */
export function svidSource(actor: TokenExchangeParams['actor'], now?: () => number): ActorSource | undefined {
  if (actor.mode === 'gate_svid' && actor.source === 'file') return new SvidFileActor(actor.filePath, actor.reloadMs, now);
  if (actor.mode === 'gate_svid' && actor.source === 'env') return new SvidEnvActor(actor.envVar);
  return undefined;
}
