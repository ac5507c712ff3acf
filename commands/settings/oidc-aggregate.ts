import { defineAggregate, type Evolution } from '../shared/aggregate.js';
import { notFound } from '../shared/domain-error.js';
import { parseOidcSettingsEvent, type OidcConfiguration, type OidcSettingsEvent } from './oidc-events.js';

/** The single sign-on configuration in force (its secret sealed), or null. */
export interface OidcSettingsState {
  configuration: OidcConfiguration | null;
}

const evolution: Evolution<OidcSettingsState, OidcSettingsEvent> = {
  category: 'settings',
  initial: { configuration: null },
  evolve(state, event) {
    switch (event.type) {
      case 'OidcConfigured':
        return { configuration: event.data };
      case 'OidcRemoved':
        return { configuration: null };
    }
  },
  parse: parseOidcSettingsEvent,
};

/** The route discovered the issuer before it decides: only a configuration whose provider answered is recorded. */
const decideConfigure = (_state: OidcSettingsState, configuration: OidcConfiguration): OidcSettingsEvent[] => [{ type: 'OidcConfigured', data: configuration }];

function decideRemove(state: OidcSettingsState): OidcSettingsEvent[] {
  if (!state.configuration) throw notFound('single sign-on configuration');
  return [{ type: 'OidcRemoved', data: {} }];
}

/** Single sign-on's settings and their command vocabulary. */
export const oidcSettings = defineAggregate(evolution, {
  configure: decideConfigure,
  remove: decideRemove,
});
