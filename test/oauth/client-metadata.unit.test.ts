// Client ID metadata documents (src/oauth/client-metadata.ts, metadata-fetch.ts) and the audience
// check of access tokens (access-tokens.ts): pure rules, and the fetcher's refusals before any request
// (the private-address rule is the one of src/protocol/private-address.ts).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { boundTo } from '../../src/oauth/access-tokens.js';
import { clientFromDocument, isUrlClientId } from '../../src/oauth/client-metadata.js';
import { metadataFetcher } from '../../src/oauth/metadata-fetch.js';
import { isPrivateAddress } from '../../src/protocol/private-address.js';

const ID = 'https://app.example/oauth/client.json';

test('a URL client_id is https with a path and no fragment or credentials', () => {
  assert.ok(isUrlClientId(ID));
  for (const id of [
    'http://app.example/client.json',
    'https://app.example/',
    'https://app.example/c#x',
    'https://u:p@app.example/c',
    'abc',
  ])
    assert.not.ok(isUrlClientId(id), id);
});

test('a document that names itself gives a public client with only the known fields', () => {
  const r = clientFromDocument(ID, {
    client_id: ID,
    client_name: 'App',
    redirect_uris: ['http://127.0.0.1:3000/cb'],
    token_endpoint_auth_method: 'private_key_jwt',
    jwks_uri: 'https://app.example/jwks',
  });
  assert.ok(r.ok);
  if (r.ok) {
    assert.is(r.client.token_endpoint_auth_method, 'none');
    assert.is(r.client.client_name, 'App');
    assert.is(r.client.jwks_uri, undefined);
  }
});

test('a document for another client_id, without redirect_uris, or not an object is refused', () => {
  assert.not.ok(clientFromDocument(ID, { client_id: 'https://evil.example/c.json', redirect_uris: ['https://x/cb'] }).ok);
  assert.not.ok(clientFromDocument(ID, { client_id: ID }).ok);
  assert.not.ok(clientFromDocument(ID, [ID]).ok);
  assert.not.ok(clientFromDocument(ID, undefined).ok);
});

test('private, loopback, link-local and unique-local addresses are private; public ones are not', () => {
  for (const ip of [
    '10.1.2.3',
    '127.0.0.1',
    '172.16.0.1',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '::1',
    'fd00::1',
    'fe80::1',
    '::ffff:10.0.0.1',
  ])
    assert.ok(isPrivateAddress(ip), ip);
  for (const ip of ['93.184.216.34', '172.32.0.1', '2606:4700::1']) assert.not.ok(isPrivateAddress(ip), ip);
});

test('the fetcher refuses http and, unless allowed, private addresses before sending anything', async () => {
  const strict = metadataFetcher(() => false);
  assert.is(await strict('http://93.184.216.34/client.json'), undefined);
  assert.is(await strict('https://127.0.0.1:9/client.json'), undefined);
  assert.is(await strict('https://[::1]:9/client.json'), undefined);
});

test('an access token counts for one resource only: its audience must be exactly it', () => {
  const r = 'https://svc.example/v1/mcp';
  assert.ok(boundTo({ aud: r }, r));
  assert.ok(boundTo({ aud: [r] }, r));
  assert.not.ok(boundTo({ aud: 'https://other.example/v1/mcp' }, r));
  assert.not.ok(boundTo({ aud: [r, 'https://other.example/v1/mcp'] }, r));
  assert.not.ok(boundTo({}, r));
});

test.run();
