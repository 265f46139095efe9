// The folder name a client keeps one network's things under (kept agent tokens, `svc mcp` state,
// the client library's cursor files): `<network id>@<uid>`, the network's identity (GET /v1/network
// `uid`). One spelling for all three, so they agree on which network a folder belongs to. Pure.

/** `<networkId>@<uid>`, with any character a file name should not hold written as `_`. */
export function identityKey(networkId: string, uid: string): string {
  return `${networkId}@${uid}`.replace(/[^A-Za-z0-9.@_-]/g, '_');
}
