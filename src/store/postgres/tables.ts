// The schema-qualified names one store uses, built once from `store.schema`.

import { quoteIdent } from './schema.js';

export interface Tables {
  schema: string;
  rooms: string;
  agents: string;
  messages: string;
  threads: string;
  dms: string;
  artifacts: string;
  message_versions: string;
  events: string;
  event_counter: string;
  pairing_state: string;
  agent_read_state: string;
  leases: string;
  instances: string;
  /** Any table of the schema by name, quoted and qualified (a stored concern names its own, parts.ts). */
  table: (name: string) => string;
  /** Prefix of prepared statement names (a pool serves one schema, so none is needed). */
  prefix: string;
  /** The LISTEN/NOTIFY channel of the schema's event feed. */
  channel: string;
}

export function tablesOf(schema: string): Tables {
  const S = quoteIdent(schema);
  const t = (name: string) => `${S}.${name}`;
  return {
    schema,
    rooms: t('rooms'),
    agents: t('agents'),
    messages: t('messages'),
    threads: t('threads'),
    dms: t('dms'),
    artifacts: t('artifacts'),
    message_versions: t('message_versions'),
    events: t('events'),
    event_counter: t('event_counter'),
    pairing_state: t('pairing_state'),
    agent_read_state: t('agent_read_state'),
    leases: t('leases'),
    instances: t('instances'),
    table: t,
    prefix: '',
    // Channel names are identifiers of at most 63 bytes; a collision only costs a spurious wake.
    channel: `svc_events.${schema}`.slice(0, 63),
  };
}
