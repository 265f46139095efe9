// svc agents grants [revoke ID]: what people approved for OAuth clients (which client acts as which
// agent, with what scopes, until when), and taking it back, through /v1/oauth/grants (admin).

import { json, list, table } from '../../format.js';
import { EXIT, type Io } from '../../io.js';
import { withClient, type ClientFlags } from '../../with-client.js';

/** `svc agents grants [revoke ID]`: lists without an action, revokes with `revoke ID`. */
export function grantsCommand(io: Io, action: string | undefined, id: string | undefined, flags: ClientFlags): Promise<number> {
  if (action === undefined) return grantsList(io, flags);
  if (action === 'revoke' && id) return grantsRevoke(io, id, flags);
  io.err(
    action === 'revoke'
      ? 'svc agents grants revoke: which grant? (svc agents grants lists them)'
      : `svc agents grants: unknown action ${action} (use: svc agents grants, or svc agents grants revoke ID)`,
  );
  return Promise.resolve(EXIT.usage);
}

/** Prints the grants as a table, or `{grants}` with --json. */
export function grantsList(io: Io, flags: ClientFlags): Promise<number> {
  return withClient(io, 'agents grants', flags, async (client) => {
    const { grants } = await client.listOAuthGrants();
    if (flags.json) {
      io.out(json({ grants }));
      return EXIT.ok;
    }
    if (grants.length === 0) {
      io.out('no OAuth grants (an MCP client gets one when a person approves it in the console)');
      return EXIT.ok;
    }
    const c = io.color;
    for (const line of table(c, grants, [
      { header: 'ID', value: (g) => g.id, style: (s) => c.cyan(s) },
      { header: 'CLIENT', value: (g) => (g.client.name ? `${g.client.name} (${g.client.id})` : g.client.id) },
      { header: 'AGENT', value: (g) => g.agent_id },
      { header: 'SCOPES', value: (g) => list(g.scopes) },
      { header: 'CREATED', value: (g) => g.created_at },
      { header: 'EXPIRES', value: (g) => g.expires_at ?? '-', style: (s) => c.dim(s) },
    ]))
      io.out(line);
    return EXIT.ok;
  });
}

/** Revokes one grant: it and every token of it stop working; the client must ask again. */
export function grantsRevoke(io: Io, id: string, flags: ClientFlags): Promise<number> {
  return withClient(io, 'agents grants revoke', flags, async (client) => {
    const r = await client.revokeOAuthGrant(id);
    if (flags.json) io.out(json(r));
    else io.out(`${io.color.red('revoked')} grant ${r.id} (its tokens no longer work; the client must be approved again)`);
    return EXIT.ok;
  });
}
