// The package's public client surface (`svc/client`): the typed HTTP client (svc-client.ts), the
// attachment client and its parts. Only re-exports, so the parts never import this face.

export * from './svc-client.js';
export { ClientError } from './errors.js';
export { filePart, safeFileName, type FilePartBody, type FileTransfers, type OpenedDownload, type UploadedFile } from './files.js';
export type { EventFollower, FollowOptions } from './events.js';
export { attach } from './attach.js';
export { AttachError } from './attach-types.js';
export type { AttachCapabilities, AttachedEvent, AttachOptions, AttachStatus, Attachment, ReadyInfo } from './attach-types.js';
export { CursorFileError, defaultCursorFile, fileCursorStore, memoryCursorStore } from './cursor-store.js';
export type { CursorKey, CursorStore } from './cursor-store.js';
export { conversationOf, sessionKeyOf, wakeReasonOf } from './attach-wake.js';
export type { AgentIdentity, WakeReason } from './attach-wake.js';
export { preflightProblem } from './attach-preflight.js';
export { agentOfToken } from './attach-whoami.js';
export type * from '../protocol/types.js';
