// How the MCP tools upload files (#41 part 5), apart from the tools (files.ts) so the tool context
// can name it: over HTTP for `svc mcp` (client/files.ts), in process for /v1/mcp.

/** A stored upload as the tools see it. */
export interface StoredFile {
  file_id: string;
  name: string;
  content_type: string;
  size: number;
}

/** A one-time upload URL (POST /v1/files/upload-urls). */
export interface UploadUrl {
  upload_url: string;
  method: 'PUT';
  expires_at: string;
  max_bytes: number;
}

/** How the tools upload: over HTTP (svc mcp) or in process (/v1/mcp). */
export interface FilesPort {
  upload(bytes: Buffer, o: { name: string; contentType?: string | undefined }): Promise<StoredFile>;
  uploadUrl(o: { name: string; contentType?: string | undefined }): Promise<UploadUrl>;
}
