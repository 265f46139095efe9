// send_file and create_upload_url over /v1/mcp (#41 part 5): uploads in process as the caller,
// through what the files feature provides (network/file-uploads.ts), after the upload route's own
// check (auth/policy.ts); refusals become ClientErrors as the HTTP client would raise them.

import { authorize } from '../auth/policy.js';
import type { Principal } from '../auth/principal.js';
import { ClientError } from '../client/errors.js';
import { AppError } from '../errors.js';
import type { FilesPort } from '../mcp/files-port.js';
import type { NetworkContext } from '../network/context.js';

/** The tools' uploads acting as `principal`; undefined when the files feature is not running. */
export function inProcessFiles(ctx: NetworkContext, principal: Principal, baseUrl: string): FilesPort | undefined {
  const files = ctx.extensions.files;
  if (!files) return undefined;
  const as = async <T>(run: () => Promise<T> | T): Promise<T> => {
    try {
      // POST /v1/files's check: an upload is part of sending a message.
      const d = authorize(principal, 'message.send', ctx.config.auth);
      if (!d.allow) throw new AppError(d.status === 401 ? 'unauthorized' : 'forbidden', d.reason);
      return await run();
    } catch (err) {
      if (err instanceof AppError) throw new ClientError(err.message, err.status, err.code, undefined, { detail: err.message });
      throw err;
    }
  };
  return {
    upload: (bytes, o) => as(() => files.upload(principal, bytes, o)),
    uploadUrl: (o) => as(() => files.uploadUrl(principal, baseUrl, o)),
  };
}
