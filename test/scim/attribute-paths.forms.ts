import fc from 'fast-check';
import { type Change, CORE, type Email, ENTERPRISE, ENTERPRISE_PARTS, NAME_PARTS, type Simple } from './attribute-paths.model.ts';

/**
 * Changes of the model, each with the request that makes it in one of the forms RFC 7644
 * allows: a PATCH path short or fully qualified (in any case, RFC 7643 §2.1), a value filter,
 * the keys of a path-less value object (short, dotted, qualified, or a schema URN holding the
 * attributes), the core URN as path, and PUT bodies mixing these.
 */
export interface Step {
  change: Change;
  method: 'PATCH' | 'PUT';
  body: unknown;
}

const PATCH_SCHEMA = 'urn:ietf:params:scim:api:messages:2.0:PatchOp';
const WORK_VALUE = 'emails[type eq "work"].value';

/** Upper- or lower-cases a path or key outside its quoted filter values (those are values, not names). */
function cased(text: string, variant: 'as-is' | 'lower' | 'upper'): string {
  if (variant === 'as-is') return text;
  return text
    .split('"')
    .map((part, i) => (i % 2 === 1 ? part : variant === 'lower' ? part.toLowerCase() : part.toUpperCase()))
    .join('"');
}

const isEnterprise = (a: Simple) => ENTERPRISE_PARTS.includes(a);
const isNamePart = (a: Simple) => NAME_PARTS.includes(a);
const shortPath = (a: Simple) => (isNamePart(a) ? `name.${a}` : a);
const qualifiedPath = (a: Simple) => (isEnterprise(a) ? `${ENTERPRISE}:${a}` : `${CORE}:${shortPath(a)}`);
/** The attribute as members of its schema's object: `{name: {givenName: v}}`, `{active: v}`. */
const nested = (a: Simple, v: unknown): Record<string, unknown> => (isNamePart(a) ? { name: { [a]: v } } : { [a]: v });

const patch = (...Operations: unknown[]) => ({ schemas: [PATCH_SCHEMA], Operations });
const variants = fc.constantFrom('as-is' as const, 'lower' as const, 'upper' as const);
const ops = fc.constantFrom('replace', 'add', 'Replace');

/** Deep-cases every member name of a value object (values untouched). */
function casedKeys(value: unknown, variant: 'as-is' | 'lower' | 'upper'): unknown {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [cased(k, variant), casedKeys(v, variant)]));
}

/** `{op, path, value}` or a path-less value object, in one of the allowed shapes. */
function setStep(change: Change, a: Simple | 'workEmail' | 'emails', value: unknown): fc.Arbitrary<Step> {
  const path = a === 'workEmail' ? WORK_VALUE : a === 'emails' ? 'emails' : shortPath(a);
  const qualified = a === 'workEmail' || a === 'emails' ? `${CORE}:${path}` : qualifiedPath(a);
  const inSchema: Record<string, unknown> =
    a === 'workEmail' || a === 'emails' ? { [CORE]: { [path]: value } } : isEnterprise(a) ? { [ENTERPRISE]: { [a]: value } } : { [CORE]: nested(a, value) };
  const shapes: [string | undefined, unknown][] = [
    [path, value],
    [qualified, value],
    [undefined, { [path]: value }],
    [undefined, { [qualified]: value }],
    [undefined, inSchema],
    [CORE, a === 'workEmail' || a === 'emails' || isEnterprise(a) ? { [path]: value } : nested(a, value)],
  ];
  return fc.tuple(fc.constantFrom(...shapes), ops, variants).map(([[p, v], op, variant]) => ({
    change,
    method: 'PATCH' as const,
    body: patch(p === undefined ? { op, value: casedKeys(v, variant) } : { op, path: cased(p, variant), value: p === CORE ? casedKeys(v, variant) : v }),
  }));
}

const word = fc.constantFrom('ada', 'Grace', 'hopper', 'K. Lovelace', '42', 'x-7');
const address = fc.constantFrom('ada@contoso.example', 'g.hopper@fabrikam.example', 'Kay@Example.org', 'z@z.example');
const email: fc.Arbitrary<Email> = fc.record(
  { value: address, type: fc.constantFrom('work', 'home', 'other'), primary: fc.boolean() },
  { requiredKeys: ['value'] },
);
const emailList = fc.array(email, { maxLength: 3 });
const simple = fc.constantFrom<Simple>('active', 'externalId', 'displayName', 'givenName', 'familyName', 'employeeNumber', 'department');

