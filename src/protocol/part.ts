// One part of a multipart message (SPEC, Part). Re-exported by ./types.js.

export type PartKind = 'text' | 'url' | 'data' | 'file' | 'image' | 'audio';

export interface Part {
  kind: PartKind;
  text?: string;
  url?: string;
  media_type?: string;
  filename?: string;
  data?: Record<string, unknown>;
}
