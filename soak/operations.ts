import type { SmtpListener } from '../test/helpers/smtp.ts';
import { ORIGIN, RP_ID } from '../test/methods/passkey/passkeys.ts';
import { call, form, json } from './client.ts';
import { type Fixtures, PASSWORD, type SoakPerson } from './fixtures.ts';
import type { Ledger } from './ledger.ts';
import { pick, unique } from './random.ts';

export interface LoadContext {
  ledger: Ledger;
  fixtures: Fixtures;
  smtp: SmtpListener;
  /** A replica's base URL, at random: the load balancer's choice. */
  replica(): string;
  gateway(): string;
}

const admin = (ctx: LoadContext) => ctx.fixtures.org.headers;
const browser = (ctx: LoadContext) => ({ 'service-orgid': ctx.fixtures.org.orgId });
const handle = (person: SoakPerson) => ({ type: 'email_address', value: person.email });
/** A person free for a login that must not race another of theirs; marked busy until `use` ends. */
async function withFreePerson(ctx: LoadContext, use: (person: SoakPerson) => Promise<void>): Promise<void> {
  const person = pick(ctx.fixtures.persons.filter((p) => !p.busy));
  if (!person) return;
  person.busy = true;
  try {
    await use(person);
  } finally {
    person.busy = false;
  }
}

export const operations: Record<string, { weight: number; run(ctx: LoadContext): Promise<void> }> = {
  'gateway call': {
    weight: 30,
    async run(ctx) {
      const person = pick(ctx.fixtures.persons)!;
      await call(ctx.ledger, 'gateway call', `${ctx.gateway()}/orders/${unique()}`, { headers: { authorization: `Bearer ${person.jwt}` } });
    },
  },
  client_credentials: {
    weight: 10,
    async run(ctx) {
      const answer = await call(
        ctx.ledger,
        'client_credentials',
        `${ctx.replica()}/oauth2/tokens`,
        form({ grant_type: 'client_credentials' }, ctx.fixtures.caller),
      );
      ctx.ledger.unanswered(answer);
      if (answer?.status === 200) ctx.ledger.acked.tokens.push(answer.body.access_token);
    },
  },
  introspection: {
    weight: 8,
    async run(ctx) {
      const token = pick(ctx.ledger.acked.tokens);
      if (!token) return;
      const answer = await call(ctx.ledger, 'introspection', `${ctx.replica()}/oauth2/tokens/introspect`, form({ token }, ctx.fixtures.caller));
      if (answer?.status === 200 && answer.body.active !== true) ctx.ledger.violation('other', 'introspection: a token issued with 200 was not active');
    },
  },
  'create person': {
    weight: 6,
    async run(ctx) {
      const body = { handles: [{ type: 'email_address', value: `new.${unique()}@example.com` }] };
      const answer = await call(ctx.ledger, 'create person', `${ctx.replica()}/persons`, json(body, admin(ctx)));
      ctx.ledger.unanswered(answer);
      if (answer?.status === 201) ctx.ledger.acked.persons.push(answer.body.result.id);
    },
  },
  'create credential': {
    weight: 6,
    async run(ctx) {
      const owner = pick(ctx.ledger.acked.persons);
      if (!owner) return;
      const body = { type: 'password', params: { password_hash: ctx.fixtures.passwordHash } };
      const answer = await call(ctx.ledger, 'create credential', `${ctx.replica()}/persons/${owner}/credentials`, json(body, admin(ctx)));
      // 409: the person has a password already (an earlier try of this person was acknowledged).
      ctx.ledger.unanswered(answer);
      if (answer?.status === 201) ctx.ledger.acked.credentials.push(answer.body.result.id);
    },
  },
  'password login': {
    weight: 6,
    async run(ctx) {
      const person = pick(ctx.fixtures.persons)!;
      await call(ctx.ledger, 'password login', `${ctx.replica()}/authn/password`, json({ handle: handle(person), password: PASSWORD }, browser(ctx)));
    },
  },
  'TOTP login': {
    weight: 4,
    run: (ctx) =>
      withFreePerson(ctx, async (person) => {
        const step = Math.floor(Date.now() / 30_000);
        if (step <= person.lastStep) return;
        person.lastStep = step;
        await call(ctx.ledger, 'TOTP login', `${ctx.replica()}/authn/totp`, json({ handle: handle(person), code: person.totp.generate() }, browser(ctx)));
      }),
  },
  'passkey login': {
    weight: 4,
    run: (ctx) =>
      withFreePerson(ctx, async (person) => {
        const options = await call(ctx.ledger, 'passkey options', `${ctx.replica()}/authn/webauthn/options`, json({ handle: handle(person) }, browser(ctx)));
        if (options?.status !== 200) return;
        const { challenge_id, options: publicKey } = options.body.result;
        const response = person.authenticator.assert({ challenge: publicKey.challenge, rpId: RP_ID, origin: ORIGIN });
        await call(ctx.ledger, 'passkey login', `${ctx.replica()}/authn/webauthn/verify`, json({ challenge_id, response }, browser(ctx)));
      }),
  },
};
