// What the applied-hooks concern stores (#28): the webhooks and inbound hooks `svc apply` declared.

/**
 * A webhook or inbound hook declared by `svc apply` (#28), kept in the store so every instance on it
 * and a restart see it. `body` is the resolved declaration as JSON, secret included: the store holds
 * it as svc.yaml's environment holds the others.
 */
export interface AppliedHookRecord {
  kind: 'webhook' | 'inbound_hook';
  id: string;
  body: string;
  applied_at: string;
}

/** What the applied-hooks part offers to readers (`store.part(hooksPart)`). */
export interface HookReads {
  /** Every applied hook, by kind then id. */
  list(): Promise<AppliedHookRecord[]>;
}
