// The answer of POST /v1/backup, which is also the `backup.json` manifest of the folder it wrote
// (#40 part 6; docs/operations.md "Backup and restore").

export interface BackupManifest {
  /** The manifest's format (1); `svc restore` refuses another. */
  format: number;
  network_id: string;
  /** The network's unique id kept in its store (network/uid.ts). */
  network_uid?: string;
  svc_version: string;
  /** The store's schema version. */
  schema_version: number;
  /** The folder on the server's machine. */
  dir: string;
  /** The database file's name (`svc.db`); the journal generations are named after it. */
  store_file: string;
  taken_at: string;
  /**
   * The store's last event seq the backup holds (what the restored store answers as its last;
   * absent in backups taken before svc wrote it).
   */
  last_seq?: number;
  /** Each file copied (`svc.db`, the journal generations of the tail) and its size. */
  files: { name: string; bytes: number }[];
  /** Bytes copied, all files. */
  bytes: number;
  /** Uploaded files (#41) copied into `files/` of the folder, after the manifest: the answer has them, backup.json does not. */
  files_copied?: number;
  files_bytes?: number;
}
