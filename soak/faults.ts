import { setTimeout as sleep } from 'node:timers/promises';
import type { Replica } from '../test/helpers/replicas.ts';
import type { SmtpListenerOptions } from '../test/helpers/smtp.ts';
import type { PostgresCluster } from './postgres-cluster.ts';
import type { TokenEndpointRelay } from './token-endpoint-relay.ts';

export interface FaultTargets {
  /** The replica that is killed; the other serves on. */
  victim: Replica;
  cluster: PostgresCluster;
  relay: TokenEndpointRelay;
  /** The SMTP listener's options, read per recipient: setting refuseRecipients makes it refuse mail. */
  smtp: SmtpListenerOptions;
}

export interface Fault {
  name: string;
  /** Where in each cycle it starts, as a fraction of the cycle. */
  at: number;
  /** Injects the fault and resolves once it is over (the broken part is back). */
  inject(targets: FaultTargets): Promise<void>;
}

/** How long a fault that has a duration lasts: "a few seconds", long enough for timeouts to fire. */
const OUTAGE_MS = 4_000;

/** Breaks something for OUTAGE_MS, then mends it. */
async function outage(set: (broken: boolean) => unknown): Promise<void> {
  set(true);
  await sleep(OUTAGE_MS);
  set(false);
}

/** The fault matrix of the issue, one of each per cycle, far enough apart that each is seen alone. */
export const FAULTS: readonly Fault[] = [
  {
    name: 'a replica killed with SIGKILL, then started again',
    at: 0.1,
    async inject({ victim }) {
      await victim.kill('SIGKILL');
      await sleep(1_000);
      await victim.restart();
    },
  },
  {
    name: 'PostgreSQL restarted (immediate: crash recovery from its WAL)',
    at: 0.3,
    inject: ({ cluster }) => cluster.restart(),
  },
  {
    name: 'the token endpoint failing (500) behind the gateways',
    at: 0.5,
    inject: ({ relay }) => outage((broken) => (relay.mode = broken ? 'fail' : 'pass')),
  },
  {
    name: 'the token endpoint hanging behind the gateways',
    at: 0.65,
    inject: ({ relay }) => outage((broken) => (relay.mode = broken ? 'hang' : 'pass')),
  },
  {
    name: 'the SMTP server refusing mail',
    at: 0.8,
    inject: ({ smtp }) => outage((broken) => (smtp.refuseRecipients = broken)),
  },
];
