// One part of a multipart message (SPEC, Part). Re-exported by ./types.js.

export type PartKind = 'text' | 'url' | 'data' | 'file' | 'image' | 'audio';

export interface Part {
  kind: PartKind;
  text?: string;
  url?: string;
  media_type?: string;
  filename?: string;
  data?: Record<string, unknown>;
  /** A `file` part naming an uploaded file (POST /v1/files): its id; the server fills the three below from it. */
  file_id?: string;
  /** The uploaded file's name. */
  name?: string;
  /** The uploaded file's content type. */
  content_type?: string;
  /** The uploaded file's size in bytes. */
  size?: number;
  /**
   * A file a paired network relays without its bytes (#41 part 6): its id and hash on its home
   * network. Only on a relayed message (one with `origin`); the receiving network stores the part
   * as a reference of its own (a `file_id` there) and fetches the bytes on the first download.
   */
  origin_file?: { file_id: string; sha256: string };
}
