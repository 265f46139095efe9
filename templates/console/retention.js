// A conversation's retention as the header shows it, in the words of `svc rooms get` (the console
// cannot import src/, so this mirrors protocol/retention.ts describeRetention and the CLI's
// retentionLine; test/browser/console-retention.test.ts checks both give the same lines). Pure.

/** Whether `p` limits anything (an empty `{}` is no policy). */
const limits = (p) => Boolean(p && (p.max_age || p.max_messages !== undefined));

/** A policy as one line (`30d, 1000 messages`), `forever` when it limits nothing. */
export function describeRetention(p) {
  const parts = [...(p?.max_age ? [p.max_age] : []), ...(p?.max_messages !== undefined ? [`${p.max_messages} messages`] : [])];
  return parts.length > 0 ? parts.join(', ') : 'forever';
}

/** The policy in force (a room's own fields over the network's, field by field) and whose it is. */
export function retentionLine(room, network) {
  const own = limits(room) ? room : undefined;
  const net = limits(network) ? network : undefined;
  const whose = own ? (net ? 'the room over the network' : 'the room') : net ? 'the network' : undefined;
  return whose ? `${describeRetention({ ...net, ...own })} (${whose})` : 'forever';
}