/** A value for `a`; active also as Entra's strings. userName values are made unique per run by `userNameOf`. */
function drawnValue(a: Simple, userNameOf: (tag: string) => string): fc.Arbitrary<{ model: string | boolean; sent: unknown }> {
  if (a === 'active') return fc.boolean().chain((b) => fc.constantFrom({ model: b, sent: b }, { model: b, sent: b ? 'True' : 'False' }));
  if (a === 'userName') return fc.constantFrom('u1', 'u2', 'u3').map((tag) => ({ model: userNameOf(tag), sent: userNameOf(tag) }));
  return word.map((w) => ({ model: w, sent: w }));
}

export function stepArbitrary(userNameOf: (tag: string) => string): fc.Arbitrary<Step> {
  const set = fc
    .oneof(simple, fc.constant<Simple>('userName'))
    .chain((a) =>
      fc
        .oneof({ weight: 3, arbitrary: drawnValue(a, userNameOf) }, { weight: a === 'userName' ? 0 : 1, arbitrary: fc.constant({ model: null, sent: null }) })
        .chain(({ model, sent }) => setStep({ kind: 'set', attribute: a, value: model }, a, sent)),
    );
  const remove = fc.tuple(simple, fc.boolean(), variants).map(([a, qualified, variant]) => ({
    change: { kind: 'remove' as const, attribute: a },
    method: 'PATCH' as const,
    body: patch({ op: 'remove', path: cased(qualified ? qualifiedPath(a) : shortPath(a), variant) }),
  }));
  const workEmail = fc.option(address, { nil: null }).chain((value) => setStep({ kind: 'workEmail', value }, 'workEmail', value));
  const removeWorkValue = fc.tuple(fc.boolean(), variants).map(([qualified, variant]) => ({
    change: { kind: 'removeWorkEmailValue' as const },
    method: 'PATCH' as const,
    body: patch({ op: 'remove', path: cased(qualified ? `${CORE}:${WORK_VALUE}` : WORK_VALUE, variant) }),
  }));
  const emails = fc.tuple(emailList, fc.constantFrom('replace' as const, 'add' as const), fc.boolean(), variants).map(([list, op, qualified, variant]) => ({
    change: { kind: 'emails' as const, op, list },
    method: 'PATCH' as const,
    body: patch({ op, path: cased(qualified ? `${CORE}:emails` : 'emails', variant), value: list }),
  }));
  const put = putArbitrary(userNameOf);
  return fc.oneof(
    { weight: 6, arbitrary: set },
    { weight: 2, arbitrary: remove },
    { weight: 2, arbitrary: workEmail },
    { weight: 1, arbitrary: removeWorkValue },
    { weight: 1, arbitrary: emails },
    { weight: 2, arbitrary: put },
  );
}

/** A PUT of a whole User, each attribute placed short, under the core URN object, or fully qualified. */
function putArbitrary(userNameOf: (tag: string) => string): fc.Arbitrary<Step> {
  const placement = fc.constantFrom('short' as const, 'schema' as const, 'qualified' as const);
  const attribute = (a: Simple) => fc.option(fc.tuple(drawnValue(a, userNameOf), placement), { nil: undefined });
  return fc
    .record({
      userName: fc.tuple(drawnValue('userName', userNameOf), placement),
      active: attribute('active'),
      externalId: attribute('externalId'),
      displayName: attribute('displayName'),
      givenName: attribute('givenName'),
      familyName: attribute('familyName'),
      employeeNumber: attribute('employeeNumber'),
      department: attribute('department'),
      emails: fc.tuple(emailList, placement),
    })
    .map((chosen) => {
      const body: Record<string, any> = { schemas: [CORE] };
      const values: Partial<Record<Simple, string | boolean>> = {};
      const place = (key: string, value: unknown, where: 'short' | 'schema' | 'qualified', schema: string) => {
        if (where === 'short') body[key] = value;
        else if (where === 'qualified') body[`${schema}:${key}`] = value;
        else body[schema] = { ...body[schema], [key]: value };
      };
      for (const [a, picked] of Object.entries(chosen) as [Simple | 'emails', any][]) {
        if (a === 'emails' || picked === undefined || isNamePart(a)) continue;
        const [{ model, sent }, where] = picked;
        values[a] = model;
        place(a, sent, where, isEnterprise(a) ? ENTERPRISE : CORE);
      }
      const name = Object.fromEntries(NAME_PARTS.filter((p) => chosen[p as 'givenName'] !== undefined).map((p) => [p, chosen[p as 'givenName']![0].model]));
      Object.assign(values, name);
      if (Object.keys(name).length > 0) place('name', name, chosen.givenName?.[1] ?? chosen.familyName![1], CORE);
      const [list, where] = chosen.emails;
      if (list.length > 0) place('emails', list, where, CORE);
      return { change: { kind: 'put' as const, values, emails: list }, method: 'PUT' as const, body };
    });
}
