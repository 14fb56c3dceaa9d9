import { fileURLToPath } from 'node:url';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { Backoff } from '../../../../concurrency/refresh-with-backoff.ts';
import { SingleFlightOne } from '../../../../concurrency/single-flight.ts';
import { TOKEN_TYPE } from '../../../../oauth/tokens/token-types.ts';
import { GatewayError } from '../../../request/gateway-error.ts';
import type { ActorSource, ActorToken } from '../actor-sources.ts';

/** The proto (JWT-SVID subset of the SPIFFE Workload API) this client speaks; tests serve it too. */
export const WORKLOAD_PROTO_PATH = fileURLToPath(new URL('./workload.proto', import.meta.url));
/** snake_case field names as in the proto, defaults filled in, repeated fields always arrays. */
export const WORKLOAD_PROTO_OPTIONS: protoLoader.Options = { keepCase: true, defaults: true, arrays: true, longs: String, enums: String, oneofs: true };

/** Every Workload API call must carry this metadata (SPIFFE Workload API, "Transport"). */
const SECURITY_HEADER = 'workload.spiffe.io';
const CALL_DEADLINE_MS = 2_000;
const BACKOFF_INITIAL_MS = 100;
const BACKOFF_MAX_MS = 5_000;
const REFRESH_MIN_MS = 30_000;
const REFRESH_FRACTION = 0.2;

interface JwtSvidMessage {
  spiffe_id: string;
  svid: string;
  hint: string;
}
interface JwtSvidResponse {
  svids: JwtSvidMessage[];
}
interface WorkloadClient extends grpc.Client {
  FetchJWTSVID(
    request: { audience: string[]; spiffe_id?: string },
    metadata: grpc.Metadata,
    options: grpc.CallOptions,
    callback: (error: grpc.ServiceError | null, response?: JwtSvidResponse) => void,
  ): grpc.ClientUnaryCall;
}
type WorkloadClientConstructor = new (target: string, credentials: grpc.ChannelCredentials, options?: grpc.ChannelOptions) => WorkloadClient;

let clientConstructor: WorkloadClientConstructor | undefined;
function loadClientConstructor(): WorkloadClientConstructor {
  if (!clientConstructor) {
    const definition = grpc.loadPackageDefinition(protoLoader.loadSync(WORKLOAD_PROTO_PATH, WORKLOAD_PROTO_OPTIONS));
    const pkg = definition.SpiffeWorkloadAPI as grpc.GrpcObject;
    clientConstructor = pkg.SpiffeWorkloadAPI as unknown as WorkloadClientConstructor;
  }
  return clientConstructor;
}

/** `unix:///abs/path` (also `unix:/abs/path`, `unix://abs/path`) as the `unix:///abs/path` target grpc-js resolves. */
function grpcTarget(socket: string): string {
  const path = socket.replace(/^unix:\/*/, '/');
  return `unix://${path}`;
}

const unavailable = (message: string, cause?: unknown) => new GatewayError('GATEWAY_ACTOR_UNAVAILABLE', message, { cause });

interface CachedSvid {
  svid: string;
  expiresAt: number;
  refreshAt: number;
}

/** exp (and iat) of a compact JWT, read without verification; never echoes the token. */
function readExpiry(svid: string): { exp: number; iat?: number } {
  const parts = svid.split('.');
  if (parts.length !== 3 || !parts[1]) throw new Error('not a compact JWT');
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(parts[1], 'base64url').toString('utf8'));
  } catch {
    // JSON.parse's own message quotes the input, i.e. part of the token.
    throw new Error('the JWT payload is not JSON');
  }
  if (typeof payload !== 'object' || payload === null) throw new Error('the JWT payload is not an object');
  const { exp, iat } = payload as { exp?: unknown; iat?: unknown };
  if (typeof exp !== 'number' || !Number.isFinite(exp)) throw new Error('the JWT has no numeric exp');
  return typeof iat === 'number' && Number.isFinite(iat) ? { exp, iat } : { exp };
}

/**
 * actor_mode=gate_svid, source workload_api: a JWT-SVID fetched from the SPIFFE Workload API
 * (FetchJWTSVID over a unix socket), reused until max(30 s, 20 % of its lifetime) before it
 * expires; concurrent calls share one fetch. After a failure, fetches back off exponentially
 * (100 ms doubling to 5 s); meanwhile a still-unexpired cached SVID is served, otherwise the
 * last failure is reported again without calling the agent.
 */
