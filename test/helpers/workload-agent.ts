import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import { WORKLOAD_PROTO_OPTIONS, WORKLOAD_PROTO_PATH } from '../../src/gateway/plugins/token-exchange/workload-api/workload-api-actor.ts';

const serviceDefinition = (() => {
  const definition = grpc.loadPackageDefinition(protoLoader.loadSync(WORKLOAD_PROTO_PATH, WORKLOAD_PROTO_OPTIONS));
  const service = (definition.SpiffeWorkloadAPI as grpc.GrpcObject).SpiffeWorkloadAPI as grpc.ServiceClientConstructor;
  return service.service;
})();

export interface Received {
  securityHeader: grpc.MetadataValue[];
  audience: string[];
  spiffeId: string;
  /** What was left of the caller's deadline (grpc-timeout) when the call arrived, in ms; Infinity without one. */
  deadlineLeftMs: number;
}

/** A real grpc-js Workload API agent on a unix socket; `respond` decides each answer. */
export class FakeAgent {
  readonly path: string;
  readonly received: Received[] = [];
  respond: () => { svids: { spiffe_id: string; svid: string; hint: string }[] } = () => ({ svids: [] });
  delayMs = 0;
  #server: grpc.Server | undefined;

  constructor(path: string) {
    this.path = path;
  }

  get calls(): number {
    return this.received.length;
  }

  async start(): Promise<void> {
    const server = new grpc.Server();
    server.addService(serviceDefinition, {
      FetchJWTSVID: (call: grpc.ServerUnaryCall<{ audience: string[]; spiffe_id: string }, unknown>, callback: grpc.sendUnaryData<unknown>) => {
        const deadline = call.getDeadline();
        this.received.push({
          securityHeader: call.metadata.get('workload.spiffe.io'),
          audience: call.request.audience,
          spiffeId: call.request.spiffe_id,
          deadlineLeftMs: (deadline instanceof Date ? deadline.getTime() : deadline) - Date.now(),
        });
        const answer = this.respond();
        setTimeout(() => callback(null, answer), this.delayMs);
      },
    });
    await new Promise<void>((resolve, reject) =>
      server.bindAsync(`unix://${this.path}`, grpc.ServerCredentials.createInsecure(), (error) => (error ? reject(error) : resolve())),
    );
    this.#server = server;
  }

  stop(): void {
    this.#server?.forceShutdown();
    this.#server = undefined;
  }
}
