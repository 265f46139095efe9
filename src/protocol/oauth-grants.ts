// Wire types of the OAuth grants admin API (#27 part 2): schemas/api/oauth-grant.schema.json.

/** One grant: what a person approved for an OAuth client. */
export interface OAuthGrant {
  id: string;
  /** The client, with its registered name when it gave one. */
  client: { id: string; name?: string };
  /** The agent the client acts as. */
  agent_id: string;
  scopes: string[];
  created_at: string;
  expires_at?: string;
}

export interface OAuthGrantList {
  grants: OAuthGrant[];
}

export interface OAuthGrantRevoked {
  revoked: true;
  id: string;
}