export class WorkloadApiActor implements ActorSource {
  readonly #target: string;
  readonly #audience: string[];
  readonly #now: () => number;
  #client: WorkloadClient | undefined;
  #closed = false;
  #cached: CachedSvid | undefined;
  readonly #fetching = new SingleFlightOne<CachedSvid>();
  readonly #backoff = new Backoff({ initialMs: BACKOFF_INITIAL_MS, maxMs: BACKOFF_MAX_MS });
  #lastError: GatewayError | undefined;

  constructor(options: { socket: string; audience?: readonly string[]; now?: () => number }) {
    this.#target = grpcTarget(options.socket);
    this.#audience = [...(options.audience ?? [])];
    this.#now = options.now ?? Date.now;
  }

  async actor(): Promise<ActorToken> {
    if (this.#closed) throw unavailable('the SPIFFE Workload API client is closed');
    const now = this.#now();
    const cached = this.#cached;
    if (cached && now < cached.refreshAt) return { token: cached.svid, type: TOKEN_TYPE.jwt };
    if (this.#backoff.waiting(now) && this.#lastError) {
      if (cached && now < cached.expiresAt) return { token: cached.svid, type: TOKEN_TYPE.jwt };
      throw unavailable(this.#lastError.message, this.#lastError.cause);
    }
    try {
      return { token: (await this.#fetching.run(() => this.#fetch())).svid, type: TOKEN_TYPE.jwt };
    } catch (error) {
      // A refresh that fails while the SVID in hand is still valid is not the caller's problem.
      const stillValid = this.#cached;
      if (stillValid && this.#now() < stillValid.expiresAt) return { token: stillValid.svid, type: TOKEN_TYPE.jwt };
      throw error;
    }
  }

  /** Closes the channel; later actor() calls fail with 502. */
  close(): void {
    this.#closed = true;
    this.#client?.close();
    this.#client = undefined;
  }

  async #fetch(): Promise<CachedSvid> {
    try {
      const response = await this.#call();
      const svid = response.svids[0]?.svid;
      if (!svid) throw unavailable('the SPIFFE Workload API returned no JWT-SVID');
      let claims: { exp: number; iat?: number };
      try {
        claims = readExpiry(svid);
      } catch (error) {
        throw unavailable('the SPIFFE Workload API returned an unparseable JWT-SVID', error);
      }
      const now = this.#now();
      const expiresAt = claims.exp * 1000;
      if (expiresAt <= now) throw unavailable('the SPIFFE Workload API returned an expired JWT-SVID');
      const issuedAt = claims.iat !== undefined && claims.iat * 1000 <= now ? claims.iat * 1000 : now;
      const margin = Math.max(REFRESH_MIN_MS, REFRESH_FRACTION * (expiresAt - issuedAt));
      const fresh = { svid, expiresAt, refreshAt: expiresAt - margin };
      this.#cached = fresh;
      this.#backoff.succeeded();
      this.#lastError = undefined;
      return fresh;
    } catch (error) {
      const failure = error instanceof GatewayError ? error : unavailable('the SPIFFE Workload API call failed', error);
      this.#backoff.failed(this.#now());
      this.#lastError = failure;
      throw failure;
    }
  }

  #call(): Promise<JwtSvidResponse> {
    if (this.#closed) return Promise.reject(unavailable('the SPIFFE Workload API client is closed'));
    const client = (this.#client ??= new (loadClientConstructor())(this.#target, grpc.credentials.createInsecure(), {
      // A channel of its own (not the process-wide subchannel pool), retrying a restarted agent within our own back-off bound.
      'grpc.use_local_subchannel_pool': 1,
      'grpc.initial_reconnect_backoff_ms': BACKOFF_INITIAL_MS,
      'grpc.max_reconnect_backoff_ms': BACKOFF_MAX_MS,
    }));
    const metadata = new grpc.Metadata();
    metadata.set(SECURITY_HEADER, 'true');
    return new Promise((resolve, reject) => {
      client.FetchJWTSVID({ audience: this.#audience }, metadata, { deadline: Date.now() + CALL_DEADLINE_MS }, (error, response) => {
        if (error) {
          if (error.code === grpc.status.UNAVAILABLE && this.#client === client) {
            // The agent is gone or restarting: the next attempt (after back-off) dials a fresh channel.
            this.#client = undefined;
            client.close();
          }
          const message =
            error.code === grpc.status.DEADLINE_EXCEEDED
              ? 'the SPIFFE Workload API did not answer in time'
              : error.code === grpc.status.UNAVAILABLE
                ? 'the SPIFFE Workload API is unreachable'
                : `the SPIFFE Workload API refused the JWT-SVID request (${grpc.status[error.code] ?? error.code})`;
          reject(unavailable(message, error));
        } else if (!response) reject(unavailable('the SPIFFE Workload API returned no response'));
        else resolve(response);
      });
    });
  }
}
