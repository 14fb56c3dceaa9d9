import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { importCredential, loginPerson, policyHash } from '../helpers/authn.ts';
import { backends } from '../helpers/backends.ts';
import { startTestService, type TestOrg, type TestService } from '../helpers/service.ts';

const ROUNDS = 30;

for (const backend of backends()) {
  describe(`A person's credential and the person deleted at once, on ${backend.name}`, () => {
    let t: TestService;
    let org: TestOrg;
    let hash: string;
    before(async () => {
      t = await startTestService(backend);
      org = await t.org();
      hash = await policyHash('correct horse battery staple');
    });
    after(() => t.close());

    it('regression: the two took their row locks in opposite orders and deadlocked on PostgreSQL (a 500); now each is 204 or 404', async () => {
      for (let round = 0; round < ROUNDS; round++) {
        const person = await loginPerson(t, org);
        const credential = await importCredential(t, org, person.id, 'password', { password_hash: hash });
        const [ofCredential, ofPerson] = await Promise.all([
          t.call('DELETE', `/persons/${person.id}/credentials/${credential}`, { as: org }),
          t.call('DELETE', `/persons/${person.id}`, { as: org }),
        ]);
        assert.equal(ofPerson.status, 204, JSON.stringify(ofPerson.body));
        assert.ok([204, 404].includes(ofCredential.status), `${ofCredential.status} ${JSON.stringify(ofCredential.body)}`);
        assert.equal((await t.call('GET', `/persons/${person.id}`, { as: org })).status, 404);
      }
    });
  });
}
