import { applyPatch } from './patch.ts';
import { USER_SCHEMA } from './schema.ts';
import { isCoreSchema } from './schema-urns.ts';
import { ScimError } from './scim-error.ts';

type Attributes = Record<string, unknown>;

/**
 * Migration 12's rule for one User release 11 stored with a member keyed by the core schema URN
 * (issue 24 item 3): each attribute under it is applied to the User as the `replace` the provider
 * meant it to be, and the member goes. undefined when the User holds no such member.
 *
 * The order of the provider's requests is not known, so a deactivation wins: `active` under
 * the URN that is not true (false, `"False"`, or a value no boolean) deactivates, and a true one
 * does not undo a deactivation the User already holds. A value the User schema cannot hold is
 * dropped, never a reason to keep the member or to stop the upgrade.
 */
export function foldCoreSchemaMember(attributes: Attributes): { attributes: Attributes; deactivated: boolean } | undefined {
  const keys = Object.keys(attributes).filter(isCoreSchema);
  if (keys.length === 0) return undefined;
  let folded: Attributes = Object.fromEntries(Object.entries(attributes).filter(([key]) => !isCoreSchema(key)));
  let deactivated = attributes.active === false;
  for (const key of keys) {
    const member = attributes[key];
    if (typeof member !== 'object' || member === null || Array.isArray(member)) continue;
    for (const [name, value] of Object.entries(member)) {
      if (name.toLowerCase() === 'active') {
        deactivated ||= !(value === true || (typeof value === 'string' && value.toLowerCase() === 'true'));
        continue;
      }
      try {
        folded = applyPatch(folded, [{ op: 'replace', path: `${USER_SCHEMA}:${name}`, value }]);
      } catch (error) {
        if (!(error instanceof ScimError)) throw error;
      }
    }
  }
  return { attributes: { ...folded, active: !deactivated }, deactivated };
}
