// The 401 challenge of /v1/mcp points at the path-suffixed metadata (RFC 9728 section 5.1).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { bearerChallenge, protectedResourceMetadata } from '../../src/oauth/metadata.js';

test('the challenge names the resource metadata URL of /v1/mcp', () => {
  assert.is(
    bearerChallenge('https://a.example'),
    'Bearer resource_metadata="https://a.example/.well-known/oauth-protected-resource/v1/mcp"',
  );
});

test('the metadata binds the resource to /v1/mcp on the given base and names the base as issuer', () => {
  const m = protectedResourceMetadata('https://a.example', 'Net');
  assert.is(m.resource, 'https://a.example/v1/mcp');
  assert.equal(m.authorization_servers, ['https://a.example/oauth']);
  assert.is(m.resource_name, 'Net');
});

test.run();
