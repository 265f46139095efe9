// The event types are one list (protocol/types.ts EVENT_TYPES); the Event schema of the OpenAPI
// document names them again as an enum, and must name exactly those.

import { readFileSync } from 'node:fs';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { EVENT_TYPES } from '../../src/protocol/types.js';

test("the Event schema's type enum is EVENT_TYPES", () => {
  const schema = JSON.parse(readFileSync(new URL('../../schemas/api/event.schema.json', import.meta.url), 'utf8'));
  assert.equal(schema.properties.type.enum, [...EVENT_TYPES]);
});

test.run();
