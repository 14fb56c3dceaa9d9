import type { MigrationSource } from './dialect.ts';

export const tokenMayAct: MigrationSource = {
  version: 3,
  name: 'may_act carried by opaque tokens',
  // A delegated token keeps its subject's may_act, so the restriction holds on every hop.
  statements: (t) => [`ALTER TABLE tokens ADD COLUMN may_act ${t.json}`],
};
