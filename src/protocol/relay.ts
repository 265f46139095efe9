// Wire names shared by the relay (src/relay/) and its clients (src/pairing/relay-client.ts).

/** The header a peer sends a relay-wide access token in (the Authorization header binds the room). */
export const RELAY_ACCESS_HEADER = 'x-relay-access-token';
