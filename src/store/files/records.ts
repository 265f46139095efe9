// What the files concern stores (#41): a record per upload, naming its blob (by SHA-256, kept by a
// blob store: src/files/blobs/), and the messages that reference it. A file is readable by whoever
// may read one of those messages; an upload no message references is collected an hour after it
// was made (src/files/ decides both; the store keeps the facts).

/** One uploaded file. */
export interface FileRecord {
  /** `file_<ulid>`. */
  id: string;
  /** The blob's name: its content's SHA-256, hex. */
  sha256: string;
  size: number;
  content_type: string;
  name: string;
  created_at: string;
  /** The credential that uploaded it (`Principal.credentialKey`): it may read the file while it exists. */
  uploaded_by: string;
  /**
   * A file of a paired network that a relayed message named without its bytes (#41 part 6): its
   * home network and id there. Its blob is fetched over the pairing on the first download, then
   * kept here by its hash like any other.
   */
  remote?: {
    network_id: string;
    file_id: string;
    /**
     * This network kept bytes of that hash already when the reference was made: they are served
     * for it only once the peer has sent them (src/files/remote.ts), so a peer naming the hash of
     * a file it never had gets nothing of this network's.
     */
    prove?: true;
  };
}

/** A message that references a file (a `file` part), with its conversation key (`room:<id>`, ...). */
export interface FileRef {
  file_id: string;
  message_id: string;
  conv: string;
}

/** What the files part offers to readers (`store.part(filesPart)`). */
export interface FileReads {
  get(id: string): Promise<FileRecord | undefined>;
  /** The messages that reference a file, oldest first. */
  refs(fileId: string): Promise<FileRef[]>;
  /** The files these messages reference (`svc store copy` and export carry them with the messages). */
  refsOfMessages(messageIds: readonly string[]): Promise<FileRef[]>;
  /**
   * Files no message references, made before `before` (ISO time), oldest first; a file a deleted,
   * redacted or purged message referenced comes first whatever its age.
   */
  unreferenced(before: string, limit: number): Promise<FileRecord[]>;
  /** How many files name this blob (0: it may go). */
  blobUsers(sha256: string): Promise<number>;
}
