import { z } from 'zod';
import { eventParser, type EventsOf } from '../shared/event.js';
import { installationRole } from '../user/roles.js';

/**
 * Single sign-on through one OpenID provider. The client secret is sealed under the settings' data key, like
 * the other settings secrets; everything else may be shown to the installation's owners.
 */
export const oidcSettingsEvents = {
  OidcConfigured: z.object({
    issuer: z.string(),
    clientId: z.string(),
    /** Sealed. */
    clientSecret: z.string(),
    /** What the sign-in page's button says: "Sign in with <name>". */
    name: z.string(),
    /** E-mail domains that may sign in; empty: any. */
    allowedDomains: z.array(z.string()),
    /** The role of a person signing in for the first time whose groups give none; null: they are refused. */
    defaultRole: installationRole.nullable(),
    groupsClaim: z.string().nullable(),
    /** Provider group → installation role; the highest of a person's groups wins. */
    groupRoles: z.record(z.string(), installationRole),
  }),
  OidcRemoved: z.object({}),
};
export type OidcSettingsEvent = EventsOf<typeof oidcSettingsEvents>;
export const parseOidcSettingsEvent = eventParser(oidcSettingsEvents);
/** The stream `settings-oidc`: beside the installation's other settings, its own aggregate. */
export const OIDC_SETTINGS_ID = 'oidc';
export type OidcConfiguration = Extract<OidcSettingsEvent, { type: 'OidcConfigured' }>['data'];
